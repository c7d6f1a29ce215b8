// SPDX-License-Identifier: Apache-2.0
// The LibTorch backend's LibTorch-free parts (src/backends/pytorch/
// pt_support.cc): naming convention, parameters, gathering and batching
// inputs, and response shapes. Compiled without LibTorch, so it is cheap;
// the backend itself is tested end to end in tests/integration/test_pytorch.py.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fake_server_api.h"
#include "pt_support.h"

namespace inferd::pt {
namespace {

using ::inferd::testing::FakeServerApi;
using ::inferd::testing::MakeInput;

TEST(PytorchSupportTest, IndexOfName) {
  EXPECT_EQ(IndexOfName("INPUT__0"), 0u);
  EXPECT_EQ(IndexOfName("OUTPUT__12"), 12u);
  EXPECT_EQ(IndexOfName("a__b__3"), 3u);
  EXPECT_FALSE(IndexOfName("INPUT0").has_value());
  EXPECT_FALSE(IndexOfName("INPUT__").has_value());
  EXPECT_FALSE(IndexOfName("INPUT__x").has_value());
  EXPECT_FALSE(IndexOfName("INPUT__-1").has_value());
}

INFERD_ModelSpec SpecWith(const std::vector<INFERD_Parameter>& parameters, int32_t def) {
  INFERD_ModelSpec spec{};
  spec.struct_size = sizeof(spec);
  spec.parameters = parameters.data();
  spec.parameter_count = parameters.size();
  spec.default_intra_op_threads = def;
  return spec;
}

TEST(PytorchSupportTest, IntraOpThreadsFromParametersElseServerDefault) {
  StatusOr<TorchParameters> none = ParseParameters(SpecWith({}, 3));
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->intra_op_threads, 3);
  StatusOr<TorchParameters> lower =
      ParseParameters(SpecWith({{"intra_op_thread_count", "2"}, {"other", "x"}}, 3));
  ASSERT_TRUE(lower.ok());
  EXPECT_EQ(lower->intra_op_threads, 2);
  StatusOr<TorchParameters> triton = ParseParameters(SpecWith({{"INTRA_OP_THREAD_COUNT", "5"}}, 0));
  ASSERT_TRUE(triton.ok());
  EXPECT_EQ(triton->intra_op_threads, 5);
  EXPECT_TRUE(triton->inference_mode);
  StatusOr<TorchParameters> no_inference =
      ParseParameters(SpecWith({{"INFERENCE_MODE", "false"}}, 0));
  ASSERT_TRUE(no_inference.ok());
  EXPECT_FALSE(no_inference->inference_mode);
  EXPECT_FALSE(ParseParameters(SpecWith({{"inference_mode", "maybe"}}, 0)).ok());
  StatusOr<TorchParameters> bad = ParseParameters(SpecWith({{"intra_op_thread_count", "-1"}}, 0));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), INFERD_ERROR_INVALID_ARG);
  EXPECT_NE(bad.status().message().find("intra_op_thread_count"), std::string::npos);
}

TensorConfig Fp32Input(std::string name, Dims dims) {
  TensorConfig config;
  config.name = std::move(name);
  config.datatype = INFERD_TYPE_FP32;
  config.dims = std::move(dims);
  return config;
}

TEST(PytorchSupportTest, GatherConcatenatesBatchRows) {
  INFERD_Request a;
  a.inputs.push_back(MakeInput<float>("x", INFERD_TYPE_FP32, {1, 2}, {1, 2}));
  INFERD_Request b;
  b.inputs.push_back(MakeInput<float>("x", INFERD_TYPE_FP32, {2, 2}, {3, 4, 5, 6}));
  INFERD_Request* requests[] = {&a, &b};
  {
    RequestBatch batch(*FakeServerApi(), requests, 2);
    std::vector<int64_t> sizes;
    GatheredInput input;
    Status status = GatherInput(batch, Fp32Input("x", {2}), /*batching=*/true, sizes, input);
    ASSERT_TRUE(status.ok()) << status.message();
    EXPECT_EQ(input.shape, (Dims{3, 2}));
    EXPECT_EQ(sizes, (std::vector<int64_t>{1, 2}));
    ASSERT_EQ(input.parts.size(), 2u);
    EXPECT_EQ(input.parts[1].byte_size, 16u);
    batch.CompleteRemaining(Status());
  }
  EXPECT_EQ(a.completions, 1);
  EXPECT_EQ(b.completions, 1);
}

TEST(PytorchSupportTest, GatherRejectsWrongTypeAndSize) {
  INFERD_Request request;
  request.inputs.push_back(MakeInput<int32_t>("x", INFERD_TYPE_INT32, {2}, {1, 2}));
  request.inputs.push_back(MakeInput<float>("y", INFERD_TYPE_FP32, {3}, {1, 2}));
  INFERD_Request* requests[] = {&request};
  RequestBatch batch(*FakeServerApi(), requests, 1);
  std::vector<int64_t> sizes;
  GatheredInput input;
  Status type = GatherInput(batch, Fp32Input("x", {2}), false, sizes, input);
  EXPECT_EQ(type.code(), INFERD_ERROR_INVALID_ARG);
  EXPECT_NE(type.message().find("data type INT32"), std::string::npos) << type.message();
  Status size = GatherInput(batch, Fp32Input("y", {3}), false, sizes, input);
  EXPECT_NE(size.message().find("needs 12 bytes but 8"), std::string::npos) << size.message();
  Status missing = GatherInput(batch, Fp32Input("z", {3}), false, sizes, input);
  EXPECT_NE(missing.message().find("missing"), std::string::npos) << missing.message();
}

TEST(PytorchSupportTest, ReshapeOfInputsAndOutputs) {
  INFERD_Request request;
  request.inputs.push_back(
      MakeInput<float>("x", INFERD_TYPE_FP32, {2, 6}, std::vector<float>(12, 1.0f)));
  INFERD_Request* requests[] = {&request};
  RequestBatch batch(*FakeServerApi(), requests, 1);
  TensorConfig config = Fp32Input("x", {6});
  config.reshape = Dims{2, -1};
  std::vector<int64_t> sizes;
  GatheredInput input;
  ASSERT_TRUE(GatherInput(batch, config, true, sizes, input).ok());
  EXPECT_EQ(input.shape, (Dims{2, 2, 3}));

  TensorConfig output = Fp32Input("y", {-1});
  output.reshape = Dims{2, 3};
  StatusOr<Dims> shape = ResponseShape(&output, true, Dims{2, 2, 3});
  ASSERT_TRUE(shape.ok());
  EXPECT_EQ(*shape, (Dims{2, 6}));
  StatusOr<Dims> plain = ResponseShape(nullptr, false, Dims{4});
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(*plain, (Dims{4}));
}

}  // namespace
}  // namespace inferd::pt
