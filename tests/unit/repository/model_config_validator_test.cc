// SPDX-License-Identifier: Apache-2.0
// Load-time validation (docs/configuration.md): every problem of a
// config is reported in one InvalidArgument message.
#include "repository/model_config_validator.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "repository/model_config_parser.h"

namespace inferd::repository {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr char kValid[] = R"pb(
  name: "m"
  backend: "onnxruntime"
  max_batch_size: 8 input
  [ {
    name: "x"
    data_type: TYPE_FP32
    dims: [ -1, 4 ]
  }] output
  [ {
    name: "y"
    data_type: TYPE_FP32
    dims: [ 4 ]
  }])pb";

absl::Status Validate(const std::string& text) {
  auto parsed = ParseModelConfig(text, "config.pbtxt");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return ValidateModelConfig(parsed.ok() ? *parsed : inference::ModelConfig(),
                             "/repo/m/config.pbtxt");
}

// The message of validating kValid plus `extra`; empty when it is valid.
std::string Problems(const std::string& extra) {
  const absl::Status status = Validate(std::string(kValid) + "\n" + extra);
  if (!status.ok()) {
    EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  }
  return std::string(status.message());
}

TEST(ModelConfigValidatorTest, ValidConfigPasses) {
  EXPECT_TRUE(Validate(kValid).ok());
  EXPECT_EQ(Problems("instance_group [ { kind: KIND_CPU count: 2 } ] dynamic_batching { "
                     "preferred_batch_size: [4, 8] }"),
            "");
}

TEST(ModelConfigValidatorTest, ResponseCacheIsRefusedForDecoupledModels) {
  EXPECT_EQ(Problems("response_cache { enable: true }"), "");
  EXPECT_EQ(Problems("model_transaction_policy { decoupled: true }"), "");
  // Triton's words.
  EXPECT_THAT(
      Problems("response_cache { enable: true } model_transaction_policy { decoupled: true }"),
      HasSubstr("response cache does not currently support model 'm' with 'decoupled' "
                "transaction policy"));
}

TEST(ModelConfigValidatorTest, ReportsEveryProblemAtOnce) {
  const absl::Status status = Validate(R"pb(
    name: "m"
    max_batch_size: -1 input
    [ {
      name: "a"
      dims: [ 0 ]
    }
      , {
        name: "a"
        data_type: TYPE_FP32
        dims: []
      }] output
    [ {
      data_type: TYPE_INT32
      dims: [ -2 ]
    }] instance_group
    [ { name: "g" kind: KIND_GPU }])pb");
  ASSERT_TRUE(absl::IsInvalidArgument(status));
  EXPECT_THAT(std::string(status.message()),
              AllOf(HasSubstr("/repo/m/config.pbtxt: invalid model config"),
                    HasSubstr("'max_batch_size' must be >= 0"),
                    HasSubstr("input 'a': 'data_type' must be set"),
                    HasSubstr("input 'a': dimension 0 is invalid"),
                    HasSubstr("input 'a': name is used twice"),
                    HasSubstr("input 'a': 'dims' must not be empty"),
                    HasSubstr("output #0: 'name' must be set"),
                    HasSubstr("output #0: dimension -2 is invalid"),
                    HasSubstr("instance_group 'g': KIND_GPU")));
}

TEST(ModelConfigValidatorTest, ModelNeedsInputsAndOutputs) {
  const absl::Status status = Validate("name: \"m\" backend: \"python\"");
  EXPECT_THAT(std::string(status.message()),
              AllOf(HasSubstr("the model has no inputs"), HasSubstr("the model has no outputs")));
}

TEST(ModelConfigValidatorTest, InputAndOutputMayShareAName) {
  EXPECT_EQ(Problems("output [ { name: \"x\" data_type: TYPE_FP32 dims: [ 1 ] } ]"), "");
}

