// SPDX-License-Identifier: Apache-2.0
#include "server/server.h"

#include <map>
#include <optional>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "backends/abi/backend_request.h"
#include "base/clock.h"
#include "base/cpu_cores.h"
#include "base/status_macros.h"
#include "lifecycle/model_manager.h"
#include "repository/model_repository.h"
#include "repository/version_labels.h"
#include "scheduling/scheduler_factory.h"
#include "scheduling/shared_timer.h"
#include "server/request_validator.h"
#include "server/response_cache.h"
#include "server/response_cache_dispatch.h"
#include "server/response_classification.h"

#ifndef INFERD_VERSION
#define INFERD_VERSION "0.0.0"
#endif

namespace inferd {
namespace {

std::vector<TensorMetadata> TensorsOf(const inference::ModelConfig& config, bool inputs) {
  std::vector<TensorMetadata> tensors;
  auto add = [&](const std::string& name, inference::DataType type, const auto& dims) {
    TensorMetadata t{name, static_cast<core::DataType>(type), {}};
    if (config.max_batch_size() > 0) t.shape.push_back(-1);
    t.shape.insert(t.shape.end(), dims.begin(), dims.end());
    tensors.push_back(std::move(t));
  };
  if (inputs) {
    for (const auto& in : config.input()) add(in.name(), in.data_type(), in.dims());
  } else {
    for (const auto& out : config.output()) add(out.name(), out.data_type(), out.dims());
  }
  return tensors;
}

// The models the repositories hold now; none when a repository folder went away.
std::vector<repository::ModelLocation> ListRepositories(const std::vector<std::string>& folders) {
  auto locations = repository::ListModels(folders);
  return locations.ok() ? *std::move(locations) : std::vector<repository::ModelLocation>();
}

}  // namespace

Server::Server(ServerOptions options) : options_(std::move(options)) {}

Server::~Server() { Stop(); }

absl::StatusOr<std::unique_ptr<Server>> Server::Create(ServerOptions options) {
  if (options.model_repositories.empty()) {
    return absl::InvalidArgumentError("at least one --model-repository is required");
  }
  if (options.cpu_cores <= 0) options.cpu_cores = base::AvailableCpuCores();
  std::unique_ptr<Server> server(new Server(options));
  lifecycle::ModelManagerOptions manager_options;
  manager_options.repositories = options.model_repositories;
  manager_options.sources = options.repository_sources;
  manager_options.loader.backend_directory = options.backend_directory;
  manager_options.loader.auto_complete_config = options.auto_complete_config;
  manager_options.loader.cpu_cores = options.cpu_cores;
  manager_options.loader.histogram_bounds = options.histogram_bounds;
  manager_options.loader.submitter = server.get();
  if (options.response_cache_bytes > 0) {
    server->response_cache_ = std::make_unique<ResponseCache>(options.response_cache_bytes);
    manager_options.loader.response_cache = true;
  }
  manager_options.loader.backend_config = options.backend_config;
  manager_options.loader.default_max_batch_size = options.default_max_batch_size;
  manager_options.mode = options.model_control_mode;
  manager_options.startup_models = options.startup_models;
  manager_options.poll_interval = std::chrono::milliseconds(
      static_cast<int64_t>(std::max(0.0, options.repository_poll_secs) * 1000));
  manager_options.load_threads =
      options.model_load_threads > 0 ? options.model_load_threads : std::min(4, options.cpu_cores);
  manager_options.transition_policy = options.version_transition_policy;
  manager_options.load_at_create = options.load_models_in_create;
  // One timer thread for every dynamic batcher of the server (docs/architecture.md, "Threading").
  scheduling::DirectSchedulerOptions direct;
  direct.caller_execution_max_nanos = std::max<int64_t>(0, options.inline_execution_max_us) * 1000;
  manager_options.loader.scheduler_factory = scheduling::MakeSchedulerFactory(
      std::make_shared<scheduling::SharedTimer>(), base::Clock::Real(), direct);
  INFERD_ASSIGN_OR_RETURN(server->models_,
                          lifecycle::ModelManager::Create(std::move(manager_options)));
  return server;
}

void Server::LoadStartupModels() {
  if (!models_->StartupDone()) models_->LoadStartupModels();
}

bool Server::StartupModelsReady() const { return models_->AllReady(); }

// Live until the process stops for good: neither loading nor a drain in
// progress makes a liveness probe restart the container.
bool Server::IsLive() const { return !stopping_.load(std::memory_order_acquire); }

bool Server::IsReady() const {
  if (!IsLive() || IsShuttingDown()) return false;
  return options_.strict_readiness ? models_->AllReady() : models_->StartupDone();
}

ServerMetadata Server::Metadata() const {
  return ServerMetadata{options_.server_name,
                        INFERD_VERSION,
                        {"binary_tensor_data", "classification", "model_configuration",
                         "model_repository", "model_repository(unload_dependents)", "parameters",
                         "schedule_policy", "sequence", "statistics", "system_shared_memory"}};
}

absl::StatusOr<ModelMetadata> Server::GetModelMetadata(std::string_view model,
                                                       std::string_view version) const {
  INFERD_ASSIGN_OR_RETURN(auto loaded, models_->Resolve(model, version));
  const auto& config = loaded->config();
  ModelMetadata metadata;
  metadata.name = config.name();
  const auto snapshot = models_->Snapshot();
  if (auto it = snapshot->models.find(model); it != snapshot->models.end()) {
    for (const auto& v : it->second.versions) {
      if (v.state == lifecycle::VersionState::kReady)
        metadata.versions.push_back(std::to_string(v.version));
    }
  }
  metadata.platform = config.platform().empty() ? config.backend() : config.platform();
  metadata.inputs = TensorsOf(config, /*inputs=*/true);
  metadata.outputs = TensorsOf(config, /*inputs=*/false);
  return metadata;
}

absl::StatusOr<std::shared_ptr<const inference::ModelConfig>> Server::GetModelConfig(
    std::string_view model, std::string_view version) const {
  INFERD_ASSIGN_OR_RETURN(auto loaded, models_->Resolve(model, version));
  return loaded->shared_config();
}

absl::StatusOr<std::string> Server::ResolveVersionLabel(std::string_view model,
                                                        std::string_view label) const {
  const auto snapshot = models_->Snapshot();
  const auto it = snapshot->models.find(model);
  if (it == snapshot->models.end()) {
    // Resolve words the unknown-model error the same way for every caller.
    INFERD_RETURN_IF_ERROR(models_->Resolve(model, "").status());
    return absl::NotFoundError(
        absl::StrCat("Request for unknown model: '", std::string(model), "'"));
  }
  repository::VersionLabels labels;
  if (it->second.config != nullptr) {
    INFERD_ASSIGN_OR_RETURN(labels, repository::VersionLabelsOf(*it->second.config));
  }
  const auto label_it = labels.find(label);
  if (label_it == labels.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Unrecognized servable version label: ", std::string(label), " (model '",
                     std::string(model), "')"));
  }
  return std::to_string(label_it->second);
}

