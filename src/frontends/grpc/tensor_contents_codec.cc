// SPDX-License-Identifier: Apache-2.0
#include "frontends/grpc/tensor_contents_codec.h"

#include <bit>
#include <cstring>
#include <limits>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "core/bytes_encoding.h"
#include "google/protobuf/repeated_field.h"

namespace inferd::frontends::grpc {
namespace {

// Tensor bytes are little-endian; typed contents are borrowed as they lie in memory.
static_assert(std::endian::native == std::endian::little);

template <typename T>
using Repeated = google::protobuf::RepeatedField<T>;

// absl::string_view is not std::string_view in Debian's Abseil.
absl::Status CountError(absl::string_view field, int64_t expected, int64_t got) {
  return absl::InvalidArgumentError(
      absl::StrCat("expected ", expected, " values in ", field, ", got ", got));
}

// Points at the field's storage: its element type is the tensor's.
template <typename T>
absl::StatusOr<core::Buffer> Borrow(const Repeated<T>& values, const char* field, int64_t count,
                                    const std::shared_ptr<const void>& owner) {
  if (values.size() != count) return CountError(field, count, values.size());
  return core::Buffer{reinterpret_cast<const char*>(values.data()),
                      static_cast<size_t>(values.size()) * sizeof(T), owner};
}

// Copies each value into a narrower element type, refusing values that do not fit.
template <typename Narrow, typename Wide>
absl::StatusOr<core::Buffer> NarrowCopy(const Repeated<Wide>& values, const char* field,
                                        int64_t count, core::DataType type) {
  if (values.size() != count) return CountError(field, count, values.size());
  std::string bytes(static_cast<size_t>(count) * sizeof(Narrow), '\0');
  for (int i = 0; i < values.size(); ++i) {
    const Wide value = values.Get(i);
    if (!std::in_range<Narrow>(value)) {
      return absl::InvalidArgumentError(
          absl::StrCat("value ", value, " at index ", i, " of ", field, " does not fit in ",
                       std::string(core::DataTypeProtocolName(type))));
    }
    const auto narrow = static_cast<Narrow>(value);
    std::memcpy(bytes.data() + static_cast<size_t>(i) * sizeof(Narrow), &narrow, sizeof(Narrow));
  }
  return core::Buffer::Own(std::move(bytes));
}

absl::StatusOr<core::Buffer> BoolCopy(const Repeated<bool>& values, int64_t count) {
  if (values.size() != count) return CountError("bool_contents", count, values.size());
  std::string bytes(static_cast<size_t>(count), '\0');
  for (int i = 0; i < values.size(); ++i) bytes[i] = values.Get(i) ? 1 : 0;
  return core::Buffer::Own(std::move(bytes));
}

absl::StatusOr<core::Buffer> BytesCopy(
    const google::protobuf::RepeatedPtrField<std::string>& values, int64_t count) {
  if (values.size() != count) return CountError("bytes_contents", count, values.size());
  size_t total = 0;
  for (const std::string& element : values) total += 4 + element.size();
  std::string bytes;
  bytes.reserve(total);
  for (const std::string& element : values) {
    if (element.size() > std::numeric_limits<uint32_t>::max()) {
      return absl::InvalidArgumentError("a bytes_contents element is larger than 4 GiB");
    }
    core::AppendBytesElement(element, bytes);
  }
  return core::Buffer::Own(std::move(bytes));
}

}  // namespace

absl::StatusOr<core::Buffer> DecodeTensorContents(const inference::InferTensorContents& contents,
                                                  core::DataType type, int64_t count,
                                                  const std::shared_ptr<const void>& owner) {
  using core::DataType;
  switch (type) {
    case DataType::kBool:
      return BoolCopy(contents.bool_contents(), count);
    case DataType::kUint8:
      return NarrowCopy<uint8_t>(contents.uint_contents(), "uint_contents", count, type);
    case DataType::kUint16:
      return NarrowCopy<uint16_t>(contents.uint_contents(), "uint_contents", count, type);
    case DataType::kUint32:
      return Borrow(contents.uint_contents(), "uint_contents", count, owner);
    case DataType::kUint64:
      return Borrow(contents.uint64_contents(), "uint64_contents", count, owner);
    case DataType::kInt8:
      return NarrowCopy<int8_t>(contents.int_contents(), "int_contents", count, type);
    case DataType::kInt16:
      return NarrowCopy<int16_t>(contents.int_contents(), "int_contents", count, type);
    case DataType::kInt32:
      return Borrow(contents.int_contents(), "int_contents", count, owner);
    case DataType::kInt64:
      return Borrow(contents.int64_contents(), "int64_contents", count, owner);
    case DataType::kFp32:
      return Borrow(contents.fp32_contents(), "fp32_contents", count, owner);
    case DataType::kFp64:
      return Borrow(contents.fp64_contents(), "fp64_contents", count, owner);
    case DataType::kBytes:
      return BytesCopy(contents.bytes_contents(), count);
    case DataType::kFp16:
    case DataType::kBf16:
      return absl::InvalidArgumentError(absl::StrCat(std::string(core::DataTypeProtocolName(type)),
                                                     " data must be sent in raw_input_contents"));
    case DataType::kInvalid:
      break;
  }
  return absl::InvalidArgumentError("invalid datatype");
}

}  // namespace inferd::frontends::grpc
