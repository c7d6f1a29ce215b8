// SPDX-License-Identifier: Apache-2.0
// Auto-complete from a model file's signature, after Triton's ONNX Runtime
// backend (docs/configuration.md).
#include "lifecycle/config_completer.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "repository/model_config_parser.h"

namespace inferd::lifecycle {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using core::DataType;

backends::SignatureTensor T(std::string name, core::Shape dims, DataType type = DataType::kFp32) {
  return backends::SignatureTensor{std::move(name), type, std::move(dims)};
}

INFERD_Signature Sig(std::vector<backends::SignatureTensor> inputs,
                     std::vector<backends::SignatureTensor> outputs) {
  return INFERD_Signature{std::move(inputs), std::move(outputs), std::nullopt};
}

inference::ModelConfig Config(const std::string& text = "") {
  auto parsed =
      repository::ParseModelConfig("name: \"m\" backend: \"onnxruntime\" " + text, "config.pbtxt");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? *parsed : inference::ModelConfig();
}

TEST(ConfigCompleterTest, NeedsCompletion) {
  EXPECT_TRUE(NeedsCompletion(Config()));
  EXPECT_TRUE(NeedsCompletion(Config("input { name: \"x\" }")));
  EXPECT_TRUE(NeedsCompletion(Config("output { name: \"y\" }")));
  EXPECT_FALSE(NeedsCompletion(Config("input { name: \"x\" } output { name: \"y\" }")));
  // batch_input entries count as inputs.
  EXPECT_FALSE(
      NeedsCompletion(Config("batch_input { target_name: \"b\" } output { name: \"y\" }")));
}

TEST(ConfigCompleterTest, BatchableModelGetsDefaultsAndDynamicBatching) {
  auto config = Config();
  ASSERT_TRUE(
      CompleteModelConfig(Sig({T("x", {-1, 3, 4})}, {T("y", {-1, 10}, DataType::kInt64)}), config)
          .ok());
  EXPECT_EQ(config.max_batch_size(), kDefaultMaxBatchSize);
  EXPECT_EQ(config.max_batch_size(), 4);
  EXPECT_TRUE(config.has_dynamic_batching());
  ASSERT_EQ(config.input_size(), 1);
  EXPECT_EQ(config.input(0).name(), "x");
  EXPECT_EQ(config.input(0).data_type(), inference::TYPE_FP32);
  EXPECT_THAT(config.input(0).dims(), ElementsAre(3, 4));  // batch dimension dropped
  EXPECT_FALSE(config.input(0).has_reshape());
  ASSERT_EQ(config.output_size(), 1);
  EXPECT_EQ(config.output(0).data_type(), inference::TYPE_INT64);
  EXPECT_THAT(config.output(0).dims(), ElementsAre(10));
}

TEST(ConfigCompleterTest, EveryTensorMustHaveAVariableFirstDimension) {
  for (const auto& sig : {Sig({T("x", {-1, 3}), T("z", {2, 3})}, {T("y", {-1})}),
                          Sig({T("x", {-1, 3})}, {T("y", {})}),  // a scalar output
                          Sig({T("x", {3})}, {T("y", {-1})})}) {
    auto config = Config();
    ASSERT_TRUE(CompleteModelConfig(sig, config).ok());
    EXPECT_EQ(config.max_batch_size(), 0);
    EXPECT_FALSE(config.has_dynamic_batching());
  }
}

TEST(ConfigCompleterTest, NonBatchingModelKeepsFullDims) {
  auto config = Config();
  ASSERT_TRUE(CompleteModelConfig(Sig({T("x", {-1, 3})}, {T("y", {5})}), config).ok());
  EXPECT_THAT(config.input(0).dims(), ElementsAre(-1, 3));
  EXPECT_THAT(config.output(0).dims(), ElementsAre(5));
}

TEST(ConfigCompleterTest, ExplicitMaxBatchSizeIsKept) {
  auto config = Config("max_batch_size: 16");
  ASSERT_TRUE(CompleteModelConfig(Sig({T("x", {-1, 2})}, {T("y", {-1, 2})}), config).ok());
  EXPECT_EQ(config.max_batch_size(), 16);
  EXPECT_TRUE(config.has_dynamic_batching());
}

TEST(ConfigCompleterTest, MaxBatchSizeOneAddsNoBatcher) {
  auto config = Config("max_batch_size: 1");
  ASSERT_TRUE(CompleteModelConfig(Sig({T("x", {-1, 2})}, {T("y", {-1, 2})}), config).ok());
  EXPECT_EQ(config.max_batch_size(), 1);
  EXPECT_FALSE(config.has_dynamic_batching());
}

TEST(ConfigCompleterTest, ExistingSchedulerIsKept) {
  auto dynamic = Config("dynamic_batching { max_queue_delay_microseconds: 7 }");
  ASSERT_TRUE(CompleteModelConfig(Sig({T("x", {-1})}, {T("y", {-1})}), dynamic).ok());
  EXPECT_EQ(dynamic.dynamic_batching().max_queue_delay_microseconds(), 7u);
  auto sequence = Config("sequence_batching { }");
  ASSERT_TRUE(CompleteModelConfig(Sig({T("x", {-1, 1})}, {T("y", {-1, 1})}), sequence).ok());
  EXPECT_TRUE(sequence.has_sequence_batching());
  EXPECT_FALSE(sequence.has_dynamic_batching());
  // The server's tensors (controls, states) stay out of input and output.
  auto stateful = Config(
      "sequence_batching { control_input [ { name: \"START\" control [ { kind: "
      "CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] } ] state [ { input_name: \"S_IN\" "
      "output_name: \"S_OUT\" data_type: TYPE_FP32 dims: [ 1 ] } ] }");
  ASSERT_TRUE(CompleteModelConfig(Sig({T("x", {-1, 1}), T("START", {-1, 1}), T("S_IN", {-1, 1})},
                                      {T("y", {-1, 1}), T("S_OUT", {-1, 1})}),
                                  stateful)
                  .ok());
  ASSERT_EQ(stateful.input_size(), 1);
  EXPECT_EQ(stateful.input(0).name(), "x");
  ASSERT_EQ(stateful.output_size(), 1);
  EXPECT_EQ(stateful.output(0).name(), "y");
}

// ABI 1.2: a backend that knows its batch size (a Python model's
// auto_complete_config) overrides the leading -1 guess either way.
TEST(ConfigCompleterTest, DeclaredMaxBatchSizeReplacesTheGuess) {
  INFERD_Signature none = Sig({T("x", {-1})}, {T("y", {-1})});
  none.max_batch_size = 0;
  inference::ModelConfig config = Config();
  ASSERT_TRUE(CompleteModelConfig(none, config).ok());
  EXPECT_EQ(config.max_batch_size(), 0);
  EXPECT_FALSE(config.has_dynamic_batching());
  EXPECT_THAT(config.input(0).dims(), ElementsAre(-1));

  INFERD_Signature eight = Sig({T("x", {-1, 3})}, {T("y", {-1, 2})});
  eight.max_batch_size = 8;
  config = Config();
  ASSERT_TRUE(CompleteModelConfig(eight, config).ok());
  EXPECT_EQ(config.max_batch_size(), 8);
  EXPECT_THAT(config.input(0).dims(), ElementsAre(3));
  EXPECT_THAT(config.output(0).dims(), ElementsAre(2));

  config = Config("max_batch_size: 2");
  ASSERT_TRUE(CompleteModelConfig(eight, config).ok());
  EXPECT_EQ(config.max_batch_size(), 2);  // the config wins
}

TEST(ConfigCompleterTest, ScalarsBecomeDimsOneWithEmptyReshapeWhenBatching) {
  auto config = Config();
  ASSERT_TRUE(CompleteModelConfig(Sig({T("x", {-1})}, {T("y", {-1})}), config).ok());
  EXPECT_EQ(config.max_batch_size(), 4);
  EXPECT_THAT(config.input(0).dims(), ElementsAre(1));
  EXPECT_TRUE(config.input(0).has_reshape());
  EXPECT_EQ(config.input(0).reshape().shape_size(), 0);
  EXPECT_THAT(config.output(0).dims(), ElementsAre(1));
  EXPECT_TRUE(config.output(0).has_reshape());
}

TEST(ConfigCompleterTest, ScalarsOfNonBatchingModelGetDimsOneWithEmptyReshape) {
  auto config = Config();
  ASSERT_TRUE(CompleteModelConfig(Sig({T("x", {})}, {T("y", {})}), config).ok());
  EXPECT_EQ(config.max_batch_size(), 0);
  EXPECT_THAT(config.input(0).dims(), ElementsAre(1));
  EXPECT_TRUE(config.input(0).has_reshape());
  EXPECT_EQ(config.input(0).reshape().shape_size(), 0);
  EXPECT_THAT(config.output(0).dims(), ElementsAre(1));
  EXPECT_TRUE(config.output(0).has_reshape());
  EXPECT_EQ(config.output(0).reshape().shape_size(), 0);
}

TEST(ConfigCompleterTest, BatchingANonBatchableModelFails) {
  auto config = Config("max_batch_size: 8");
  const absl::Status status = CompleteModelConfig(Sig({T("x", {1, 3})}, {T("y", {1, 3})}), config);
  EXPECT_TRUE(absl::IsInvalidArgument(status));
  EXPECT_THAT(
      std::string(status.message()),
      HasSubstr("model 'm' does not support batching while non-zero max_batch_size is specified"));
}

TEST(ConfigCompleterTest, CompleteConfigIsLeftAlone) {
  auto config = Config("input { name: \"a\" } output { name: \"b\" }");
  const std::string before = config.SerializeAsString();
  ASSERT_TRUE(CompleteModelConfig(Sig({T("x", {-1})}, {T("y", {-1})}), config).ok());
  EXPECT_EQ(config.SerializeAsString(), before);
  EXPECT_EQ(config.max_batch_size(), 0);
}

TEST(ConfigCompleterTest, PartialConfigFillsOnlyTheMissingList) {
  auto config = Config("input { name: \"mine\" data_type: TYPE_INT8 dims: [ 7 ] }");
  ASSERT_TRUE(
      CompleteModelConfig(Sig({T("x", {-1, 2})}, {T("y", {-1, 2}), T("z", {-1})}), config).ok());
  ASSERT_EQ(config.input_size(), 1);
  EXPECT_EQ(config.input(0).name(), "mine");
  ASSERT_EQ(config.output_size(), 2);
  EXPECT_EQ(config.output(0).name(), "y");
  EXPECT_EQ(config.output(1).name(), "z");
  EXPECT_EQ(config.max_batch_size(), 4);
}

TEST(ConfigCompleterTest, UnservableTypeFails) {
  auto config = Config();
  const absl::Status status =
      CompleteModelConfig(Sig({T("x", {-1}, DataType::kInvalid)}, {T("y", {-1})}), config);
  EXPECT_TRUE(absl::IsInvalidArgument(status));
  EXPECT_THAT(std::string(status.message()), HasSubstr("tensor 'x'"));
}

TEST(ConfigCompleterTest, BytesTensorsBecomeTypeString) {
  auto config = Config();
  ASSERT_TRUE(
      CompleteModelConfig(Sig({T("s", {-1, 2}, DataType::kBytes)}, {T("y", {-1})}), config).ok());
  EXPECT_EQ(config.input(0).data_type(), inference::TYPE_STRING);
}

}  // namespace
}  // namespace inferd::lifecycle
