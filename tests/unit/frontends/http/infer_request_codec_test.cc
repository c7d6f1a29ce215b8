// SPDX-License-Identifier: Apache-2.0
#include "frontends/http/infer_request_codec.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace inferd::frontends::http {
namespace {

using ::inferd::frontends::http::testing::Bytes;
using ::inferd::frontends::http::testing::StatusIs;
using ::testing::ElementsAre;

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;

absl::StatusOr<DecodedInferRequest> DecodeJson(const std::string& json, size_t limit = 64 << 20) {
  InferDecodeOptions options;
  options.max_json_input_bytes = limit;
  return DecodeInferRequest(std::make_shared<const std::string>(json), std::nullopt, options);
}

absl::StatusOr<DecodedInferRequest> DecodeBinary(const std::string& json,
                                                 const std::string& blobs) {
  return DecodeInferRequest(std::make_shared<const std::string>(json + blobs), json.size(), {});
}

std::string Input(const std::string& type, const std::string& shape, const std::string& data) {
  return R"({"inputs":[{"name":"x","datatype":")" + type + R"(","shape":)" + shape + R"(,"data":)" +
         data + "}]}";
}

absl::StatusOr<std::string> DecodeData(const std::string& type, const std::string& shape,
                                       const std::string& data) {
  auto decoded = DecodeJson(Input(type, shape, data));
  if (!decoded.ok()) return decoded.status();
  return std::string(decoded->request->inputs.at(0).data.view());
}

TEST(InferRequestCodecTest, DecodesEnvelope) {
  auto decoded = DecodeJson(R"({"id":"req-1","parameters":{"priority":1,"tag":"a","f":0.5,
      "flag":true,"big":18446744073709551615,"binary_data_output":true},
      "inputs":[{"name":"INPUT0","datatype":"INT32","shape":[1,2],"data":[1,2]}],
      "outputs":[{"name":"OUTPUT0","parameters":{"binary_data":false}},{"name":"OUTPUT1"}]})");
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  const core::InferRequest& request = *decoded->request;
  EXPECT_EQ(request.id, "req-1");
  EXPECT_EQ(std::get<int64_t>(request.parameters.at("priority")), 1);
  EXPECT_EQ(std::get<std::string>(request.parameters.at("tag")), "a");
  EXPECT_EQ(std::get<double>(request.parameters.at("f")), 0.5);
  EXPECT_EQ(std::get<bool>(request.parameters.at("flag")), true);
  EXPECT_EQ(std::get<uint64_t>(request.parameters.at("big")), UINT64_MAX);
  EXPECT_EQ(request.parameters.count("binary_data_output"), 0u);
  ASSERT_EQ(request.inputs.size(), 1u);
  EXPECT_EQ(request.inputs[0].name, "INPUT0");
  EXPECT_EQ(request.inputs[0].datatype, core::DataType::kInt32);
  EXPECT_THAT(request.inputs[0].shape, ElementsAre(1, 2));
  EXPECT_EQ(request.inputs[0].data.view(), Bytes<int32_t>({1, 2}));
  EXPECT_THAT(request.requested_outputs, ElementsAre("OUTPUT0", "OUTPUT1"));
  EXPECT_FALSE(decoded->format.IsBinary("OUTPUT0"));
  EXPECT_TRUE(decoded->format.IsBinary("OUTPUT1"));
}

TEST(InferRequestCodecTest, OutputsDefaultToJson) {
  auto decoded = DecodeJson(Input("INT32", "[1]", "[1]"));
  ASSERT_TRUE(decoded.ok());
  EXPECT_TRUE(decoded->request->requested_outputs.empty());
  EXPECT_FALSE(decoded->format.IsBinary("anything"));
  EXPECT_TRUE(decoded->request->id.empty());
}

