// SPDX-License-Identifier: Apache-2.0
#include "frontends/metrics/metrics_exporter.h"

#include <algorithm>
#include <cstdint>

#include "frontends/metrics/text_format.h"

namespace inferd::frontends::metrics {
namespace {

using core::ModelStatsSnapshot;

struct CounterFamily {
  const char* name;
  const char* help;
  MetricType type;
  uint64_t (*value)(const ModelStatsSnapshot&);
};

struct HistogramFamily {
  const char* name;
  const char* help;
  core::HistogramSnapshot ModelStatsSnapshot::*member;
  double scale;  // from recorded units to exported ones
};

constexpr double kSecondsPerNano = 1e-9;

constexpr CounterFamily kCounters[] = {
    {"inferd_inference_request_success_total", "Inference requests answered successfully.",
     MetricType::kCounter, [](const ModelStatsSnapshot& s) { return s.success.count; }},
    {"inferd_inference_count_total",
     "Inferences performed: rows (batch items) of successful requests.", MetricType::kCounter,
     [](const ModelStatsSnapshot& s) { return s.inference_count; }},
    {"inferd_inference_exec_count_total",
     "Model executions: batches run by the backend, however many requests they hold.",
     MetricType::kCounter, [](const ModelStatsSnapshot& s) { return s.execution_count; }},
};

constexpr HistogramFamily kHistograms[] = {
    {"inferd_inference_request_duration_seconds",
     "Time of requests, successful or failed, from arrival to response.",
     &ModelStatsSnapshot::request_duration, kSecondsPerNano},
    {"inferd_inference_queue_duration_seconds",
     "Time successful requests waited in the scheduler queue.", &ModelStatsSnapshot::queue_duration,
     kSecondsPerNano},
    {"inferd_inference_compute_input_duration_seconds",
     "Time successful requests spent gathering inputs in the backend.",
     &ModelStatsSnapshot::compute_input_duration, kSecondsPerNano},
    {"inferd_inference_compute_infer_duration_seconds",
     "Time successful requests spent computing in the backend.",
     &ModelStatsSnapshot::compute_infer_duration, kSecondsPerNano},
    {"inferd_inference_compute_output_duration_seconds",
     "Time successful requests spent writing outputs in the backend.",
     &ModelStatsSnapshot::compute_output_duration, kSecondsPerNano},
    {"inferd_inference_batch_size", "Sizes (rows) of the batches executed.",
     &ModelStatsSnapshot::batch_size, 1.0},
};

constexpr CounterFamily kGauges[] = {
    {"inferd_inference_queue_size", "Requests waiting in the scheduler queue.", MetricType::kGauge,
     [](const ModelStatsSnapshot& s) {
       return static_cast<uint64_t>(std::max<int64_t>(0, s.queue_size));
     }},
    {"inferd_inference_pending_requests", "Requests accepted and not answered yet.",
     MetricType::kGauge,
     [](const ModelStatsSnapshot& s) {
       return static_cast<uint64_t>(std::max<int64_t>(0, s.in_flight));
     }},
};

// Triton's names and help texts for the same data: cumulative counters, with
// durations in whole microseconds.
constexpr CounterFamily kTritonFamilies[] = {
    {"nv_inference_request_success", "Number of successful inference requests, all batch sizes",
     MetricType::kCounter, [](const ModelStatsSnapshot& s) { return s.success.count; }},
    {"nv_inference_count", "Number of inferences performed (does not include cached requests)",
     MetricType::kCounter, [](const ModelStatsSnapshot& s) { return s.inference_count; }},
    {"nv_inference_exec_count",
     "Number of model executions performed (does not include cached requests)",
     MetricType::kCounter, [](const ModelStatsSnapshot& s) { return s.execution_count; }},
    {"nv_inference_request_duration_us",
     "Cumulative inference request duration in microseconds (includes cached requests)",
     MetricType::kCounter, [](const ModelStatsSnapshot& s) { return s.success.ns / 1000; }},
    {"nv_inference_queue_duration_us",
     "Cumulative inference queuing duration in microseconds (includes cached requests)",
     MetricType::kCounter, [](const ModelStatsSnapshot& s) { return s.queue.ns / 1000; }},
    {"nv_inference_compute_input_duration_us",
     "Cumulative compute input duration in microseconds (does not include cached requests)",
     MetricType::kCounter, [](const ModelStatsSnapshot& s) { return s.compute_input.ns / 1000; }},
    {"nv_inference_compute_infer_duration_us",
     "Cumulative compute inference duration in microseconds (does not include cached requests)",
     MetricType::kCounter, [](const ModelStatsSnapshot& s) { return s.compute_infer.ns / 1000; }},
    {"nv_inference_compute_output_duration_us",
     "Cumulative inference compute output duration in microseconds (does not include cached "
     "requests)",
     MetricType::kCounter, [](const ModelStatsSnapshot& s) { return s.compute_output.ns / 1000; }},
    // Triton counts requests from acceptance until a backend starts them:
    // our scheduler queue.
    {"nv_inference_pending_request_count",
     "Instantaneous number of pending requests awaiting execution per-model.", MetricType::kGauge,
     [](const ModelStatsSnapshot& s) {
       return static_cast<uint64_t>(std::max<int64_t>(0, s.queue_size));
     }},
};

// The response cache's per-model families, exported for the versions whose
// responses go through the cache (ModelStatistics::response_cache). Triton's
// names are counters in whole microseconds; inferd's in seconds.
struct CacheFamily {
  const char* name;
  const char* help;
  double (*value)(const ModelStatsSnapshot&);
};

constexpr CacheFamily kCacheFamilies[] = {
    {"inferd_cache_hits_total", "Requests answered from the response cache.",
     [](const ModelStatsSnapshot& s) { return static_cast<double>(s.cache_hit.count); }},
    {"inferd_cache_misses_total",
     "Requests that missed the response cache and were answered by the model.",
     [](const ModelStatsSnapshot& s) { return static_cast<double>(s.cache_miss.count); }},
    {"inferd_cache_hit_duration_seconds_total",
     "Time spent looking up and copying out responses on cache hits.",
     [](const ModelStatsSnapshot& s) { return static_cast<double>(s.cache_hit.ns) * 1e-9; }},
    {"inferd_cache_miss_duration_seconds_total",
     "Time spent looking up and inserting responses on cache misses.",
     [](const ModelStatsSnapshot& s) { return static_cast<double>(s.cache_miss.ns) * 1e-9; }},
};

constexpr CacheFamily kTritonCacheFamilies[] = {
    {"nv_cache_num_hits_per_model", "Number of cache hits per model",
     [](const ModelStatsSnapshot& s) { return static_cast<double>(s.cache_hit.count); }},
    {"nv_cache_num_misses_per_model", "Number of cache misses per model",
     [](const ModelStatsSnapshot& s) { return static_cast<double>(s.cache_miss.count); }},
    {"nv_cache_hit_duration_per_model", "Total cache hit duration per model, in microseconds",
     [](const ModelStatsSnapshot& s) { return static_cast<double>(s.cache_hit.ns / 1000); }},
    {"nv_cache_miss_duration_per_model",
     "Total cache miss (insert+lookup) duration per model, in microseconds",
     [](const ModelStatsSnapshot& s) { return static_cast<double>(s.cache_miss.ns / 1000); }},
};

Labels ModelLabels(const ModelStatistics& model) {
  return {{"model", model.name}, {"version", model.version}};
}

void WriteCounters(const CounterFamily& family, const std::vector<ModelStatistics>& models,
                   TextFormatWriter& out) {
  out.BeginFamily(family.name, family.help, family.type);
  for (const ModelStatistics& model : models)
    out.Sample(ModelLabels(model), family.value(model.stats));
}

void WriteFailures(std::string_view name, std::string_view help,
                   const std::vector<ModelStatistics>& models, TextFormatWriter& out) {
  out.BeginFamily(name, help, MetricType::kCounter);
  for (const ModelStatistics& model : models) {
    for (size_t i = 0; i < core::kFailureReasonCount; ++i) {
      Labels labels = ModelLabels(model);
      labels.emplace_back("reason", core::FailureReasonName(static_cast<core::FailureReason>(i)));
      out.Sample(labels, model.stats.failures[i]);
    }
  }
}

void WriteCacheFamilies(const CacheFamily (&families)[4],
                        const std::vector<ModelStatistics>& models, TextFormatWriter& out) {
  for (const CacheFamily& family : families) {
    out.BeginFamily(family.name, family.help, MetricType::kCounter);
    for (const ModelStatistics& model : models) {
      if (model.response_cache) out.Sample(ModelLabels(model), family.value(model.stats));
    }
  }
}

HistogramData Scaled(const core::HistogramSnapshot& in, double scale) {
  HistogramData data;
  data.upper_bounds.reserve(in.upper_bounds.size());
  for (const uint64_t bound : in.upper_bounds)
    data.upper_bounds.push_back(static_cast<double>(bound) * scale);
  data.cumulative_counts = in.cumulative_counts;
  data.sum = static_cast<double>(in.sum) * scale;
  data.count = in.count;
  return data;
}

void WriteProcess(const ProcessMetrics& process, TextFormatWriter& out) {
  out.BeginFamily("process_resident_memory_bytes", "Resident memory size in bytes.",
                  MetricType::kGauge);
  out.Sample({}, process.resident_memory_bytes);
  out.BeginFamily("process_virtual_memory_bytes", "Virtual memory size in bytes.",
                  MetricType::kGauge);
  out.Sample({}, process.virtual_memory_bytes);
  out.BeginFamily("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
                  MetricType::kCounter);
  out.Sample({}, process.cpu_seconds);
  out.BeginFamily("process_start_time_seconds",
                  "Start time of the process since unix epoch in seconds.", MetricType::kGauge);
  out.Sample({}, process.start_time_seconds);
  out.BeginFamily("process_open_fds", "Number of open file descriptors.", MetricType::kGauge);
  out.Sample({}, process.open_fds);
}

}  // namespace

std::string RenderMetrics(const std::vector<ModelStatistics>& models, const ProcessMetrics* process,
                          const MetricsOptions& options) {
  TextFormatWriter out;
  for (const CounterFamily& family : kCounters) WriteCounters(family, models, out);
  WriteFailures("inferd_inference_request_failure_total",
                "Inference requests that failed, by reason (REJECTED, CANCELED, BACKEND, OTHER).",
                models, out);
  for (const HistogramFamily& family : kHistograms) {
    out.BeginFamily(family.name, family.help, MetricType::kHistogram);
    for (const ModelStatistics& model : models) {
      out.Histogram(ModelLabels(model), Scaled(model.stats.*family.member, family.scale));
    }
  }
  for (const CounterFamily& family : kGauges) WriteCounters(family, models, out);
  // As Triton: no cache families at all when no model's responses are cached.
  const bool any_cached = std::any_of(models.begin(), models.end(),
                                      [](const ModelStatistics& m) { return m.response_cache; });
  if (any_cached) WriteCacheFamilies(kCacheFamilies, models, out);
  if (options.triton_names) {
    for (const CounterFamily& family : kTritonFamilies) WriteCounters(family, models, out);
    WriteFailures("nv_inference_request_failure",
                  "Number of failed inference requests, all batch sizes", models, out);
    if (any_cached) WriteCacheFamilies(kTritonCacheFamilies, models, out);
  }
  if (process != nullptr) WriteProcess(*process, out);
  return out.text();
}

}  // namespace inferd::frontends::metrics
