// SPDX-License-Identifier: Apache-2.0
// inferd::Server, the public in-process API and the only door through which
// frontends (HTTP, gRPC) and embedders reach models. Thread-safe: every method
// may be called concurrently from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "core/data_type.h"
#include "core/infer_request.h"
#include "core/inference_submitter.h"
#include "core/model_stats.h"
#include "core/shape.h"
#include "server/server_options.h"
#include "server/shared_memory_registry.h"

namespace inference {
class ModelConfig;
}

namespace inferd {

namespace lifecycle {
class ModelManager;
}
class ResponseCache;

struct ServerMetadata {
  std::string name;
  std::string version;
  std::vector<std::string> extensions;
};

struct TensorMetadata {
  std::string name;
  core::DataType datatype = core::DataType::kInvalid;
  // Full shape: a leading -1 batch dimension when the model batches.
  core::Shape shape;
};

struct ModelMetadata {
  std::string name;
  std::vector<std::string> versions;  // the ready versions, ascending
  std::string platform;               // config platform, else backend
  std::vector<TensorMetadata> inputs;
  std::vector<TensorMetadata> outputs;
};

struct ModelIndexEntry {
  std::string name;
  std::string version;  // empty when the model has no version at all
  std::string state;    // READY, LOADING, UNAVAILABLE, UNLOADING; empty: never loaded
  std::string reason;   // why it is not READY
};

// A repository-extension load (docs/api.md "Load").
struct ModelLoadRequest {
  std::string model;
  // The `config` parameter: a ModelConfig as JSON replacing config.pbtxt.
  // Empty: none.
  std::string config_json;
  // The `file:<version>/<path>` parameters, keyed by "<version>/<path>"
  // (without the "file:" prefix), values the raw file bytes. Non-empty
  // requires config_json (the protocol's rule).
  std::map<std::string, std::string> files;
};

// Called once with the outcome of a load or unload.
using ModelControlCallback = std::function<void(absl::Status)>;

// The statistics of one loaded model version.
struct ModelStatistics {
  std::string name;
  std::string version;
  core::ModelStatsSnapshot stats;
  // Its responses go through the response cache (the server has one and the
  // model enables it): the cache metrics are exported for it.
  bool response_cache = false;
};

// The request parameter that names a version by its label (TF Serving's
// version_labels) instead of its number.
inline constexpr char kVersionLabelParameter[] = "version_label";

class Server final : public core::InferenceSubmitter {
 public:
  // Reads every repository and loads every model. A model that fails to load
  // is UNAVAILABLE with its reason; only bad options fail Create.
  static absl::StatusOr<std::unique_ptr<Server>> Create(ServerOptions options);
  ~Server() override;
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Loads the start-up models when options.load_models_in_create was false
  // (blocks until done; a no-op otherwise).
  void LoadStartupModels();

  // Every model start-up asked for is READY (whatever --strict-readiness
  // says); for --exit-on-error once LoadStartupModels returned.
  bool StartupModelsReady() const;

  bool IsLive() const;
  // Live and every model that was asked for loaded (none UNAVAILABLE or LOADING).
  bool IsReady() const;
  ServerMetadata Metadata() const;

  // The system shared-memory regions clients registered, shared by every
  // frontend (docs/api.md, "Shared memory"). Thread-safe.
  SharedMemoryRegistry& shared_memory() const { return *shared_memory_; }

  // `version` is a decimal string or empty (newest ready version).
  // NotFound: unknown model or version. Unavailable: known but not ready.
  absl::StatusOr<ModelMetadata> GetModelMetadata(std::string_view model,
                                                 std::string_view version) const;
  absl::StatusOr<std::shared_ptr<const inference::ModelConfig>> GetModelConfig(
      std::string_view model, std::string_view version) const;
  // TF Serving's version labels (docs/configuration.md, "Version labels"):
  // the version (decimal) that `label` names in `model`'s `version_labels`
  // config parameter. NotFound for an unknown model; InvalidArgument
  // "Unrecognized servable version label: <label>" (TF Serving's words) for
  // a label the model does not define. Every frontend resolves labels here;
  // an inference request names one with the `version_label` parameter.
  absl::StatusOr<std::string> ResolveVersionLabel(std::string_view model,
                                                  std::string_view label) const;
  // NotFound for an unknown model or a malformed version; false when known
  // but not ready, or held by a repository but not loaded (explicit mode).
  absl::StatusOr<bool> IsModelReady(std::string_view model, std::string_view version) const;
  // Every model version the server knows and every model the repositories
  // hold (one never loaded: its name only, empty version and state), sorted
  // by name then version.
  std::vector<ModelIndexEntry> RepositoryIndex(bool ready_only) const;

