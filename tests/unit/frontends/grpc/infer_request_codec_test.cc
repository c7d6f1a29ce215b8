// SPDX-License-Identifier: Apache-2.0
#include "frontends/grpc/infer_request_codec.h"

#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace inferd::frontends::grpc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Input = inference::ModelInferRequest::InferInputTensor;

template <typename T>
std::string Bytes(std::vector<T> values) {
  std::string out(values.size() * sizeof(T), '\0');
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

// A request for model "m" with one input named "x" of `datatype` and `shape`.
inference::ModelInferRequest OneInput(const std::string& datatype, std::vector<int64_t> shape) {
  inference::ModelInferRequest message;
  message.set_model_name("m");
  Input* input = message.add_inputs();
  input->set_name("x");
  input->set_datatype(datatype);
  for (int64_t dim : shape) input->add_shape(dim);
  return message;
}

absl::StatusOr<std::string> DecodeOne(const inference::ModelInferRequest& message) {
  auto request = DecodeInferRequest(message, nullptr);
  if (!request.ok()) return request.status();
  return std::string((*request)->inputs.at(0).data.view());
}

TEST(InferRequestCodecTest, CopiesRequestFields) {
  auto message = OneInput("INT32", {1});
  message.set_model_version("3");
  message.set_id("req-1");
  message.add_raw_input_contents(Bytes<int32_t>({5}));
  message.add_outputs()->set_name("y");
  message.add_outputs()->set_name("z");
  (*message.mutable_parameters())["priority"].set_uint64_param(1);
  auto request = DecodeInferRequest(message, nullptr);
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_EQ((*request)->model_name, "m");
  EXPECT_EQ((*request)->model_version, "3");
  EXPECT_EQ((*request)->id, "req-1");
  EXPECT_THAT((*request)->requested_outputs, ElementsAre("y", "z"));
  EXPECT_EQ(std::get<uint64_t>((*request)->parameters.at("priority")), 1u);
  const core::Tensor& x = (*request)->inputs.at(0);
  EXPECT_EQ(x.name, "x");
  EXPECT_EQ(x.datatype, core::DataType::kInt32);
  EXPECT_THAT(x.shape, ElementsAre(1));
}

struct RawCase {
  std::string datatype;
  size_t element_size;
};

class RawContentsTest : public ::testing::TestWithParam<RawCase> {};

TEST_P(RawContentsTest, ReferencesRawBytesWithoutCopyAndHoldsOwner) {
  const RawCase& c = GetParam();
  auto message = std::make_shared<inference::ModelInferRequest>(OneInput(c.datatype, {2, 3}));
  std::string raw(6 * c.element_size, '\0');
  for (size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<char>(i % 2);  // valid BOOL too
  message->add_raw_input_contents(raw);
  auto request = DecodeInferRequest(*message, message);
  ASSERT_TRUE(request.ok()) << request.status();
  const core::Buffer& data = (*request)->inputs.at(0).data;
  EXPECT_EQ(data.data, message->raw_input_contents(0).data());
  EXPECT_EQ(data.view(), raw);
  EXPECT_EQ(data.owner, message);
}

// The size against the shape is the request validator's check (one place, in
// Triton's words: server/request_validator_test.cc); the codec passes it on.
TEST_P(RawContentsTest, LeavesTheSizeCheckToTheServer) {
  const RawCase& c = GetParam();
  auto message = OneInput(c.datatype, {2, 3});
  message.add_raw_input_contents(std::string(6 * c.element_size + 1, '\0'));
  auto decoded = DecodeOne(message);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->size(), 6 * c.element_size + 1);
}

INSTANTIATE_TEST_SUITE_P(AllFixedTypes, RawContentsTest,
                         ::testing::Values(RawCase{"BOOL", 1}, RawCase{"UINT8", 1},
                                           RawCase{"UINT16", 2}, RawCase{"UINT32", 4},
                                           RawCase{"UINT64", 8}, RawCase{"INT8", 1},
                                           RawCase{"INT16", 2}, RawCase{"INT32", 4},
                                           RawCase{"INT64", 8}, RawCase{"FP16", 2},
                                           RawCase{"FP32", 4}, RawCase{"FP64", 8},
                                           RawCase{"BF16", 2}),
                         [](const auto& info) { return info.param.datatype; });

TEST(InferRequestCodecTest, AcceptsRawBytesWithElementCountOfShape) {
  auto message = OneInput("BYTES", {2});
  message.add_raw_input_contents(std::string("\x02\0\0\0ab\0\0\0\0", 10));
  auto decoded = DecodeOne(message);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, std::string("\x02\0\0\0ab\0\0\0\0", 10));
}

