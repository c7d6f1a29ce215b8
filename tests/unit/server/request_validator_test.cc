// SPDX-License-Identifier: Apache-2.0
// Request checks against a model config before queueing: names, datatypes,
// shapes (with the batch dimension), byte sizes, outputs, parameters.
#include "server/request_validator.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "repository/model_config_parser.h"
#include "testing/infer_helpers.h"

namespace inferd {
namespace {

using core::DataType;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::MakeBytesTensor;
using testing::MakeTensor;

constexpr char kBatching[] = R"pb(
  name: "m"
  max_batch_size: 8 input
  [ {
    name: "a"
    data_type: TYPE_FP32
    dims: [ -1, 3 ]
  }
    , {
      name: "s"
      data_type: TYPE_STRING
      dims: [ 2 ]
    }
    , {
      name: "opt"
      data_type: TYPE_INT32
      dims: [ 1 ]
      optional: true
    }] output
  [ {
    name: "x"
    data_type: TYPE_FP32
    dims: [ 3 ]
  }
    , {
      name: "y"
      data_type: TYPE_FP32
      dims: [ 3 ]
    }])pb";

inference::ModelConfig Config(const std::string& text = kBatching) {
  auto config = repository::ParseModelConfig(text, "config.pbtxt");
  EXPECT_TRUE(config.ok()) << config.status();
  return config.ok() ? *config : inference::ModelConfig();
}

core::Tensor A(core::Shape shape) {
  auto count = core::ElementCount(shape);
  return MakeTensor<float>("a", DataType::kFp32, shape,
                           std::vector<float>(count.ok() ? *count : 0, 1.0f));
}

core::Tensor S(int64_t batch) {
  return MakeBytesTensor("s", {batch, 2},
                         std::vector<std::string>(static_cast<size_t>(batch) * 2, "hi"));
}

core::InferRequest Request(std::vector<core::Tensor> inputs) {
  core::InferRequest request;
  request.model_name = "m";
  request.inputs = std::move(inputs);
  return request;
}

// The error message of validating `request` against `config`; "" when valid.
std::string Error(core::InferRequest request, const inference::ModelConfig& config = Config()) {
  auto result = ValidateRequest(config, request);
  if (result.ok()) return "";
  EXPECT_TRUE(absl::IsInvalidArgument(result.status())) << result.status();
  return std::string(result.status().message());
}

TEST(RequestValidatorTest, ValidBatchedRequest) {
  auto request = Request({A({2, 5, 3}), S(2)});
  auto result = ValidateRequest(Config(), request);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->batch_size, 2);
  EXPECT_THAT(result->output_names, ElementsAre("x", "y"));  // config order by default
}

TEST(RequestValidatorTest, NonBatchingModelHasBatchSizeOne) {
  const auto config = Config(R"pb(name: "m" input
                                  [ {
                                    name: "a"
                                    data_type: TYPE_FP32
                                    dims: [ -1, 3 ]
                                  }] output
                                  [ {
                                    name: "x"
                                    data_type: TYPE_FP32
                                    dims: [ 3 ]
                                  }])pb");
  auto request = Request({A({5, 3})});
  auto result = ValidateRequest(config, request);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->batch_size, 1);
  EXPECT_EQ(Error(Request({A({1, 5, 3})}), config),
            "unexpected shape for input 'a' for model 'm'. Expected [-1,3], got [1,5,3].");
}

TEST(RequestValidatorTest, UnknownAndDuplicateInputs) {
  EXPECT_THAT(
      Error(Request({A({1, 1, 3}), S(1), MakeTensor<float>("zzz", DataType::kFp32, {1}, {1.0f})})),
      HasSubstr("unexpected inference input 'zzz' for model 'm'"));
  EXPECT_EQ(Error(Request({A({1, 1, 3}), S(1), A({1, 1, 3})})),
            "input 'a' already exists in request for model 'm'");
}