  // Validates and runs `request`; `on_complete` is called exactly once, with
  // the response or an error (InvalidArgument for a bad request, NotFound for
  // an unknown model, Unavailable when not ready or stopping). It may be
  // called before InferAsync returns. Input tensors must stay valid until
  // then (their Buffer owners keep them alive, or the caller does).
  // A decoupled model's responses but the last go to the request's
  // on_partial_response; without one, a decoupled model is refused
  // (Unimplemented, payload core::kDecoupledRefusalPayload).
  void InferAsync(std::unique_ptr<core::InferRequest> request, core::InferCallback on_complete);
  // The same path for a request made inside the server on behalf of one it
  // accepted (an ensemble step, a backend's call to another model): it is
  // not refused while the server drains, since its parent is being waited
  // for (core::InferenceSubmitter).
  void SubmitInternal(std::unique_ptr<core::InferRequest> request,
                      core::InferCallback on_complete) override;

  // Statistics of the ready versions: of every model when `model` is empty,
  // of every ready version of `model` when `version` is empty. Sorted by
  // name then version. NotFound for an unknown model or version;
  // Unavailable when the model has no ready version.
  absl::StatusOr<std::vector<ModelStatistics>> Statistics(std::string_view model,
                                                          std::string_view version) const;

  // Repository extension. Loads (or reloads, when its files or config
  // changed or a version is not ready) `request.model` from the repositories
  // and answers once the model is serving or has failed; unload answers once
  // every version has been released. `done` runs on a control-plane thread,
  // or inline for an error found at once. Errors: FailedPrecondition when
  // --model-control-mode is not explicit; NotFound for a model no repository
  // has (load) or the server does not know (unload); InvalidArgument for a
  // bad config JSON, bad file parameters, or a model that failed to load
  // (the message says why); Unavailable while the server stops.
  // Loading an ensemble loads its composing models first; unloading it with
  // `unload_dependents` also unloads the composing models nothing else uses.
  void LoadModelAsync(ModelLoadRequest request, ModelControlCallback done);
  void UnloadModelAsync(std::string model, bool unload_dependents, ModelControlCallback done);

  // Graceful shutdown, step 1: readiness turns false at once; everything
  // else keeps serving (load balancers need time to notice). Idempotent.
  void BeginShutdown();
  bool IsShuttingDown() const { return shutting_down_.load(std::memory_order_acquire); }

  // Stops accepting requests (new ones get Unavailable "server is shutting
  // down"), waits up to `drain_timeout` for every accepted request to be
  // answered (models stay loaded meanwhile, so an ensemble or a backend
  // still reaches the models it calls), then answers those still queued
  // with Unavailable, waits for those executing, and unloads every model.
  // Idempotent; the destructor calls it with no limit.
  void Stop(std::chrono::milliseconds drain_timeout = std::chrono::milliseconds::max());

 private:
  explicit Server(ServerOptions options);
  void Dispatch(std::unique_ptr<core::InferRequest> request, core::InferCallback on_complete,
                bool internal = false);
  // Resolves and removes the request's `version_label` parameter.
  absl::Status ApplyVersionLabel(core::InferRequest& request) const;
  // Waits until no client request is in flight or `timeout` passed.
  void WaitForClientRequests(std::chrono::milliseconds timeout);

  const ServerOptions options_;
  // Null without --cache-config. Before models_, so that it outlives every
  // request (a miss inserts on its way out).
  std::unique_ptr<ResponseCache> response_cache_;
  // Before models_, so destroyed after it (leases would keep regions alive anyway).
  const std::unique_ptr<SharedMemoryRegistry> shared_memory_ =
      std::make_unique<SharedMemoryRegistry>();
  std::unique_ptr<lifecycle::ModelManager> models_;
  std::atomic<bool> shutting_down_{false};
  std::atomic<bool> stopping_{false};
  // Requests accepted through InferAsync and not yet answered; Stop waits
  // for them before it unloads anything.
  std::atomic<int64_t> client_requests_{0};
  base::Mutex drain_mu_;
};

}  // namespace inferd
