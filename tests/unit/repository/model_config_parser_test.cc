// SPDX-License-Identifier: Apache-2.0
// config.pbtxt parsing: the text-format forms real Triton configs use
// (docs/configuration.md) and the example configs of Triton's documentation parse unchanged.
#include "repository/model_config_parser.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace inferd::repository {
namespace {

using ::testing::HasSubstr;

inference::ModelConfig Parse(const std::string& text) {
  auto config = ParseModelConfig(text, "m/config.pbtxt");
  EXPECT_TRUE(config.ok()) << config.status();
  return config.ok() ? *config : inference::ModelConfig();
}

// Triton's documented example, verbatim.
constexpr char kResnet[] = R"pb(
  # models/resnet/config.pbtxt
  name: "resnet"
  platform: "onnxruntime_onnx"  # same effect as: backend: "onnxruntime"
  max_batch_size: 16
  version_policy: { latest: { num_versions: 2 } } input
  [ {
    name: "data"
    data_type: TYPE_FP32
    format: FORMAT_NCHW
    dims: [ 3, 224, 224 ]
  }] output
  [ {
    name: "prob"
    data_type: TYPE_FP32
    dims: [ 1000 ]
    label_filename: "labels.txt"
  }] instance_group
  [ { name: "cpu_pool" kind: KIND_CPU count: 2 }]
  dynamic_batching {
    preferred_batch_size: [ 8, 16 ]
    max_queue_delay_microseconds: 2000
    priority_levels: 2
    default_priority_level: 2
    default_queue_policy {
      timeout_action: REJECT
      default_timeout_microseconds: 100000
      allow_timeout_override: true
      max_queue_size: 64
    }
    priority_queue_policy {
      key: 1
      value { timeout_action: DELAY default_timeout_microseconds: 50000 max_queue_size: 32 }
    }
  }
  parameters {
    key: "intra_op_thread_count"
    value: { string_value: "1" }
  } model_warmup
  [ {
    name: "zeros_batch8"
    batch_size: 8
    inputs {
      key: "data"
      value: {
        data_type: TYPE_FP32
        dims: [ 3, 224, 224 ]
        zero_data: true
      }
    }
  }]
  response_cache { enable: true }
)pb";

TEST(ModelConfigParserTest, ParsesOnnxExample) {
  const auto config = Parse(kResnet);
  EXPECT_EQ(config.name(), "resnet");
  EXPECT_EQ(config.platform(), "onnxruntime_onnx");
  EXPECT_EQ(config.max_batch_size(), 16);
  EXPECT_EQ(config.version_policy().latest().num_versions(), 2u);
  ASSERT_EQ(config.input_size(), 1);
  EXPECT_EQ(config.input(0).format(), inference::ModelInput::FORMAT_NCHW);
  EXPECT_THAT(config.input(0).dims(), ::testing::ElementsAre(3, 224, 224));
  EXPECT_EQ(config.output(0).label_filename(), "labels.txt");
  EXPECT_EQ(config.instance_group(0).kind(), inference::ModelInstanceGroup::KIND_CPU);
  EXPECT_EQ(config.instance_group(0).count(), 2);
  EXPECT_THAT(config.dynamic_batching().preferred_batch_size(), ::testing::ElementsAre(8, 16));
  EXPECT_EQ(config.dynamic_batching().default_queue_policy().max_queue_size(), 64u);
  EXPECT_EQ(config.dynamic_batching().priority_queue_policy().at(1).timeout_action(),
            inference::ModelQueuePolicy::DELAY);
  EXPECT_EQ(config.parameters().at("intra_op_thread_count").string_value(), "1");
  EXPECT_TRUE(config.model_warmup(0).inputs().at("data").zero_data());
  EXPECT_TRUE(config.response_cache().enable());
}

TEST(ModelConfigParserTest, ParsesEnsembleExample) {
  const auto config = Parse(R"pb(
    name: "pipeline"
    platform: "ensemble"
    max_batch_size: 8 input
    [ {
      name: "RAW"
      data_type: TYPE_UINT8
      dims: [ -1 ]
    }] output
    [ {
      name: "SCORES"
      data_type: TYPE_FP32
      dims: [ 1000 ]
    }]
    ensemble_scheduling { step
                          [ {
                            model_name: "preprocess"
                            model_version: -1
                            input_map { key: "IMAGE_BYTES" value: "RAW" }
                            output_map { key: "TENSOR" value: "pixels" }
                          }
                            , {
                              model_name: "resnet"
                              model_version: -1
                              input_map { key: "data" value: "pixels" }
                              output_map { key: "prob" value: "SCORES" }
                            }] })pb");
  ASSERT_EQ(config.ensemble_scheduling().step_size(), 2);
  EXPECT_EQ(config.ensemble_scheduling().step(0).model_version(), -1);
  EXPECT_EQ(config.ensemble_scheduling().step(1).output_map().at("prob"), "SCORES");
  EXPECT_THAT(config.input(0).dims(), ::testing::ElementsAre(-1));
}

