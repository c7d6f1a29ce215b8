// SPDX-License-Identifier: Apache-2.0
#include "frontends/http/json_tensor_reader.h"

#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "core/bytes_encoding.h"
#include "frontends/http/string_view_util.h"

namespace inferd::frontends::http {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

// Walks nested arrays depth-first and appends each leaf's encoding to `out`.
class DataDecoder {
 public:
  DataDecoder(core::DataType type, int64_t expected, size_t max_bytes, std::string_view name)
      : type_(type), expected_(expected), max_bytes_(max_bytes), name_(name) {}

  absl::Status Walk(element value, int depth) {
    if (value.type() != element_type::ARRAY) return Leaf(value);
    if (depth > kMaxDataNesting) {
      return Error(absl::StrCat("is nested deeper than ", kMaxDataNesting, " levels"));
    }
    for (element child : simdjson::dom::array(value)) {
      absl::Status status = Walk(child, depth + 1);
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> Finish() {
    if (count_ != expected_) return CountError();
    return std::move(out_);
  }

  void Reserve(size_t bytes) { out_.reserve(bytes); }

 private:
  absl::Status Error(std::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat("input '", AsAbsl(name_), "' data ", AsAbsl(what)));
  }
  absl::Status CountError() const {
    return absl::InvalidArgumentError(
        absl::StrCat("input '", AsAbsl(name_), "' has ", count_ > expected_ ? "more than " : "",
                     count_, " data elements but its shape needs ", expected_));
  }

  template <typename T>
  void Append(T value) {
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));  // little-endian host (x86-64, aarch64)
    out_.append(bytes, sizeof(T));
  }

  template <typename T>
  absl::Status Signed(element value) {
    int64_t v = 0;
    if (value.type() != element_type::INT64 || value.get(v) != simdjson::SUCCESS ||
        v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max()) {
      return TypeError(value);
    }
    Append(static_cast<T>(v));
    return absl::OkStatus();
  }

  template <typename T>
  absl::Status Unsigned(element value) {
    uint64_t v = 0;
    if (value.type() == element_type::INT64) {
      int64_t s = 0;
      if (value.get(s) != simdjson::SUCCESS || s < 0) return TypeError(value);
      v = static_cast<uint64_t>(s);
    } else if (value.type() != element_type::UINT64 || value.get(v) != simdjson::SUCCESS) {
      return TypeError(value);
    }
    if (v > std::numeric_limits<T>::max()) return TypeError(value);
    Append(static_cast<T>(v));
    return absl::OkStatus();
  }

  template <typename T>
  absl::Status Float(element value) {
    double v = 0;
    if (value.get(v) != simdjson::SUCCESS) return TypeError(value);  // int, uint or double
    Append(static_cast<T>(v));
    return absl::OkStatus();
  }

  absl::Status Bool(element value) {
    bool v = false;
    if (value.get(v) != simdjson::SUCCESS) return TypeError(value);
    Append(static_cast<uint8_t>(v ? 1 : 0));
    return absl::OkStatus();
  }

  absl::Status Bytes(element value) {
    std::string_view v;
    if (value.get(v) != simdjson::SUCCESS) return TypeError(value);
    if (v.size() > std::numeric_limits<uint32_t>::max()) return Error("has an element too long");
    if (out_.size() + v.size() + 4 > max_bytes_) return LimitError();
    core::AppendBytesElement(v, out_);
    return absl::OkStatus();
  }

  absl::Status Leaf(element value) {
    if (count_ >= expected_) {
      ++count_;
      return CountError();
    }
    ++count_;
    switch (type_) {
      case core::DataType::kBool:
        return Bool(value);
      case core::DataType::kUint8:
        return Unsigned<uint8_t>(value);
      case core::DataType::kUint16:
        return Unsigned<uint16_t>(value);
      case core::DataType::kUint32:
        return Unsigned<uint32_t>(value);
      case core::DataType::kUint64:
        return Unsigned<uint64_t>(value);
      case core::DataType::kInt8:
        return Signed<int8_t>(value);
      case core::DataType::kInt16:
        return Signed<int16_t>(value);
      case core::DataType::kInt32:
        return Signed<int32_t>(value);
      case core::DataType::kInt64:
        return Signed<int64_t>(value);
      case core::DataType::kFp32:
        return Float<float>(value);
      case core::DataType::kFp64:
        return Float<double>(value);
      case core::DataType::kBytes:
        return Bytes(value);
      default:
        return Error("has a datatype that JSON cannot carry");
    }
  }

  absl::Status TypeError(element value) const {
    return Error(absl::StrCat("element ", count_ - 1, " is ", AsAbsl(Describe(value)),
                              ", which is not a valid ", AsAbsl(core::DataTypeProtocolName(type_)),
                              " value"));
  }

  absl::Status LimitError() const {
    return Error(absl::StrCat("exceeds the limit of ", max_bytes_,
                              " bytes for tensor data sent as JSON; send it as binary"));
  }

  static std::string_view Describe(element value) {
    switch (value.type()) {
      case element_type::OBJECT:
        return "an object";
      case element_type::STRING:
        return "a string";
      case element_type::BOOL:
        return "a boolean";
      case element_type::NULL_VALUE:
        return "null";
      case element_type::DOUBLE:
        return "a floating-point number";
      case element_type::ARRAY:
        return "an array";
      default:
        break;
    }
    return "an integer";
  }

  const core::DataType type_;
  const int64_t expected_;
  const size_t max_bytes_;
  const std::string_view name_;
  int64_t count_ = 0;
  std::string out_;
};

}  // namespace

absl::StatusOr<std::string> DecodeJsonTensorData(element data, core::DataType type,
                                                 int64_t element_count, size_t max_bytes,
                                                 std::string_view tensor_name) {
  if (type == core::DataType::kFp16 || type == core::DataType::kBf16) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input '", AsAbsl(tensor_name), "' has datatype ", AsAbsl(core::DataTypeProtocolName(type)),
        ", which cannot be sent as JSON data; send it as binary"));
  }
  const size_t element_size = core::DataTypeByteSize(type);
  DataDecoder decoder(type, element_count, max_bytes, tensor_name);
  if (element_size != 0) {
    if (static_cast<uint64_t>(element_count) > max_bytes / element_size) {
      return absl::InvalidArgumentError(
          absl::StrCat("input '", AsAbsl(tensor_name), "' data exceeds the limit of ", max_bytes,
                       " bytes for tensor data sent as JSON; send it as binary"));
    }
    decoder.Reserve(static_cast<size_t>(element_count) * element_size);
  }
  absl::Status status = decoder.Walk(data, 0);
  if (!status.ok()) return status;
  return decoder.Finish();
}

}  // namespace inferd::frontends::http
