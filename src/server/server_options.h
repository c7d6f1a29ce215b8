// SPDX-License-Identifier: Apache-2.0
// Everything that configures an inferd::Server, each field with its default.
// Only cmd/ fills it from flags; embedders fill it in code.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/model_stats.h"
#include "lifecycle/control_options.h"
#include "repository/repository_source.h"

namespace inferd {

struct ServerOptions {
  // Model repositories (folders in Triton's layout, or object-store URLs:
  // s3://bucket/prefix). A model name must be unique across all of them.
  std::vector<std::string> model_repositories;
  // Cache folder and endpoint for the repositories that are not local folders.
  repository::SourceOptions repository_sources;
  // Folder holding one subfolder per backend: <dir>/<backend>/libinferd_<backend>.so.
  std::string backend_directory = "build/lib/backends";
  // Complete a missing or partial config.pbtxt from the model file.
  bool auto_complete_config = true;
  // CPU cores the server may use; 0: what the process is allowed to run on.
  // Default thread counts are derived from it so they never oversubscribe.
  int cpu_cores = 0;
  // Bucket upper bounds of the statistics histograms that /metrics exports.
  core::HistogramBounds histogram_bounds = core::HistogramBounds::Defaults();
  // none: load every model at start-up; poll: also apply repository changes;
  // explicit: load only `startup_models` and what the load API asks for.
  lifecycle::ModelControlMode model_control_mode = lifecycle::ModelControlMode::kNone;
  // Explicit mode: models loaded at start-up ("*": all).
  std::vector<std::string> startup_models;
  // Poll mode: seconds between two repository scans.
  double repository_poll_secs = 15;
  // Threads that load and warm up models; 0: min(4, cpu_cores).
  int model_load_threads = 0;
  // How a new version replaces an old one, unless a model's config says
  // (parameter "version_transition_policy").
  lifecycle::TransitionPolicy version_transition_policy =
      lifecycle::TransitionPolicy::kAvailabilityPreserving;
  // Ready only when every model that should be loaded is (Triton's
  // default); false: ready whenever live and not shutting down.
  bool strict_readiness = true;
  // Load the start-up models inside Create (embedders). The executable sets
  // false and calls LoadStartupModels once its endpoints listen, so that
  // liveness answers while models load.
  bool load_models_in_create = true;
  // Bytes of the response cache (`--cache-config local,size=N`), shared by
  // the models with `response_cache { enable: true }`; 0: no cache.
  size_t response_cache_bytes = 0;
  // Server name and version reported by server metadata.
  std::string server_name = "inferd";
  // A client request to a model without batching runs on the frontend's own
  // thread when an instance is idle, nothing is queued and the model's recent
  // executions took at most this long (microseconds); 0: always hand it to
  // the instance threads (the default until its HTTP throughput at
  // concurrency 1 is understood: docs/architecture.md, "Threading").
  int64_t inline_execution_max_us = 0;
  // Settings handed to a backend's models (Triton's --backend-config), by
  // backend name: (key, value) in command-line order.
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> backend_config;
  // Auto-complete's max_batch_size for a model that can batch when neither
  // its config nor its backend's settings say (Triton's
  // --backend-config=default-max-batch-size=N).
  int default_max_batch_size = 4;
};

}  // namespace inferd
