// SPDX-License-Identifier: Apache-2.0
// The generate extension's JSON mapping and the framing of streamed replies.
#include "frontends/http/generate_codec.h"

#include "frontends/http/http_reply.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace inferd::frontends::http {
namespace {

using testing::Bytes;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::StatusIs;

const std::vector<GenerateInput> kInputs = {
    {"text_input", core::DataType::kBytes, {1}},
    {"IN", core::DataType::kInt32, {-1}},
    {"MATRIX", core::DataType::kFp32, {-1, 2}},
    {"FLAG", core::DataType::kBool, {1}},
};

absl::StatusOr<std::unique_ptr<core::InferRequest>> Decode(std::string_view body) {
  return DecodeGenerateRequest(body, kInputs, 1 << 20);
}

const core::Tensor* Input(const core::InferRequest& request, std::string_view name) {
  for (const auto& tensor : request.inputs) {
    if (tensor.name == name) return &tensor;
  }
  return nullptr;
}

TEST(GenerateCodecTest, KeysThatNameInputsBecomeTensorsTheRestParameters) {
  auto request = Decode(R"({"text_input": "hi", "IN": [1, 2, 3], "stream": true,
                            "max_tokens": 7, "temperature": 0.5, "name": "x"})");
  ASSERT_TRUE(request.ok()) << request.status();
  const core::Tensor* text = Input(**request, "text_input");
  ASSERT_NE(text, nullptr);
  EXPECT_EQ(text->datatype, core::DataType::kBytes);
  EXPECT_THAT(text->shape, ElementsAre(1));
  EXPECT_EQ(text->data.view(), std::string("\x02\0\0\0hi", 6));
  const core::Tensor* in = Input(**request, "IN");
  ASSERT_NE(in, nullptr);
  EXPECT_THAT(in->shape, ElementsAre(3));
  EXPECT_EQ(in->data.view(), Bytes<int32_t>({1, 2, 3}));
  const auto& parameters = (*request)->parameters;
  EXPECT_EQ(std::get<bool>(parameters.at("stream")), true);
  EXPECT_EQ(std::get<int64_t>(parameters.at("max_tokens")), 7);
  EXPECT_EQ(std::get<double>(parameters.at("temperature")), 0.5);
  EXPECT_EQ(std::get<std::string>(parameters.at("name")), "x");
}

TEST(GenerateCodecTest, ParametersObjectIsReadKeyByKey) {
  auto request = Decode(R"({"parameters": {"IN": 4, "top_k": 2}})");
  ASSERT_TRUE(request.ok()) << request.status();
  ASSERT_NE(Input(**request, "IN"), nullptr);
  EXPECT_THAT(Input(**request, "IN")->shape, ElementsAre(1));
  EXPECT_EQ(std::get<int64_t>((*request)->parameters.at("top_k")), 2);
  EXPECT_THAT(Decode(R"({"parameters": 3})").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, "expected JSON object"));
}

TEST(GenerateCodecTest, ValuesFillFixedDimensionsFirst) {
  auto request = Decode(R"({"MATRIX": [1, 2, 3, 4, 5, 6], "FLAG": true})");
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_THAT(Input(**request, "MATRIX")->shape, ElementsAre(3, 2));
  EXPECT_THAT(Input(**request, "FLAG")->shape, ElementsAre(1));
  EXPECT_THAT(Decode(R"({"MATRIX": [1, 2, 3]})").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, "does not fit its shape"));
  EXPECT_THAT(Decode(R"({"FLAG": [true, false]})").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, "does not fit its shape"));
}

TEST(GenerateCodecTest, RefusesWhatTritonRefuses) {
  EXPECT_THAT(Decode("[1]").status(), StatusIs(absl::StatusCode::kInvalidArgument, "JSON object"));
  EXPECT_THAT(Decode("{").status(), StatusIs(absl::StatusCode::kInvalidArgument, "malformed"));
  EXPECT_THAT(Decode(R"({"IN": [[1], [2]]})").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, "flat array"));
  EXPECT_THAT(Decode(R"({"IN": "one"})").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, "IN"));
  EXPECT_THAT(Decode(R"({"text_input": 5})").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, "text_input"));
  EXPECT_THAT(Decode(R"({"options": [1]})").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, "parameter 'options'"));
  EXPECT_THAT(Decode(R"({"triton_x": 1})").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, "reserved"));
  EXPECT_THAT(Decode(R"({"IN": 1, "parameters": {"IN": 2}})").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, "given twice"));
  const std::vector<GenerateInput> clash = {{"parameters", core::DataType::kInt32, {1}}};
  EXPECT_THAT(DecodeGenerateRequest(R"({"parameters": {}})", clash, 1 << 20).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, "also given as input tensor name"));
  EXPECT_THAT(DecodeGenerateRequest(R"({"IN": [1, 2, 3, 4]})", kInputs, 8).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, "exceeds the limit"));
}

core::Tensor Tensor(std::string name, core::DataType type, core::Shape shape, std::string bytes) {
  return core::Tensor{std::move(name), type, std::move(shape), core::Buffer::Own(std::move(bytes))};
}

TEST(GenerateCodecTest, OneElementOutputsAreScalarsOthersFlatArrays) {
  core::InferResponse response;
  response.model_name = "m";
  response.model_version = 2;
  response.outputs.push_back(
      Tensor("text_output", core::DataType::kBytes, {1}, std::string("\x03\0\0\0abc", 7)));
  response.outputs.push_back(Tensor("OUT", core::DataType::kInt32, {1, 1}, Bytes<int32_t>({9})));
  response.outputs.push_back(
      Tensor("MANY", core::DataType::kInt32, {2, 2}, Bytes<int32_t>({1, 2, 3, 4})));
  response.outputs.push_back(Tensor("NONE", core::DataType::kInt32, {0}, ""));
  auto json = EncodeGenerateResponse(response);
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_EQ(*json, R"({"model_name":"m","model_version":"2","text_output":"abc","OUT":9,)"
                   R"("MANY":[1,2,3,4],"NONE":[]})");
}

TEST(GenerateCodecTest, BytesThatAreNotTextCannotBeSent) {
  core::InferResponse response;
  response.model_name = "m";
  response.outputs.push_back(
      Tensor("B", core::DataType::kBytes, {1}, std::string("\x01\0\0\0\xff", 5)));
  EXPECT_THAT(EncodeGenerateResponse(response).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, "UTF-8"));
}

TEST(GenerateCodecTest, ServerSentEventsAndChunks) {
  EXPECT_EQ(SseEvent(R"({"a":1})"), "data: {\"a\":1}\n\n");
  EXPECT_EQ(ChunkFrame("data: x\n\n"), "9\r\ndata: x\n\n\r\n");
  EXPECT_EQ(ChunkFrame(std::string(26, 'z')).substr(0, 4), "1a\r\n");
  HttpReply head;
  head.content_type = "text/event-stream; charset=utf-8";
  const std::string chunked = SerializeStreamHead(head, 11, /*close=*/false);
  EXPECT_EQ(chunked,
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\n"
            "Transfer-Encoding: chunked\r\n\r\n");
  EXPECT_THAT(SerializeStreamHead(head, 10, false), HasSubstr("Connection: close\r\n"));
  EXPECT_THAT(SerializeStreamHead(head, 10, false), ::testing::Not(HasSubstr("chunked")));
  EXPECT_THAT(SerializeStreamHead(head, 11, true), HasSubstr("Connection: close\r\n"));
}

}  // namespace
}  // namespace inferd::frontends::http
