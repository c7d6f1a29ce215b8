// SPDX-License-Identifier: Apache-2.0
// Chooses a version's scheduler from its configuration: the sequence batcher
// when `sequence_batching` is present, else the dynamic batcher when
// `dynamic_batching` is, direct execution otherwise.
#pragma once

#include <memory>

#include "base/clock.h"
#include "scheduling/direct_scheduler.h"
#include "scheduling/scheduler.h"
#include "scheduling/shared_timer.h"

namespace inferd::scheduling {

// The factory the server hands to the lifecycle layer. Every batcher it
// makes shares `timer`, which the factory (and each batcher) keeps alive.
// `direct` configures the schedulers of models without batching.
scheduling::SchedulerFactory MakeSchedulerFactory(std::shared_ptr<Timer> timer,
                                                  const base::Clock& clock = base::Clock::Real(),
                                                  DirectSchedulerOptions direct = {});

}  // namespace inferd::scheduling
