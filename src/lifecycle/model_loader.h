// SPDX-License-Identifier: Apache-2.0
// Turns one model folder into a ModelStatus: read and fill the config,
// complete it from the model file, validate, normalize, select versions by
// policy, and load each selected version through its backend. Every failure
// is recorded as a reason; nothing here can take the server down.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "backends/abi/backend_library.h"
#include "core/model_stats.h"
#include "lifecycle/scheduler.h"
#include "lifecycle/serving_table.h"
#include "repository/model_repository.h"

namespace inferd::lifecycle {

struct LoaderOptions {
  std::string backend_directory;
  bool auto_complete_config = true;
  int cpu_cores = 1;
  SchedulerFactory scheduler_factory;
  // Histogram buckets of every version's statistics.
  core::HistogramBounds histogram_bounds = core::HistogramBounds::Defaults();
};

class ModelLoader {
 public:
  explicit ModelLoader(LoaderOptions options) : options_(std::move(options)) {}
  ModelStatus Load(const repository::ModelLocation& location);

 private:
  absl::StatusOr<std::shared_ptr<backends::BackendLibrary>> Library(const std::string& name);
  absl::StatusOr<inference::ModelConfig> PrepareConfig(const repository::ModelLocation& location,
                                                       std::vector<int64_t>& versions);
  absl::StatusOr<std::shared_ptr<ModelVersion>> LoadVersion(
      const std::shared_ptr<const inference::ModelConfig>& config, const std::string& model_dir,
      int64_t version);

  const LoaderOptions options_;
  // Backends opened so far (or why they could not be); one library per name.
  std::map<std::string, absl::StatusOr<std::shared_ptr<backends::BackendLibrary>>> libraries_;
};

}  // namespace inferd::lifecycle
