// SPDX-License-Identifier: Apache-2.0
// Triton's default scheduler: each request runs on its own (never merged
// with others) on the next free instance.
#pragma once

#include <memory>

#include "lifecycle/scheduler.h"
#include "scheduling/instance_pool.h"

namespace inferd::scheduling {

class DirectScheduler final : public lifecycle::Scheduler {
 public:
  DirectScheduler(std::string model_name, std::vector<std::unique_ptr<backends::BackendInstance>> instances);
  void Submit(std::unique_ptr<INFERD_Request> request) override;
  void Stop() override;

 private:
  InstancePool pool_;
};

// The factory the server hands to the lifecycle layer.
lifecycle::SchedulerFactory MakeSchedulerFactory();

}  // namespace inferd::scheduling