// The `version_label` request parameter names the version by label. It is
// taken out of the request once resolved: an ensemble passes its parameters
// on to its steps, whose models do not share the ensemble's labels.
absl::Status Server::ApplyVersionLabel(core::InferRequest& request) const {
  const auto it = request.parameters.find(kVersionLabelParameter);
  if (it == request.parameters.end()) return absl::OkStatus();
  const auto* label = std::get_if<std::string>(&it->second);
  if (label == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("parameter '", kVersionLabelParameter, "' must be a string"));
  }
  if (!request.model_version.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("model '", request.model_name, "': a request names either a version (",
                     request.model_version, ") or a version label ('", *label, "'), not both"));
  }
  INFERD_ASSIGN_OR_RETURN(request.model_version, ResolveVersionLabel(request.model_name, *label));
  request.parameters.erase(it);
  return absl::OkStatus();
}

absl::StatusOr<bool> Server::IsModelReady(std::string_view model, std::string_view version) const {
  auto loaded = models_->Resolve(model, version);
  if (loaded.ok()) return IsLive();
  if (absl::IsUnavailable(loaded.status())) return false;
  // A model the repositories hold but the server never loaded (explicit
  // mode) exists, and is not ready: Triton answers ready=false for it.
  if (absl::IsNotFound(loaded.status()) && models_->Snapshot()->models.count(model) == 0) {
    for (const auto& location : ListRepositories(models_->RepositoryFolders())) {
      if (location.name == model) return false;
    }
  }
  return loaded.status();
}

