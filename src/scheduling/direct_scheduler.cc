// SPDX-License-Identifier: Apache-2.0
#include "scheduling/direct_scheduler.h"

namespace inferd::scheduling {

DirectScheduler::DirectScheduler(std::string model_name,
                                 std::vector<std::unique_ptr<backends::BackendInstance>> instances,
                                 const base::Clock& clock)
    : clock_(clock), pool_(std::move(model_name), std::move(instances), clock) {}

void DirectScheduler::Submit(std::unique_ptr<INFERD_Request> request) {
  request->MarkQueued(clock_.NowNanos());
  if (request->io().stats) request->io().stats->AddQueued(1);
  Batch batch;
  batch.push_back(std::move(request));
  pool_.Enqueue(std::move(batch));
}

void DirectScheduler::Stop() { pool_.Stop(); }

}  // namespace inferd::scheduling