TEST(InferRequestCodecTest, EveryJsonDatatype) {
  EXPECT_EQ(*DecodeData("BOOL", "[2]", "[true,false]"), std::string("\x01\x00", 2));
  EXPECT_EQ(*DecodeData("UINT8", "[2]", "[0,255]"), Bytes<uint8_t>({0, 255}));
  EXPECT_EQ(*DecodeData("UINT16", "[2]", "[0,65535]"), Bytes<uint16_t>({0, 65535}));
  EXPECT_EQ(*DecodeData("UINT32", "[1]", "[4294967295]"), Bytes<uint32_t>({4294967295u}));
  EXPECT_EQ(*DecodeData("UINT64", "[2]", "[1,18446744073709551615]"),
            Bytes<uint64_t>({1, UINT64_MAX}));
  EXPECT_EQ(*DecodeData("INT8", "[2]", "[-128,127]"), Bytes<int8_t>({-128, 127}));
  EXPECT_EQ(*DecodeData("INT16", "[2]", "[-32768,32767]"), Bytes<int16_t>({-32768, 32767}));
  EXPECT_EQ(*DecodeData("INT32", "[2]", "[-2147483648,2147483647]"),
            Bytes<int32_t>({INT32_MIN, INT32_MAX}));
  EXPECT_EQ(*DecodeData("INT64", "[2]", "[-9223372036854775808,9223372036854775807]"),
            Bytes<int64_t>({INT64_MIN, INT64_MAX}));
  EXPECT_EQ(*DecodeData("FP32", "[3]", "[1.5,-2,1e3]"), Bytes<float>({1.5f, -2.0f, 1000.0f}));
  EXPECT_EQ(*DecodeData("FP64", "[2]", "[0.1,3]"), Bytes<double>({0.1, 3.0}));
  EXPECT_EQ(*DecodeData("BYTES", "[2]", R"(["ab",""])"), std::string("\x02\x00\x00\x00"
                                                                     "ab"
                                                                     "\x00\x00\x00\x00",
                                                                     10));
}

TEST(InferRequestCodecTest, RejectsValuesOutOfRangeOrOfTheWrongType) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"UINT8", "[256]"},        {"UINT8", "[-1]"},
      {"UINT16", "[65536]"},     {"UINT32", "[4294967296]"},
      {"UINT64", "[-1]"},        {"INT8", "[128]"},
      {"INT8", "[-129]"},        {"INT16", "[32768]"},
      {"INT32", "[2147483648]"}, {"INT64", "[9223372036854775808]"},
      {"INT32", "[1.5]"},        {"INT32", "[1.0]"},
      {"INT32", "[\"1\"]"},      {"INT32", "[true]"},
      {"INT32", "[null]"},       {"INT32", "[{}]"},
      {"BOOL", "[1]"},           {"BOOL", "[\"true\"]"},
      {"BYTES", "[1]"},          {"BYTES", "[null]"},
      {"FP32", "[\"1.5\"]"},     {"FP64", "[true]"},
      {"UINT8", "[1e2]"}};
  for (const auto& [type, data] : bad) {
    EXPECT_THAT(DecodeData(type, "[1]", data).status(), StatusIs(kInvalid)) << type << " " << data;
  }
}

TEST(InferRequestCodecTest, RejectsHalfPrecisionAsJson) {
  EXPECT_THAT(DecodeData("FP16", "[1]", "[1.0]").status(), StatusIs(kInvalid, "binary"));
  EXPECT_THAT(DecodeData("BF16", "[1]", "[1.0]").status(), StatusIs(kInvalid, "binary"));
}

TEST(InferRequestCodecTest, FlattensNestedData) {
  EXPECT_EQ(*DecodeData("INT32", "[2,2]", "[[1,2],[3,4]]"), Bytes<int32_t>({1, 2, 3, 4}));
  // Triton flattens any nesting whose leaves add up, not only the shape's.
  EXPECT_EQ(*DecodeData("INT32", "[4]", "[[1],[2,[3]],4]"), Bytes<int32_t>({1, 2, 3, 4}));
}

