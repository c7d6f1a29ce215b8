// SPDX-License-Identifier: Apache-2.0
#include "core/shape.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace inferd::core {

absl::StatusOr<int64_t> ElementCount(absl::Span<const int64_t> shape) {
  constexpr int64_t kLimit = int64_t{1} << 62;
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape ", ShapeToString(shape), " has a negative dimension"));
    }
    if (dim != 0 && count > kLimit / dim) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape ", ShapeToString(shape), " has too many elements"));
    }
    count *= dim;
  }
  return count;
}

absl::StatusOr<size_t> FixedByteSize(DataType type, absl::Span<const int64_t> shape) {
  const size_t element_size = DataTypeByteSize(type);
  if (element_size == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "datatype ", std::string(DataTypeProtocolName(type)), " has no fixed element size"));
  }
  auto count = ElementCount(shape);
  if (!count.ok()) return count.status();
  if (static_cast<uint64_t>(*count) > (uint64_t{1} << 62) / element_size) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape ", ShapeToString(shape), " is too large"));
  }
  return static_cast<size_t>(*count) * element_size;
}

std::string ShapeToString(absl::Span<const int64_t> shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ","), "]");
}

bool ShapeMatches(absl::Span<const int64_t> shape, absl::Span<const int64_t> pattern) {
  if (shape.size() != pattern.size()) return false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (pattern[i] != -1 && pattern[i] != shape[i]) return false;
  }
  return true;
}

}  // namespace inferd::core