TEST(ModelConfigValidatorTest, FormatNeedsThreeDims) {
  EXPECT_THAT(Problems("input [ { name: \"img\" data_type: TYPE_FP32 format: FORMAT_NHWC dims: [ "
                       "224, 224 ] } ]"),
              HasSubstr("input 'img': NHWC/NCHW format needs exactly 3 dims"));
  EXPECT_EQ(
      Problems(
          "input [ { name: \"img\" data_type: TYPE_FP32 format: FORMAT_NCHW dims: [ 3, 2, 2 ] } ]"),
      "");
}

TEST(ModelConfigValidatorTest, ShapeTensorsAreTensorRtOnly) {
  EXPECT_THAT(
      Problems("input [ { name: \"s\" data_type: TYPE_INT32 dims: [ 1 ] is_shape_tensor: true } ]"),
      HasSubstr("input 's': shape tensors are TensorRT only"));
}

TEST(ModelConfigValidatorTest, ReshapeWithEqualElementCounts) {
  EXPECT_EQ(
      Problems(
          "input [ { name: \"r\" data_type: TYPE_FP32 dims: [ 2, 3 ] reshape { shape: [ 6 ] } } ]"),
      "");
  EXPECT_EQ(Problems("input [ { name: \"r\" data_type: TYPE_FP32 dims: [ 2, 4, -1, 6 ] "
                     "reshape { shape: [ 8, -1, 1, 6 ] } } ]"),
            "");
  EXPECT_THAT(
      Problems(
          "input [ { name: \"r\" data_type: TYPE_FP32 dims: [ 2, 3 ] reshape { shape: [ 5 ] } } ]"),
      HasSubstr("input 'r': reshape does not have the same element count as dims"));
}

TEST(ModelConfigValidatorTest, ReshapeWildcardsMustLineUp) {
  // Different numbers of -1.
  EXPECT_THAT(Problems("input [ { name: \"r\" data_type: TYPE_FP32 dims: [ -1, 4 ] reshape { "
                       "shape: [ -1, -1 ] } } ]"),
              HasSubstr("reshape does not have the same element count"));
  // Same number of -1 but the fixed runs around it differ: 2 vs 3 before it.
  EXPECT_THAT(Problems("input [ { name: \"r\" data_type: TYPE_FP32 dims: [ 2, -1 ] reshape { "
                       "shape: [ 3, -1 ] } } ]"),
              HasSubstr("reshape does not have the same element count"));
  EXPECT_THAT(Problems("output [ { name: \"o\" data_type: TYPE_FP32 dims: [ -1, 4 ] reshape { "
                       "shape: [ 4, -1 ] } } ]"),
              HasSubstr("output 'o': reshape does not have the same element count"));
}

TEST(ModelConfigValidatorTest, ReshapeRejectsBadDimensions) {
  EXPECT_THAT(
      Problems(
          "input [ { name: \"r\" data_type: TYPE_FP32 dims: [ 1 ] reshape { shape: [ 0 ] } } ]"),
      HasSubstr("input 'r': reshape has an invalid dimension 0"));
}

// An empty reshape makes a one-element tensor a scalar to the model, batching
// or not (ONNX rank-0 tensors are completed that way).
TEST(ModelConfigValidatorTest, EmptyReshapeOnlyForSingleElementDims) {
  EXPECT_EQ(Problems("input [ { name: \"s\" data_type: TYPE_FP32 dims: [ 1 ] reshape { } } ]"), "");
  EXPECT_THAT(Problems("input [ { name: \"s\" data_type: TYPE_FP32 dims: [ 2 ] reshape { } } ]"),
              HasSubstr("an empty reshape is allowed only when dims hold one element"));
  EXPECT_THAT(Problems("input [ { name: \"s\" data_type: TYPE_FP32 dims: [ -1 ] reshape { } } ]"),
              HasSubstr("an empty reshape is allowed only when dims hold one element"));
  const absl::Status not_batching = Validate(R"pb(
    name: "m"
    max_batch_size: 0 input
    [ {
      name: "s"
      data_type: TYPE_FP32
      dims: [ 1 ]
      reshape: { shape: [] }
    }] output
    [ {
      name: "y"
      data_type: TYPE_FP32
      dims: [ 1 ]
      reshape: { shape: [] }
    }])pb");
  EXPECT_TRUE(not_batching.ok()) << not_batching;
}

