// SPDX-License-Identifier: Apache-2.0
// Tensor shapes and the arithmetic on them that must not overflow: a shape
// comes from the network, so element and byte counts are checked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/data_type.h"

namespace inferd::core {

using Shape = std::vector<int64_t>;

// Product of the dimensions. InvalidArgument on a negative dimension or when
// the product exceeds 2^62.
absl::StatusOr<int64_t> ElementCount(absl::Span<const int64_t> shape);
// Bytes of a fixed-size tensor; InvalidArgument as above or for BYTES.
absl::StatusOr<size_t> FixedByteSize(DataType type, absl::Span<const int64_t> shape);
// "[1,16]".
std::string ShapeToString(absl::Span<const int64_t> shape);
// Whether `shape` matches `pattern`, where -1 in the pattern matches anything.
bool ShapeMatches(absl::Span<const int64_t> shape, absl::Span<const int64_t> pattern);

}  // namespace inferd::core
