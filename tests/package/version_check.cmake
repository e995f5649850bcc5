# What find_package(uactor REQUESTED) would make of the installed version file, without a project:
#   cmake -DVERSION_FILE=P/lib/cmake/uactor/uactorConfigVersion.cmake -DREQUESTED=0.2 -P version_check.cmake
# prints TRUE (compatible) or FALSE.
string(REPLACE "." ";" parts "${REQUESTED}")
list(LENGTH parts PACKAGE_FIND_VERSION_COUNT)
set(PACKAGE_FIND_VERSION "${REQUESTED}")
foreach(part MAJOR MINOR PATCH TWEAK)
  set(PACKAGE_FIND_VERSION_${part} 0)
endforeach()
set(i 0)
foreach(part MAJOR MINOR PATCH TWEAK)
  if(i LESS PACKAGE_FIND_VERSION_COUNT)
    list(GET parts ${i} PACKAGE_FIND_VERSION_${part})
  endif()
  math(EXPR i "${i} + 1")
endforeach()
set(CMAKE_SIZEOF_VOID_P 8)  # the version file also checks the pointer size of the consumer
include("${VERSION_FILE}")
if(PACKAGE_VERSION_COMPATIBLE AND NOT PACKAGE_VERSION_UNSUITABLE)
  message("TRUE")
else()
  message("FALSE")
endif()
