// SPDX-License-Identifier: Apache-2.0
// The BYTES tensor encoding of backend.h (per element: uint32 little-endian
// length, then that many bytes), parsed into views and built from strings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "status.h"

namespace inferd::ort {

// Appends exactly `element_count` views into `data` to `out`. Fails with
// INVALID_ARG naming `tensor` when an element runs past the end, or when bytes
// are left over after the last element.
Status ParseBytesTensor(const void* data, size_t byte_size, int64_t element_count,
                        std::string_view tensor, std::vector<std::string_view>& out);

// Appends the length-prefixed encoding of `element` to `out`.
void AppendBytesElement(std::string_view element, std::string& out);

}  // namespace inferd::ort
