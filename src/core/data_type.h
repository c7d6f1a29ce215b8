// SPDX-License-Identifier: Apache-2.0
// Tensor element types: protocol names ("FP32", "BYTES"), config enum names
// ("TYPE_FP32", "TYPE_STRING") and element sizes. The numbers are those of the
// model config's DataType enum and of INFERD_DataType in backend.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace inferd::core {

enum class DataType : int32_t {
  kInvalid = 0,
  kBool = 1,
  kUint8 = 2,
  kUint16 = 3,
  kUint32 = 4,
  kUint64 = 5,
  kInt8 = 6,
  kInt16 = 7,
  kInt32 = 8,
  kInt64 = 9,
  kFp16 = 10,
  kFp32 = 11,
  kFp64 = 12,
  kBytes = 13,  // TYPE_STRING in model configs
  kBf16 = 14,
};

// "FP32" -> kFp32. nullopt for anything else (including "STRING").
std::optional<DataType> DataTypeFromProtocolName(std::string_view name);
// kFp32 -> "FP32", kBytes -> "BYTES"; "INVALID" for kInvalid.
std::string_view DataTypeProtocolName(DataType type);
// Bytes per element; 0 for kBytes (variable size) and kInvalid.
size_t DataTypeByteSize(DataType type);
// Whether `value` is one of the enumerators above (for numbers from outside).
bool IsValidDataType(int32_t value);

}  // namespace inferd::core
