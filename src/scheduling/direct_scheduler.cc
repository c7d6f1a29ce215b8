// SPDX-License-Identifier: Apache-2.0
#include "scheduling/direct_scheduler.h"

namespace inferd::scheduling {

DirectScheduler::DirectScheduler(std::string model_name,
                                 std::vector<std::unique_ptr<backends::BackendInstance>> instances,
                                 const base::Clock& clock, DirectSchedulerOptions options)
    : clock_(clock), options_(options), pool_(std::move(model_name), std::move(instances), clock) {}

void DirectScheduler::Submit(std::unique_ptr<INFERD_Request> request) {
  request->MarkQueued(clock_.NowNanos());
  if (request->io().stats) request->io().stats->AddQueued(1);
  const bool may_run_here = request->request().may_run_on_caller_thread;
  Batch batch;
  batch.push_back(std::move(request));
  if (may_run_here && ShortEnoughToRunOnCaller() && pool_.TryExecuteOnCaller(batch)) return;
  pool_.Enqueue(std::move(batch));
}

bool DirectScheduler::ShortEnoughToRunOnCaller() const {
  return options_.caller_execution_max_nanos > 0 && pool_.has_execution_history() &&
         pool_.recent_execution_nanos() <= options_.caller_execution_max_nanos;
}

void DirectScheduler::Stop() { pool_.Stop(); }

}  // namespace inferd::scheduling
