// SPDX-License-Identifier: Apache-2.0
// Shape arithmetic for the ONNX Runtime backend: checked element counts and
// resolving the -1 dimensions of a config `reshape` (or of the `dims` it maps
// back to) from a concrete shape.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "status.h"
#include "tensor_config.h"

namespace inferd::ort {

using backend_util::Dims;
using backend_util::DimsToString;  // "[2,-1,3]", for messages
using backend_util::ElementCount;  // nullopt when a dim is negative or the product overflows

// Gives `target` (which may hold -1s) concrete values for a tensor whose real
// shape is `actual`, where `actual` matches the pattern `actual_pattern`
// (the config's other view of the same tensor). The -1s of `target` take the
// variable dims of `actual` in order when both patterns have as many -1s;
// otherwise a single -1 is inferred from the element count. Fails with
// INVALID_ARG naming `tensor` when the element counts cannot agree.
StatusOr<Dims> ResolveDims(std::span<const int64_t> target, std::span<const int64_t> actual_pattern,
                           std::span<const int64_t> actual, std::string_view tensor);

}  // namespace inferd::ort
