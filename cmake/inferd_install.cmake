# SPDX-License-Identifier: Apache-2.0
# `cmake --install <build> --prefix P` (and `make install`) lays out:
#   P/bin/inferd, P/bin/tritonserver (a symlink to it)
#   P/lib/backends/<name>/libinferd_<name>.so   the server's default --backend-directory
#   P/lib/libinferd.so.<major>                  the embedding C API (inferd/inferd.h)
#   P/lib/pkgconfig/inferd.pc                   pkg-config --cflags --libs inferd
#   P/include/inferd/*.h                        the backend ABI and the embedding API
#   P/lib/cmake/inferd/                         find_package(inferd): inferd::backend_api,
#                                               inferd::inferd (libinferd.so)
# lib/backends is fixed (not CMAKE_INSTALL_LIBDIR): the binary finds it as
# ../lib/backends beside itself, and libinferd.so as backends/ beside itself,
# so the library goes to lib/ too.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(INFERD_INSTALL_BACKEND_DIR lib/backends)
set(INFERD_INSTALL_CMAKE_DIR lib/cmake/inferd)

# The header-only target that out-of-tree backends link (inferd::backend_api).
add_library(inferd_backend_api INTERFACE)
add_library(inferd::backend_api ALIAS inferd_backend_api)
set_target_properties(inferd_backend_api PROPERTIES EXPORT_NAME backend_api)
target_include_directories(inferd_backend_api INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)

install(TARGETS inferd_backend_api EXPORT inferdTargets)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/inferd
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(TARGETS inferd RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# P/bin/tritonserver -> inferd: started by that name it runs `inferd serve`
# (src/cmd/main.cc), so manifests written for Triton run unchanged.
install(CODE "execute_process(COMMAND \${CMAKE_COMMAND} -E create_symlink inferd
  \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/tritonserver\")
  message(STATUS \"Installing: \$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/tritonserver -> inferd\")")

# libinferd.so (src/capi) with its SONAME link and the development link.
install(TARGETS inferd_capi EXPORT inferdTargets LIBRARY DESTINATION lib)
# pkg-config finds the prefix from the file's own place, so a tree installed
# with --prefix or DESTDIR anywhere is found where it is.
set(INFERD_PC_PREFIX "\${pcfiledir}/../..")
set(INFERD_PC_LIBDIR "\${prefix}/lib")
set(INFERD_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/inferd.pc.in ${PROJECT_BINARY_DIR}/cmake/inferd.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cmake/inferd.pc DESTINATION lib/pkgconfig)

# Every backend built in this tree, into <prefix>/lib/backends/<name>/. Their
# INSTALL_RPATH (e.g. ONNX Runtime's lib folder) is kept as set on the target.
# OPTIONAL: a tree where only some targets were built still installs.
foreach(_backend onnxruntime pytorch python)
  if(TARGET inferd_${_backend})
    install(TARGETS inferd_${_backend} OPTIONAL
      LIBRARY DESTINATION ${INFERD_INSTALL_BACKEND_DIR}/${_backend})
  endif()
endforeach()

# What `make serve` builds: the server and the backends examples/models uses,
# neither tests nor benchmarks, so a newcomer's first start takes minutes.
add_custom_target(serving)
add_dependencies(serving inferd)
foreach(_backend onnxruntime pytorch python)
  if(TARGET inferd_${_backend})
    add_dependencies(serving inferd_${_backend})
  endif()
endforeach()

install(EXPORT inferdTargets NAMESPACE inferd:: DESTINATION ${INFERD_INSTALL_CMAKE_DIR})

file(STRINGS ${PROJECT_SOURCE_DIR}/include/inferd/backend.h _abi_major
  REGEX "^#define INFERD_BACKEND_API_VERSION_MAJOR [0-9]+")
file(STRINGS ${PROJECT_SOURCE_DIR}/include/inferd/backend.h _abi_minor
  REGEX "^#define INFERD_BACKEND_API_VERSION_MINOR [0-9]+")
string(REGEX REPLACE ".* ([0-9]+)$" "\\1" INFERD_BACKEND_API_VERSION_MAJOR "${_abi_major}")
string(REGEX REPLACE ".* ([0-9]+)$" "\\1" INFERD_BACKEND_API_VERSION_MINOR "${_abi_minor}")

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/inferdConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/inferdConfig.cmake
  INSTALL_DESTINATION ${INFERD_INSTALL_CMAKE_DIR}
  PATH_VARS INFERD_INSTALL_BACKEND_DIR CMAKE_INSTALL_INCLUDEDIR)
# The package version is inferd's; what a backend must match at run time is the
# backend ABI major version (include/inferd/backend.h), checked by the server.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/inferdConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion ARCH_INDEPENDENT)
install(FILES ${PROJECT_BINARY_DIR}/cmake/inferdConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/inferdConfigVersion.cmake
  DESTINATION ${INFERD_INSTALL_CMAKE_DIR})
