// SPDX-License-Identifier: Apache-2.0
// ModelSpecStorage: what INFERD_ModelSpec tells a backend about a model's
// tensors, including a sequence model's control and state tensors
// (docs/backends.md, "Sequence models").
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/abi/backend_model.h"
#include "google/protobuf/text_format.h"

namespace inferd::backends {
namespace {

struct Seen {
  std::string name;
  INFERD_DataType datatype;
  std::vector<int64_t> dims;
  bool operator==(const Seen&) const = default;
};

std::vector<Seen> List(const INFERD_TensorSpec* specs, size_t count) {
  std::vector<Seen> out;
  for (size_t i = 0; i < count; ++i) {
    out.push_back({specs[i].name, specs[i].datatype,
                   std::vector<int64_t>(specs[i].dims, specs[i].dims + specs[i].dims_count)});
  }
  return out;
}

TEST(ModelSpecTest, SequenceModelListsControlAndStateTensors) {
  inference::ModelConfig config;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(
        name: "m"
        max_batch_size: 4 input
        [ {
          name: "INPUT"
          data_type: TYPE_FP32
          dims: [ 2 ]
        }] output
        [ {
          name: "OUTPUT"
          data_type: TYPE_FP32
          dims: [ 2 ]
        }
          , {
            name: "SHOWN_OUT"
            data_type: TYPE_INT32
            dims: [ 1 ]
          }]
        sequence_batching { control_input
                            [ {
                              name: "START" control
                              [ {
                                kind: CONTROL_SEQUENCE_START
                                fp32_false_true: [ 0, 1 ]
                              }]
                            }
                              , {
                                name: "READY" control
                                [ {
                                  kind: CONTROL_SEQUENCE_READY
                                  bool_false_true: [ false, true ]
                                }]
                              }
                              , {
                                name: "CORRID" control
                                [ { kind: CONTROL_SEQUENCE_CORRID data_type: TYPE_STRING }]
                              }] state
                            [ {
                              input_name: "H_IN"
                              output_name: "H_OUT"
                              data_type: TYPE_FP32
                              dims: [ 3, -1 ]
                            }
                              , {
                                input_name: "SHOWN_IN"
                                output_name: "SHOWN_OUT"
                                data_type: TYPE_INT32
                                dims: [ 1 ]
                              }] })pb",
      &config));
  ModelSpecStorage storage(config, 1, "/m", "/m/1/model.onnx", 1);
  const INFERD_ModelSpec& spec = storage.spec();
  EXPECT_EQ(List(spec.inputs, spec.input_count),
            (std::vector<Seen>{{"INPUT", INFERD_TYPE_FP32, {2}},
                               {"START", INFERD_TYPE_FP32, {1}},
                               {"READY", INFERD_TYPE_BOOL, {1}},
                               {"CORRID", INFERD_TYPE_BYTES, {1}},
                               {"H_IN", INFERD_TYPE_FP32, {3, -1}},
                               {"SHOWN_IN", INFERD_TYPE_INT32, {1}}}));
  // A state output the config lists already is not listed twice.
  EXPECT_EQ(List(spec.outputs, spec.output_count),
            (std::vector<Seen>{{"OUTPUT", INFERD_TYPE_FP32, {2}},
                               {"SHOWN_OUT", INFERD_TYPE_INT32, {1}},
                               {"H_OUT", INFERD_TYPE_FP32, {3, -1}}}));
}

TEST(ModelSpecTest, OtherModelsListTheConfigOnly) {
  inference::ModelConfig config;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(name: "m" input
           [ {
             name: "x"
             data_type: TYPE_INT64
             dims: [ 1 ]
           }] output
           [ {
             name: "y"
             data_type: TYPE_INT64
             dims: [ 1 ]
           }])pb",
      &config));
  ModelSpecStorage storage(config, 1, "/m", "/m/1/model.onnx", 1);
  EXPECT_EQ(storage.spec().input_count, 1u);
  EXPECT_EQ(storage.spec().output_count, 1u);
}

}  // namespace
}  // namespace inferd::backends
