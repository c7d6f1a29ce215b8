# SPDX-License-Identifier: Apache-2.0
# inferd_cc_library / inferd_cc_test, in the spirit of absl_cc_library:
# every target of ours gets the same include root, standard and warnings.

set(INFERD_WARNINGS -Wall -Wextra -Wno-unused-parameter)
if(INFERD_WERROR)
  list(APPEND INFERD_WARNINGS -Werror)
endif()

function(inferd_apply_defaults target)
  target_compile_features(${target} PUBLIC cxx_std_20)
  target_compile_options(${target} PRIVATE ${INFERD_WARNINGS})
endfunction()

# inferd_cc_library(NAME n HDRS ... SRCS ... DEPS ... [TESTONLY])
function(inferd_cc_library)
  cmake_parse_arguments(ARG "TESTONLY" "NAME" "HDRS;SRCS;DEPS" ${ARGN})
  if(ARG_SRCS)
    add_library(inferd_${ARG_NAME} STATIC ${ARG_SRCS} ${ARG_HDRS})
    target_include_directories(inferd_${ARG_NAME} PUBLIC ${PROJECT_SOURCE_DIR}/src
                                                         ${PROJECT_SOURCE_DIR}/include)
    target_link_libraries(inferd_${ARG_NAME} PUBLIC ${ARG_DEPS})
    set_target_properties(inferd_${ARG_NAME} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    inferd_apply_defaults(inferd_${ARG_NAME})
  else()
    add_library(inferd_${ARG_NAME} INTERFACE)
    target_include_directories(inferd_${ARG_NAME} INTERFACE ${PROJECT_SOURCE_DIR}/src
                                                            ${PROJECT_SOURCE_DIR}/include)
    target_link_libraries(inferd_${ARG_NAME} INTERFACE ${ARG_DEPS})
  endif()
  add_library(inferd::${ARG_NAME} ALIAS inferd_${ARG_NAME})
endfunction()

# inferd_cc_test(NAME n SRCS ... DEPS ... [LABELS ...])
function(inferd_cc_test)
  if(NOT INFERD_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "NAME" "SRCS;DEPS;LABELS" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SRCS})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_DEPS} GTest::gmock GTest::gtest_main)
  inferd_apply_defaults(${ARG_NAME})
  set_target_properties(${ARG_NAME} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
  add_test(NAME ${ARG_NAME} COMMAND ${ARG_NAME})
  if(NOT ARG_LABELS)
    set(ARG_LABELS unit)
  endif()
  set_tests_properties(${ARG_NAME} PROPERTIES LABELS "${ARG_LABELS}")
endfunction()
