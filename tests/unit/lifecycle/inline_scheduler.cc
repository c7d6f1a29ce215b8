// SPDX-License-Identifier: Apache-2.0
#include "inline_scheduler.h"

namespace inferd::lifecycle {

void InlineScheduler::Submit(std::unique_ptr<INFERD_Request> request) {
  base::MutexLock lock(&mu_);  // one batch at a time per instance, as the ABI promises
  if (stopped_ || instances_.empty()) {
    request->Complete(absl::UnavailableError("stopped"));
    return;
  }
  std::vector<std::unique_ptr<INFERD_Request>> batch;
  batch.push_back(std::move(request));
  instances_.front()->Execute(std::move(batch));
}

void InlineScheduler::Stop() {
  base::MutexLock lock(&mu_);
  stopped_ = true;
}

scheduling::SchedulerFactory InlineSchedulerFactory(std::shared_ptr<int> instances_seen) {
  return [instances_seen](
             const inference::ModelConfig&,
             std::vector<std::unique_ptr<backends::BackendInstance>> instances,
             const std::string&) -> absl::StatusOr<std::unique_ptr<scheduling::Scheduler>> {
    if (instances_seen) *instances_seen += static_cast<int>(instances.size());
    return std::make_unique<InlineScheduler>(std::move(instances));
  };
}

}  // namespace inferd::lifecycle
