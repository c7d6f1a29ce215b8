// SPDX-License-Identifier: Apache-2.0
// Owns every model the server knows and changes that set while requests
// flow (docs/architecture.md, "Lifecycle and the dependency graph"). Three kinds of thread meet
// here:
// - the request path reads the published ServingSnapshot (Resolve) and
//   never takes a lock of this class;
// - control operations (start-up load, the load/unload API, each poll's
//   changes) run on a bounded load pool; one model's transitions run one at
//   a time (its record's mutex), different models' in parallel;
// - released versions are stopped and deleted on the VersionUnloader's
//   thread once their last in-flight request is done.
// Lock order: a record's op_mu, then publish_mu_. Nothing waits while
// holding publish_mu_, and no lock is held across a request callback.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "base/thread_pool.h"
#include "lifecycle/control_options.h"
#include "lifecycle/model_loader.h"
#include "lifecycle/serving_table.h"
#include "lifecycle/version_unloader.h"
#include "repository/model_fingerprint.h"
#include "repository/model_overrides.h"
#include "repository/repository_source.h"

namespace inferd::lifecycle {

struct ModelManagerOptions {
  // Folders, or URLs of object stores (repository::OpenRepositorySource).
  std::vector<std::string> repositories;
  // What opening a repository that is not a local folder needs.
  repository::SourceOptions sources;
  LoaderOptions loader;
  ModelControlMode mode = ModelControlMode::kNone;
  // Explicit mode: the models loaded at start-up; "*" loads them all.
  std::vector<std::string> startup_models;
  // Poll mode: the time between two scans. Zero starts no poll thread (tests
  // call PollOnce themselves).
  std::chrono::milliseconds poll_interval{15000};
  // Threads that load and warm up models (at least 1).
  int load_threads = 1;
  // For models whose config does not choose (parameter
  // "version_transition_policy").
  TransitionPolicy transition_policy = TransitionPolicy::kAvailabilityPreserving;
  // Load the start-up models inside Create. False leaves it to
  // LoadStartupModels (the server starts its endpoints first, so that
  // liveness never waits for model loading).
  bool load_at_create = true;
};

// A load through the repository API.
struct ModelLoadSpec {
  std::string name;
  std::string config_json;                   // replaces config.pbtxt; empty: none
  std::map<std::string, std::string> files;  // "<version>/<path>" -> bytes; needs config_json
};

using ControlDone = std::function<void(absl::Status)>;

class ModelManager {
 public:
  // NotFound when a repository folder does not exist; a remote repository
  // that cannot be read fails it with its error. Models that fail to load
  // do not fail Create: they are UNAVAILABLE with their reason.
  static absl::StatusOr<std::unique_ptr<ModelManager>> Create(ModelManagerOptions options);
  // UnloadAll() with no limit, then joins its threads.
  ~ModelManager();
  ModelManager(const ModelManager&) = delete;
  ModelManager& operator=(const ModelManager&) = delete;

  // Loads what the mode asks for at start-up (in parallel on the load pool)
  // and, in poll mode, starts polling. Blocks until done. Once only.
  void LoadStartupModels();
  bool StartupDone() const { return startup_done_.load(std::memory_order_acquire); }

  std::shared_ptr<const ServingSnapshot> Snapshot() const { return table_.Get(); }
  // The local folders the repositories are read from, in order (a remote
  // repository's is its cache folder).
  const std::vector<std::string>& RepositoryFolders() const { return folders_; }

  // The version a request for (model, version) runs on; the shared_ptr pins
  // it until released. `version` is a decimal string or empty (the newest
  // ready version). NotFound for an unknown model or version; Unavailable
  // when it exists but is not ready (loading, unloading, failed).
  absl::StatusOr<std::shared_ptr<ModelVersion>> Resolve(std::string_view model,
                                                        std::string_view version) const;
  // Strict readiness: start-up loading is done and every model that should
  // be loaded has a READY version.
  bool AllReady() const;

  // Explicit mode only (FailedPrecondition otherwise). `done` is called
  // once, on a load-pool thread or inline for an error found at once.
  // Loading an ensemble first loads the composing models that are not
  // serving. Unloading with `unload_dependents` also unloads the models the
  // ensemble uses that no other model uses (Triton's meaning).
  void LoadAsync(ModelLoadSpec spec, ControlDone done);
  void UnloadAsync(std::string name, ControlDone done, bool unload_dependents = false);
  // Blocking forms, for tests and embedders.
  absl::Status Load(ModelLoadSpec spec);
  absl::Status Unload(std::string name, bool unload_dependents = false);

  // One poll: refreshes the remote repositories' cache folders, rescans the
  // repositories and applies every change that has been stable since the
  // previous poll (a folder whose fingerprint differs
  // between two consecutive polls is still being written and waits).
  // Blocks until the changes are applied. Poll mode only; a no-op otherwise.
  void PollOnce();

  // Stops polling and accepting control operations, unloads every version
  // and waits up to `drain` for their in-flight requests; then answers
  // those still queued with `expired` and waits for the ones executing.
  // Idempotent.
  void UnloadAll(std::chrono::milliseconds drain = std::chrono::milliseconds::max(),
                 const absl::Status& expired = absl::UnavailableError("server is shutting down"));

