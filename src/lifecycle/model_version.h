// SPDX-License-Identifier: Apache-2.0
// One loaded, servable version of a model: its completed config, backend
// objects and scheduler. In-flight requests pin it with a shared_ptr; the
// manager calls Stop() (which drains the scheduler) before letting it go.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "backends/abi/backend_model.h"
#include "backends/abi/backend_request.h"
#include "core/classification.h"
#include "core/model_stats.h"
#include "model_config.pb.h"
#include "scheduling/scheduler.h"

namespace inferd::lifecycle {

class ModelVersion {
 public:
  ModelVersion(std::shared_ptr<const inference::ModelConfig> config, int64_t version,
               std::unique_ptr<backends::BackendModel> backend_model,
               std::unique_ptr<scheduling::Scheduler> scheduler,
               std::shared_ptr<core::ModelStats> stats = std::make_shared<core::ModelStats>(),
               std::shared_ptr<const core::ClassLabels> labels = nullptr);
  ~ModelVersion();
  ModelVersion(const ModelVersion&) = delete;
  ModelVersion& operator=(const ModelVersion&) = delete;

  const std::string& name() const { return config_->name(); }
  int64_t version() const { return version_; }
  const inference::ModelConfig& config() const { return *config_; }
  const std::shared_ptr<const inference::ModelConfig>& shared_config() const { return config_; }
  const std::shared_ptr<const backends::ModelIO>& io() const { return io_; }
  // Unique in the process for each loaded version: a reload of the same
  // version number gets a new one, so whatever is keyed by it (the response
  // cache) never mixes two loads.
  uint64_t load_generation() const { return load_generation_; }
  // The statistics every request of this version records into.
  const core::ModelStats& stats() const { return *io_->stats; }
  // The outputs' labels (label_filename) for classification; never null.
  const std::shared_ptr<const core::ClassLabels>& labels() const { return labels_; }

  void Submit(std::unique_ptr<INFERD_Request> request) { scheduler_->Submit(std::move(request)); }
  // Finishes accepted requests and joins the instance threads. Idempotent.
  void Stop() { scheduler_->Stop(); }
  // Answers the requests still queued with `status` (a drain ran out of time).
  void FailQueued(const absl::Status& status) { scheduler_->FailQueued(status); }

 private:
  const std::shared_ptr<const inference::ModelConfig> config_;
  const int64_t version_;
  const uint64_t load_generation_;
  const std::shared_ptr<const backends::ModelIO> io_;
  const std::shared_ptr<const core::ClassLabels> labels_;
  // Declared before the scheduler so that the scheduler (and the instances
  // it owns) is destroyed first.
  std::unique_ptr<backends::BackendModel> backend_model_;
  std::unique_ptr<scheduling::Scheduler> scheduler_;
};

// The output facts of `config` that responses are checked against.
std::shared_ptr<const backends::ModelIO> MakeModelIO(const inference::ModelConfig& config,
                                                     int64_t version,
                                                     std::shared_ptr<core::ModelStats> stats);

}  // namespace inferd::lifecycle
