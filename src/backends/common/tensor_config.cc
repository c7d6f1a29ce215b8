// SPDX-License-Identifier: Apache-2.0
#include "tensor_config.h"

namespace inferd::backend_util {

std::vector<TensorConfig> CopyTensors(const INFERD_TensorSpec* specs, size_t count) {
  std::vector<TensorConfig> out;
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const INFERD_TensorSpec& spec = specs[i];
    TensorConfig& tensor = out.emplace_back();
    tensor.name = spec.name != nullptr ? spec.name : "";
    tensor.datatype = spec.datatype;
    if (spec.dims != nullptr) tensor.dims.assign(spec.dims, spec.dims + spec.dims_count);
    if (spec.reshape_dims != nullptr) {
      tensor.reshape.emplace(spec.reshape_dims, spec.reshape_dims + spec.reshape_dims_count);
    }
    tensor.optional = spec.optional != 0;
  }
  return out;
}

std::optional<int64_t> ElementCount(std::span<const int64_t> dims) {
  int64_t count = 1;
  for (int64_t dim : dims) {
    if (dim < 0) return std::nullopt;
    if (dim != 0 && count > INT64_MAX / dim) return std::nullopt;
    count *= dim;
  }
  return count;
}

std::string DimsToString(std::span<const int64_t> dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) out += ",";
    out += std::to_string(dims[i]);
  }
  return out + "]";
}

}  // namespace inferd::backend_util
