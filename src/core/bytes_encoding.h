// SPDX-License-Identifier: Apache-2.0
// The in-memory and KServe v2 binary encoding of BYTES tensors, shared by
// the codecs, request validation and backend output checks:
// per element a uint32 little-endian length followed by the bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace inferd::core {

// Appends one element to `out`.
void AppendBytesElement(std::string_view element, std::string& out);
// Splits an encoded tensor into its elements (views into `encoded`).
// InvalidArgument when a length runs past the end.
absl::StatusOr<std::vector<std::string_view>> SplitBytesElements(std::string_view encoded);
// Number of elements of an encoded tensor, without allocating.
// InvalidArgument when a length runs past the end.
absl::StatusOr<int64_t> CountBytesElements(std::string_view encoded);

}  // namespace inferd::core