TEST(RequestValidatorTest, MissingRequiredInputButOptionalMayBeOmitted) {
  // Triton's wording, with "between" when some inputs are optional.
  EXPECT_EQ(Error(Request({A({1, 1, 3})})),
            "expected number of inputs between 2 and 3 but got 1 inputs for model 'm'. Got inputs "
            "['a'], but missing required inputs ['s']. Please provide all required inputs.");
  const auto all_required = Config(R"pb(name: "m" input
                                        [ {
                                          name: "a"
                                          data_type: TYPE_FP32
                                          dims: [ 3 ]
                                        }
                                          , {
                                            name: "b"
                                            data_type: TYPE_FP32
                                            dims: [ 3 ]
                                          }] output
                                        [ {
                                          name: "x"
                                          data_type: TYPE_FP32
                                          dims: [ 3 ]
                                        }])pb");
  EXPECT_EQ(Error(Request({}), all_required),
            "expected 2 inputs but got 0 inputs for model 'm'. Got inputs [], but missing required "
            "inputs ['a','b']. Please provide all required inputs.");
  EXPECT_EQ(Error(Request(
                {A({1, 1, 3}), S(1), MakeTensor<int32_t>("opt", DataType::kInt32, {1, 1}, {7})})),
            "");
}

TEST(RequestValidatorTest, DatatypeMustMatch) {
  auto wrong = MakeTensor<double>("a", DataType::kFp64, {1, 1, 3}, {1, 2, 3});
  EXPECT_EQ(Error(Request({wrong, S(1)})),
            "inference input 'a' data-type is 'FP64', but model 'm' expects 'FP32'");
}

TEST(RequestValidatorTest, BatchDimensionRules) {
  EXPECT_EQ(Error(Request({A({}), S(1)})),
            "input 'a' has no shape but model requires batch dimension for 'm'");
  EXPECT_EQ(Error(Request({A({9, 1, 3}), S(9)})),
            "inference request batch-size must be <= 8 for 'm' (input 'a' has batch size 9)");
  EXPECT_THAT(Error(Request({A({0, 1, 3}), S(1)})),
              HasSubstr("inference request batch-size must be >= 1 for 'm'"));
  EXPECT_EQ(Error(Request({A({2, 1, 3}), S(3)})),
            "input 's' batch size does not match other inputs for 'm' (3 here, 2 before)");
  EXPECT_EQ(Error(Request({A({8, 1, 3}), S(8)})), "");
}

TEST(RequestValidatorTest, ShapeMustMatchDims) {
  EXPECT_EQ(Error(Request({A({1, 2, 4}), S(1)})),
            "unexpected shape for input 'a' for model 'm'. Expected [-1,-1,3], got [1,2,4]. The "
            "first dimension is the batch size (max_batch_size 8)");
  EXPECT_THAT(Error(Request({A({1, 3}), S(1)})),
              HasSubstr("unexpected shape for input 'a' for model 'm'. Expected [-1,-1,3], got "
                        "[1,3]."));
  EXPECT_EQ(Error(Request({A({1, 0, 3}), S(1)})), "");  // -1 accepts any size, including 0
}

TEST(RequestValidatorTest, NegativeDimensionsAreRejected) {
  core::Tensor a = MakeTensor<float>("a", DataType::kFp32, {1, -1, 3}, {});
  EXPECT_EQ(Error(Request({a, S(1)})),
            "All input dimensions should be specified for input 'a' for model 'm', got [1,-1,3]");
}

TEST(RequestValidatorTest, FixedSizeByteCount) {
  core::Tensor short_a = MakeTensor<float>("a", DataType::kFp32, {1, 2, 3}, {1, 2, 3, 4, 5});
  EXPECT_EQ(Error(Request({short_a, S(1)})),
            "input byte size mismatch for input 'a' for model 'm'. Expected 24, got 20 (datatype "
            "FP32, shape [1,2,3])");
  core::Tensor long_a = MakeTensor<float>("a", DataType::kFp32, {1, 1, 3}, {1, 2, 3, 4});
  EXPECT_THAT(
      Error(Request({long_a, S(1)})),
      HasSubstr("input byte size mismatch for input 'a' for model 'm'. Expected 12, got 16"));
}

