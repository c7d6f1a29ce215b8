// SPDX-License-Identifier: Apache-2.0
// Triton's default scheduler: each request runs on its own (never merged
// with others) on the next free instance.
#pragma once

#include <memory>

#include "base/clock.h"
#include "scheduling/scheduler.h"
#include "scheduling/instance_pool.h"

namespace inferd::scheduling {

class DirectScheduler final : public scheduling::Scheduler {
 public:
  DirectScheduler(std::string model_name,
                  std::vector<std::unique_ptr<backends::BackendInstance>> instances,
                  const base::Clock& clock = base::Clock::Real());
  void Submit(std::unique_ptr<INFERD_Request> request) override;
  void Stop() override;
  void FailQueued(const absl::Status& status) override { pool_.FailQueued(status); }

 private:
  const base::Clock& clock_;
  InstancePool pool_;
};

}  // namespace inferd::scheduling
