// SPDX-License-Identifier: Apache-2.0
#include "scheduling/direct_scheduler.h"

namespace inferd::scheduling {

DirectScheduler::DirectScheduler(std::string model_name,
                                 std::vector<std::unique_ptr<backends::BackendInstance>> instances)
    : pool_(std::move(model_name), std::move(instances)) {}

void DirectScheduler::Submit(std::unique_ptr<INFERD_Request> request) {
  Batch batch;
  batch.push_back(std::move(request));
  pool_.Enqueue(std::move(batch));
}

void DirectScheduler::Stop() { pool_.Stop(); }

lifecycle::SchedulerFactory MakeSchedulerFactory() {
  return [](const inference::ModelConfig& config,
            std::vector<std::unique_ptr<backends::BackendInstance>> instances)
             -> absl::StatusOr<std::unique_ptr<lifecycle::Scheduler>> {
    // Dynamic batching arrives with the scheduling work; until then a model
    // with `dynamic_batching` runs each request directly, which is correct
    // (only slower), since requests already carry their own batch.
    return std::make_unique<DirectScheduler>(config.name(), std::move(instances));
  };
}

}  // namespace inferd::scheduling
