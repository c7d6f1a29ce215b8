// SPDX-License-Identifier: Apache-2.0
#include "core/model_stats.h"

#include <algorithm>

#include "base/clock.h"

namespace inferd::core {
namespace {

uint64_t NonNegative(int64_t ns) { return ns > 0 ? static_cast<uint64_t>(ns) : 0; }

void AddTo(StatDuration& into, int64_t ns) {
  into.count += 1;
  into.ns += NonNegative(ns);
}

}  // namespace

const char* FailureReasonName(FailureReason reason) {
  switch (reason) {
    case FailureReason::kRejected:
      return "REJECTED";
    case FailureReason::kCanceled:
      return "CANCELED";
    case FailureReason::kBackend:
      return "BACKEND";
    case FailureReason::kOther:
      break;
  }
  return "OTHER";
}

HistogramBounds HistogramBounds::Defaults() {
  HistogramBounds bounds;
  // 50 µs .. 10 s, roughly ×2.5 per step: covers a loopback round trip of a
  // tiny model up to a large batch of a big one.
  for (uint64_t us : {50, 100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000,
                      500000, 1000000, 2500000, 5000000, 10000000}) {
    bounds.duration_ns.push_back(us * 1000);
  }
  bounds.batch_size = {1, 2, 4, 8, 16, 32, 64, 128, 256};
  return bounds;
}

void ModelStats::AtomicDuration::Add(int64_t duration_ns) {
  count.fetch_add(1, std::memory_order_relaxed);
  ns.fetch_add(NonNegative(duration_ns), std::memory_order_relaxed);
}

StatDuration ModelStats::AtomicDuration::Load() const {
  return StatDuration{count.load(std::memory_order_relaxed), ns.load(std::memory_order_relaxed)};
}

ModelStats::ModelStats(const HistogramBounds& bounds)
    : request_duration_(bounds.duration_ns),
      queue_duration_(bounds.duration_ns),
      compute_input_duration_(bounds.duration_ns),
      compute_infer_duration_(bounds.duration_ns),
      compute_output_duration_(bounds.duration_ns),
      batch_size_(bounds.batch_size) {}

void ModelStats::RecordSuccess(const RequestTimes& t, int64_t batch_size) {
  // A backend that reports no compute times leaves them 0: count the whole
  // execution as inference.
  const int64_t compute_start = t.compute_start > 0 ? t.compute_start : t.exec_start;
  const int64_t compute_end = t.compute_end > 0 ? t.compute_end : t.end;
  const int64_t request_ns = t.end - t.arrival;
  const int64_t queue_ns = t.exec_start - t.queue_start;
  const int64_t input_ns = compute_start - t.exec_start;
  const int64_t infer_ns = compute_end - compute_start;
  const int64_t output_ns = t.end - compute_end;
  success_.Add(request_ns);
  queue_.Add(queue_ns);
  compute_input_.Add(input_ns);
  compute_infer_.Add(infer_ns);
  compute_output_.Add(output_ns);
  request_duration_.Observe(NonNegative(request_ns));
  queue_duration_.Observe(NonNegative(queue_ns));
  compute_input_duration_.Observe(NonNegative(input_ns));
  compute_infer_duration_.Observe(NonNegative(infer_ns));
  compute_output_duration_.Observe(NonNegative(output_ns));
  inference_count_.fetch_add(NonNegative(std::max<int64_t>(batch_size, 1)),
                             std::memory_order_relaxed);
  last_inference_ms_.store(base::WallClockMillis(), std::memory_order_relaxed);
}

void ModelStats::RecordFailure(FailureReason reason, int64_t duration_ns) {
  fail_.Add(duration_ns);
  failures_[static_cast<size_t>(reason)].fetch_add(1, std::memory_order_relaxed);
  request_duration_.Observe(NonNegative(duration_ns));
}

void ModelStats::RecordCacheHit(int64_t request_ns, int64_t lookup_ns) {
  success_.Add(request_ns);
  queue_.Add(0);
  cache_hit_.Add(lookup_ns);
  request_duration_.Observe(NonNegative(request_ns));
  queue_duration_.Observe(0);
}

void ModelStats::RecordCacheMiss(int64_t miss_ns) {
  success_.ns.fetch_add(NonNegative(miss_ns), std::memory_order_relaxed);
  cache_miss_.Add(miss_ns);
}

void ModelStats::RecordExecution(int64_t batch_size, int64_t input_ns, int64_t infer_ns,
                                 int64_t output_ns) {
  execution_count_.fetch_add(1, std::memory_order_relaxed);
  batch_size_.Observe(NonNegative(batch_size));
  base::MutexLock lock(&batch_mu_);
  BatchStat& stat = batch_stats_[NonNegative(batch_size)];
  stat.batch_size = NonNegative(batch_size);
  AddTo(stat.compute_input, input_ns);
  AddTo(stat.compute_infer, infer_ns);
  AddTo(stat.compute_output, output_ns);
}

ModelStatsSnapshot ModelStats::Snapshot() const {
  ModelStatsSnapshot out;
  out.last_inference_ms = last_inference_ms_.load(std::memory_order_relaxed);
  out.inference_count = inference_count_.load(std::memory_order_relaxed);
  out.execution_count = execution_count_.load(std::memory_order_relaxed);
  out.success = success_.Load();
  out.fail = fail_.Load();
  out.queue = queue_.Load();
  out.compute_input = compute_input_.Load();
  out.compute_infer = compute_infer_.Load();
  out.compute_output = compute_output_.Load();
  out.cache_hit = cache_hit_.Load();
  out.cache_miss = cache_miss_.Load();
  for (size_t i = 0; i < kFailureReasonCount; ++i) {
    out.failures[i] = failures_[i].load(std::memory_order_relaxed);
  }
  out.queue_size = queue_size_.load(std::memory_order_relaxed);
  out.in_flight = in_flight_.load(std::memory_order_relaxed);
  out.request_duration = request_duration_.Snapshot();
  out.queue_duration = queue_duration_.Snapshot();
  out.compute_input_duration = compute_input_duration_.Snapshot();
  out.compute_infer_duration = compute_infer_duration_.Snapshot();
  out.compute_output_duration = compute_output_duration_.Snapshot();
  out.batch_size = batch_size_.Snapshot();
  {
    base::MutexLock lock(&batch_mu_);
    out.batch_stats.reserve(batch_stats_.size());
    for (const auto& [size, stat] : batch_stats_) out.batch_stats.push_back(stat);
  }
  return out;
}

}  // namespace inferd::core
