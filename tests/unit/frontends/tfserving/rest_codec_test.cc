// SPDX-License-Identifier: Apache-2.0
// TF Serving's REST JSON: the row and columnar request forms, b64 values,
// the reply shapes, and errors with TF Serving's HTTP statuses.
#include "frontends/tfserving/rest_request_codec.h"
#include "frontends/tfserving/rest_response_codec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/infer_helpers.h"

namespace inferd::frontends::tfserving {
namespace {

using core::DataType;
using inferd::testing::TensorValues;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

ModelMetadata TwoInputs() {
  ModelMetadata metadata;
  metadata.name = "simple";
  metadata.inputs = {{"INPUT0", DataType::kInt32, {-1, 2}}, {"INPUT1", DataType::kFp32, {-1, 2}}};
  return metadata;
}

ModelMetadata OneInput(DataType type) {
  ModelMetadata metadata;
  metadata.name = "one";
  metadata.inputs = {{"x", type, {-1, 2}}};
  return metadata;
}

constexpr size_t kBudget = 1 << 20;

TEST(RestRequestCodecTest, NamedRows) {
  auto request = DecodeRestPredict(
      R"({"signature_name": "serving_default", "instances": [
            {"INPUT0": [1, 2], "INPUT1": [0.5, 1]}, {"INPUT1": [2, 3], "INPUT0": [3, 4]}]})",
      TwoInputs(), kBudget);
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_TRUE(request->row_format);
  EXPECT_EQ(request->signature_name, "serving_default");
  ASSERT_EQ(request->inputs.size(), 2u);
  EXPECT_EQ(request->inputs[0].name, "INPUT0");
  EXPECT_THAT(request->inputs[0].shape, ElementsAre(2, 2));
  EXPECT_THAT(TensorValues<int32_t>(request->inputs[0]), ElementsAre(1, 2, 3, 4));
  EXPECT_THAT(TensorValues<float>(request->inputs[1]), ElementsAre(0.5f, 1.f, 2.f, 3.f));
}

TEST(RestRequestCodecTest, BareRowsAndColumnsForTheOneInput) {
  auto rows = DecodeRestPredict(R"({"instances": [[1, 2], [3, 4], [5, 6]]})",
                                OneInput(DataType::kFp32), kBudget);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_THAT(rows->inputs[0].shape, ElementsAre(3, 2));
  auto columns =
      DecodeRestPredict(R"({"inputs": [[1, 2], [3, 4]]})", OneInput(DataType::kFp32), kBudget);
  ASSERT_TRUE(columns.ok()) << columns.status();
  EXPECT_FALSE(columns->row_format);
  EXPECT_THAT(columns->inputs[0].shape, ElementsAre(2, 2));
  auto named = DecodeRestPredict(R"({"inputs": {"INPUT0": [[1, 2]], "INPUT1": [[1, 2]]}})",
                                 TwoInputs(), kBudget);
  ASSERT_TRUE(named.ok()) << named.status();
  EXPECT_THAT(named->inputs[1].shape, ElementsAre(1, 2));
}

TEST(RestRequestCodecTest, B64AndPlainStrings) {
  auto request = DecodeRestPredict(R"({"instances": [{"b64": "AP8="}, "text"]})",
                                   OneInput(DataType::kBytes), kBudget);
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_THAT(request->inputs[0].shape, ElementsAre(2));
  EXPECT_THAT(inferd::testing::DecodeBytes(request->inputs[0].data.view()),
              ElementsAre(std::string("\0\xff", 2), "text"));
}

TEST(RestRequestCodecTest, Errors) {
  const auto message = [](std::string_view body, const ModelMetadata& metadata) {
    auto request = DecodeRestPredict(body, metadata, kBudget);
    EXPECT_TRUE(absl::IsInvalidArgument(request.status())) << body;
    return std::string(request.status().message());
  };
  const ModelMetadata floats = OneInput(DataType::kFp32);
  EXPECT_THAT(message("[1]", floats), HasSubstr("must be a JSON object"));
  EXPECT_THAT(message("{", floats), HasSubstr("not valid JSON"));
  EXPECT_THAT(message("{}", floats), HasSubstr("'instances' (rows) or 'inputs'"));
  EXPECT_THAT(message(R"({"instances": [], "inputs": []})", floats), HasSubstr("not both"));
  EXPECT_THAT(message(R"({"instances": [[1, 2], [3]]})", floats), HasSubstr("rectangular"));
  EXPECT_THAT(message(R"({"instances": [["a", 2]]})", floats), HasSubstr("not a number"));
  EXPECT_THAT(message(R"({"instances": [[{"b64": "AA=="}]]})", floats), HasSubstr("only BYTES"));
  EXPECT_THAT(message(R"({"instances": [[1]], "signature_name": 3})", floats),
              HasSubstr("'signature_name' must be a string"));
  EXPECT_THAT(message(R"({"instances": [[1, 2]]})", TwoInputs()), HasSubstr("has 2 inputs"));
  EXPECT_THAT(message(R"({"instances": [{"INPUT0": [1, 2]}, {"INPUT1": [1, 2]}]})", TwoInputs()),
              HasSubstr("that the first does not"));
  EXPECT_THAT(message(R"({"inputs": {"nope": [1]}})", TwoInputs()),
              HasSubstr("has no input 'nope'"));
  EXPECT_THAT(message(R"({"inputs": [[3000000000]]})", OneInput(DataType::kInt32)),
              HasSubstr("out of range"));
  EXPECT_THAT(message(R"({"inputs": [[{"b64": "!!"}]]})", OneInput(DataType::kBytes)),
              HasSubstr("not base64"));
}

