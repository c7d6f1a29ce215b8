// SPDX-License-Identifier: Apache-2.0
// Renders the /metrics exposition: per-model counters, histograms and gauges
// from Server::Statistics snapshots (ns converted to seconds), Triton's
// nv_inference_* names for the same data, and the process metrics. No I/O.
#pragma once

#include <string>
#include <vector>

#include "frontends/metrics/process_metrics.h"
#include "server/server.h"

namespace inferd::frontends::metrics {

struct MetricsOptions {
  // Also export the data under Triton's nv_inference_* names, so that
  // dashboards built for Triton keep working.
  bool triton_names = true;
};

// The Prometheus text exposition (format 0.0.4) of `models` (one entry per
// ready model version) and of `process` (null: the process families are left
// out). Every family is written, with its HELP and TYPE, even when no model
// is loaded.
std::string RenderMetrics(const std::vector<ModelStatistics>& models, const ProcessMetrics* process,
                          const MetricsOptions& options);

}  // namespace inferd::frontends::metrics