TEST(RequestValidatorTest, BytesEncoding) {
  EXPECT_EQ(
      Error(Request({A({1, 1, 3}), MakeBytesTensor("s", {1, 2}, {"", std::string(300, 'x')})})),
      "");
  EXPECT_EQ(Error(Request({A({1, 1, 3}), MakeBytesTensor("s", {1, 2}, {"one"})})),
            "expected 2 string elements for inference input 's' for model 'm', got 1 (shape "
            "[1,2])");
  EXPECT_THAT(Error(Request({A({1, 1, 3}), MakeBytesTensor("s", {1, 2}, {"a", "b", "c"})})),
              HasSubstr("expected 2 string elements for inference input 's' for model 'm', got 3"));
  core::Tensor truncated_length = MakeBytesTensor("s", {1, 2}, {"a"});
  truncated_length.data = core::Buffer::Own(testing::EncodeBytes({"a"}) + std::string(2, '\0'));
  EXPECT_THAT(Error(Request({A({1, 1, 3}), truncated_length})),
              HasSubstr("BYTES tensor data ends inside an element length"));
  core::Tensor past_end = MakeBytesTensor("s", {1, 2}, {"a"});
  past_end.data = core::Buffer::Own(testing::EncodeBytes({"a", "bcdef"}).substr(0, 11));
  EXPECT_THAT(Error(Request({A({1, 1, 3}), past_end})),
              HasSubstr("BYTES tensor element runs past the end of its data"));
}

TEST(RequestValidatorTest, EmptyBytesTensor) {
  const auto config = Config(R"pb(name: "m" input
                                  [ {
                                    name: "s"
                                    data_type: TYPE_STRING
                                    dims: [ -1 ]
                                  }] output
                                  [ {
                                    name: "x"
                                    data_type: TYPE_STRING
                                    dims: [ -1 ]
                                  }])pb");
  EXPECT_EQ(Error(Request({MakeBytesTensor("s", {0}, {})}), config), "");
  EXPECT_THAT(Error(Request({MakeBytesTensor("s", {0}, {""})}), config),
              HasSubstr("expected 0 string elements for inference input 's' for model 'm', got 1"));
}

TEST(RequestValidatorTest, RequestedOutputs) {
  auto request = Request({A({1, 1, 3}), S(1)});
  request.requested_outputs = {"y", "x"};
  auto result = ValidateRequest(Config(), request);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->output_names, ElementsAre("y", "x"));  // the client's order

  request.requested_outputs = {"y"};
  EXPECT_THAT(ValidateRequest(Config(), request)->output_names, ElementsAre("y"));
  request.requested_outputs = {"nope"};
  EXPECT_EQ(Error(request), "unexpected inference output 'nope' for model 'm'");
  request.requested_outputs = {"x", "x"};
  EXPECT_THAT(Error(request), HasSubstr("output 'x' is requested twice"));
}

TEST(RequestValidatorTest, ReservedParameters) {
  auto request = Request({A({1, 1, 3}), S(1)});
  request.parameters["custom"] = int64_t{1};
  request.parameters["triton_enable_empty_final_response"] = true;
  EXPECT_EQ(Error(request), "");
  request.parameters["triton_anything"] = std::string("x");
  EXPECT_THAT(Error(request), HasSubstr("parameter 'triton_anything' is reserved"));
}

TEST(RequestValidatorTest, PriorityAndTimeoutAreNonNegativeIntegers) {
  auto request = Request({A({1, 1, 3}), S(1)});
  request.parameters["priority"] = int64_t{2};
  request.parameters["timeout"] = uint64_t{1500};
  auto validated = ValidateRequest(Config(), request);
  ASSERT_TRUE(validated.ok()) << validated.status();
  EXPECT_EQ(validated->priority, 2u);
  EXPECT_EQ(validated->timeout_micros, 1500u);

  auto negative = Request({A({1, 1, 3}), S(1)});
  negative.parameters["priority"] = int64_t{-1};
  EXPECT_THAT(Error(negative), HasSubstr("'priority' must be a non-negative integer"));
  auto text = Request({A({1, 1, 3}), S(1)});
  text.parameters["timeout"] = std::string("soon");
  EXPECT_THAT(Error(text), HasSubstr("'timeout' must be a non-negative integer"));
}

TEST(RequestValidatorTest, ReshapeRewritesShapesForTheBackend) {
  const auto config = Config(R"pb(
    name: "m"
    max_batch_size: 4 input
    [ {
      name: "a"
      data_type: TYPE_FP32
      dims: [ 2, -1 ]
      reshape { shape: [ -1, 2, 1 ] }
    }
      , {
        name: "b"
        data_type: TYPE_FP32
        dims: [ 1 ]
        reshape {}
      }] output
    [ {
      name: "x"
      data_type: TYPE_FP32
      dims: [ 1 ]
    }])pb");
  auto request =
      Request({MakeTensor<float>("a", DataType::kFp32, {3, 2, 5}, std::vector<float>(30)),
               MakeTensor<float>("b", DataType::kFp32, {3, 1}, std::vector<float>(3))});
  auto result = ValidateRequest(config, request);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(request.inputs[0].shape, ElementsAre(3, 5, 2, 1));
  EXPECT_THAT(request.inputs[1].shape, ElementsAre(3));
}

