// SPDX-License-Identifier: Apache-2.0
// A fixed-bucket histogram of non-negative integer observations (durations
// in nanoseconds, batch sizes), recorded with relaxed atomics so the request
// path takes no lock; the metrics exporter reads a snapshot.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace inferd::core {

struct HistogramSnapshot {
  std::vector<uint64_t> upper_bounds;  // ascending; +Inf is implicit
  // Cumulative counts (Prometheus `le` semantics): counts[i] = observations
  // <= upper_bounds[i]; one more entry at the end for +Inf (== count).
  std::vector<uint64_t> cumulative_counts;
  uint64_t sum = 0;
  uint64_t count = 0;
};

class Histogram {
 public:
  // REQUIRES: `upper_bounds` ascending without duplicates (see CheckBuckets).
  explicit Histogram(std::vector<uint64_t> upper_bounds);
  Histogram(const Histogram&) = delete;
  Histogram& operator=(const Histogram&) = delete;

  void Observe(uint64_t value);
  // Not atomic across buckets: a snapshot taken during Observe may count an
  // observation in `count` but not yet in its bucket, never the reverse of
  // what Prometheus tolerates (counts only grow).
  HistogramSnapshot Snapshot() const;
  const std::vector<uint64_t>& upper_bounds() const { return upper_bounds_; }

 private:
  const std::vector<uint64_t> upper_bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;  // per bucket, +Inf last
  std::atomic<uint64_t> sum_{0};
  std::atomic<uint64_t> count_{0};
};

// Whether `bounds` can be histogram buckets: non-empty is not required, but
// they must be strictly ascending.
bool BucketsAreAscending(const std::vector<uint64_t>& bounds);

}  // namespace inferd::core