TEST(InferRequestCodecTest, NestingDepthIsLimitedTo100) {
  const auto nested = [](int depth) {
    return std::string(depth, '[') + "7" + std::string(depth, ']');
  };
  EXPECT_EQ(*DecodeData("INT32", "[1]", nested(101)), Bytes<int32_t>({7}));  // 100 inside data
  EXPECT_THAT(DecodeData("INT32", "[1]", nested(102)).status(), StatusIs(kInvalid));
  EXPECT_THAT(DecodeData("INT32", "[1]", nested(5000)).status(), StatusIs(kInvalid));
}

TEST(InferRequestCodecTest, ElementCountMustMatchShape) {
  EXPECT_THAT(DecodeData("INT32", "[3]", "[1,2]").status(), StatusIs(kInvalid, "shape"));
  EXPECT_THAT(DecodeData("INT32", "[3]", "[1,2,3,4]").status(), StatusIs(kInvalid, "shape"));
  EXPECT_THAT(DecodeData("BYTES", "[2]", R"(["a"])").status(), StatusIs(kInvalid));
  EXPECT_TRUE(DecodeData("INT32", "[0]", "[]").ok());
  EXPECT_TRUE(DecodeData("INT32", "[2,0]", "[[],[]]").ok());
}

TEST(InferRequestCodecTest, RejectsBadShapesAndFields) {
  EXPECT_THAT(DecodeData("INT32", "[-1]", "[1]").status(), StatusIs(kInvalid));
  EXPECT_THAT(DecodeData("INT32", "[1.0]", "[1]").status(), StatusIs(kInvalid));
  EXPECT_THAT(DecodeData("INT32", "3", "[1]").status(), StatusIs(kInvalid));
  EXPECT_THAT(DecodeData("INT32", "[4611686018427387904,4]", "[1]").status(), StatusIs(kInvalid));
  EXPECT_THAT(DecodeData("FLOAT", "[1]", "[1]").status(), StatusIs(kInvalid, "datatype"));
  EXPECT_THAT(DecodeData("STRING", "[1]", R"(["a"])").status(), StatusIs(kInvalid, "datatype"));
  EXPECT_THAT(DecodeJson(R"({"inputs":[{"datatype":"INT32","shape":[1],"data":[1]}]})").status(),
              StatusIs(kInvalid, "name"));
  EXPECT_THAT(DecodeJson(R"({"inputs":[{"name":"x","shape":[1],"data":[1]}]})").status(),
              StatusIs(kInvalid, "datatype"));
  EXPECT_THAT(DecodeJson(R"({"inputs":[{"name":"x","datatype":"INT32","data":[1]}]})").status(),
              StatusIs(kInvalid, "shape"));
  EXPECT_THAT(DecodeJson(R"({"id":5,"inputs":[]})").status(), StatusIs(kInvalid, "id"));
  EXPECT_THAT(DecodeJson(R"({"outputs":[]})").status(), StatusIs(kInvalid, "inputs"));
  EXPECT_THAT(DecodeJson(R"({"inputs":{}})").status(), StatusIs(kInvalid, "inputs"));
  EXPECT_THAT(DecodeJson(R"({"inputs":[],"outputs":[{"parameters":{}}]})").status(),
              StatusIs(kInvalid, "name"));
}

TEST(InferRequestCodecTest, RejectsMalformedJson) {
  EXPECT_THAT(DecodeJson("").status(), StatusIs(kInvalid, "malformed"));
  EXPECT_THAT(DecodeJson("{\"inputs\":[").status(), StatusIs(kInvalid, "malformed"));
  EXPECT_THAT(DecodeJson("{\"inputs\":[]} trailing").status(), StatusIs(kInvalid, "malformed"));
  EXPECT_THAT(DecodeJson("[1,2]").status(), StatusIs(kInvalid, "object"));
  EXPECT_THAT(DecodeJson("{\"inputs\":[],\"id\":\"\xff\"}").status(), StatusIs(kInvalid));
}

