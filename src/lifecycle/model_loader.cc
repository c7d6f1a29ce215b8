// SPDX-License-Identifier: Apache-2.0
#include "lifecycle/model_loader.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/file_system.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "lifecycle/config_completer.h"
#include "lifecycle/output_labels.h"
#include "lifecycle/warmup.h"
#include "repository/model_config_fill.h"
#include "repository/model_config_validator.h"
#include "repository/model_versions.h"
#include "scheduling/ensemble_scheduler.h"

namespace inferd::lifecycle {
namespace {

// A model that asks for the response cache and will not get it loads all
// the same (Triton caches only when both the server and the model enable
// it, and never through the sequence batcher); the warning says why.
void WarnIfNotCached(const inference::ModelConfig& config, int64_t version, bool server_cache) {
  if (!config.response_cache().enable()) return;
  if (!server_cache) {
    INFERD_LOG_WARN(
        "model '{}' version {} enables response_cache, but the server has no cache "
        "(--cache-config local,size=<bytes>): its responses are not cached",
        config.name(), version);
  } else if (config.has_sequence_batching()) {
    INFERD_LOG_WARN(
        "model '{}' version {} enables response_cache, but it is a sequence model "
        "(sequence_batching): its responses depend on the sequence's state and are not cached",
        config.name(), version);
  }
}

std::string ModelPath(const std::string& model_dir, int64_t version,
                      const inference::ModelConfig& config) {
  return base::JoinPath(base::JoinPath(model_dir, std::to_string(version)),
                        config.default_model_filename());
}

int TotalInstances(const inference::ModelConfig& config) {
  int total = 0;
  for (const auto& group : config.instance_group()) total += std::max(group.count(), 1);
  return std::max(total, 1);
}

}  // namespace

std::vector<int64_t> DefaultPolicyVersions(const std::string& model_dir) {
  return repository::SelectVersions(inference::ModelVersionPolicy(),
                                    repository::ListVersions(model_dir));
}

backends::BackendSettings ModelLoader::BackendSettingsFor(const std::string& backend) const {
  const auto it = options_.backend_config.find(backend);
  return it == options_.backend_config.end() ? backends::BackendSettings{} : it->second;
}

int32_t ModelLoader::DefaultMaxBatchSize(const std::string& backend) const {
  int32_t value = options_.default_max_batch_size;
  for (const auto& [key, text] : BackendSettingsFor(backend)) {
    int32_t parsed = 0;
    // The command line checked it (cmd/backend_config.cc).
    if (key == "default-max-batch-size" && absl::SimpleAtoi(text, &parsed)) value = parsed;
  }
  return value;
}

absl::StatusOr<std::shared_ptr<backends::BackendLibrary>> ModelLoader::Library(
    const std::string& name) {
  base::MutexLock lock(&mu_);
  auto it = libraries_.find(name);
  if (it == libraries_.end()) {
    it = libraries_.emplace(name, backends::BackendLibrary::Open(options_.backend_directory, name))
             .first;
  }
  return it->second;
}

absl::StatusOr<PreparedModel> ModelLoader::Prepare(const ModelSource& location) {
  if (location.problem) return absl::InvalidArgumentError(*location.problem);
  std::vector<int64_t> versions;
  const std::string config_path = location.config_override
                                      ? std::string("the config given to the load API")
                                      : base::JoinPath(location.directory, "config.pbtxt");
  std::optional<inference::ModelConfig> read = location.config_override;
  if (!read) {
    INFERD_ASSIGN_OR_RETURN(read, repository::ReadModelConfigFile(location.directory));
  }
  if (!read && !options_.auto_complete_config) {
    return absl::InvalidArgumentError(absl::StrCat(
        config_path, " is missing and auto-complete is disabled (--disable-auto-complete-config)"));
  }
  inference::ModelConfig config = read ? std::move(*read) : inference::ModelConfig();
  INFERD_RETURN_IF_ERROR(
      repository::FillBackendAndPlatform(location.name, location.directory, config));
  versions = repository::SelectVersions(config.version_policy(),
                                        repository::ListVersions(location.directory));
  if (versions.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "model '", location.name, "': no version folder is available under the version policy"));
  }
  const bool ensemble = config.platform() == "ensemble";
  if (options_.auto_complete_config && !ensemble && NeedsCompletion(config)) {
    INFERD_ASSIGN_OR_RETURN(auto library, Library(config.backend()));
    backends::ModelSpecStorage spec(config, versions.back(), location.directory,
                                    ModelPath(location.directory, versions.back(), config), 1,
                                    nullptr, BackendSettingsFor(config.backend()));
    INFERD_ASSIGN_OR_RETURN(auto signature, backends::DescribeModel(*library, spec));
    INFERD_RETURN_IF_ERROR(
        CompleteModelConfig(signature, config, DefaultMaxBatchSize(config.backend())));
  }
  INFERD_RETURN_IF_ERROR(repository::ValidateModelConfig(config, config_path));
  repository::NormalizeModelConfig(config);
  return PreparedModel{std::make_shared<const inference::ModelConfig>(std::move(config)),
                       std::move(versions)};
}