TEST(InferRequestCodecTest, LeavesRawBytesElementCountToTheServer) {
  auto message = OneInput("BYTES", {3});
  message.add_raw_input_contents(std::string("\x02\0\0\0ab\0\0\0\0", 10));
  auto decoded = DecodeOne(message);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->size(), 10u);
}

TEST(InferRequestCodecTest, DecodesTypedContentsOfEveryType) {
  struct Case {
    std::string datatype;
    std::function<void(inference::InferTensorContents&)> fill;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"BOOL",
       [](auto& c) {
         c.add_bool_contents(true);
         c.add_bool_contents(false);
       },
       std::string("\1\0", 2)},
      {"UINT8",
       [](auto& c) {
         c.add_uint_contents(1);
         c.add_uint_contents(255);
       },
       Bytes<uint8_t>({1, 255})},
      {"UINT16",
       [](auto& c) {
         c.add_uint_contents(2);
         c.add_uint_contents(65535);
       },
       Bytes<uint16_t>({2, 65535})},
      {"UINT32",
       [](auto& c) {
         c.add_uint_contents(3);
         c.add_uint_contents(4000000000u);
       },
       Bytes<uint32_t>({3, 4000000000u})},
      {"UINT64",
       [](auto& c) {
         c.add_uint64_contents(4);
         c.add_uint64_contents(~uint64_t{0});
       },
       Bytes<uint64_t>({4, ~uint64_t{0}})},
      {"INT8",
       [](auto& c) {
         c.add_int_contents(-128);
         c.add_int_contents(127);
       },
       Bytes<int8_t>({-128, 127})},
      {"INT16",
       [](auto& c) {
         c.add_int_contents(-32768);
         c.add_int_contents(32767);
       },
       Bytes<int16_t>({-32768, 32767})},
      {"INT32",
       [](auto& c) {
         c.add_int_contents(-7);
         c.add_int_contents(7);
       },
       Bytes<int32_t>({-7, 7})},
      {"INT64",
       [](auto& c) {
         c.add_int64_contents(-8);
         c.add_int64_contents(int64_t{1} << 40);
       },
       Bytes<int64_t>({-8, int64_t{1} << 40})},
      {"FP32",
       [](auto& c) {
         c.add_fp32_contents(1.5f);
         c.add_fp32_contents(-2.0f);
       },
       Bytes<float>({1.5f, -2.0f})},
      {"FP64",
       [](auto& c) {
         c.add_fp64_contents(0.25);
         c.add_fp64_contents(1e300);
       },
       Bytes<double>({0.25, 1e300})},
      {"BYTES",
       [](auto& c) {
         c.add_bytes_contents("ab");
         c.add_bytes_contents("");
       },
       std::string("\x02\0\0\0ab\0\0\0\0", 10)},
  };
  for (const Case& c : cases) {
    auto message = OneInput(c.datatype, {2});
    c.fill(*message.mutable_inputs(0)->mutable_contents());
    auto decoded = DecodeOne(message);
    ASSERT_TRUE(decoded.ok()) << c.datatype << ": " << decoded.status();
    EXPECT_EQ(*decoded, c.expected) << c.datatype;
  }
}

TEST(InferRequestCodecTest, BorrowsSameWidthTypedContents) {
  auto message = std::make_shared<inference::ModelInferRequest>(OneInput("FP32", {2}));
  auto* contents = message->mutable_inputs(0)->mutable_contents();
  contents->add_fp32_contents(1.0f);
  contents->add_fp32_contents(2.0f);
  auto request = DecodeInferRequest(*message, message);
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_EQ((*request)->inputs[0].data.data,
            reinterpret_cast<const char*>(contents->fp32_contents().data()));
  EXPECT_EQ((*request)->inputs[0].data.owner, message);
}

