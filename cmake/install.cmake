# The CMake package (docs/embedding.md "Building against the package"): `cmake --install BUILD
# --prefix P` gives an application find_package(uactor 0.3 REQUIRED) and the target uactor::uactor.
#
#   P/lib/libuactor_{protocol,security,nodeset,scripting,history,*engine*,actors,runtime}.a   the layers, static
#   P/include/uactor/*.hpp                                 the public API (<uactor/runtime.hpp>)
#   P/include/uactor/ua/*.hpp                              its vocabulary: node ids, variants, status
#                                                          codes, the services' structures
#   P/lib/cmake/uactor/                                    uactorConfig.cmake, its version file,
#                                                          uactorTargets.cmake, FindCAF.cmake
#   P/bin/uactor, P/bin/uactor-load                        the CLI (`uactor certs` for a PKI folder)
#
# What is not installed: the allocation hook of the executables (runtime/alloc_hook.cpp replaces
# operator new/delete: an application keeps its own allocator), the process figures of the load
# harness, the scenarios, the tests.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(UACTOR_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/uactor)

# uactor::uactor: what an application links, in the tree (alias) and installed (exported as
# uactor::uactor). uactor_runtime brings the layers below it; the include directories come with
# uactor_protocol (protocol/CMakeLists.txt, both trees). The target `uactor` is the executable.
add_library(uactor_library INTERFACE)
target_link_libraries(uactor_library INTERFACE uactor_runtime)
# Also on uactor_protocol (which every layer links), named here too: what an application includes.
target_include_directories(uactor_library INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
set_target_properties(uactor_library PROPERTIES EXPORT_NAME uactor)
add_library(uactor::uactor ALIAS uactor_library)

# Installed names: uactor::protocol, uactor::security, uactor::nodeset, uactor::actors, uactor::runtime.
foreach(layer protocol security nodeset scripting history pubsub engine_common server_engine client_engine actors runtime)
  set_target_properties(uactor_${layer} PROPERTIES EXPORT_NAME ${layer})
endforeach()

install(TARGETS uactor_protocol uactor_security uactor_nodeset uactor_scripting uactor_history uactor_pubsub uactor_engine_common uactor_server_engine
                uactor_client_engine uactor_actors uactor_runtime uactor_library
        EXPORT uactorTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS uactor uactor-load uactor-worker RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/uactor/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/uactor
        FILES_MATCHING PATTERN "*.hpp")

install(EXPORT uactorTargets NAMESPACE uactor:: DESTINATION ${UACTOR_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/uactorConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/uactorConfig.cmake
                              INSTALL_DESTINATION ${UACTOR_INSTALL_CMAKEDIR})
# SameMinorVersion: before 1.0 a minor release may change the API (0.1 -> 0.2 and 0.2 -> 0.3 did),
# so find_package(uactor 0.3) accepts 0.3.x and refuses 0.4; AnyNewerVersion would accept a 0.4 that
# breaks the application at compile time instead of at find_package.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/uactorConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/uactorConfig.cmake ${PROJECT_BINARY_DIR}/uactorConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/FindCAF.cmake
        DESTINATION ${UACTOR_INSTALL_CMAKEDIR})
