// SPDX-License-Identifier: Apache-2.0
// Turns one model folder into loaded versions: read and fill the config
// (or take the load API's override), complete it from the model file,
// validate, normalize, select versions by policy, and load and warm up each
// version through its backend. Every failure is a Status with the reason;
// nothing here can take the server down. Thread-safe: the load pool calls
// it for several models at once.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "backends/abi/backend_library.h"
#include "backends/abi/backend_model.h"
#include "backends/abi/server_api.h"
#include "base/mutex.h"
#include "core/inference_submitter.h"
#include "core/model_stats.h"
#include "lifecycle/serving_table.h"
#include "repository/model_repository.h"
#include "scheduling/ensemble_graph.h"
#include "scheduling/scheduler.h"

namespace inferd::lifecycle {

struct LoaderOptions {
  std::string backend_directory;
  bool auto_complete_config = true;
  int cpu_cores = 1;
  scheduling::SchedulerFactory scheduler_factory;
  // Histogram buckets of every version's statistics.
  core::HistogramBounds histogram_bounds = core::HistogramBounds::Defaults();
  // Where ensembles and backends send requests to other models (the
  // server); null: they cannot (unit tests of single models).
  core::InferenceSubmitter* submitter = nullptr;
  // The server has a response cache (--cache-config): a model asking for
  // `response_cache` without one loads, with a warning.
  bool response_cache = false;
  // --backend-config settings by backend name, handed to that backend's models.
  std::map<std::string, backends::BackendSettings> backend_config{};
  // Auto-complete's max_batch_size for a model that can batch, unless its
  // backend's settings hold default-max-batch-size.
  int32_t default_max_batch_size = 4;
};

// Where a model comes from.
struct ModelSource {
  std::string name;       // the folder name
  std::string directory;  // the model folder
  // Set when the model cannot be loaded for a reason found while scanning.
  std::optional<std::string> problem;
  // Replaces config.pbtxt (the load API's `config` parameter).
  std::optional<inference::ModelConfig> config_override;
};

struct PreparedModel {
  std::shared_ptr<const inference::ModelConfig> config;  // completed, validated, normalized
  std::vector<int64_t> versions;  // selected by the version policy, ascending, never empty
};

// The versions the default policy (latest 1) picks from <model_dir>: what
// the index lists for a model whose config could not be read.
std::vector<int64_t> DefaultPolicyVersions(const std::string& model_dir);

class ModelLoader {
 public:
  explicit ModelLoader(LoaderOptions options)
      : options_(std::move(options)), server_handle_{options_.submitter} {}

  // The model's config and the versions its policy selects.
  absl::StatusOr<PreparedModel> Prepare(const ModelSource& source);
  // Loads one version: backend model, instances, warm-up on every instance,
  // scheduler. The version is ready to serve when this returns. An
  // ensemble has no backend: its scheduler runs its steps on the composing
  // models, whose configs `composing` gives (checked here, once).
  absl::StatusOr<std::unique_ptr<ModelVersion>> LoadVersion(
      const std::shared_ptr<const inference::ModelConfig>& config, const std::string& model_dir,
      int64_t version, const scheduling::ComposingConfigLookup& composing = {});
  // Prepare and LoadVersion for every selected version, as a status.
  ModelStatus Load(const repository::ModelLocation& location);

 private:
  absl::StatusOr<std::shared_ptr<backends::BackendLibrary>> Library(const std::string& name);
  backends::BackendSettings BackendSettingsFor(const std::string& backend) const;
  int32_t DefaultMaxBatchSize(const std::string& backend) const;

  const LoaderOptions options_;
  // INFERD_ModelSpec::server of every model this loader creates.
  INFERD_Server server_handle_;
  base::Mutex mu_;
  // Backends opened so far (or why they could not be); one library per name.
  std::map<std::string, absl::StatusOr<std::shared_ptr<backends::BackendLibrary>>> libraries_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace inferd::lifecycle
