// SPDX-License-Identifier: Apache-2.0
#include "core/histogram.h"

#include <algorithm>

namespace inferd::core {

Histogram::Histogram(std::vector<uint64_t> upper_bounds)
    : upper_bounds_(std::move(upper_bounds)),
      buckets_(new std::atomic<uint64_t>[upper_bounds_.size() + 1]) {
  for (size_t i = 0; i <= upper_bounds_.size(); ++i)
    buckets_[i].store(0, std::memory_order_relaxed);
}

void Histogram::Observe(uint64_t value) {
  // `le` buckets: the first bound >= value.
  const size_t index = static_cast<size_t>(
      std::lower_bound(upper_bounds_.begin(), upper_bounds_.end(), value) - upper_bounds_.begin());
  buckets_[index].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(value, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
}

HistogramSnapshot Histogram::Snapshot() const {
  HistogramSnapshot out;
  out.upper_bounds = upper_bounds_;
  out.cumulative_counts.resize(upper_bounds_.size() + 1);
  uint64_t running = 0;
  for (size_t i = 0; i <= upper_bounds_.size(); ++i) {
    running += buckets_[i].load(std::memory_order_relaxed);
    out.cumulative_counts[i] = running;
  }
  out.sum = sum_.load(std::memory_order_relaxed);
  // The total is the +Inf bucket, so that the exposition is consistent even
  // when a snapshot races with Observe.
  out.count = running;
  return out;
}

bool BucketsAreAscending(const std::vector<uint64_t>& bounds) {
  return std::adjacent_find(bounds.begin(), bounds.end(),
                            [](uint64_t a, uint64_t b) { return a >= b; }) == bounds.end();
}

}  // namespace inferd::core
