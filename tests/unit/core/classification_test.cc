// SPDX-License-Identifier: Apache-2.0
// Top-k classification of output tensors (Triton's classification extension).
#include "core/classification.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/bytes_encoding.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace inferd::core {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

template <typename T>
Tensor Make(DataType type, Shape shape, const std::vector<T>& values) {
  std::string bytes(values.size() * sizeof(T), '\0');
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return Tensor{"scores", type, std::move(shape), Buffer::Own(std::move(bytes))};
}

std::vector<std::string> Strings(const Tensor& tensor) {
  EXPECT_EQ(tensor.datatype, DataType::kBytes);
  auto elements = SplitBytesElements(tensor.data.view());
  EXPECT_TRUE(elements.ok()) << elements.status();
  return {elements->begin(), elements->end()};
}

std::vector<std::string> Top(const Tensor& tensor, int64_t k,
                             const std::vector<std::string>* labels = nullptr,
                             bool batched = false) {
  auto classes = ClassifyTensor(tensor, k, batched, labels);
  EXPECT_TRUE(classes.ok()) << classes.status();
  if (!classes.ok()) return {};
  return Strings(*classes);
}

TEST(ClassificationTest, HighestFirstWithTritonsFormatting) {
  const Tensor scores = Make<float>(DataType::kFp32, {5}, {0.1f, 0.7f, 0.05f, 0.9f, 0.15f});
  auto classes = ClassifyTensor(scores, 3, false, nullptr);
  ASSERT_TRUE(classes.ok()) << classes.status();
  EXPECT_EQ(classes->name, "scores");
  EXPECT_THAT(classes->shape, ElementsAre(3));
  // std::to_string of the float: six decimals, as Triton prints.
  EXPECT_THAT(Strings(*classes), ElementsAre("0.900000:3", "0.700000:1", "0.150000:4"));
}

TEST(ClassificationTest, LabelsFromTheFileWhenTheyExist) {
  const Tensor scores = Make<float>(DataType::kFp32, {4}, {0.1f, 0.2f, 0.3f, 0.4f});
  const std::vector<std::string> labels = {"cat", "dog", "", "fish"};
  EXPECT_THAT(Top(scores, 4, &labels),
              ElementsAre("0.400000:3:fish", "0.300000:2", "0.200000:1:dog", "0.100000:0:cat"));
  // A short file: indices past its end have no label.
  const std::vector<std::string> short_file = {"cat", "dog"};
  EXPECT_THAT(Top(scores, 2, &short_file), ElementsAre("0.400000:3", "0.300000:2"));
  const std::vector<std::string> none;
  EXPECT_THAT(Top(scores, 1, &none), ElementsAre("0.400000:3"));
  EXPECT_THAT(Top(scores, 1, nullptr), ElementsAre("0.400000:3"));
}

TEST(ClassificationTest, TiesKeepIndexOrder) {
  const Tensor scores = Make<int32_t>(DataType::kInt32, {6}, {5, 9, 5, 9, 1, 5});
  EXPECT_THAT(Top(scores, 6), ElementsAre("9:1", "9:3", "5:0", "5:2", "5:5", "1:4"));
  EXPECT_THAT(Top(scores, 3), ElementsAre("9:1", "9:3", "5:0"));
}

TEST(ClassificationTest, ClassCountAboveTheSizeGivesEveryClass) {
  const Tensor scores = Make<int64_t>(DataType::kInt64, {3}, {-1, 7, 3});
  auto classes = ClassifyTensor(scores, 10, false, nullptr);
  ASSERT_TRUE(classes.ok());
  EXPECT_THAT(classes->shape, ElementsAre(3));
  EXPECT_THAT(Strings(*classes), ElementsAre("7:1", "3:2", "-1:0"));
}

TEST(ClassificationTest, BatchedOutputsRankEachRow) {
  const Tensor scores = Make<float>(DataType::kFp32, {3, 2, 2},
                                    {0.1f, 0.4f, 0.3f, 0.2f,  // row 0
                                     1.0f, 0.0f, 0.5f, 0.5f,  // row 1
                                     0.0f, 0.0f, 0.0f, 0.9f});
  const std::vector<std::string> labels = {"a", "b", "c", "d"};
  auto classes = ClassifyTensor(scores, 2, /*batched=*/true, &labels);
  ASSERT_TRUE(classes.ok()) << classes.status();
  EXPECT_THAT(classes->shape, ElementsAre(3, 2));
  EXPECT_THAT(Strings(*classes), ElementsAre("0.400000:1:b", "0.300000:2:c", "1.000000:0:a",
                                             "0.500000:2:c", "0.900000:3:d", "0.000000:0:a"));
  // Not batched: the whole tensor is one row, indices run over all of it.
  auto flat = ClassifyTensor(scores, 2, /*batched=*/false, nullptr);
  ASSERT_TRUE(flat.ok());
  EXPECT_THAT(flat->shape, ElementsAre(2));
  EXPECT_THAT(Strings(*flat), ElementsAre("1.000000:4", "0.900000:11"));
}

TEST(ClassificationTest, BatchOfRowsShorterThanK) {
  const Tensor scores = Make<uint8_t>(DataType::kUint8, {2, 1}, {3, 200});
  auto classes = ClassifyTensor(scores, 5, true, nullptr);
  ASSERT_TRUE(classes.ok());
  EXPECT_THAT(classes->shape, ElementsAre(2, 1));
  EXPECT_THAT(Strings(*classes), ElementsAre("3:0", "200:0"));
}

