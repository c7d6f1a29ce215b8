// SPDX-License-Identifier: Apache-2.0
#include "core/shape.h"

#include <limits>

#include "gtest/gtest.h"

namespace inferd::core {
namespace {

TEST(ShapeTest, ElementCount) {
  EXPECT_EQ(*ElementCount({}), 1);  // a scalar has one element
  EXPECT_EQ(*ElementCount({4}), 4);
  EXPECT_EQ(*ElementCount({2, 3, 4}), 24);
  EXPECT_EQ(*ElementCount({2, 0, 4}), 0);
}

TEST(ShapeTest, ElementCountRejectsNegativeDimensions) {
  auto count = ElementCount({2, -1});
  ASSERT_FALSE(count.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(count.status()));
  EXPECT_NE(count.status().message().find("[2,-1]"), absl::string_view::npos);
}

TEST(ShapeTest, ElementCountRejectsOverflow) {
  const int64_t big = int64_t{1} << 31;
  EXPECT_TRUE(absl::IsInvalidArgument(ElementCount({big, big, big}).status()));
  EXPECT_TRUE(
      absl::IsInvalidArgument(ElementCount({std::numeric_limits<int64_t>::max(), 2}).status()));
  EXPECT_EQ(*ElementCount({int64_t{1} << 31, int64_t{1} << 31}), int64_t{1} << 62);
  // Once a zero dimension is seen, later huge dimensions cannot overflow.
  EXPECT_EQ(*ElementCount({0, std::numeric_limits<int64_t>::max()}), 0);
}

TEST(ShapeTest, FixedByteSize) {
  EXPECT_EQ(*FixedByteSize(DataType::kFp32, {2, 3}), 24u);
  EXPECT_EQ(*FixedByteSize(DataType::kInt64, {}), 8u);
  EXPECT_EQ(*FixedByteSize(DataType::kBool, {0}), 0u);
}

TEST(ShapeTest, FixedByteSizeErrors) {
  EXPECT_TRUE(absl::IsInvalidArgument(FixedByteSize(DataType::kBytes, {1}).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(FixedByteSize(DataType::kInvalid, {1}).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(FixedByteSize(DataType::kFp32, {-1}).status()));
  // 2^62 elements fit the count but not the byte size.
  EXPECT_TRUE(absl::IsInvalidArgument(FixedByteSize(DataType::kFp64, {int64_t{1} << 62}).status()));
}

TEST(ShapeTest, ShapeToString) {
  EXPECT_EQ(ShapeToString({}), "[]");
  EXPECT_EQ(ShapeToString({1, 16}), "[1,16]");
  EXPECT_EQ(ShapeToString({-1, 3}), "[-1,3]");
}

TEST(ShapeTest, ShapeMatches) {
  EXPECT_TRUE(ShapeMatches({}, {}));
  EXPECT_TRUE(ShapeMatches({2, 3}, {2, 3}));
  EXPECT_TRUE(ShapeMatches({2, 3}, {-1, 3}));
  EXPECT_TRUE(ShapeMatches({7, 9}, {-1, -1}));
  EXPECT_FALSE(ShapeMatches({2, 3}, {2, 4}));
  EXPECT_FALSE(ShapeMatches({2, 3}, {2, 3, 1}));
  EXPECT_FALSE(ShapeMatches({2}, {}));
  // -1 is a wildcard only in the pattern.
  EXPECT_FALSE(ShapeMatches({-1}, {3}));
}

}  // namespace
}  // namespace inferd::core
