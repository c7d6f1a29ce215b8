// SPDX-License-Identifier: Apache-2.0
#include "scheduling/scheduler_factory.h"

#include "model_config.pb.h"
#include "scheduling/batching_config.h"
#include "scheduling/direct_scheduler.h"
#include "scheduling/dynamic_batcher.h"
#include "scheduling/sequence_batcher.h"
#include "scheduling/sequence_config.h"

namespace inferd::scheduling {
namespace {

// Keeps the shared timer alive for as long as the batcher that uses it.
template <typename Batcher, typename Config>
class TimerOwningBatcher final : public scheduling::Scheduler {
 public:
  TimerOwningBatcher(std::shared_ptr<Timer> timer, Config config,
                     std::vector<std::unique_ptr<backends::BackendInstance>> instances,
                     const base::Clock& clock)
      : timer_(std::move(timer)),
        batcher_(std::move(config), std::move(instances), clock, *timer_) {}
  void Submit(std::unique_ptr<INFERD_Request> request) override {
    batcher_.Submit(std::move(request));
  }
  void Stop() override { batcher_.Stop(); }
  void FailQueued(const absl::Status& status) override { batcher_.FailQueued(status); }

 private:
  std::shared_ptr<Timer> timer_;  // declared first: destroyed after the batcher
  Batcher batcher_;
};

}  // namespace

scheduling::SchedulerFactory MakeSchedulerFactory(std::shared_ptr<Timer> timer,
                                                  const base::Clock& clock,
                                                  DirectSchedulerOptions direct) {
  return [timer = std::move(timer), &clock, direct](
             const inference::ModelConfig& config,
             std::vector<std::unique_ptr<backends::BackendInstance>> instances,
             const std::string& model_directory)
             -> absl::StatusOr<std::unique_ptr<scheduling::Scheduler>> {
    if (config.has_sequence_batching()) {
      auto sequence = SequenceConfigFrom(config, model_directory);
      if (!sequence.ok()) return sequence.status();
      return std::make_unique<TimerOwningBatcher<SequenceBatcher, SequenceConfig>>(
          timer, std::move(*sequence), std::move(instances), clock);
    }
    if (config.has_dynamic_batching()) {
      return std::make_unique<TimerOwningBatcher<DynamicBatcher, BatchingConfig>>(
          timer, BatchingConfigFrom(config), std::move(instances), clock);
    }
    return std::make_unique<DirectScheduler>(config.name(), std::move(instances), clock, direct);
  };
}

}  // namespace inferd::scheduling