TEST(InferRequestCodecTest, ExactlyOneDataSource) {
  EXPECT_THAT(DecodeJson(R"({"inputs":[{"name":"x","datatype":"INT32","shape":[1]}]})").status(),
              StatusIs(kInvalid, "exactly one"));
  EXPECT_THAT(DecodeBinary(R"({"inputs":[{"name":"x","datatype":"INT32","shape":[1],"data":[1],
          "parameters":{"binary_data_size":4}}]})",
                           Bytes<int32_t>({1}))
                  .status(),
              StatusIs(kInvalid, "exactly one"));
  EXPECT_THAT(DecodeJson(R"({"inputs":[{"name":"x","datatype":"INT32","shape":[1],
      "parameters":{"shared_memory_region":"r","shared_memory_byte_size":4}}]})")
                  .status(),
              StatusIs(kInvalid, "shared memory"));
}

TEST(InferRequestCodecTest, BinaryInputsPointIntoTheBody) {
  const std::string json = R"({"inputs":[
      {"name":"a","datatype":"INT32","shape":[2],"parameters":{"binary_data_size":8}},
      {"name":"j","datatype":"INT32","shape":[1],"data":[9]},
      {"name":"b","datatype":"BYTES","shape":[1],"parameters":{"binary_data_size":6}}]})";
  const std::string blobs = Bytes<int32_t>({5, 6}) + std::string("\x02\x00\x00\x00hi", 6);
  auto body = std::make_shared<const std::string>(json + blobs);
  auto decoded = DecodeInferRequest(body, json.size(), {});
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  const auto& inputs = decoded->request->inputs;
  ASSERT_EQ(inputs.size(), 3u);
  EXPECT_EQ(inputs[0].data.data, body->data() + json.size());  // no copy
  EXPECT_EQ(inputs[0].data.owner, body);
  EXPECT_EQ(inputs[0].data.view(), Bytes<int32_t>({5, 6}));
  EXPECT_EQ(inputs[1].data.view(), Bytes<int32_t>({9}));
  EXPECT_EQ(inputs[2].data.data, body->data() + json.size() + 8);
  EXPECT_EQ(inputs[2].data.view(), std::string("\x02\x00\x00\x00hi", 6));
}

TEST(InferRequestCodecTest, BinaryFramingErrors) {
  const std::string two = R"({"inputs":[
      {"name":"a","datatype":"INT32","shape":[1],"parameters":{"binary_data_size":4}},
      {"name":"b","datatype":"INT32","shape":[1],"parameters":{"binary_data_size":4}}]})";
  EXPECT_TRUE(DecodeBinary(two, Bytes<int32_t>({1, 2})).ok());
  EXPECT_THAT(DecodeBinary(two, Bytes<int32_t>({1}) + "xx").status(),
              StatusIs(kInvalid, "ends before"));
  EXPECT_THAT(DecodeBinary(two, "").status(), StatusIs(kInvalid, "ends before"));
  EXPECT_THAT(DecodeBinary(two, Bytes<int32_t>({1, 2, 3})).status(),
              StatusIs(kInvalid, "after the declared"));
  // Without Inference-Header-Content-Length the whole body is JSON.
  EXPECT_THAT(DecodeJson(two).status(), StatusIs(kInvalid, "ends before"));
  const std::string wrong_size = R"({"inputs":[
      {"name":"a","datatype":"INT32","shape":[2],"parameters":{"binary_data_size":4}}]})";
  // A size that does not fit the shape is the request validator's to refuse
  // (in Triton's words, server/request_validator_test.cc): the codec passes it on.
  auto passed = DecodeBinary(wrong_size, Bytes<int32_t>({1}));
  ASSERT_TRUE(passed.ok()) << passed.status();
  EXPECT_EQ(passed->request->inputs[0].data.size, 4u);
  const std::string bad_size = R"({"inputs":[
      {"name":"a","datatype":"INT32","shape":[1],"parameters":{"binary_data_size":-4}}]})";
  EXPECT_THAT(DecodeBinary(bad_size, "").status(), StatusIs(kInvalid, "binary_data_size"));
  const std::string json_only = Input("INT32", "[1]", "[1]");
  EXPECT_THAT(DecodeBinary(json_only, "x").status(), StatusIs(kInvalid, "after the declared"));
}

