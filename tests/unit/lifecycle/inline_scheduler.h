// SPDX-License-Identifier: Apache-2.0
// A Scheduler for lifecycle tests that runs each request on the submitting
// thread, on instance 0, so tests need no threads or waiting.
#pragma once

#include <memory>
#include <vector>

#include "base/mutex.h"
#include "scheduling/scheduler.h"

namespace inferd::lifecycle {

class InlineScheduler final : public scheduling::Scheduler {
 public:
  explicit InlineScheduler(std::vector<std::unique_ptr<backends::BackendInstance>> instances)
      : instances_(std::move(instances)) {}
  void Submit(std::unique_ptr<INFERD_Request> request) override;
  void Stop() override;
  void FailQueued(const absl::Status&) override {}  // nothing ever waits
  size_t instance_count() const { return instances_.size(); }

 private:
  std::vector<std::unique_ptr<backends::BackendInstance>> instances_;
  // base::Mutex, not absl::Mutex: TSan runs these tests (see base/mutex.h).
  base::Mutex mu_;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
};

// Builds InlineSchedulers; counts the instances it was handed.
scheduling::SchedulerFactory InlineSchedulerFactory(std::shared_ptr<int> instances_seen = nullptr);

}  // namespace inferd::lifecycle