TEST(ModelConfigValidatorTest, PreferredBatchSizes) {
  EXPECT_THAT(Problems("dynamic_batching { preferred_batch_size: [ 0, 4, 9 ] }"),
              AllOf(HasSubstr("preferred_batch_size 0 is outside [1, max_batch_size 8]"),
                    HasSubstr("preferred_batch_size 9 is outside")));
}

TEST(ModelConfigValidatorTest, PriorityLevels) {
  EXPECT_EQ(Problems("dynamic_batching { priority_levels: 2 default_priority_level: 2 "
                     "priority_queue_policy { key: 1 value { max_queue_size: 3 } } }"),
            "");
  EXPECT_THAT(Problems("dynamic_batching { priority_levels: 2 default_priority_level: 3 }"),
              HasSubstr("default_priority_level must be in [1, priority_levels]"));
  EXPECT_THAT(Problems("dynamic_batching { priority_levels: 2 default_priority_level: 1 "
                       "priority_queue_policy { key: 5 value { } } }"),
              HasSubstr("priority_queue_policy key 5 is outside [1, priority_levels]"));
  EXPECT_THAT(Problems("dynamic_batching { priority_levels: 2 default_priority_level: 1 "
                       "preserve_ordering: true }"),
              HasSubstr("preserve_ordering cannot be combined with several priority levels"));
  EXPECT_THAT(
      Problems(
          "dynamic_batching { preserve_ordering: true default_queue_policy { timeout_action: DELAY "
          "default_timeout_microseconds: 10 } }"),
      HasSubstr("preserve_ordering cannot be combined with a DELAY queue timeout"));
}

TEST(ModelConfigValidatorTest, InstanceGroups) {
  EXPECT_THAT(Problems("instance_group [ { name: \"c\" kind: KIND_CPU gpus: [ 0 ] } ]"),
              HasSubstr("instance_group 'c': 'gpus' is not allowed for KIND_CPU or KIND_MODEL"));
  EXPECT_THAT(Problems("instance_group [ { name: \"c\" kind: KIND_CPU count: -1 } ]"),
              HasSubstr("instance_group 'c': 'count' must not be negative"));
  EXPECT_THAT(Problems("instance_group [ { name: \"c\" kind: KIND_CPU profile: [ \"0\" ] } ]"),
              HasSubstr("instance_group 'c': 'profile' is only for tensorrt_plan"));
}

TEST(ModelConfigValidatorTest, UnsupportedSchedulers) {
  const absl::Status ensemble = Validate(
      "name: \"e\" platform: \"ensemble\" input [ { name: \"a\" data_type: TYPE_FP32 dims: [1] } ] "
      "output [ { name: \"b\" data_type: TYPE_FP32 dims: [1] } ]");
  EXPECT_THAT(std::string(ensemble.message()),
              HasSubstr("platform 'ensemble' needs 'ensemble_scheduling'"));
  EXPECT_THAT(Problems("ensemble_scheduling { step [ { model_name: \"x\" } ] }"),
              HasSubstr("'ensemble_scheduling' is only for platform 'ensemble'"));
}

TEST(ModelConfigValidatorTest, LatestPolicyNeedsVersions) {
  EXPECT_THAT(Problems("version_policy { latest { } }"),
              HasSubstr("version_policy latest: 'num_versions' must be at least 1"));
  EXPECT_EQ(Problems("version_policy { latest { num_versions: 3 } }"), "");
}