absl::StatusOr<std::unique_ptr<ModelVersion>> ModelLoader::LoadVersion(
    const std::shared_ptr<const inference::ModelConfig>& config, const std::string& model_dir,
    int64_t version, const scheduling::ComposingConfigLookup& composing) {
  WarnIfNotCached(*config, version, options_.response_cache);
  // Before the backend loads: a missing label file fails the load at once.
  INFERD_ASSIGN_OR_RETURN(auto labels, LoadOutputLabels(*config, model_dir));
  if (config->platform() == "ensemble") {
    const scheduling::ComposingConfigLookup none =
        [](const std::string&,
           int64_t) -> absl::StatusOr<std::shared_ptr<const inference::ModelConfig>> {
      return absl::NotFoundError("no composing models in this context");
    };
    INFERD_ASSIGN_OR_RETURN(auto graph,
                            scheduling::BuildEnsembleGraph(*config, composing ? composing : none));
    return std::make_unique<ModelVersion>(
        config, version, nullptr,
        std::make_unique<scheduling::EnsembleScheduler>(std::move(graph), options_.submitter),
        std::make_shared<core::ModelStats>(options_.histogram_bounds), std::move(labels));
  }
  INFERD_ASSIGN_OR_RETURN(auto library, Library(config->backend()));
  const int instances = TotalInstances(*config);
  const int intra_op_threads = std::max(1, options_.cpu_cores / instances);
  auto spec = std::make_unique<backends::ModelSpecStorage>(
      *config, version, model_dir, ModelPath(model_dir, version, *config), intra_op_threads,
      &server_handle_, BackendSettingsFor(config->backend()));
  INFERD_ASSIGN_OR_RETURN(auto backend_model,
                          backends::BackendModel::Create(library, std::move(spec)));
  std::vector<std::unique_ptr<backends::BackendInstance>> created;
  for (int i = 0; i < instances; ++i) {
    INFERD_ASSIGN_OR_RETURN(auto instance, backend_model->CreateInstance(static_cast<uint32_t>(i)));
    created.push_back(std::move(instance));
  }
  // Before the scheduler exists, so that no request can overtake warm-up.
  for (auto& instance : created) {
    INFERD_RETURN_IF_ERROR(WarmUpInstance(*config, model_dir, version, *instance));
  }
  INFERD_ASSIGN_OR_RETURN(auto scheduler,
                          options_.scheduler_factory(*config, std::move(created), model_dir));
  return std::make_unique<ModelVersion>(
      config, version, std::move(backend_model), std::move(scheduler),
      std::make_shared<core::ModelStats>(options_.histogram_bounds), std::move(labels));
}

ModelStatus ModelLoader::Load(const repository::ModelLocation& location) {
  ModelStatus status;
  status.name = location.name;
  if (location.problem) {
    status.reason = *location.problem;
    return status;
  }
  auto prepared = Prepare(ModelSource{location.name, location.directory, location.problem, {}});
  if (!prepared.ok()) {
    status.reason = std::string(prepared.status().message());
    // The config could not say which versions it wants: list those the
    // default policy would serve, so the index shows why each is down.
    for (int64_t v : DefaultPolicyVersions(location.directory))
      status.versions.push_back({v, VersionState::kUnavailable, status.reason, nullptr});
    return status;
  }
  status.config = prepared->config;
  for (int64_t version : prepared->versions) {
    auto loaded = LoadVersion(status.config, location.directory, version);
    if (loaded.ok()) {
      status.versions.push_back({version, VersionState::kReady, "", std::move(*loaded)});
    } else {
      status.versions.push_back(
          {version, VersionState::kUnavailable, std::string(loaded.status().message()), nullptr});
    }
  }
  return status;
}

}  // namespace inferd::lifecycle