// A scalar to the model (dims [1], `reshape { shape: [] }`) is accepted in the
// config's shape and in the model's own; the backend gets the model's.
TEST(RequestValidatorTest, ScalarInputsTakeEitherShape) {
  const auto unbatched = Config(R"pb(name: "m" input
                                     [ {
                                       name: "a"
                                       data_type: TYPE_FP32
                                       dims: [ 1 ]
                                       reshape {}
                                     }] output
                                     [ {
                                       name: "x"
                                       data_type: TYPE_FP32
                                       dims: [ 1 ]
                                       reshape {}
                                     }])pb");
  for (const core::Shape& shape : {core::Shape{1}, core::Shape{}}) {
    auto request = Request({MakeTensor<float>("a", DataType::kFp32, shape, {2.0f})});
    auto result = ValidateRequest(unbatched, request);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_TRUE(request.inputs[0].shape.empty());
    EXPECT_EQ(result->model_shapes, shape.empty());
  }
  EXPECT_EQ(Error(Request({MakeTensor<float>("a", DataType::kFp32, {2}, {1.0f, 2.0f})}), unbatched),
            "unexpected shape for input 'a' for model 'm'. Expected [1], got [2].");
  const auto batched = Config(R"pb(name: "m"
                                   max_batch_size: 4 input
                                   [ {
                                     name: "a"
                                     data_type: TYPE_FP32
                                     dims: [ 1 ]
                                     reshape {}
                                   }] output
                                   [ {
                                     name: "x"
                                     data_type: TYPE_FP32
                                     dims: [ 1 ]
                                     reshape {}
                                   }])pb");
  for (const core::Shape& shape : {core::Shape{3, 1}, core::Shape{3}}) {
    auto request = Request({MakeTensor<float>("a", DataType::kFp32, shape, {1, 2, 3})});
    auto result = ValidateRequest(batched, request);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_THAT(request.inputs[0].shape, ElementsAre(3));
    EXPECT_EQ(result->model_shapes, shape.size() == 1);
  }
}

TEST(RequestValidatorTest, ErrorsNameModelAndTensor) {
  const std::string message = Error(Request({A({1, 1, 4}), S(1)}));
  EXPECT_THAT(message, HasSubstr("model 'm'"));
  EXPECT_THAT(message, HasSubstr("input 'a'"));
}

}  // namespace
}  // namespace inferd

namespace inferd {
namespace {

TEST(RequestValidatorTest, SequenceTensorsAreTheServers) {
  const auto config = Config(std::string(kBatching) + R"pb(
    sequence_batching { control_input
                        [ {
                          name: "START" control
                          [ {
                            kind: CONTROL_SEQUENCE_START
                            int32_false_true: [ 0, 1 ]
                          }]
                        }] state
                        [ {
                          input_name: "S_IN"
                          output_name: "S_OUT"
                          data_type: TYPE_INT32
                          dims: [ 1 ]
                        }] })pb");
  auto start = MakeTensor<int32_t>("START", DataType::kInt32, {1, 1}, {1});
  EXPECT_EQ(Error(Request({A({1, 2, 3}), S(1), start}), config),
            "unexpected inference input 'START' for model 'm': it is a sequence control input "
            "(CONTROL_SEQUENCE_START) that the server sets for each request of a sequence; the "
            "request must not send it");
  auto state = MakeTensor<int32_t>("S_IN", DataType::kInt32, {1, 1}, {1});
  EXPECT_EQ(Error(Request({A({1, 2, 3}), S(1), state}), config),
            "unexpected inference input 'S_IN' for model 'm': it is an implicit state input that "
            "the server sets for each request of a sequence; the request must not send it");
  // The state output is not a client output unless the config lists it.
  auto request = Request({A({1, 2, 3}), S(1)});
  request.requested_outputs = {"S_OUT"};
  EXPECT_EQ(Error(request, config), "unexpected inference output 'S_OUT' for model 'm'");
  EXPECT_EQ(Error(Request({A({1, 2, 3}), S(1)}), config), "");
}

}  // namespace
}  // namespace inferd