// docs/configuration.md.
TEST(ModelConfigValidatorTest, WarmupSamplesThatAreValid) {
  // Repeated fields written one block at a time, as config.pbtxt files often do.
  EXPECT_EQ(Problems(R"pb(
              model_warmup {
                name: "zeros"
                batch_size: 8
                count: 3
                inputs {
                  key: "x"
                  value {
                    data_type: TYPE_FP32
                    dims: [ 7, 4 ]
                    zero_data: true
                  }
                }
              }
              model_warmup {
                batch_size: 1
                inputs {
                  key: "x"
                  value {
                    data_type: TYPE_FP32
                    dims: [ 4 ]
                    random_data: true
                  }
                }
              }
              model_warmup {
                name: "file"
                inputs {
                  key: "x"
                  value {
                    data_type: TYPE_FP32
                    dims: [ 1, 4 ]
                    input_data_file: "sub/x.bin"
                  }
                }
              })pb"),
            "");
}

TEST(ModelConfigValidatorTest, WarmupNamesTheConfigFile) {
  EXPECT_THAT(Problems(R"pb(model_warmup { name: "w" batch_size: 1 })pb"),
              AllOf(HasSubstr("/repo/m/config.pbtxt: invalid model config"),
                    HasSubstr("model_warmup 'w': no data for input 'x'")));
}

TEST(ModelConfigValidatorTest, WarmupInputsMustMatchTheModel) {
  EXPECT_THAT(
      Problems(R"pb(model_warmup {
                      name: "w"
                      batch_size: 1
                      inputs {
                        key: "x"
                        value {
                          data_type: TYPE_INT32
                          dims: [ -1, 4 ]
                          zero_data: true
                        }
                      }
                      inputs {
                        key: "nope"
                        value {
                          data_type: TYPE_FP32
                          dims: [ 1 ]
                          zero_data: true
                        }
                      }
                    })pb"),
      AllOf(HasSubstr("model_warmup 'w': input 'nope' is not an input of the model"),
            HasSubstr("model_warmup 'w': input 'x': data_type TYPE_INT32 does not match the "
                      "input's TYPE_FP32"),
            HasSubstr("model_warmup 'w': input 'x': dimension -1 is invalid (warmup dims must "
                      "be fully specified)")));
}

TEST(ModelConfigValidatorTest, WarmupNeedsEveryRequiredInput) {
  const std::string two_inputs = R"pb(
    input {
      name: "a"
      data_type: TYPE_INT64
      dims: [ 1 ]
    }
    input {
      name: "opt"
      data_type: TYPE_INT64
      dims: [ 1 ]
      optional: true
    })pb";
  // Unnamed samples are numbered.
  EXPECT_THAT(Problems(two_inputs + R"pb(model_warmup {
                                           batch_size: 1
                                           inputs {
                                             key: "x"
                                             value {
                                               data_type: TYPE_FP32
                                               dims: [ 4 ]
                                               zero_data: true
                                             }
                                           }
                                         })pb"),
              HasSubstr("model_warmup #0: no data for input 'a'"));
  // The optional input may be left out.
  EXPECT_EQ(Problems(two_inputs + R"pb(model_warmup {
                                         batch_size: 1
                                         inputs {
                                           key: "x"
                                           value {
                                             data_type: TYPE_FP32
                                             dims: [ 4 ]
                                             zero_data: true
                                           }
                                         }
                                         inputs {
                                           key: "a"
                                           value {
                                             data_type: TYPE_INT64
                                             dims: [ 1 ]
                                             random_data: true
                                           }
                                         }
                                       })pb"),
            "");
}

TEST(ModelConfigValidatorTest, WarmupInputNeedsOneDataSource) {
  EXPECT_THAT(Problems(R"pb(model_warmup {
                              name: "w"
                              batch_size: 1
                              inputs {
                                key: "x"
                                value {
                                  data_type: TYPE_FP32
                                  dims: [ 4 ]
                                }
                              }
                            })pb"),
              HasSubstr("model_warmup 'w': input 'x': set one of 'zero_data', 'random_data' or "
                        "'input_data_file'"));
}

