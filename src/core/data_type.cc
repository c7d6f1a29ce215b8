// SPDX-License-Identifier: Apache-2.0
#include "core/data_type.h"

#include <array>

namespace inferd::core {
namespace {

struct TypeInfo {
  DataType type;
  std::string_view name;
  size_t size;
};

constexpr std::array<TypeInfo, 15> kTypes = {{
    {DataType::kInvalid, "INVALID", 0},
    {DataType::kBool, "BOOL", 1},
    {DataType::kUint8, "UINT8", 1},
    {DataType::kUint16, "UINT16", 2},
    {DataType::kUint32, "UINT32", 4},
    {DataType::kUint64, "UINT64", 8},
    {DataType::kInt8, "INT8", 1},
    {DataType::kInt16, "INT16", 2},
    {DataType::kInt32, "INT32", 4},
    {DataType::kInt64, "INT64", 8},
    {DataType::kFp16, "FP16", 2},
    {DataType::kFp32, "FP32", 4},
    {DataType::kFp64, "FP64", 8},
    {DataType::kBytes, "BYTES", 0},
    {DataType::kBf16, "BF16", 2},
}};

const TypeInfo& Info(DataType type) {
  const auto index = static_cast<size_t>(type);
  return index < kTypes.size() ? kTypes[index] : kTypes[0];
}

}  // namespace

std::optional<DataType> DataTypeFromProtocolName(std::string_view name) {
  for (size_t i = 1; i < kTypes.size(); ++i) {
    if (kTypes[i].name == name) return kTypes[i].type;
  }
  return std::nullopt;
}

std::string_view DataTypeProtocolName(DataType type) { return Info(type).name; }

size_t DataTypeByteSize(DataType type) { return Info(type).size; }

bool IsValidDataType(int32_t value) {
  return value > 0 && static_cast<size_t>(value) < kTypes.size();
}

}  // namespace inferd::core
