# SPDX-License-Identifier: Apache-2.0
# Finds ONNX Runtime under ONNXRUNTIME_ROOT (env or cache), laid out as
#   <root>/include/onnxruntime_c_api.h ...   <root>/lib/libonnxruntime.so
# scripts/fetch_onnxruntime.sh fills .deps/onnxruntime this way from the
# official build (npm onnxruntime-node) and Debian trixie's headers.
if(NOT ONNXRUNTIME_ROOT)
  if(DEFINED ENV{ONNXRUNTIME_ROOT})
    set(ONNXRUNTIME_ROOT $ENV{ONNXRUNTIME_ROOT})
  else()
    set(ONNXRUNTIME_ROOT ${PROJECT_SOURCE_DIR}/.deps/onnxruntime)
  endif()
endif()
set(ONNXRUNTIME_ROOT ${ONNXRUNTIME_ROOT} CACHE PATH "ONNX Runtime install (include/ and lib/)")

find_path(ONNXRUNTIME_INCLUDE_DIR onnxruntime_c_api.h
  PATHS ${ONNXRUNTIME_ROOT}/include ${ONNXRUNTIME_ROOT}/include/onnxruntime NO_DEFAULT_PATH)
find_library(ONNXRUNTIME_LIBRARY onnxruntime PATHS ${ONNXRUNTIME_ROOT}/lib NO_DEFAULT_PATH)
if(NOT ONNXRUNTIME_INCLUDE_DIR OR NOT ONNXRUNTIME_LIBRARY)
  message(FATAL_ERROR "ONNX Runtime not found under ONNXRUNTIME_ROOT=${ONNXRUNTIME_ROOT}; "
                      "run `make setup` or point ONNXRUNTIME_ROOT at a release")
endif()
add_library(onnxruntime::onnxruntime SHARED IMPORTED)
get_filename_component(ONNXRUNTIME_LIBRARY_DIR ${ONNXRUNTIME_LIBRARY} DIRECTORY)
set_target_properties(onnxruntime::onnxruntime PROPERTIES
  IMPORTED_LOCATION ${ONNXRUNTIME_LIBRARY}
  INTERFACE_INCLUDE_DIRECTORIES ${ONNXRUNTIME_INCLUDE_DIR})
