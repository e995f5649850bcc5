# Debian's libcaf-dev 0.17 ships no CMake package and no .pc file: find the libraries by hand
# and create imported targets CAF::core, CAF::io, CAF::openssl.
find_path(CAF_INCLUDE_DIR caf/all.hpp)
find_library(CAF_CORE_LIBRARY caf_core)
find_library(CAF_IO_LIBRARY caf_io)
find_library(CAF_OPENSSL_LIBRARY caf_openssl)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CAF REQUIRED_VARS CAF_INCLUDE_DIR CAF_CORE_LIBRARY CAF_IO_LIBRARY)
foreach(part core io openssl)
  string(TOUPPER ${part} upper)
  if(CAF_${upper}_LIBRARY AND NOT TARGET CAF::${part})
    add_library(CAF::${part} UNKNOWN IMPORTED)
    set_target_properties(CAF::${part} PROPERTIES IMPORTED_LOCATION "${CAF_${upper}_LIBRARY}"
                          INTERFACE_INCLUDE_DIRECTORIES "${CAF_INCLUDE_DIR}")
  endif()
endforeach()
if(TARGET CAF::io)
  set_property(TARGET CAF::io APPEND PROPERTY INTERFACE_LINK_LIBRARIES CAF::core)
endif()
