// SPDX-License-Identifier: Apache-2.0
// The interface through which a loaded model version runs requests, and the
// factory that picks one for a config. Implemented in this layer (direct
// execution, the dynamic batcher, the ensemble scheduler); the lifecycle
// layer above owns one per version and stops it before unloading
// (docs/architecture.md, "Layers").
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/abi/backend_model.h"
#include "backends/abi/backend_request.h"
#include "model_config.pb.h"

namespace inferd::scheduling {

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  // Always takes ownership; a request that cannot run (stopping) is
  // completed with an error, never dropped.
  virtual void Submit(std::unique_ptr<INFERD_Request> request) = 0;
  // Stops accepting, finishes every accepted request, joins its threads.
  // Idempotent. Called before the version's backend objects are deleted.
  virtual void Stop() = 0;
  // Completes every request still waiting (not yet executing) with
  // `status`; requests executing finish normally. Used when a drain runs
  // out of time (--exit-timeout-secs). The scheduler keeps accepting.
  virtual void FailQueued(const absl::Status& status) = 0;
};

// Builds the scheduler of one version over its instances (moved in).
// `model_directory` is the model's folder (the sequence batcher reads
// initial_state data files below it).
using SchedulerFactory = std::function<absl::StatusOr<std::unique_ptr<Scheduler>>(
    const inference::ModelConfig& config,
    std::vector<std::unique_ptr<backends::BackendInstance>> instances,
    const std::string& model_directory)>;

}  // namespace inferd::scheduling
