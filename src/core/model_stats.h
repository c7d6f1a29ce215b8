// SPDX-License-Identifier: Apache-2.0
// The statistics of one model version: the counters and durations of the
// KServe statistics extension (Triton's units: counts and nanoseconds) and
// the histograms and gauges that the Prometheus exporter publishes. Recorded
// on the request path without locks (one short mutex per execution for the
// per-batch-size table); read as a snapshot. Thread-safe.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <vector>

#include "base/mutex.h"
#include "core/histogram.h"

namespace inferd::core {

struct StatDuration {
  uint64_t count = 0;
  uint64_t ns = 0;
};

struct BatchStat {
  uint64_t batch_size = 0;
  StatDuration compute_input;
  StatDuration compute_infer;
  StatDuration compute_output;
};

// Why a request failed, as the `reason` label of the failure counter
// (Triton's reasons).
enum class FailureReason { kRejected = 0, kCanceled, kBackend, kOther };
inline constexpr size_t kFailureReasonCount = 4;
const char* FailureReasonName(FailureReason reason);

// Bucket upper bounds of the histograms.
struct HistogramBounds {
  std::vector<uint64_t> duration_ns;  // request, queue and compute durations
  std::vector<uint64_t> batch_size;   // formed batch sizes
  static HistogramBounds Defaults();
};

struct ModelStatsSnapshot {
  uint64_t last_inference_ms = 0;  // wall clock, ms since the epoch; 0 = never
  uint64_t inference_count = 0;    // rows (batch items) answered successfully
  uint64_t execution_count = 0;    // batches executed
  StatDuration success, fail, queue, compute_input, compute_infer, compute_output;
  // Response cache (Triton's meaning): a hit's lookup and copy-out, a miss's
  // lookup and insertion.
  StatDuration cache_hit, cache_miss;
  std::vector<BatchStat> batch_stats;                    // ascending batch_size
  std::array<uint64_t, kFailureReasonCount> failures{};  // by FailureReason
  int64_t queue_size = 0;                                // requests waiting in the scheduler
  int64_t in_flight = 0;                                 // accepted and not yet answered
  HistogramSnapshot request_duration, queue_duration, compute_input_duration,
      compute_infer_duration, compute_output_duration, batch_size;
};

// The moments of one successful request, on one monotonic clock (ns).
struct RequestTimes {
  int64_t arrival = 0;        // the server accepted it
  int64_t queue_start = 0;    // it entered the scheduler
  int64_t exec_start = 0;     // its batch was handed to an instance
  int64_t compute_start = 0;  // the backend began computing (after gathering inputs)
  int64_t compute_end = 0;    // the backend finished computing (before writing outputs)
  int64_t end = 0;            // the response was complete
};

class ModelStats {
 public:
  explicit ModelStats(const HistogramBounds& bounds = HistogramBounds::Defaults());
  ModelStats(const ModelStats&) = delete;
  ModelStats& operator=(const ModelStats&) = delete;

  // A request answered successfully; `batch_size` rows (1 for non-batching
  // models). Call before the response leaves, so a client that reads the
  // statistics after its responses sees them.
  void RecordSuccess(const RequestTimes& times, int64_t batch_size);
  void RecordFailure(FailureReason reason, int64_t duration_ns);
  // A request answered from the response cache, as Triton counts it: a
  // success (count and `request_ns`) with a queue entry of no time, and a
  // cache hit of `lookup_ns`; no inference, no execution.
  void RecordCacheHit(int64_t request_ns, int64_t lookup_ns);
  // A request that missed the cache and succeeded: its lookup plus
  // insertion time, also added to the success duration (the insertion
  // happens after RecordSuccess).
  void RecordCacheMiss(int64_t miss_ns);
  // One batch executed by an instance, with the durations of its phases.
  void RecordExecution(int64_t batch_size, int64_t input_ns, int64_t infer_ns, int64_t output_ns);

  void AddQueued(int64_t delta) { queue_size_.fetch_add(delta, std::memory_order_relaxed); }
  void AddInFlight(int64_t delta) { in_flight_.fetch_add(delta, std::memory_order_relaxed); }

  ModelStatsSnapshot Snapshot() const;

 private:
  struct AtomicDuration {
    std::atomic<uint64_t> count{0};
    std::atomic<uint64_t> ns{0};
    void Add(int64_t ns);
    StatDuration Load() const;
  };

  std::atomic<uint64_t> last_inference_ms_{0};
  std::atomic<uint64_t> inference_count_{0};
  std::atomic<uint64_t> execution_count_{0};
  AtomicDuration success_, fail_, queue_, compute_input_, compute_infer_, compute_output_,
      cache_hit_, cache_miss_;
  std::array<std::atomic<uint64_t>, kFailureReasonCount> failures_{};
  std::atomic<int64_t> queue_size_{0};
  std::atomic<int64_t> in_flight_{0};
  Histogram request_duration_, queue_duration_, compute_input_duration_, compute_infer_duration_,
      compute_output_duration_, batch_size_;

  mutable base::Mutex batch_mu_;
  std::map<uint64_t, BatchStat> batch_stats_ ABSL_GUARDED_BY(batch_mu_);
};

}  // namespace inferd::core