std::vector<ModelIndexEntry> Server::RepositoryIndex(bool ready_only) const {
  std::vector<ModelIndexEntry> entries;
  const auto snapshot = models_->Snapshot();
  // As Triton: every model the repositories hold, loaded or not, and every
  // model the server knows (one loaded from the request's files is in no
  // repository). One never loaded has its name only; one that cannot load
  // for a reason found in the scan (a name in two repositories) is
  // UNAVAILABLE with that reason.
  std::map<std::string, std::optional<std::string>> found;
  for (auto& location : ListRepositories(models_->RepositoryFolders()))
    found[location.name] = std::move(location.problem);
  for (const auto& [name, status] : snapshot->models) found.try_emplace(name);
  for (const auto& [name, problem] : found) {
    const auto it = snapshot->models.find(name);
    if (it == snapshot->models.end()) {
      if (ready_only) continue;
      entries.push_back(problem ? ModelIndexEntry{name, "", "UNAVAILABLE", *problem}
                                : ModelIndexEntry{name, "", "", ""});
      continue;
    }
    const lifecycle::ModelStatus& status = it->second;
    if (status.versions.empty() && !ready_only) {
      entries.push_back({name, "", "UNAVAILABLE", status.reason});
    }
    for (const auto& v : status.versions) {
      if (ready_only && v.state != lifecycle::VersionState::kReady) continue;
      entries.push_back({name, std::to_string(v.version),
                         std::string(lifecycle::VersionStateName(v.state)), v.reason});
    }
  }
  return entries;
}

void Server::InferAsync(std::unique_ptr<core::InferRequest> request,
                        core::InferCallback on_complete) {
  // Counted before the check, so that Stop either sees this request or
  // this request sees stopping_ (sequentially consistent on purpose: both
  // sides write one variable and then read the other).
  client_requests_.fetch_add(1);
  if (stopping_.load()) {
    client_requests_.fetch_sub(1);
    on_complete(absl::UnavailableError("server is shutting down"));
    return;
  }
  Dispatch(std::move(request), [this, on_complete = std::move(on_complete)](
                                   absl::StatusOr<core::InferResponse> result) {
    on_complete(std::move(result));
    if (client_requests_.fetch_sub(1) == 1 && stopping_.load()) {
      base::MutexLock lock(&drain_mu_);  // its unlock wakes WaitForClientRequests
    }
  });
}

void Server::SubmitInternal(std::unique_ptr<core::InferRequest> request,
                            core::InferCallback on_complete) {
  Dispatch(std::move(request), std::move(on_complete), /*internal=*/true);
}

void Server::WaitForClientRequests(std::chrono::milliseconds timeout) {
  base::MutexLock lock(&drain_mu_);
  auto none = [this]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return client_requests_.load() == 0; };
  if (timeout == std::chrono::milliseconds::max()) {
    drain_mu_.Await(none);
  } else {
    drain_mu_.AwaitWithTimeout(none, timeout);
  }
}

void Server::Dispatch(std::unique_ptr<core::InferRequest> request, core::InferCallback on_complete,
                      bool internal) {
  if (absl::Status labelled = ApplyVersionLabel(*request); !labelled.ok()) {
    on_complete(std::move(labelled));
    return;
  }
  auto loaded = models_->Resolve(request->model_name, request->model_version);
  if (!loaded.ok()) {
    // The models may have just been taken out of service by Stop().
    on_complete(stopping_.load(std::memory_order_acquire)
                    ? absl::UnavailableError("server is shutting down")
                    : loaded.status());
    return;
  }
  auto& version = **loaded;
  if (internal) {
    // The caller (an ensemble) names the version of a step that failed.
    on_complete = [number = std::to_string(version.version()),
                   on_complete = std::move(on_complete)](absl::StatusOr<core::InferResponse> r) {
      if (!r.ok()) {
        absl::Status status = r.status();
        status.SetPayload(core::kModelVersionPayload, absl::Cord(number));
        r = std::move(status);
      }
      on_complete(std::move(r));
    };
  }
  const int64_t arrival = base::Clock::Real().NowNanos();
  auto validated = ValidateRequest(version.config(), *request);
  if (!validated.ok()) {
    version.io()->stats->RecordFailure(core::FailureReason::kOther,
                                       base::Clock::Real().NowNanos() - arrival);
    on_complete(validated.status());
    return;
  }
  if (version.io()->decoupled && !request->on_partial_response) {
    absl::Status refused = absl::UnimplementedError(absl::StrCat(
        "model '", version.name(),
        "' is decoupled (model_transaction_policy { decoupled: true }) and may answer a request "
        "many times: use a stream (gRPC ModelStreamInfer, HTTP generate_stream)"));
    refused.SetPayload(core::kDecoupledRefusalPayload, absl::Cord("1"));
    version.io()->stats->RecordFailure(core::FailureReason::kOther,
                                       base::Clock::Real().NowNanos() - arrival);
    on_complete(std::move(refused));
    return;
  }
  if (!request->output_class_counts.empty()) {
    if (absl::Status status = CheckClassificationRequest(version.config(), *request);
        !status.ok()) {
      version.io()->stats->RecordFailure(core::FailureReason::kOther,
                                         base::Clock::Real().NowNanos() - arrival);
      on_complete(std::move(status));
      return;
    }
    ClassifyResponsesOf(*request, on_complete, version.config().max_batch_size() > 0,
                        version.labels());
  }
  // Hits never reach the scheduler (docs/configuration.md, "Response cache").
  // The cache holds the model's own outputs: classification (wrapped above)
  // applies after it, on hits and misses alike.
  if (response_cache_ && UsesResponseCache(version) &&
      AnswerFromCacheOrWrap(*response_cache_, version, *request, validated->output_names,
                            validated->model_shapes, arrival, on_complete)) {
    return;
  }
  auto backend_request = std::make_unique<INFERD_Request>(
      std::move(request), std::move(on_complete), version.io(), std::move(validated->output_names),
      validated->batch_size, std::shared_ptr<const void>(*loaded, nullptr));
  backend_request->MarkArrival(arrival);
  backend_request->SetScheduling(validated->priority, validated->timeout_micros);
  if (validated->model_shapes) backend_request->AnswerInModelShapes();
  version.Submit(std::move(backend_request));
}