// BYTES framing and element counts are the request validator's checks too:
// the codec only slices the body.
TEST(InferRequestCodecTest, BinaryBytesArePassedOnUnparsed) {
  const std::string json = R"({"inputs":[
      {"name":"s","datatype":"BYTES","shape":[2],"parameters":{"binary_data_size":7}}]})";
  const std::string one_element(
      "\x03\x00\x00\x00"
      "abc",
      7);
  auto decoded = DecodeBinary(json, one_element);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->request->inputs[0].data.view(), one_element);
}

TEST(InferRequestCodecTest, HalfPrecisionTravelsAsBinary) {
  const std::string json = R"({"inputs":[
      {"name":"h","datatype":"FP16","shape":[2],"parameters":{"binary_data_size":4}}]})";
  auto decoded = DecodeBinary(json, std::string("\x00\x3c\x00\xc0", 4));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->request->inputs[0].datatype, core::DataType::kFp16);
}

TEST(InferRequestCodecTest, JsonInputSizeIsLimited) {
  // 100 INT64 zeros: about 200 bytes of JSON text decode to 800 bytes.
  std::string zeros = "[0";
  for (int i = 1; i < 100; ++i) zeros += ",0";
  zeros += "]";
  const std::string json = Input("INT64", "[100]", zeros);
  ASSERT_LT(json.size(), 300u);
  EXPECT_TRUE(DecodeJson(json, 800).ok());
  EXPECT_THAT(DecodeJson(json, 799).status(), StatusIs(kInvalid, "data exceeds the limit"));
  // 100 empty strings: about 300 bytes of text, 400 bytes with length prefixes.
  std::string empties = "[\"\"";
  for (int i = 1; i < 100; ++i) empties += ",\"\"";
  empties += "]";
  const std::string strings = Input("BYTES", "[100]", empties);
  ASSERT_LT(strings.size(), 390u);
  EXPECT_TRUE(DecodeJson(strings, 400).ok());
  EXPECT_THAT(DecodeJson(strings, 390).status(), StatusIs(kInvalid, "data exceeds the limit"));
  // The JSON text itself is bounded too: it sizes the parser's memory.
  EXPECT_THAT(DecodeJson(json, json.size() - 1).status(), StatusIs(kInvalid, "request JSON"));
  // A huge shape is refused before anything is allocated.
  EXPECT_THAT(DecodeJson(Input("INT64", "[1000000000000]", "[1]"), 1 << 20).status(),
              StatusIs(kInvalid, "data exceeds the limit"));
}

