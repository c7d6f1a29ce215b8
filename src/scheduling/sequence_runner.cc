// SPDX-License-Identifier: Apache-2.0
#include "scheduling/sequence_runner.h"

namespace inferd::scheduling {

SequenceRunner::SequenceRunner(std::unique_ptr<backends::BackendInstance> instance,
                               const base::Clock& clock)
    : instance_(std::move(instance)), clock_(clock), thread_([this] { Loop(); }) {}

SequenceRunner::~SequenceRunner() {
  Stop();
  instance_.reset();  // after the thread is gone
}

void SequenceRunner::Run(Batch batch) {
  base::MutexLock lock(&mu_);
  queue_.push_back(std::move(batch));
}

void SequenceRunner::Stop() {
  {
    base::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

void SequenceRunner::Loop() {
  for (;;) {
    Batch batch;
    {
      base::MutexLock lock(&mu_);
      mu_.Await([this]()
                    ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      batch = std::move(queue_.front());
      queue_.pop_front();
    }
    int64_t rows = 0;
    for (const auto& request : batch) rows += request->batch_size();
    auto record =
        std::make_shared<backends::ExecutionRecord>(clock_.NowNanos(), rows, batch.size());
    for (auto& request : batch) request->BeginExecution(record);
    instance_->Execute(std::move(batch));  // never under the lock
  }
}

}  // namespace inferd::scheduling
