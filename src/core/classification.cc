// SPDX-License-Identifier: Apache-2.0
#include "core/classification.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "core/bytes_encoding.h"
#include "core/half_float.h"
#include "core/shape.h"

namespace inferd::core {
namespace {

float Bf16ToFloat(uint16_t b) {
  const uint32_t bits = uint32_t{b} << 16;
  float out;
  std::memcpy(&out, &bits, sizeof(out));
  return out;
}

// The row's values as numbers to rank: the element type itself, except
// FP16/BF16 (Stored = uint16_t), which become floats.
template <typename Stored, typename Value>
std::vector<Value> LoadRow(const char* row, size_t count, Value (*convert)(Stored)) {
  std::vector<Value> values(count);
  for (size_t i = 0; i < count; ++i) {
    Stored stored;
    std::memcpy(&stored, row + i * sizeof(Stored), sizeof(Stored));  // rows need not be aligned
    values[i] = convert(stored);
  }
  return values;
}

template <typename T>
T Same(T value) {
  return value;
}

// Appends the top `k` of `values` to `out` as BYTES elements.
template <typename Value>
void AppendTopK(const std::vector<Value>& values, size_t k, const std::vector<std::string>* labels,
                std::string& out) {
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), size_t{0});
  // A strict total order, so the answer never depends on the sort's whims:
  // higher first, then lower index; NaN after every number.
  const auto before = [&values](size_t a, size_t b) {
    const Value x = values[a];
    const Value y = values[b];
    if constexpr (std::is_floating_point_v<Value>) {
      const bool x_nan = std::isnan(x);
      const bool y_nan = std::isnan(y);
      if (x_nan || y_nan) return x_nan == y_nan ? a < b : y_nan;
    }
    if (x != y) return x > y;
    return a < b;
  };
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                    before);
  std::string text;
  for (size_t i = 0; i < k; ++i) {
    const size_t index = order[i];
    // std::to_string is Triton's formatting: "%f" for floats, decimal for
    // integers (int8/uint8 included, as numbers, not characters).
    text = absl::StrCat(std::to_string(values[index]), ":", index);
    if (labels != nullptr && index < labels->size() && !(*labels)[index].empty()) {
      absl::StrAppend(&text, ":", (*labels)[index]);
    }
    AppendBytesElement(text, out);
  }
}

template <typename Stored, typename Value>
void ClassifyRows(const char* data, size_t rows, size_t row_size, size_t k,
                  const std::vector<std::string>* labels, Value (*convert)(Stored),
                  std::string& out) {
  for (size_t r = 0; r < rows; ++r) {
    AppendTopK(LoadRow<Stored, Value>(data + r * row_size * sizeof(Stored), row_size, convert), k,
               labels, out);
  }
}

}  // namespace

absl::Status CheckClassifiable(DataType type) {
  switch (type) {
    case DataType::kUint8:
    case DataType::kUint16:
    case DataType::kUint32:
    case DataType::kUint64:
    case DataType::kInt8:
    case DataType::kInt16:
    case DataType::kInt32:
    case DataType::kInt64:
    case DataType::kFp16:
    case DataType::kFp32:
    case DataType::kFp64:
    case DataType::kBf16:
      return absl::OkStatus();
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          "class result not available for output due to unsupported type '",
          std::string(DataTypeProtocolName(type)), "': classification ranks numeric outputs only"));
  }
}

absl::StatusOr<Tensor> ClassifyTensor(const Tensor& output, int64_t class_count, bool batched,
                                      const std::vector<std::string>* labels) {
  if (class_count <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "output '", output.name, "': class count must be positive, got ", class_count));
  }
  if (absl::Status status = CheckClassifiable(output.datatype); !status.ok()) {
    return absl::Status(status.code(),
                        absl::StrCat("output '", output.name, "': ", status.message()));
  }
  auto count = ElementCount(output.shape);
  if (!count.ok()) return count.status();
  const size_t element_size = DataTypeByteSize(output.datatype);
  if (output.data.size != static_cast<size_t>(*count) * element_size) {
    return absl::InternalError(absl::StrCat("output '", output.name, "' has ", output.data.size,
                                            " bytes, not the ", *count * element_size,
                                            " its shape needs"));
  }
  const bool per_row = batched && !output.shape.empty();
  const size_t rows = per_row ? static_cast<size_t>(output.shape[0]) : 1;
  const size_t row_size = rows == 0 ? 0 : static_cast<size_t>(*count) / rows;
  const size_t k = std::min(static_cast<size_t>(class_count), row_size);

  std::string encoded;
  const char* data = output.data.data;
  switch (output.datatype) {
    case DataType::kUint8:
      ClassifyRows(data, rows, row_size, k, labels, &Same<uint8_t>, encoded);
      break;
    case DataType::kUint16:
      ClassifyRows(data, rows, row_size, k, labels, &Same<uint16_t>, encoded);
      break;
    case DataType::kUint32:
      ClassifyRows(data, rows, row_size, k, labels, &Same<uint32_t>, encoded);
      break;
    case DataType::kUint64:
      ClassifyRows(data, rows, row_size, k, labels, &Same<uint64_t>, encoded);
      break;
    case DataType::kInt8:
      ClassifyRows(data, rows, row_size, k, labels, &Same<int8_t>, encoded);
      break;
    case DataType::kInt16:
      ClassifyRows(data, rows, row_size, k, labels, &Same<int16_t>, encoded);
      break;
    case DataType::kInt32:
      ClassifyRows(data, rows, row_size, k, labels, &Same<int32_t>, encoded);
      break;
    case DataType::kInt64:
      ClassifyRows(data, rows, row_size, k, labels, &Same<int64_t>, encoded);
      break;
    case DataType::kFp16:
      ClassifyRows(data, rows, row_size, k, labels, &HalfToFloat, encoded);
      break;
    case DataType::kFp32:
      ClassifyRows(data, rows, row_size, k, labels, &Same<float>, encoded);
      break;
    case DataType::kFp64:
      ClassifyRows(data, rows, row_size, k, labels, &Same<double>, encoded);
      break;
    case DataType::kBf16:
      ClassifyRows(data, rows, row_size, k, labels, &Bf16ToFloat, encoded);
      break;
    default:
      break;  // refused by CheckClassifiable above
  }
  Tensor classes{output.name, DataType::kBytes, {}, Buffer::Own(std::move(encoded))};
  if (per_row) classes.shape.push_back(output.shape[0]);
  classes.shape.push_back(static_cast<int64_t>(k));
  return classes;
}

}  // namespace inferd::core
