// SPDX-License-Identifier: Apache-2.0
#include "scheduling/instance_pool.h"

#include "absl/strings/str_cat.h"

namespace inferd::scheduling {

InstancePool::InstancePool(std::string name,
                           std::vector<std::unique_ptr<backends::BackendInstance>> instances)
    : name_(std::move(name)), instances_(std::move(instances)) {
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
    absl::MutexLock lock(&mu_);
    if (!stopping_) {
      queue_.push_back(std::move(batch));
      return;
    }
  }
  for (auto& request : batch) {
    request->Complete(absl::UnavailableError(absl::StrCat("model '", name_, "' is stopping")));
  }
}

void InstancePool::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  for (auto& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
}

void InstancePool::Run(backends::BackendInstance& instance) {
  for (;;) {
    Batch batch;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](InstancePool* pool) ABSL_EXCLUSIVE_LOCKS_REQUIRED(pool->mu_) {
            return pool->stopping_ || !pool->queue_.empty();
          },
          this));
      if (queue_.empty()) return;  // stopping and drained
      batch = std::move(queue_.front());
      queue_.pop_front();
    }
    instance.Execute(std::move(batch));  // never under the lock
  }
}

}  // namespace inferd::scheduling
