// SPDX-License-Identifier: Apache-2.0
#include "frontends/http/infer_response_codec.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace inferd::frontends::http {
namespace {

using ::inferd::frontends::http::testing::Bytes;
using ::inferd::frontends::http::testing::StatusIs;
using ::testing::Contains;
using ::testing::Pair;

core::Tensor Output(std::string name, core::DataType type, core::Shape shape, std::string bytes) {
  return core::Tensor{std::move(name), type, std::move(shape), core::Buffer::Own(std::move(bytes))};
}

core::InferResponse Response(std::vector<core::Tensor> outputs, std::string id = "") {
  core::InferResponse response;
  response.model_name = "simple";
  response.model_version = 3;
  response.id = std::move(id);
  response.outputs = std::move(outputs);
  return response;
}

std::string JsonOf(const core::Tensor& output) {
  auto reply = EncodeInferResponse(Response({output}), OutputFormat{});
  EXPECT_TRUE(reply.ok()) << reply.status();
  return reply.ok() ? reply->body : "";
}

TEST(InferResponseCodecTest, JsonResponse) {
  auto reply = EncodeInferResponse(
      Response({Output("OUTPUT0", core::DataType::kInt32, {1, 2}, Bytes<int32_t>({3, -4}))}, "r1"),
      OutputFormat{});
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->body,
            R"({"id":"r1","model_name":"simple","model_version":"3","outputs":[{"name":"OUTPUT0",)"
            R"("datatype":"INT32","shape":[1,2],"data":[3,-4]}]})");
  EXPECT_EQ(reply->content_type, "application/json");
  EXPECT_TRUE(reply->tail.empty());
  EXPECT_TRUE(reply->headers.empty());
}

TEST(InferResponseCodecTest, IdOnlyWhenNonEmpty) {
  auto reply = EncodeInferResponse(Response({}), OutputFormat{});
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->body, R"({"model_name":"simple","model_version":"3","outputs":[]})");
}

TEST(InferResponseCodecTest, EveryDatatypeAsJson) {
  using core::DataType;
  EXPECT_THAT(JsonOf(Output("o", DataType::kBool, {2}, std::string("\x01\x00", 2))),
              ::testing::HasSubstr(R"("data":[true,false])"));
  EXPECT_THAT(JsonOf(Output("o", DataType::kUint8, {2}, Bytes<uint8_t>({0, 255}))),
              ::testing::HasSubstr(R"("data":[0,255])"));
  EXPECT_THAT(JsonOf(Output("o", DataType::kUint16, {1}, Bytes<uint16_t>({65535}))),
              ::testing::HasSubstr(R"("data":[65535])"));
  EXPECT_THAT(JsonOf(Output("o", DataType::kUint32, {1}, Bytes<uint32_t>({4294967295u}))),
              ::testing::HasSubstr(R"("data":[4294967295])"));
  EXPECT_THAT(JsonOf(Output("o", DataType::kUint64, {1}, Bytes<uint64_t>({UINT64_MAX}))),
              ::testing::HasSubstr(R"("data":[18446744073709551615])"));
  EXPECT_THAT(JsonOf(Output("o", DataType::kInt8, {1}, Bytes<int8_t>({-128}))),
              ::testing::HasSubstr(R"("data":[-128])"));
  EXPECT_THAT(JsonOf(Output("o", DataType::kInt16, {1}, Bytes<int16_t>({-32768}))),
              ::testing::HasSubstr(R"("data":[-32768])"));
  EXPECT_THAT(JsonOf(Output("o", DataType::kInt64, {1}, Bytes<int64_t>({INT64_MIN}))),
              ::testing::HasSubstr(R"("data":[-9223372036854775808])"));
  EXPECT_THAT(JsonOf(Output("o", DataType::kFp32, {3}, Bytes<float>({0.1f, 1.0f, -2.5f}))),
              ::testing::HasSubstr(R"("data":[0.1,1,-2.5])"));
  EXPECT_THAT(JsonOf(Output("o", DataType::kFp64, {1}, Bytes<double>({0.1}))),
              ::testing::HasSubstr(R"("data":[0.1])"));
  // FP16 1.0 and -2.0; BF16 1.0 (upper half of the fp32 pattern).
  EXPECT_THAT(JsonOf(Output("o", DataType::kFp16, {2}, std::string("\x00\x3c\x00\xc0", 4))),
              ::testing::HasSubstr(R"("data":[1,-2])"));
  EXPECT_THAT(JsonOf(Output("o", DataType::kBf16, {1}, std::string("\x80\x3f", 2))),
              ::testing::HasSubstr(R"("data":[1])"));
  EXPECT_THAT(JsonOf(Output("o", DataType::kBytes, {2},
                            std::string("\x02\x00\x00\x00"
                                        "a\""
                                        "\x00\x00\x00\x00",
                                        10))),
              ::testing::HasSubstr(R"("data":["a\"",""])"));
}

