// SPDX-License-Identifier: Apache-2.0
#include "frontends/http/raw_binary_request.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace inferd::frontends::http {
namespace {

using ::inferd::frontends::http::testing::Bytes;
using ::inferd::frontends::http::testing::StatusIs;
using ::testing::ElementsAre;

ModelMetadata OneInput(core::DataType type, core::Shape shape) {
  ModelMetadata metadata;
  metadata.name = "m";
  metadata.inputs = {{"x", type, std::move(shape)}};
  return metadata;
}

TEST(RawBinaryRequestTest, FixedShapeBatched) {
  auto body = std::make_shared<const std::string>(Bytes<float>({1, 2, 3}));
  auto decoded = DecodeRawBinaryRequest(body, OneInput(core::DataType::kFp32, {-1, 3}), true);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  const core::Tensor& input = decoded->request->inputs.at(0);
  EXPECT_EQ(input.name, "x");
  EXPECT_THAT(input.shape, ElementsAre(1, 3));
  EXPECT_EQ(input.data.data, body->data());
  EXPECT_TRUE(decoded->format.IsBinary("anything"));
}

TEST(RawBinaryRequestTest, SolvesOneVariableDimension) {
  auto body = std::make_shared<const std::string>(Bytes<int32_t>({1, 2, 3, 4, 5, 6}));
  auto decoded = DecodeRawBinaryRequest(body, OneInput(core::DataType::kInt32, {-1, 2, -1}), true);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_THAT(decoded->request->inputs[0].shape, ElementsAre(1, 2, 3));
  EXPECT_THAT(
      DecodeRawBinaryRequest(body, OneInput(core::DataType::kInt32, {-1, -1}), false).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "one variable"));
  EXPECT_THAT(
      DecodeRawBinaryRequest(body, OneInput(core::DataType::kInt32, {-1, 4}), true).status(),
      StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(DecodeRawBinaryRequest(body, OneInput(core::DataType::kInt32, {5}), false).status(),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(RawBinaryRequestTest, BytesInputIsOneElement) {
  auto body = std::make_shared<const std::string>("hello");
  auto decoded = DecodeRawBinaryRequest(body, OneInput(core::DataType::kBytes, {-1, -1}), true);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_THAT(decoded->request->inputs[0].shape, ElementsAre(1, 1));
  EXPECT_EQ(decoded->request->inputs[0].data.view(), std::string("\x05\x00\x00\x00hello", 9));
  EXPECT_FALSE(DecodeRawBinaryRequest(body, OneInput(core::DataType::kBytes, {-1, 2}), true).ok());
}

TEST(RawBinaryRequestTest, NeedsExactlyOneInput) {
  ModelMetadata metadata = OneInput(core::DataType::kInt32, {1});
  metadata.inputs.push_back(metadata.inputs[0]);
  auto body = std::make_shared<const std::string>(Bytes<int32_t>({1}));
  EXPECT_THAT(DecodeRawBinaryRequest(body, metadata, false).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, "exactly one input"));
}

}  // namespace
}  // namespace inferd::frontends::http
