// SPDX-License-Identifier: Apache-2.0
#include "frontends/grpc/parameter_codec.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace inferd::frontends::grpc {
namespace {

using ::testing::HasSubstr;

inference::InferParameter Bool(bool v) {
  inference::InferParameter p;
  p.set_bool_param(v);
  return p;
}
inference::InferParameter Int(int64_t v) {
  inference::InferParameter p;
  p.set_int64_param(v);
  return p;
}
inference::InferParameter Uint(uint64_t v) {
  inference::InferParameter p;
  p.set_uint64_param(v);
  return p;
}
inference::InferParameter Str(const std::string& v) {
  inference::InferParameter p;
  p.set_string_param(v);
  return p;
}
inference::InferParameter Dbl(double v) {
  inference::InferParameter p;
  p.set_double_param(v);
  return p;
}

absl::StatusOr<core::Parameters> Decode(
    std::initializer_list<std::pair<const std::string, inference::InferParameter>> entries) {
  ProtoParameters map;
  for (const auto& [key, value] : entries) map[key] = value;
  return DecodeRequestParameters(map);
}

TEST(ParameterCodecTest, KeepsEveryTypeOfCustomParameter) {
  auto decoded = Decode({{"b", Bool(true)},
                         {"i", Int(-3)},
                         {"u", Uint(uint64_t{1} << 63)},
                         {"s", Str("text")},
                         {"d", Dbl(0.5)}});
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(std::get<bool>(decoded->at("b")), true);
  EXPECT_EQ(std::get<int64_t>(decoded->at("i")), -3);
  EXPECT_EQ(std::get<uint64_t>(decoded->at("u")), uint64_t{1} << 63);
  EXPECT_EQ(std::get<std::string>(decoded->at("s")), "text");
  EXPECT_EQ(std::get<double>(decoded->at("d")), 0.5);
}

TEST(ParameterCodecTest, PassesSchedulingParametersWithTheirTypes) {
  auto decoded = Decode({{"priority", Uint(2)},
                         {"timeout", Int(1000)},
                         {"sequence_id", Str("abc")},
                         {"sequence_start", Bool(true)},
                         {"sequence_end", Bool(false)}});
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(std::get<uint64_t>(decoded->at("priority")), 2u);
  EXPECT_EQ(std::get<int64_t>(decoded->at("timeout")), 1000);
  EXPECT_EQ(std::get<std::string>(decoded->at("sequence_id")), "abc");
  EXPECT_TRUE(Decode({{"priority", Int(1)}, {"sequence_id", Int(7)}}).ok());
}

TEST(ParameterCodecTest, RejectsSchedulingParametersOfTheWrongType) {
  for (auto entry : {std::pair<const std::string, inference::InferParameter>{"priority", Int(-1)},
                     {"priority", Str("1")},
                     {"timeout", Dbl(1.0)},
                     {"timeout", Int(-5)},
                     {"sequence_id", Bool(true)},
                     {"sequence_start", Int(1)},
                     {"sequence_end", Str("true")}}) {
    auto decoded = Decode({entry});
    EXPECT_EQ(decoded.status().code(), absl::StatusCode::kInvalidArgument) << entry.first;
    EXPECT_THAT(decoded.status().message(), HasSubstr(entry.first));
  }
}

TEST(ParameterCodecTest, AcceptsEmptyFinalResponseFlagButDropsIt) {
  auto decoded = Decode({{"triton_enable_empty_final_response", Bool(false)}});
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_TRUE(decoded->empty());
}

TEST(ParameterCodecTest, RejectsOtherTritonPrefixedKeys) {
  auto decoded = Decode({{"triton_something", Bool(true)}});
  EXPECT_EQ(decoded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(decoded.status().message(), HasSubstr("reserved"));
}

TEST(ParameterCodecTest, RejectsParameterWithoutValue) {
  auto decoded = Decode({{"custom", inference::InferParameter()}});
  EXPECT_EQ(decoded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(decoded.status().message(), HasSubstr("'custom' has no value"));
}

}  // namespace
}  // namespace inferd::frontends::grpc
