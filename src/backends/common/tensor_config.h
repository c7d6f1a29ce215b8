// SPDX-License-Identifier: Apache-2.0
// A model's configured tensors as the in-tree backends keep them (copied out
// of INFERD_TensorSpec, whose pointers are only borrowed), and the shape
// helpers every backend needs for checks and messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "inferd/backend.h"

namespace inferd::backend_util {

using Dims = std::vector<int64_t>;

// A configured input or output, copied out of INFERD_TensorSpec.
struct TensorConfig {
  std::string name;
  INFERD_DataType datatype = INFERD_TYPE_INVALID;
  Dims dims;                    // excludes the batch dim when the model batches
  std::optional<Dims> reshape;  // the model's view of `dims`, when configured
  bool optional = false;
};

std::vector<TensorConfig> CopyTensors(const INFERD_TensorSpec* specs, size_t count);

// Product of `dims`; nullopt when a dim is negative or the product overflows.
std::optional<int64_t> ElementCount(std::span<const int64_t> dims);

// "[2,-1,3]", for messages.
std::string DimsToString(std::span<const int64_t> dims);

}  // namespace inferd::backend_util
