// SPDX-License-Identifier: Apache-2.0
// Decodes the JSON `data` of one input tensor (flat or nested arrays) into
// the tensor's binary encoding, with Triton's strict per-type rules: integers
// in range for their width, booleans as JSON booleans, BYTES as strings,
// FP16/BF16 refused. No I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "core/data_type.h"
#include "simdjson.h"

namespace inferd::frontends::http {

// Deepest array nesting accepted inside `data` (Triton's limit).
inline constexpr int kMaxDataNesting = 100;

// `element_count` is the product of the tensor's shape; the data must hold
// exactly that many elements. `max_bytes` bounds the decoded size (the JSON
// input budget left). InvalidArgument naming `tensor_name` on any mismatch.
absl::StatusOr<std::string> DecodeJsonTensorData(simdjson::dom::element data, core::DataType type,
                                                 int64_t element_count, size_t max_bytes,
                                                 std::string_view tensor_name);

}  // namespace inferd::frontends::http
