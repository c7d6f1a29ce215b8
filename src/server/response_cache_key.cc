// SPDX-License-Identifier: Apache-2.0
#include "server/response_cache_key.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <numeric>
#include <type_traits>
#include <variant>

// Header-only use of libxxhash: the hash functions inline into this file.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace inferd {
namespace {

void PutU64(std::string& out, uint64_t value) {
  char bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((value >> (8 * i)) & 0xff);
  out.append(bytes, 8);
}

// Length-prefixed, so that no two different sequences of fields encode alike.
void PutString(std::string& out, std::string_view s) {
  PutU64(out, s.size());
  out.append(s);
}

void PutParameter(std::string& out, const core::Parameter& value) {
  PutU64(out, value.index());
  std::visit(
      [&out](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          PutString(out, v);
        } else if constexpr (std::is_same_v<T, double>) {
          PutU64(out, std::bit_cast<uint64_t>(v));
        } else {
          PutU64(out, static_cast<uint64_t>(v));
        }
      },
      value);
}

}  // namespace

bool IsParameterOutsideCacheKey(std::string_view name) {
  return name == "priority" || name == "timeout" || name == "binary_data_output";
}

ResponseCacheKey ResponseCacheKey::Make(std::string_view model, int64_t version,
                                        uint64_t generation,
                                        const std::vector<core::Tensor>& inputs,
                                        const std::vector<std::string>& outputs,
                                        const core::Parameters& parameters, bool model_shapes) {
  ResponseCacheKey key;
  std::string& h = key.header_;
  h.reserve(64 + model.size() + 48 * inputs.size());
  PutString(h, model);
  PutU64(h, static_cast<uint64_t>(version));
  PutU64(h, generation);
  PutU64(h, model_shapes ? 1 : 0);
  // Inputs by name: the same tensors sent in another order are the same request.
  std::vector<size_t> order(inputs.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&inputs](size_t a, size_t b) { return inputs[a].name < inputs[b].name; });
  PutU64(h, inputs.size());
  key.data_.reserve(inputs.size());
  size_t data_bytes = 0;
  for (size_t i : order) {
    const core::Tensor& t = inputs[i];
    PutString(h, t.name);
    PutU64(h, static_cast<uint64_t>(t.datatype));
    PutU64(h, t.shape.size());
    for (int64_t d : t.shape) PutU64(h, static_cast<uint64_t>(d));
    PutU64(h, t.data.size);  // the bytes follow the header in this order
    key.data_.push_back(t.data);
    data_bytes += t.data.size;
  }
  // Outputs in the response's order: it is part of the answer.
  PutU64(h, outputs.size());
  for (const std::string& name : outputs) PutString(h, name);
  size_t counted = 0;
  for (const auto& [name, value] : parameters) counted += IsParameterOutsideCacheKey(name) ? 0 : 1;
  PutU64(h, counted);
  for (const auto& [name, value] : parameters) {  // a std::map: sorted by name
    if (IsParameterOutsideCacheKey(name)) continue;
    PutString(h, name);
    PutParameter(h, value);
  }
  key.size_ = h.size() + data_bytes;

  XXH3_state_t state;
  XXH3_INITSTATE(&state);
  XXH3_128bits_reset(&state);
  XXH3_128bits_update(&state, h.data(), h.size());
  for (const core::Buffer& b : key.data_) {
    if (b.size > 0) XXH3_128bits_update(&state, b.data, b.size);
  }
  const XXH128_hash_t digest = XXH3_128bits_digest(&state);
  key.digest_ = CacheDigest{digest.low64, digest.high64};
  return key;
}

bool ResponseCacheKey::Matches(std::string_view material) const {
  if (material.size() != size_) return false;
  if (material.substr(0, header_.size()) != header_) return false;
  size_t at = header_.size();
  for (const core::Buffer& b : data_) {
    if (b.size > 0 && std::memcmp(material.data() + at, b.data, b.size) != 0) return false;
    at += b.size;
  }
  return true;
}

std::string ResponseCacheKey::Flatten() const {
  std::string out;
  out.reserve(size_);
  out.append(header_);
  for (const core::Buffer& b : data_) out.append(b.data, b.size);
  return out;
}

}  // namespace inferd
