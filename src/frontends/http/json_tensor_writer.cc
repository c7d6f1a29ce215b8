// SPDX-License-Identifier: Apache-2.0
#include "frontends/http/json_tensor_writer.h"

#include <charconv>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "core/bytes_encoding.h"
#include "core/half_float.h"
#include "core/shape.h"

namespace inferd::frontends::http {
namespace {

template <typename T>
T Load(const char* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));  // little-endian host
  return value;
}

float Bf16ToFloat(uint16_t b) {
  const uint32_t bits = uint32_t{b} << 16;
  float out;
  std::memcpy(&out, &bits, sizeof(out));
  return out;
}

// Shortest text that reads back as the same float ("0.1", not 0.100000001).
void WriteFloat(JsonWriter& writer, float value) {
  if (!std::isfinite(value)) {
    writer.Double(static_cast<double>(value));  // NaN / Infinity tokens
    return;
  }
  char text[32];
  const auto result = std::to_chars(text, text + sizeof(text), value);
  writer.RawValue(text, static_cast<size_t>(result.ptr - text), rapidjson::kNumberType);
}

}  // namespace

void WriteJsonElement(core::DataType type, const char* p, JsonWriter& writer) {
  switch (type) {
    case core::DataType::kBool:
      writer.Bool(*p != 0);
      break;
    case core::DataType::kUint8:
      writer.Uint(Load<uint8_t>(p));
      break;
    case core::DataType::kUint16:
      writer.Uint(Load<uint16_t>(p));
      break;
    case core::DataType::kUint32:
      writer.Uint(Load<uint32_t>(p));
      break;
    case core::DataType::kUint64:
      writer.Uint64(Load<uint64_t>(p));
      break;
    case core::DataType::kInt8:
      writer.Int(Load<int8_t>(p));
      break;
    case core::DataType::kInt16:
      writer.Int(Load<int16_t>(p));
      break;
    case core::DataType::kInt32:
      writer.Int(Load<int32_t>(p));
      break;
    case core::DataType::kInt64:
      writer.Int64(Load<int64_t>(p));
      break;
    case core::DataType::kFp16:
      WriteFloat(writer, core::HalfToFloat(Load<uint16_t>(p)));
      break;
    case core::DataType::kBf16:
      WriteFloat(writer, Bf16ToFloat(Load<uint16_t>(p)));
      break;
    case core::DataType::kFp32:
      WriteFloat(writer, Load<float>(p));
      break;
    case core::DataType::kFp64:
      writer.Double(Load<double>(p));
      break;
    default:
      writer.Null();
      break;
  }
}

namespace {

absl::Status WriteBytes(const core::Tensor& tensor, int64_t count, JsonWriter& writer) {
  INFERD_ASSIGN_OR_RETURN(auto elements, core::SplitBytesElements(tensor.data.view()));
  if (static_cast<int64_t>(elements.size()) != count) {
    return absl::InternalError(absl::StrCat("output '", tensor.name, "' holds ", elements.size(),
                                            " BYTES elements but its shape ",
                                            core::ShapeToString(tensor.shape), " needs ", count));
  }
  writer.StartArray();
  for (std::string_view element : elements) {
    if (!WriteString(writer, element)) {
      return absl::InvalidArgumentError(
          absl::StrCat("output '", tensor.name,
                       "' holds bytes that are not valid UTF-8; request it with binary_data"));
    }
  }
  writer.EndArray();
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteJsonTensorData(const core::Tensor& tensor, JsonWriter& writer) {
  INFERD_ASSIGN_OR_RETURN(int64_t count, core::ElementCount(tensor.shape));
  if (tensor.datatype == core::DataType::kBytes) return WriteBytes(tensor, count, writer);
  const size_t element_size = core::DataTypeByteSize(tensor.datatype);
  if (element_size == 0) {
    return absl::InternalError(absl::StrCat("output '", tensor.name, "' has an invalid datatype"));
  }
  INFERD_ASSIGN_OR_RETURN(size_t expected, core::FixedByteSize(tensor.datatype, tensor.shape));
  if (tensor.data.size != expected) {
    return absl::InternalError(
        absl::StrCat("output '", tensor.name, "' has ", tensor.data.size, " bytes but its shape ",
                     core::ShapeToString(tensor.shape), " needs ", expected));
  }
  writer.StartArray();
  for (size_t offset = 0; offset < expected; offset += element_size) {
    WriteJsonElement(tensor.datatype, tensor.data.data + offset, writer);
  }
  writer.EndArray();
  return absl::OkStatus();
}

}  // namespace inferd::frontends::http