TEST(ModelConfigValidatorTest, WarmupDataFileStaysInsideTheWarmupFolder) {
  for (const char* file : {"../secret", "/etc/passwd", "a/../../b", ""}) {
    EXPECT_THAT(Problems(std::string(R"pb(model_warmup { name: "w" batch_size: 1
                                                         inputs { key: "x"
                                                                  value { data_type: TYPE_FP32
                                                                          dims: [ 4 ]
                                                                          input_data_file: ")pb") +
                         file + "\" } } }"),
                HasSubstr(std::string("model_warmup 'w': input 'x': input_data_file '") + file +
                          "' must be a relative path inside warmup/"))
        << file;
  }
}

TEST(ModelConfigValidatorTest, WarmupBatchSizeWithinMaxBatchSize) {
  const std::string sample =
      R"pb(inputs {
             key: "x"
             value {
               data_type: TYPE_FP32
               dims: [ 4 ]
               zero_data: true
             }
           })pb";
  EXPECT_THAT(Problems("model_warmup { name: \"w\" batch_size: 9 " + sample + " }"),
              HasSubstr("model_warmup 'w': batch_size 9 is larger than max_batch_size 8"));
  // batch_size 0 skips the sample.
  EXPECT_EQ(Problems("model_warmup { name: \"w\" batch_size: 0 " + sample + " }"), "");

  const std::string not_batching = R"pb(
    name: "m"
    max_batch_size: 0 input
    [ {
      name: "x"
      data_type: TYPE_FP32
      dims: [ 4 ]
    }] output
    [ {
      name: "y"
      data_type: TYPE_FP32
      dims: [ 4 ]
    }]
  )pb";
  EXPECT_TRUE(Validate(not_batching + "model_warmup { batch_size: 1 " + sample + " }").ok());
  EXPECT_THAT(std::string(Validate(not_batching + "model_warmup { name: \"w\" batch_size: 2 " +
                                   sample + " }")
                              .message()),
              HasSubstr("model_warmup 'w': batch_size 2 needs batching, but max_batch_size is 0"));
}

TEST(ModelConfigValidatorTest, WarmupIsNotForEnsembles) {
  const absl::Status ensemble = Validate(
      "name: \"e\" platform: \"ensemble\" input [ { name: \"a\" data_type: TYPE_FP32 dims: [1] } ] "
      "output [ { name: \"b\" data_type: TYPE_FP32 dims: [1] } ] "
      "model_warmup { batch_size: 1 inputs { key: \"a\" value { data_type: TYPE_FP32 dims: [1] "
      "zero_data: true } } }");
  EXPECT_THAT(std::string(ensemble.message()),
              HasSubstr("model_warmup is not allowed for ensembles"));
}

}  // namespace
}  // namespace inferd::repository