TEST(ModelConfigParserTest, ParsesSequenceExample) {
  const auto config = Parse(R"pb(
    name: "accumulator"
    backend: "onnxruntime"
    max_batch_size: 4 input
    [ {
      name: "INPUT"
      data_type: TYPE_INT32
      dims: [ 1 ]
    }] output
    [ {
      name: "OUTPUT"
      data_type: TYPE_INT32
      dims: [ 1 ]
    }]
    sequence_batching {
      max_sequence_idle_microseconds: 5000000
      direct { max_queue_delay_microseconds: 1000 minimum_slot_utilization: 0.5 } control_input
      [ {
        name: "START" control
        [ {
          kind: CONTROL_SEQUENCE_START
          int32_false_true: [ 0, 1 ]
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
          name: "END" control
          [ {
            kind: CONTROL_SEQUENCE_END
            bool_false_true: [ false, true ]
          }]
        }
        , {
          name: "CORRID" control
          [ { kind: CONTROL_SEQUENCE_CORRID data_type: TYPE_UINT64 }]
        }] state
      [ {
        input_name: "STATE_IN"
        output_name: "STATE_OUT"
        data_type: TYPE_INT32
        dims: [ 1 ]
        initial_state: {
          name: "zero"
          data_type: TYPE_INT32
          dims: [ 1 ]
          zero_data: true
        }
      }]
    } instance_group
    [ { kind: KIND_CPU count: 1 }])pb");
  EXPECT_TRUE(config.has_sequence_batching());
  EXPECT_FLOAT_EQ(config.sequence_batching().direct().minimum_slot_utilization(), 0.5f);
  EXPECT_EQ(config.sequence_batching().control_input_size(), 4);
  EXPECT_EQ(config.sequence_batching().state(0).output_name(), "STATE_OUT");
}

TEST(ModelConfigParserTest, ParsesPythonExample) {
  const auto config = Parse(R"pb(
    name: "preprocess"
    backend: "python"
    max_batch_size: 8 input
    [ {
      name: "IMAGE_BYTES"
      data_type: TYPE_UINT8
      dims: [ -1 ]
    }] output
    [ {
      name: "TENSOR"
      data_type: TYPE_FP32
      dims: [ 3, 224, 224 ]
    }] instance_group
    [ { kind: KIND_CPU count: 2 }]
    dynamic_batching { max_queue_delay_microseconds: 500 }
    parameters {
      key: "EXECUTION_ENV_PATH"
      value: { string_value: "$$TRITON_MODEL_DIRECTORY/env.tar.gz" }
    }
    model_transaction_policy { decoupled: true })pb");
  EXPECT_EQ(config.backend(), "python");
  EXPECT_TRUE(config.model_transaction_policy().decoupled());
  EXPECT_EQ(config.dynamic_batching().max_queue_delay_microseconds(), 500u);
}

TEST(ModelConfigParserTest, ListAndRepeatedFormsAreEqual) {
  const auto list = Parse(R"pb(input
                               [ {
                                 name: "a"
                                 dims: [ 3, 224, 224 ]
                               }
                                 , { name: "b" dims: 1 }])pb");
  const auto repeated = Parse(R"pb(input { name: "a" dims: 3 dims: 224 dims: 224 }
                                   input: {
                                     name: "b"
                                     dims: [ 1 ]
                                   })pb");
  EXPECT_EQ(list.SerializeAsString(), repeated.SerializeAsString());
  EXPECT_EQ(list.input_size(), 2);
}

TEST(ModelConfigParserTest, OptionalColonBeforeMessages) {
  EXPECT_TRUE(Parse("dynamic_batching { }").has_dynamic_batching());
  EXPECT_TRUE(Parse("dynamic_batching: { }").has_dynamic_batching());
  EXPECT_FALSE(Parse("name: \"m\"").has_dynamic_batching());
}

TEST(ModelConfigParserTest, MapForms) {
  const auto entries = Parse(R"pb(
    parameters {
      key: "k1"
      value: { string_value: "v1" }
    }
    parameters {
      key: "k2"
      value { string_value: "v2" }
    })pb");
  const auto as_list = Parse(R"pb(
    parameters
    [ {
      key: "k1"
      value: { string_value: "v1" }
    }
      , {
        key: "k2"
        value: { string_value: "v2" }
      }])pb");
  EXPECT_EQ(entries.parameters().size(), 2u);
  EXPECT_EQ(as_list.parameters().at("k2").string_value(), "v2");
  EXPECT_EQ(entries.parameters().at("k1").string_value(),
            as_list.parameters().at("k1").string_value());
}

TEST(ModelConfigParserTest, BoolSpellings) {
  for (const char* spelling : {"true", "True", "1", "t"}) {
    const auto config = Parse(std::string("input { name: \"x\" optional: ") + spelling + " }");
    EXPECT_TRUE(config.input(0).optional()) << spelling;
  }
  EXPECT_FALSE(Parse("input { name: \"x\" optional: False }").input(0).optional());
}

TEST(ModelConfigParserTest, CommentsAndSeparators) {
  const auto config = Parse(R"pb(
    # a comment line
    name: "m",  # trailing comment
    max_batch_size: 2
    ;
    input { name: "x"; data_type: TYPE_STRING, dims: [ -1 ] })pb");
  EXPECT_EQ(config.name(), "m");
  EXPECT_EQ(config.max_batch_size(), 2);
  EXPECT_EQ(config.input(0).data_type(), inference::TYPE_STRING);
}

TEST(ModelConfigParserTest, PresenceOfEmptyMessagesIsKept) {
  const auto config = Parse(R"pb(
    input {
      name: "a"
      dims: [ 1 ]
      reshape: { shape: [] }
    }
    input {
      name: "b"
      dims: [ 1 ]
    }
    model_warmup {
      inputs {
        key: "a"
        value { zero_data: false }
      }
    })pb");
  EXPECT_TRUE(config.input(0).has_reshape());
  EXPECT_EQ(config.input(0).reshape().shape_size(), 0);
  EXPECT_FALSE(config.input(1).has_reshape());
  // A oneof member counts as chosen whatever its value.
  EXPECT_EQ(config.model_warmup(0).inputs().at("a").input_data_type_case(),
            inference::ModelWarmup::Input::kZeroData);
}

TEST(ModelConfigParserTest, EmptyTextIsAnEmptyConfig) {
  EXPECT_EQ(Parse("").ByteSizeLong(), 0u);
  EXPECT_EQ(Parse("# only a comment\n").ByteSizeLong(), 0u);
}

TEST(ModelConfigParserTest, UnknownFieldNamesFileAndLine) {
  auto config =
      ParseModelConfig("name: \"m\"\nmax_batch_size: 1\nnot_a_field: 3\n", "models/m/config.pbtxt");
  ASSERT_FALSE(config.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(config.status()));
  EXPECT_THAT(std::string(config.status().message()), HasSubstr("models/m/config.pbtxt:3:"));
  EXPECT_THAT(std::string(config.status().message()), HasSubstr("not_a_field"));
}

TEST(ModelConfigParserTest, UnknownNestedFieldAndEnumValue) {
  auto field = ParseModelConfig("input [\n  { name: \"x\"\n    colour: 1 } ]", "c.pbtxt");
  ASSERT_FALSE(field.ok());
  EXPECT_THAT(std::string(field.status().message()), HasSubstr("c.pbtxt:3:"));
  auto enum_value = ParseModelConfig("input { data_type: TYPE_FLOAT }", "c.pbtxt");
  ASSERT_FALSE(enum_value.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(enum_value.status()));
  EXPECT_THAT(std::string(enum_value.status().message()), HasSubstr("TYPE_FLOAT"));
}

TEST(ModelConfigParserTest, SyntaxErrorsNameTheLine) {
  for (const char* text : {"name: \"m\"\ninput {\n", "name: \"unterminated\n",
                           "max_batch_size: \"x\"", "max_batch_size: 99999999999"}) {
    auto config = ParseModelConfig(text, "bad.pbtxt");
    ASSERT_FALSE(config.ok()) << text;
    EXPECT_TRUE(absl::IsInvalidArgument(config.status())) << text;
    EXPECT_THAT(std::string(config.status().message()), HasSubstr("bad.pbtxt:")) << text;
  }
}

}  // namespace
}  // namespace inferd::repository
