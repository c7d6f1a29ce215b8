// SPDX-License-Identifier: Apache-2.0
// The identity of one inference request for the response cache
// (docs/configuration.md, "Response cache"): the model, its version, the
// load generation of that version, every input's name, datatype, shape and
// bytes, the outputs asked for (in order), and the request parameters that
// can change an answer. Two requests with equal keys get equal answers from
// a deterministic model.
//
// The key is a 128-bit XXH3 digest over a canonical encoding (the "key
// material"). The cache indexes by the digest and compares the material on
// every hit, so a collision never serves another request's answer. The
// material is held in pieces (a header, then the inputs' bytes as views) so
// that a lookup hashes and compares the request's own bytes without copying
// them; only an insertion flattens it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/infer_request.h"
#include "core/tensor.h"

namespace inferd {

struct CacheDigest {
  uint64_t low = 0;
  uint64_t high = 0;
  bool operator==(const CacheDigest&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const CacheDigest& d) {
    return H::combine(std::move(h), d.low, d.high);
  }
};

class ResponseCacheKey {
 public:
  // `inputs` as validated (after any reshape); `outputs` the names of the
  // outputs the response will carry, in its order. The inputs' buffers must
  // stay valid while the key is used (the key keeps their owners).
  // `model_shapes`: the response is answered in the model's own shapes
  // (ValidatedRequest::model_shapes), which changes its output shapes.
  static ResponseCacheKey Make(std::string_view model, int64_t version, uint64_t generation,
                               const std::vector<core::Tensor>& inputs,
                               const std::vector<std::string>& outputs,
                               const core::Parameters& parameters, bool model_shapes = false);

  const CacheDigest& digest() const { return digest_; }
  // Bytes of key material (what an entry stores to verify hits).
  size_t material_size() const { return size_; }
  // Whether `material` (a Flatten() of some key) is this key's.
  bool Matches(std::string_view material) const;
  // The key material in one string.
  std::string Flatten() const;

 private:
  CacheDigest digest_;
  std::string header_;              // everything but the inputs' bytes
  std::vector<core::Buffer> data_;  // the inputs' bytes, in header order
  size_t size_ = 0;
};

// Request parameters that never change an answer and stay out of the key:
// scheduling (priority, timeout) and the encoding of the response
// (binary_data_output).
bool IsParameterOutsideCacheKey(std::string_view name);

}  // namespace inferd
