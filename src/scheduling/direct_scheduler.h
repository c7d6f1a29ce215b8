// SPDX-License-Identifier: Apache-2.0
// Triton's default scheduler: each request runs on its own (never merged
// with others) on the next free instance. A request whose frontend allows
// it (InferRequest::may_run_on_caller_thread) runs on the frontend's own
// thread when an instance is idle, nothing is queued and the model's recent
// executions took at most `caller_execution_max_nanos`: for short models the
// two thread hand-offs (to the instance thread and back) cost more than the
// execution itself, while a long one would hold the frontend's thread.
#pragma once

#include <memory>

#include "base/clock.h"
#include "scheduling/instance_pool.h"
#include "scheduling/scheduler.h"

namespace inferd::scheduling {

struct DirectSchedulerOptions {
  // 0: always hand requests to the instance threads.
  int64_t caller_execution_max_nanos = 0;
};

class DirectScheduler final : public scheduling::Scheduler {
 public:
  DirectScheduler(std::string model_name,
                  std::vector<std::unique_ptr<backends::BackendInstance>> instances,
                  const base::Clock& clock = base::Clock::Real(),
                  DirectSchedulerOptions options = {});
  void Submit(std::unique_ptr<INFERD_Request> request) override;
  void Stop() override;
  void FailQueued(const absl::Status& status) override { pool_.FailQueued(status); }

 private:
  bool ShortEnoughToRunOnCaller() const;

  const base::Clock& clock_;
  const DirectSchedulerOptions options_;
  InstancePool pool_;
};

}  // namespace inferd::scheduling