TEST(ClassificationTest, EmptyOutputGivesNoClasses) {
  const Tensor scores = Make<float>(DataType::kFp32, {0}, {});
  auto classes = ClassifyTensor(scores, 3, false, nullptr);
  ASSERT_TRUE(classes.ok());
  EXPECT_THAT(classes->shape, ElementsAre(0));
  EXPECT_THAT(Strings(*classes), IsEmpty());
}

TEST(ClassificationTest, EveryNumericType) {
  EXPECT_THAT(Top(Make<uint8_t>(DataType::kUint8, {3}, {1, 255, 7}), 2),
              ElementsAre("255:1", "7:2"));
  EXPECT_THAT(Top(Make<uint16_t>(DataType::kUint16, {3}, {1, 65535, 7}), 2),
              ElementsAre("65535:1", "7:2"));
  EXPECT_THAT(Top(Make<uint32_t>(DataType::kUint32, {2}, {4000000000u, 7}), 1),
              ElementsAre("4000000000:0"));
  // Ranked as integers: 2^64-1 and 2^64-2 differ, which doubles would not tell.
  EXPECT_THAT(Top(Make<uint64_t>(DataType::kUint64, {2}, {UINT64_MAX - 1, UINT64_MAX}), 2),
              ElementsAre("18446744073709551615:1", "18446744073709551614:0"));
  EXPECT_THAT(Top(Make<int8_t>(DataType::kInt8, {3}, {-128, 65, 0}), 3),
              ElementsAre("65:1", "0:2", "-128:0"));  // numbers, not characters
  EXPECT_THAT(Top(Make<int16_t>(DataType::kInt16, {2}, {-300, -2}), 1), ElementsAre("-2:1"));
  EXPECT_THAT(Top(Make<int32_t>(DataType::kInt32, {2}, {-5, INT32_MIN}), 2),
              ElementsAre("-5:0", "-2147483648:1"));
  EXPECT_THAT(Top(Make<int64_t>(DataType::kInt64, {2}, {INT64_MAX, INT64_MAX - 1}), 2),
              ElementsAre("9223372036854775807:0", "9223372036854775806:1"));
  // FP16 0x3C00 = 1.0, 0xC000 = -2.0, 0x3800 = 0.5.
  EXPECT_THAT(Top(Make<uint16_t>(DataType::kFp16, {3}, {0x3C00, 0xC000, 0x3800}), 3),
              ElementsAre("1.000000:0", "0.500000:2", "-2.000000:1"));
  EXPECT_THAT(Top(Make<float>(DataType::kFp32, {2}, {-0.25f, 1e10f}), 2),
              ElementsAre("10000000000.000000:1", "-0.250000:0"));
  EXPECT_THAT(Top(Make<double>(DataType::kFp64, {2}, {0.1234567, 0.5}), 2),
              ElementsAre("0.500000:1", "0.123457:0"));
  // BF16 0x3F80 = 1.0, 0x4000 = 2.0.
  EXPECT_THAT(Top(Make<uint16_t>(DataType::kBf16, {2}, {0x3F80, 0x4000}), 2),
              ElementsAre("2.000000:1", "1.000000:0"));
}

TEST(ClassificationTest, NanRanksLast) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor scores = Make<float>(DataType::kFp32, {5}, {nan, 1.0f, -inf, nan, inf});
  const auto top = Top(scores, 5);
  ASSERT_EQ(top.size(), 5u);
  EXPECT_EQ(top[0], "inf:4");
  EXPECT_EQ(top[1], "1.000000:1");
  EXPECT_EQ(top[2], "-inf:2");
  EXPECT_THAT(top[3], ::testing::EndsWith(":0"));
  EXPECT_THAT(top[4], ::testing::EndsWith(":3"));
}

TEST(ClassificationTest, RefusesTypesThatCannotBeRanked) {
  EXPECT_TRUE(CheckClassifiable(DataType::kFp32).ok());
  for (DataType type : {DataType::kBool, DataType::kBytes, DataType::kInvalid}) {
    const absl::Status status = CheckClassifiable(type);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(status.message(),
                HasSubstr("class result not available for output due to unsupported type"));
  }
  const Tensor flags = Make<uint8_t>(DataType::kBool, {2}, {0, 1});
  auto classes = ClassifyTensor(flags, 1, false, nullptr);
  EXPECT_EQ(classes.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(classes.status().message(), HasSubstr("output 'scores': class result not available "
                                                    "for output due to unsupported type 'BOOL'"));
}

TEST(ClassificationTest, RefusesNonPositiveCountsAndShortData) {
  const Tensor scores = Make<float>(DataType::kFp32, {2}, {0.5f, 0.25f});
  for (int64_t k : {0, -1}) {
    auto classes = ClassifyTensor(scores, k, false, nullptr);
    EXPECT_EQ(classes.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(classes.status().message(), HasSubstr("class count must be positive"));
  }
  Tensor short_data = scores;
  short_data.shape = {3};
  EXPECT_EQ(ClassifyTensor(short_data, 1, false, nullptr).status().code(),
            absl::StatusCode::kInternal);
}

}  // namespace
}  // namespace inferd::core