TEST(InferRequestCodecTest, Parameters) {
  EXPECT_THAT(DecodeJson(R"({"parameters":{"triton_x":1},"inputs":[]})").status(),
              StatusIs(kInvalid, "triton_"));
  EXPECT_THAT(DecodeJson(R"({"parameters":{"a":{"b":1}},"inputs":[]})").status(),
              StatusIs(kInvalid, "'a'"));
  EXPECT_THAT(DecodeJson(R"({"parameters":{"a":[1]},"inputs":[]})").status(),
              StatusIs(kInvalid, "'a'"));
  EXPECT_THAT(DecodeJson(R"({"parameters":{"a":null},"inputs":[]})").status(),
              StatusIs(kInvalid, "'a'"));
  EXPECT_THAT(DecodeJson(R"({"parameters":[],"inputs":[]})").status(), StatusIs(kInvalid));
  EXPECT_THAT(DecodeJson(R"({"parameters":{"binary_data_output":1},"inputs":[]})").status(),
              StatusIs(kInvalid, "binary_data_output"));
  EXPECT_THAT(DecodeJson(R"({"parameters":{"a":1,"a":2},"inputs":[]})").status(),
              StatusIs(kInvalid, "twice"));
  auto decoded = DecodeJson(R"({"parameters":{"sequence_id":"abc","sequence_start":true,
      "sequence_end":false,"timeout":100},"inputs":[]})");
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(std::get<std::string>(decoded->request->parameters.at("sequence_id")), "abc");
  EXPECT_EQ(std::get<bool>(decoded->request->parameters.at("sequence_start")), true);
  EXPECT_EQ(std::get<int64_t>(decoded->request->parameters.at("timeout")), 100);
}

TEST(InferRequestCodecTest, OutputParameters) {
  auto decoded = DecodeJson(R"({"parameters":{"binary_data_output":true},"inputs":[],
      "outputs":[{"name":"a"},{"name":"b","parameters":{"binary_data":false}}]})");
  ASSERT_TRUE(decoded.ok());
  EXPECT_TRUE(decoded->format.IsBinary("a"));
  EXPECT_FALSE(decoded->format.IsBinary("b"));
  EXPECT_THAT(DecodeJson(R"({"inputs":[],"outputs":[{"name":"a","parameters":{"binary_data":1}}]})")
                  .status(),
              StatusIs(kInvalid, "binary_data"));
  auto classify = DecodeJson(R"({"inputs":[],"outputs":[{"name":"a",
      "parameters":{"classification":3,"binary_data":true}},{"name":"b"}]})");
  ASSERT_TRUE(classify.ok()) << classify.status();
  EXPECT_THAT(classify->request->output_class_counts, ElementsAre(::testing::Pair("a", 3)));
  EXPECT_TRUE(classify->format.IsBinary("a"));
  for (const char* bad : {"0", "-1", "2.5", "\"2\"", "true"}) {
    EXPECT_THAT(DecodeJson(absl::StrCat(R"({"inputs":[],"outputs":[{"name":"a",
        "parameters":{"classification":)",
                                        bad, "}}]}"))
                    .status(),
                StatusIs(kInvalid,
                         "output 'a' parameter classification must be a positive "
                         "integer"))
        << bad;
  }
  EXPECT_THAT(DecodeJson(R"({"inputs":[],"outputs":[{"name":"a","parameters":{"classification":2,
      "shared_memory_region":"r","shared_memory_byte_size":4}}]})")
                  .status(),
              StatusIs(kInvalid, "classification and a shared memory region"));
  EXPECT_THAT(DecodeJson(R"({"inputs":[],"outputs":[{"name":"a",
      "parameters":{"shared_memory_region":"r"}}]})")
                  .status(),
              StatusIs(kInvalid, "'shared_memory_byte_size' must be specified"));
  EXPECT_THAT(DecodeJson(R"({"inputs":[],"outputs":[{"name":"a",
      "parameters":{"shared_memory_region":"r","shared_memory_byte_size":4}}]})")
                  .status(),
              StatusIs(kInvalid, "not available"));
}

TEST(InferRequestCodecTest, InferenceHeaderLength) {
  EXPECT_EQ(*ParseInferenceHeaderLength("0", 10), 0u);
  EXPECT_EQ(*ParseInferenceHeaderLength("10", 10), 10u);
  for (const char* bad : {"11", "-1", "", "abc", "1x", " 1", "+1", "99999999999999999999999"}) {
    EXPECT_THAT(ParseInferenceHeaderLength(bad, 10).status(), StatusIs(kInvalid)) << bad;
  }
}

}  // namespace
}  // namespace inferd::frontends::http
