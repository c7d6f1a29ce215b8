// SPDX-License-Identifier: Apache-2.0
#include "frontends/grpc/infer_response_codec.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace inferd::frontends::grpc {
namespace {

using ::testing::ElementsAre;

core::Tensor MakeTensor(std::string name, core::DataType type, core::Shape shape,
                        std::string bytes) {
  return core::Tensor{std::move(name), type, std::move(shape), core::Buffer::Own(std::move(bytes))};
}

TEST(InferResponseCodecTest, EncodesOneRawEntryPerOutputInOrder) {
  core::InferResponse response;
  response.model_name = "m";
  response.model_version = 12;
  response.id = "abc";
  response.outputs.push_back(MakeTensor("b", core::DataType::kFp16, {1, 2}, "wxyz"));
  response.outputs.push_back(MakeTensor("a", core::DataType::kInt32, {0}, ""));
  response.outputs.push_back(
      MakeTensor("s", core::DataType::kBytes, {1}, std::string("\x01\0\0\0q", 5)));
  inference::ModelInferResponse message;
  EncodeInferResponse(response, message);

  EXPECT_EQ(message.model_name(), "m");
  EXPECT_EQ(message.model_version(), "12");
  EXPECT_EQ(message.id(), "abc");
  ASSERT_EQ(message.outputs_size(), 3);
  ASSERT_EQ(message.raw_output_contents_size(), 3);
  EXPECT_EQ(message.outputs(0).name(), "b");
  EXPECT_EQ(message.outputs(0).datatype(), "FP16");
  EXPECT_THAT(message.outputs(0).shape(), ElementsAre(1, 2));
  EXPECT_EQ(message.raw_output_contents(0), "wxyz");
  EXPECT_EQ(message.outputs(1).datatype(), "INT32");
  EXPECT_EQ(message.raw_output_contents(1), "");
  EXPECT_EQ(message.outputs(2).datatype(), "BYTES");
  EXPECT_EQ(message.raw_output_contents(2), std::string("\x01\0\0\0q", 5));
  EXPECT_FALSE(message.outputs(0).has_contents());
}

TEST(InferResponseCodecTest, LeavesIdEmptyWhenRequestHadNone) {
  core::InferResponse response;
  response.model_name = "m";
  response.model_version = 1;
  inference::ModelInferResponse message;
  EncodeInferResponse(response, message);
  EXPECT_EQ(message.id(), "");
  EXPECT_EQ(message.model_version(), "1");
  EXPECT_EQ(message.outputs_size(), 0);
}

}  // namespace
}  // namespace inferd::frontends::grpc