namespace inferd::repository {
namespace {

TEST(ModelConfigValidatorTest, SequenceBatchingThatTritonAccepts) {
  EXPECT_EQ(Problems("sequence_batching { }"), "");
  EXPECT_EQ(Problems(R"pb(sequence_batching {
                            max_sequence_idle_microseconds: 5000000
                            oldest {
                              max_candidate_sequences: 4
                              preferred_batch_size: [ 2, 8 ]
                              max_queue_delay_microseconds: 100
                            } control_input
                            [ {
                              name: "START" control
                              [ {
                                kind: CONTROL_SEQUENCE_START
                                fp32_false_true: [ 0, 1 ]
                              }]
                            }
                              , {
                                name: "END" control
                                [ {
                                  kind: CONTROL_SEQUENCE_END
                                  bool_false_true: [ false, true ]
                                }]
                              }
                              , {
                                name: "READY" control
                                [ {
                                  kind: CONTROL_SEQUENCE_READY
                                  int32_false_true: [ 0, 1 ]
                                }]
                              }
                              , {
                                name: "CORRID" control
                                [ { kind: CONTROL_SEQUENCE_CORRID data_type: TYPE_STRING }]
                              }] state
                            [ {
                              input_name: "S_IN"
                              output_name: "S_OUT"
                              data_type: TYPE_FP32
                              dims: [ -1 ]
                              initial_state {
                                name: "zeros"
                                data_type: TYPE_FP32
                                dims: [ 3 ]
                                zero_data: true
                              }
                            }]
                          })pb"),
            "");
}

TEST(ModelConfigValidatorTest, SequenceBatchingProblems) {
  const std::string problems =
      Problems(R"pb(sequence_batching {
                      direct { minimum_slot_utilization: 2 } control_input
                      [ {
                        name: "x" control
                        [ {
                          kind: CONTROL_SEQUENCE_START
                          int32_false_true: [ 0 ]
                        }]
                      }
                        , {
                          name: "A" control
                          [ {
                            kind: CONTROL_SEQUENCE_START
                            int32_false_true: [ 0, 1 ]
                            fp32_false_true: [ 0, 1 ]
                          }]
                        }
                        , {
                          name: "C" control
                          [ { kind: CONTROL_SEQUENCE_CORRID data_type: TYPE_FP32 }]
                        }
                        , {
                          name: "C" control
                          []
                        }] state
                      [ {
                        input_name: "S"
                        output_name: "y"
                        data_type: TYPE_INT32
                        dims: [ 0 ]
                        initial_state {
                          data_type: TYPE_FP32
                          dims: [ 1, 2 ]
                        }
                      }]
                    })pb");
  for (const char* expected : {
           "sequence_batching direct: minimum_slot_utilization 2 is outside [0, 1]",
           "control_input 'x': is also listed in 'input'",
           "control_input 'x' (CONTROL_SEQUENCE_START): the false/true list must hold exactly 2 "
           "values (1 given)",
           "more than one control of kind CONTROL_SEQUENCE_START",
           "control_input 'A' (CONTROL_SEQUENCE_START): set exactly one of int32_false_true, "
           "fp32_false_true or bool_false_true",
           "control_input 'C' (CONTROL_SEQUENCE_CORRID): 'data_type' must be TYPE_UINT64, "
           "TYPE_INT64, TYPE_UINT32, TYPE_INT32 or TYPE_STRING, not TYPE_FP32",
           "control_input 'C': name is used twice",
           "control_input 'C': must hold exactly one control (0 given)",
           "state 'S': dimension 0 is invalid",
           "state 'S': output 'y' has data_type TYPE_FP32 but the state is TYPE_INT32",
           "state 'S': initial_state: 'name' must be set",
           "state 'S': initial_state data_type TYPE_FP32 does not match the state's TYPE_INT32",
           "state 'S': initial_state has 2 dims; the state has 1",
           "state 'S': initial_state: set 'zero_data' or 'data_file'",
       }) {
    EXPECT_THAT(problems, HasSubstr(expected));
  }
  EXPECT_THAT(Problems(R"pb(sequence_batching { state
                                                [ {
                                                  input_name: "S"
                                                  output_name: "T"
                                                  data_type: TYPE_INT32
                                                  dims: [ 2 ]
                                                  initial_state {
                                                    name: "i"
                                                    data_type: TYPE_INT32
                                                    dims: [ 3 ]
                                                    data_file: "../../etc/passwd"
                                                  }
                                                }] })pb"),
              AllOf(HasSubstr("initial_state dimension 0 is 3; the state's is 2"),
                    HasSubstr("must be a relative path inside initial_state/")));
  EXPECT_THAT(Problems("sequence_batching { iterative_sequence: true }"),
              HasSubstr("iterative_sequence"));
  EXPECT_THAT(Problems("sequence_batching { oldest { preferred_batch_size: [ 9 ] } }"),
              HasSubstr("preferred_batch_size 9 is outside [1, max_batch_size 8]"));
}

}  // namespace
}  // namespace inferd::repository
