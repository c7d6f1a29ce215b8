// SPDX-License-Identifier: Apache-2.0
// Everything that configures an inferd::Server, each field with its default.
// Only cmd/ fills it from flags; embedders fill it in code.
#pragma once

#include <string>
#include <vector>

#include "core/model_stats.h"

namespace inferd {

struct ServerOptions {
  // Model repositories (folders in Triton's layout). A model name must be
  // unique across all of them.
  std::vector<std::string> model_repositories;
  // Folder holding one subfolder per backend: <dir>/<backend>/libinferd_<backend>.so.
  std::string backend_directory = "build/lib/backends";
  // Complete a missing or partial config.pbtxt from the model file.
  bool auto_complete_config = true;
  // CPU cores the server may use; 0: what the process is allowed to run on.
  // Default thread counts are derived from it so they never oversubscribe.
  int cpu_cores = 0;
  // Bucket upper bounds of the statistics histograms that /metrics exports.
  core::HistogramBounds histogram_bounds = core::HistogramBounds::Defaults();
  // Server name and version reported by server metadata.
  std::string server_name = "inferd";
};

}  // namespace inferd