absl::StatusOr<std::vector<ModelStatistics>> Server::Statistics(std::string_view model,
                                                                std::string_view version) const {
  std::vector<ModelStatistics> out;
  auto add = [this, &out](const lifecycle::ModelVersion& v) {
    out.push_back({v.name(), std::to_string(v.version()), v.stats().Snapshot(),
                   response_cache_ != nullptr && UsesResponseCache(v)});
  };
  if (model.empty()) {
    const auto snapshot = models_->Snapshot();
    for (const auto& [name, status] : snapshot->models) {
      for (const auto& v : status.versions) {
        if (v.state == lifecycle::VersionState::kReady && v.loaded) add(*v.loaded);
      }
    }
    return out;
  }
  if (!version.empty()) {
    INFERD_ASSIGN_OR_RETURN(auto loaded, models_->Resolve(model, version));
    add(*loaded);
    return out;
  }
  // Every ready version of one model; Resolve gives the right error when none is.
  INFERD_ASSIGN_OR_RETURN(auto newest, models_->Resolve(model, ""));
  (void)newest;
  const auto snapshot = models_->Snapshot();
  if (auto it = snapshot->models.find(model); it != snapshot->models.end()) {
    for (const auto& v : it->second.versions) {
      if (v.state == lifecycle::VersionState::kReady && v.loaded) add(*v.loaded);
    }
  }
  return out;
}

void Server::LoadModelAsync(ModelLoadRequest request, ModelControlCallback done) {
  if (IsShuttingDown() || stopping_.load(std::memory_order_acquire)) {
    done(absl::UnavailableError("server is shutting down"));
    return;
  }
  models_->LoadAsync(
      lifecycle::ModelLoadSpec{std::move(request.model), std::move(request.config_json),
                               std::move(request.files)},
      std::move(done));
}

void Server::UnloadModelAsync(std::string model, bool unload_dependents,
                              ModelControlCallback done) {
  if (stopping_.load(std::memory_order_acquire)) {
    done(absl::UnavailableError("server is shutting down"));
    return;
  }
  models_->UnloadAsync(std::move(model), std::move(done), unload_dependents);
}

void Server::BeginShutdown() { shutting_down_.store(true, std::memory_order_release); }

void Server::Stop(std::chrono::milliseconds drain_timeout) {
  if (stopping_.exchange(true)) return;
  shutting_down_.store(true, std::memory_order_release);
  const auto started = std::chrono::steady_clock::now();
  WaitForClientRequests(drain_timeout);
  if (models_) {
    const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - started);
    models_->UnloadAll(
        drain_timeout == std::chrono::milliseconds::max()
            ? drain_timeout
            : std::max(std::chrono::milliseconds::zero(), drain_timeout - waited),
        absl::UnavailableError("server is shutting down: the request was still queued when the "
                               "drain time (--exit-timeout-secs) ran out"));
  }
}

}  // namespace inferd
