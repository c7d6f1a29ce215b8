// SPDX-License-Identifier: Apache-2.0
#include "scheduling/instance_pool.h"

#include "absl/strings/str_cat.h"

namespace inferd::scheduling {

absl::Status AbandonedStatus(const INFERD_Request& request, int64_t now_nanos) {
  if (request.IsCancelled()) return absl::CancelledError("request was cancelled by the client");
  const int64_t deadline = request.request().deadline_nanos;
  if (deadline > 0 && now_nanos >= deadline) {
    return absl::DeadlineExceededError("request deadline exceeded while queued");
  }
  return absl::OkStatus();
}

InstancePool::InstancePool(std::string name,
                           std::vector<std::unique_ptr<backends::BackendInstance>> instances,
                           const base::Clock& clock, std::function<void()> on_idle)
    : name_(std::move(name)),
      instances_(std::move(instances)),
      clock_(clock),
      on_idle_(std::move(on_idle)) {
  threads_.reserve(instances_.size());
  for (auto& instance : instances_) {
    threads_.emplace_back([this, raw = instance.get()] { Run(*raw); });
  }
}

InstancePool::~InstancePool() {
  Stop();
  instances_.clear();  // after the threads are gone: each instance is deleted before its model
}

void InstancePool::Enqueue(Batch batch) {
  {
    base::MutexLock lock(&mu_);
    if (!stopping_) {
      queue_.push_back(std::move(batch));
      return;
    }
  }
  for (auto& request : batch) {
    if (request->io().stats) request->io().stats->AddQueued(-1);
    request->Complete(absl::UnavailableError(absl::StrCat("model '", name_, "' is stopping")),
                      core::FailureReason::kRejected);
  }
}

void InstancePool::Stop() {
  {
    base::MutexLock lock(&mu_);
    stopping_ = true;
  }
  for (auto& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
}

void InstancePool::FailQueued(const absl::Status& status) {
  std::deque<Batch> queued;
  {
    base::MutexLock lock(&mu_);
    queued.swap(queue_);
  }
  for (auto& batch : queued) {
    for (auto& request : batch) {
      if (request->io().stats) request->io().stats->AddQueued(-1);
      request->Complete(status, core::FailureReason::kRejected);
    }
  }
}

Batch InstancePool::DropAbandoned(Batch batch) const {
  const int64_t now = clock_.NowNanos();
  Batch runnable;
  runnable.reserve(batch.size());
  for (auto& request : batch) {
    if (auto status = AbandonedStatus(*request, now); !status.ok()) {
      if (request->io().stats) request->io().stats->AddQueued(-1);
      request->Complete(std::move(status), core::FailureReason::kCanceled);
      continue;
    }
    runnable.push_back(std::move(request));
  }
  return runnable;
}

void InstancePool::Run(backends::BackendInstance& instance) {
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
    batch = DropAbandoned(std::move(batch));
    if (!batch.empty()) {
      int64_t rows = 0;
      for (const auto& request : batch) rows += request->batch_size();
      auto record =
          std::make_shared<backends::ExecutionRecord>(clock_.NowNanos(), rows, batch.size());
      for (auto& request : batch) {
        if (request->io().stats) request->io().stats->AddQueued(-1);
        request->BeginExecution(record);
      }
      instance.Execute(std::move(batch));  // never under the lock
    }
    if (on_idle_) on_idle_();
  }
}

}  // namespace inferd::scheduling
