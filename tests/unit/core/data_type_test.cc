// SPDX-License-Identifier: Apache-2.0
#include "core/data_type.h"

#include <string>

#include "gtest/gtest.h"
#include "inferd/backend.h"

namespace inferd::core {
namespace {

struct Expected {
  DataType type;
  const char* name;
  size_t size;
};

constexpr Expected kAll[] = {
    {DataType::kBool, "BOOL", 1},     {DataType::kUint8, "UINT8", 1},
    {DataType::kUint16, "UINT16", 2}, {DataType::kUint32, "UINT32", 4},
    {DataType::kUint64, "UINT64", 8}, {DataType::kInt8, "INT8", 1},
    {DataType::kInt16, "INT16", 2},   {DataType::kInt32, "INT32", 4},
    {DataType::kInt64, "INT64", 8},   {DataType::kFp16, "FP16", 2},
    {DataType::kFp32, "FP32", 4},     {DataType::kFp64, "FP64", 8},
    {DataType::kBytes, "BYTES", 0},   {DataType::kBf16, "BF16", 2},
};

TEST(DataTypeTest, ProtocolNamesRoundTrip) {
  for (const auto& e : kAll) {
    EXPECT_EQ(DataTypeProtocolName(e.type), e.name);
    auto parsed = DataTypeFromProtocolName(e.name);
    ASSERT_TRUE(parsed.has_value()) << e.name;
    EXPECT_EQ(*parsed, e.type) << e.name;
  }
}

TEST(DataTypeTest, ByteSizes) {
  for (const auto& e : kAll) EXPECT_EQ(DataTypeByteSize(e.type), e.size) << e.name;
  EXPECT_EQ(DataTypeByteSize(DataType::kInvalid), 0u);
}

TEST(DataTypeTest, RejectsUnknownNames) {
  for (const char* name :
       {"", "STRING", "TYPE_FP32", "fp32", "Fp32", "INVALID", "FP32 ", "FLOAT"}) {
    EXPECT_FALSE(DataTypeFromProtocolName(name).has_value()) << "'" << name << "'";
  }
}

TEST(DataTypeTest, InvalidNameForOutOfRangeValues) {
  EXPECT_EQ(DataTypeProtocolName(DataType::kInvalid), "INVALID");
  EXPECT_EQ(DataTypeProtocolName(static_cast<DataType>(99)), "INVALID");
  EXPECT_EQ(DataTypeByteSize(static_cast<DataType>(99)), 0u);
}

TEST(DataTypeTest, IsValidDataType) {
  EXPECT_FALSE(IsValidDataType(0));
  EXPECT_FALSE(IsValidDataType(-1));
  EXPECT_FALSE(IsValidDataType(15));
  for (int32_t v = 1; v <= 14; ++v) EXPECT_TRUE(IsValidDataType(v)) << v;
}

TEST(DataTypeTest, NumbersMatchBackendAbi) {
  EXPECT_EQ(static_cast<int>(DataType::kBool), INFERD_TYPE_BOOL);
  EXPECT_EQ(static_cast<int>(DataType::kInt32), INFERD_TYPE_INT32);
  EXPECT_EQ(static_cast<int>(DataType::kFp32), INFERD_TYPE_FP32);
  EXPECT_EQ(static_cast<int>(DataType::kBytes), INFERD_TYPE_BYTES);
  EXPECT_EQ(static_cast<int>(DataType::kBf16), INFERD_TYPE_BF16);
}

}  // namespace
}  // namespace inferd::core