TEST(InferRequestCodecTest, RejectsTypedValuesOutOfRangeOfNarrowTypes) {
  for (const auto& [datatype, value] : std::vector<std::pair<std::string, int64_t>>{
           {"INT8", 128}, {"INT8", -129}, {"INT16", 40000}, {"UINT8", 256}, {"UINT16", 70000}}) {
    auto message = OneInput(datatype, {1});
    auto* contents = message.mutable_inputs(0)->mutable_contents();
    if (datatype[0] == 'U') {
      contents->add_uint_contents(static_cast<uint32_t>(value));
    } else {
      contents->add_int_contents(static_cast<int32_t>(value));
    }
    auto decoded = DecodeOne(message);
    EXPECT_EQ(decoded.status().code(), absl::StatusCode::kInvalidArgument) << datatype;
    EXPECT_THAT(decoded.status().message(), HasSubstr("does not fit in " + datatype));
  }
}

TEST(InferRequestCodecTest, RejectsTypedHalfPrecision) {
  for (const std::string datatype : {"FP16", "BF16"}) {
    auto message = OneInput(datatype, {1});
    message.mutable_inputs(0)->mutable_contents()->add_fp32_contents(1.0f);
    auto decoded = DecodeOne(message);
    EXPECT_EQ(decoded.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(decoded.status().message(), HasSubstr("must be sent in raw_input_contents"));
  }
}

TEST(InferRequestCodecTest, RejectsTypedCountThatDoesNotMatchShape) {
  auto message = OneInput("INT32", {3});
  message.mutable_inputs(0)->mutable_contents()->add_int_contents(1);
  auto decoded = DecodeOne(message);
  EXPECT_EQ(decoded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(decoded.status().message(), HasSubstr("expected 3 values in int_contents, got 1"));
  // Values in a field the datatype does not use count as missing.
  auto wrong_field = OneInput("FP32", {1});
  wrong_field.mutable_inputs(0)->mutable_contents()->add_int_contents(1);
  EXPECT_THAT(DecodeOne(wrong_field).status().message(), HasSubstr("fp32_contents, got 0"));
}

TEST(InferRequestCodecTest, AcceptsEmptyTypedContentsForZeroElements) {
  auto message = OneInput("FP32", {0, 4});
  message.mutable_inputs(0)->mutable_contents();
  auto decoded = DecodeOne(message);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_TRUE(decoded->empty());
}

TEST(InferRequestCodecTest, RejectsMixingTypedAndRawContents) {
  auto message = OneInput("INT32", {1});
  message.mutable_inputs(0)->mutable_contents()->add_int_contents(1);
  Input* second = message.add_inputs();
  second->set_name("w");
  second->set_datatype("INT32");
  second->add_shape(1);
  message.add_raw_input_contents(Bytes<int32_t>({2}));
  auto request = DecodeInferRequest(message, nullptr);
  EXPECT_EQ(request.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(request.status().message(),
            "contents field must not be specified when using raw_input_contents for 'x' for model "
            "'m'");
}

TEST(InferRequestCodecTest, RejectsInputWithoutData) {
  auto message = OneInput("INT32", {1});
  auto request = DecodeInferRequest(message, nullptr);
  EXPECT_EQ(request.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(request.status().message(), HasSubstr("input 'x' of model 'm': no data"));
}

TEST(InferRequestCodecTest, RejectsUnusedRawEntries) {
  auto message = OneInput("INT32", {1});
  message.add_raw_input_contents(Bytes<int32_t>({1}));
  message.add_raw_input_contents(Bytes<int32_t>({2}));
  auto request = DecodeInferRequest(message, nullptr);
  EXPECT_EQ(request.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(request.status().message(), HasSubstr("2 raw_input_contents entries but 1"));
}

TEST(InferRequestCodecTest, TakesRawEntriesInInputOrder) {
  auto message = OneInput("INT32", {1});
  Input* second = message.add_inputs();
  second->set_name("w");
  second->set_datatype("INT64");
  second->add_shape(1);
  message.add_raw_input_contents(Bytes<int32_t>({1}));
  message.add_raw_input_contents(Bytes<int64_t>({2}));
  auto request = DecodeInferRequest(message, nullptr);
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_EQ((*request)->inputs[0].data.view(), Bytes<int32_t>({1}));
  EXPECT_EQ((*request)->inputs[1].data.view(), Bytes<int64_t>({2}));
}

TEST(InferRequestCodecTest, RejectsUnknownDatatypeAndBadShape) {
  auto unknown = OneInput("STRING", {1});
  unknown.add_raw_input_contents("x");
  EXPECT_THAT(DecodeOne(unknown).status().message(), HasSubstr("unknown datatype 'STRING'"));
  auto negative = OneInput("INT32", {-1});
  negative.add_raw_input_contents("");
  EXPECT_EQ(DecodeOne(negative).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(InferRequestCodecTest, RejectsSharedMemoryAndClassification) {
  auto shm = OneInput("INT32", {1});
  (*shm.mutable_inputs(0)->mutable_parameters())["shared_memory_region"].set_string_param("r");
  EXPECT_THAT(DecodeOne(shm).status().message(),
              HasSubstr("'shared_memory_byte_size' must be specified along with "
                        "'shared_memory_region' parameter for tensor 'x'"));
  (*shm.mutable_inputs(0)->mutable_parameters())["shared_memory_byte_size"].set_int64_param(4);
  EXPECT_THAT(DecodeOne(shm).status().message(), HasSubstr("shared memory regions are not"));
  (*shm.mutable_inputs(0)->mutable_parameters())["shared_memory_offset"].set_string_param("0");
  EXPECT_THAT(DecodeOne(shm).status().message(),
              HasSubstr("invalid value type for 'shared_memory_offset' parameter for tensor 'x', "
                        "expected int64_param."));

  auto classification = OneInput("INT32", {1});
  classification.add_raw_input_contents(Bytes<int32_t>({1}));
  auto* output = classification.add_outputs();
  output->set_name("y");
  (*output->mutable_parameters())["classification"].set_int64_param(2);
  auto request = DecodeInferRequest(classification, nullptr);
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_EQ((*request)->output_class_counts.at("y"), 2);
  EXPECT_THAT((*request)->requested_outputs, ::testing::ElementsAre("y"));

  for (const int64_t bad : {0, -3}) {
    (*output->mutable_parameters())["classification"].set_int64_param(bad);
    request = DecodeInferRequest(classification, nullptr);
    EXPECT_EQ(request.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(request.status().message(),
                HasSubstr("output 'y' of model 'm': parameter 'classification' must be a "
                          "positive int64_param"));
  }
  (*output->mutable_parameters())["classification"].set_string_param("2");
  EXPECT_EQ(DecodeInferRequest(classification, nullptr).status().code(),
            absl::StatusCode::kInvalidArgument);

  (*output->mutable_parameters())["classification"].set_int64_param(2);
  (*output->mutable_parameters())["shared_memory_region"].set_string_param("r");
  (*output->mutable_parameters())["shared_memory_byte_size"].set_int64_param(64);
  SharedMemoryRegistry registry;
  SharedMemoryOutputs outputs;
  request = DecodeInferRequest(classification, nullptr, &registry, &outputs);
  EXPECT_EQ(request.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(request.status().message(), HasSubstr("classification and a shared memory region"));
}

TEST(InferRequestCodecTest, ReportsBadRequestParameterWithModel) {
  auto message = OneInput("INT32", {1});
  message.add_raw_input_contents(Bytes<int32_t>({1}));
  (*message.mutable_parameters())["triton_x"].set_bool_param(true);
  auto request = DecodeInferRequest(message, nullptr);
  EXPECT_EQ(request.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(request.status().message(), HasSubstr("model 'm': request parameter 'triton_x'"));
}

}  // namespace
}  // namespace inferd::frontends::grpc