 private:
  // The control-plane state of one model name. Never erased.
  struct Record {
    explicit Record(std::string model) : name(std::move(model)) {}
    const std::string name;
    // Held for a whole transition, never on the request path. Timed: a
    // shutdown waits for it only until its drain deadline.
    base::TimedMutex op_mu;
    // Guarded by op_mu:
    bool wanted = false;                   // should be loaded (shown by strict readiness)
    bool unloaded = false;                 // explicitly unloaded: index says "unloaded"
    repository::ModelFingerprint applied;  // what the last transition acted on
    std::shared_ptr<const inference::ModelConfig> config;  // of the serving versions
    struct Serving {
      std::shared_ptr<ModelVersion> version;
      uint64_t fingerprint = 0;
      uint64_t id = 0;
    };
    std::map<int64_t, Serving> serving;
    std::map<int64_t, std::string> loading;  // version -> what the index says
    std::map<int64_t, std::string> failed;   // version -> reason
    std::string reason;                      // model-level failure
    std::shared_ptr<repository::OverrideModelFolder> override_folder;
  };
  // A version taken out of service whose requests may still be running.
  struct Retiring {
    std::string model;
    int64_t version = 0;
    uint64_t id = 0;
    std::weak_ptr<ModelVersion> weak;
  };
  struct Target {
    ModelSource source;
    repository::ModelFingerprint fingerprint;
    std::shared_ptr<repository::OverrideModelFolder> override_folder;
  };

  ModelManager(ModelManagerOptions options,
               std::vector<std::unique_ptr<repository::RepositorySource>> sources);
  // Refreshes every remote repository; the first failure (each is logged).
  absl::Status RefreshRemoteSources(repository::RefreshMode mode);
  Record& RecordFor(const std::string& name);
  // The current state of `name` in the repositories, or NotFound.
  absl::StatusOr<Target> FindInRepositories(const std::string& name) const;
  absl::StatusOr<Target> TargetFor(const ModelLoadSpec& spec) const;
  // Runs `operation` on the load pool with the record's op_mu held.
  void RunOnPool(const std::string& name, std::function<absl::Status(Record&)> operation,
                 ControlDone done);
  absl::Status ApplyLoad(Record& record, const Target& target);
  // An ensemble's composing models, loaded (each under its own op_mu, taken
  // after the ensemble's: the one lock order) unless serving already. Fails
  // only for a cycle or a shutdown; a composing model that cannot load is
  // left for the ensemble's validation to report with every other problem,
  // with the reason put in `unavailable`.
  absl::Status LoadDependencies(const std::string& name, const inference::ModelConfig& config,
                                std::map<std::string, std::string>& unavailable);
  // After `name` was unloaded: its dependencies that nothing else uses.
  void UnloadDependencies(const std::vector<std::string>& dependencies);
  // Takes every version out of service; waits until they are released.
  absl::Status ApplyUnload(Record& record, bool keep_entry);
  // Moves `versions` of `record` from serving to retiring and publishes;
  // returns their ids. REQUIRES record.op_mu.
  std::vector<uint64_t> Retire(Record& record, const std::vector<int64_t>& versions);
  void WaitReleased(const std::vector<uint64_t>& ids);
  // Answers the queued requests of every version still retiring with `status`.
  void FailRetiring(const absl::Status& status);
  void OnReleased(uint64_t id);
  // Publishes `record`'s state (REQUIRES its op_mu).
  void PublishRecord(const Record& record, bool remove = false);
  void RepublishLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(publish_mu_);
  TransitionPolicy PolicyOf(const inference::ModelConfig& config) const;
  void PollLoop();

  const ModelManagerOptions options_;
  const std::vector<std::unique_ptr<repository::RepositorySource>> sources_;
  const std::vector<std::string> folders_;  // sources_' local folders
  const bool has_remote_sources_;
  ModelLoader loader_;
  ServingTable table_;
  std::atomic<bool> startup_done_{false};
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> next_id_{1};

  std::mutex records_mu_;  // guards the map only; records live forever
  std::map<std::string, std::unique_ptr<Record>, std::less<>> records_;

  base::Mutex publish_mu_;
  std::map<std::string, ModelStatus, std::less<>> published_ ABSL_GUARDED_BY(publish_mu_);
  std::map<uint64_t, Retiring> retiring_ ABSL_GUARDED_BY(publish_mu_);

  // Poll state, used by PollOnce only (one at a time).
  std::mutex poll_mu_;
  std::map<std::string, repository::ModelFingerprint> last_scan_;
  std::map<std::string, repository::ModelFingerprint> last_applied_;
  std::set<std::string> absent_once_;
  base::Mutex poll_thread_mu_;
  bool poll_stop_ ABSL_GUARDED_BY(poll_thread_mu_) = false;
  std::thread poll_thread_;

  // Declared last: destroyed first, while the members above still exist.
  VersionUnloader unloader_;
  base::ThreadPool pool_;
};

// "" -> nullopt (server's choice); digits -> the number; else an error.
absl::StatusOr<std::optional<int64_t>> ParseRequestedVersion(std::string_view model,
                                                             std::string_view version);

}  // namespace inferd::lifecycle