TEST(RestRequestCodecTest, DataBudget) {
  auto request =
      DecodeRestPredict(R"({"inputs": [[1, 2], [3, 4], [5, 6]]})", OneInput(DataType::kFp32), 8);
  EXPECT_THAT(std::string(request.status().message()), HasSubstr("data limit"));
}

core::InferResponse Response(std::vector<core::Tensor> outputs) {
  core::InferResponse response;
  response.model_version = 1;
  response.outputs = std::move(outputs);
  return response;
}

TEST(RestResponseCodecTest, RowsAndColumns) {
  const auto one = Response(
      {inferd::testing::MakeTensor<int32_t>("OUTPUT0", DataType::kInt32, {2, 2}, {1, 2, 3, 4})});
  EXPECT_EQ(*EncodeRestPredict(one, true), R"({"predictions":[[1,2],[3,4]]})");
  EXPECT_EQ(*EncodeRestPredict(one, false), R"({"outputs":[[1,2],[3,4]]})");
  const auto two =
      Response({inferd::testing::MakeTensor<float>("a", DataType::kFp32, {2}, {0.5f, 1.f}),
                inferd::testing::MakeBytesTensor("b", {2, 1}, {"x", "y"})});
  EXPECT_EQ(*EncodeRestPredict(two, true),
            R"({"predictions":[{"a":0.5,"b":["x"]},{"a":1,"b":["y"]}]})");
  EXPECT_EQ(*EncodeRestPredict(two, false), R"({"outputs":{"a":[0.5,1],"b":[["x"],["y"]]}})");
}

TEST(RestResponseCodecTest, BinaryStringsAsB64) {
  const auto response =
      Response({inferd::testing::MakeBytesTensor("out_bytes", {1}, {"hi"}),
                inferd::testing::MakeBytesTensor("raw", {1}, {std::string("\xff", 1)})});
  EXPECT_EQ(*EncodeRestPredict(response, false),
            R"({"outputs":{"out_bytes":[{"b64":"aGk="}],"raw":[{"b64":"/w=="}]}})");
}

TEST(RestResponseCodecTest, RowsNeedOneBatchSize) {
  const auto response =
      Response({inferd::testing::MakeTensor<float>("a", DataType::kFp32, {2}, {1.f, 2.f}),
                inferd::testing::MakeTensor<float>("b", DataType::kFp32, {1}, {1.f})});
  auto encoded = EncodeRestPredict(response, true);
  EXPECT_THAT(std::string(encoded.status().message()), HasSubstr("inconsistent batch size"));
  EXPECT_TRUE(EncodeRestPredict(response, false).ok());
}

TEST(RestResponseCodecTest, TfServingStatuses) {
  EXPECT_EQ(TfServingHttpStatus(absl::NotFoundError("")), 404);
  EXPECT_EQ(TfServingHttpStatus(absl::InvalidArgumentError("")), 400);
  EXPECT_EQ(TfServingHttpStatus(absl::FailedPreconditionError("")), 400);
  EXPECT_EQ(TfServingHttpStatus(absl::UnavailableError("")), 503);
  EXPECT_EQ(TfServingHttpStatus(absl::UnimplementedError("")), 501);
  EXPECT_EQ(TfServingHttpStatus(absl::InternalError("")), 500);
  EXPECT_EQ(TfServingHttpStatus(absl::DeadlineExceededError("")), 504);
  const auto reply = TfServingErrorReply(absl::NotFoundError("no \"m\""));
  EXPECT_EQ(reply.status, 404);
  EXPECT_EQ(reply.body, R"({"error":"no \"m\""})");
}

}  // namespace
}  // namespace inferd::frontends::tfserving
