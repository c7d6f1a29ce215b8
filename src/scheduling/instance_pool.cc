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
      on_idle_(std::move(on_idle)),
      slots_(instances_.size()) {
  threads_.reserve(instances_.size());
  for (size_t i = 0; i < instances_.size(); ++i) {
    threads_.emplace_back([this, i] { Run(i); });
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
      WakeOne();
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
    for (Slot& slot : slots_) slot.wake.Signal();
    // A lent instance finishes its caller's batch before the pool is gone.
    while (lent_ > 0) lent_returned_.Wait(&mu_);
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

bool InstancePool::TryExecuteOnCaller(Batch& batch) {
  size_t index = 0;
  {
    base::MutexLock lock(&mu_);
    if (stopping_ || !queue_.empty()) return false;
    while (index < slots_.size() &&
           (!slots_[index].waiting || slots_[index].woken || slots_[index].lent))
      ++index;
    if (index == slots_.size()) return false;
    slots_[index].lent = true;
    ++lent_;
  }
  batch = DropAbandoned(std::move(batch));
  if (!batch.empty()) ExecuteBatch(*instances_[index], std::move(batch));
  {
    base::MutexLock lock(&mu_);
    slots_[index].lent = false;
    if (--lent_ == 0 && stopping_) lent_returned_.SignalAll();
    // Batches queued meanwhile waited for this instance's thread.
    if (!queue_.empty() || stopping_) slots_[index].wake.Signal();
  }
  if (on_idle_) on_idle_();
  return true;
}

void InstancePool::WakeOne() {
  for (Slot& slot : slots_) {
    if (slot.waiting && !slot.woken && !slot.lent) {
      slot.woken = true;
      slot.wake.Signal();
      return;
    }
  }
}

void InstancePool::ExecuteBatch(backends::BackendInstance& instance, Batch batch) {
  int64_t rows = 0;
  for (const auto& request : batch) rows += request->batch_size();
  const int64_t start = clock_.NowNanos();
  auto record = std::make_shared<backends::ExecutionRecord>(start, rows, batch.size());
  for (auto& request : batch) {
    if (request->io().stats) request->io().stats->AddQueued(-1);
    request->BeginExecution(record);
  }
  instance.Execute(std::move(batch));  // never under the lock
  // Racy read-modify-write on purpose: an approximate average is enough.
  const int64_t took = clock_.NowNanos() - start;
  const int64_t seen = executions_seen_.fetch_add(1);
  const int64_t mean = recent_execution_nanos_.load(std::memory_order_relaxed);
  recent_execution_nanos_.store(seen == 0 ? took : mean + (took - mean) / 16,
                                std::memory_order_relaxed);
}

void InstancePool::Run(size_t index) {
  backends::BackendInstance& instance = *instances_[index];
  for (;;) {
    Batch batch;
    {
      base::MutexLock lock(&mu_);
      Slot& slot = slots_[index];
      while (slot.lent || (!stopping_ && queue_.empty())) {
        slot.waiting = true;
        slot.wake.Wait(&mu_);
        slot.waiting = false;
        slot.woken = false;
      }
      if (queue_.empty()) return;  // stopping and drained
      batch = std::move(queue_.front());
      queue_.pop_front();
    }
    batch = DropAbandoned(std::move(batch));
    if (!batch.empty()) ExecuteBatch(instance, std::move(batch));
    if (on_idle_) on_idle_();
  }
}

}  // namespace inferd::scheduling