TEST(InferResponseCodecTest, NonFiniteFloats) {
  EXPECT_THAT(JsonOf(Output("o", core::DataType::kFp32, {2},
                            Bytes<float>({std::numeric_limits<float>::quiet_NaN(),
                                          -std::numeric_limits<float>::infinity()}))),
              ::testing::HasSubstr(R"("data":[NaN,-Infinity])"));
}

TEST(InferResponseCodecTest, BinaryOutputsFollowTheJson) {
  core::Tensor a = Output("a", core::DataType::kInt32, {2}, Bytes<int32_t>({1, 2}));
  core::Tensor b = Output("b", core::DataType::kInt32, {1}, Bytes<int32_t>({7}));
  core::Tensor empty = Output("e", core::DataType::kInt32, {0}, "");
  OutputFormat format;
  format.binary_default = true;
  format.binary_by_name["b"] = false;
  auto reply = EncodeInferResponse(Response({a, b, empty}), format);
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->content_type, "application/octet-stream");
  EXPECT_THAT(reply->headers, Contains(Pair("Inference-Header-Content-Length",
                                            std::to_string(reply->body.size()))));
  EXPECT_THAT(reply->body, ::testing::HasSubstr(R"({"name":"a","datatype":"INT32","shape":[2],)"
                                                R"("parameters":{"binary_data_size":8}})"));
  EXPECT_THAT(reply->body, ::testing::HasSubstr(R"({"name":"b","datatype":"INT32","shape":[1],)"
                                                R"("data":[7]})"));
  EXPECT_THAT(reply->body, ::testing::HasSubstr(R"("parameters":{"binary_data_size":0})"));
  ASSERT_EQ(reply->tail.size(), 1u);            // the empty output adds no blob
  EXPECT_EQ(reply->tail[0].data, a.data.data);  // not copied
  EXPECT_EQ(reply->ContentLength(), reply->body.size() + 8);
}

TEST(InferResponseCodecTest, ZeroSizeBinaryStillUsesBinaryFraming) {
  OutputFormat format;
  format.binary_default = true;
  auto reply = EncodeInferResponse(Response({Output("e", core::DataType::kFp32, {0}, "")}), format);
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->content_type, "application/octet-stream");
  EXPECT_TRUE(reply->tail.empty());
}

TEST(InferResponseCodecTest, Errors) {
  auto reply = EncodeInferResponse(
      Response({Output("o", core::DataType::kInt32, {2}, Bytes<int32_t>({1}))}), OutputFormat{});
  EXPECT_THAT(reply.status(), StatusIs(absl::StatusCode::kInternal));
  reply = EncodeInferResponse(
      Response({Output("o", core::DataType::kBytes, {1}, std::string("\x01\x00\x00\x00\xff", 5))}),
      OutputFormat{});
  EXPECT_THAT(reply.status(), StatusIs(absl::StatusCode::kInvalidArgument, "binary_data"));
  reply = EncodeInferResponse(
      Response({Output("o", core::DataType::kBytes, {2}, std::string("\x01\x00\x00\x00z", 5))}),
      OutputFormat{});
  EXPECT_THAT(reply.status(), StatusIs(absl::StatusCode::kInternal));
}

}  // namespace
}  // namespace inferd::frontends::http
