// SPDX-License-Identifier: Apache-2.0
// The server's response cache (`--cache-config local,size=<bytes>`, Triton's
// "local" cache): successful responses of models with
// `response_cache { enable: true }`, looked up by ResponseCacheKey, bounded
// by bytes with least-recently-used eviction. One cache is shared by every
// model, as in Triton. Thread-safe; the lock covers only the index and the
// LRU list (no byte is hashed, compared or copied under it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "core/tensor.h"
#include "server/response_cache_key.h"

namespace inferd {

struct ResponseCacheStats {
  size_t capacity_bytes = 0;
  size_t bytes = 0;  // charged to the entries held now
  size_t entries = 0;
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t insertions = 0;
  uint64_t evictions = 0;
  uint64_t oversize = 0;  // responses larger than the whole cache, never stored
};

class ResponseCache {
 public:
  explicit ResponseCache(size_t capacity_bytes);
  ResponseCache(const ResponseCache&) = delete;
  ResponseCache& operator=(const ResponseCache&) = delete;

  // The outputs stored for `key`, or nullopt. Their buffers point into the
  // entry and keep it alive, so an eviction never pulls bytes away from a
  // response being sent. A hit makes the entry the most recently used.
  std::optional<std::vector<core::Tensor>> Lookup(const ResponseCacheKey& key);
  // Stores a copy of `outputs` for `key`, evicting the least recently used
  // entries to make room; replaces an entry with the same digest. False
  // (nothing stored) when the entry alone is larger than the capacity.
  bool Insert(const ResponseCacheKey& key, const std::vector<core::Tensor>& outputs);

  // What an entry for `key` with `outputs` is charged: its key material,
  // its output bytes, names and shapes, and a fixed overhead for the index.
  static size_t Charge(const ResponseCacheKey& key, const std::vector<core::Tensor>& outputs);

  ResponseCacheStats Stats() const;

 private:
  struct Entry {
    CacheDigest digest;
    std::string material;               // the key, to verify a hit
    std::string payload;                // every output's bytes, one after the other
    std::vector<core::Tensor> outputs;  // their data point into payload
    size_t charge = 0;
  };
  using Lru = std::list<std::shared_ptr<const Entry>>;  // front: most recently used

  void EraseLocked(Lru::iterator it) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const size_t capacity_;
  mutable base::Mutex mu_;
  Lru lru_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<CacheDigest, Lru::iterator> index_ ABSL_GUARDED_BY(mu_);
  ResponseCacheStats stats_ ABSL_GUARDED_BY(mu_);
};

// Parses Triton's `--cache-config` values (each `<cache>,<key>=<value>`):
// only the `local` cache, whose one setting is `size` (bytes, > 0).
// InvalidArgument naming the problem otherwise.
absl::StatusOr<size_t> ParseCacheConfig(const std::vector<std::string>& values);

}  // namespace inferd
