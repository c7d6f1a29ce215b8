// SPDX-License-Identifier: Apache-2.0
#include "scheduling/batching_config.h"

#include "model_config.pb.h"

namespace inferd::scheduling {
namespace {

QueuePolicy PolicyFrom(const inference::ModelQueuePolicy& policy) {
  QueuePolicy out;
  out.delay_on_timeout = policy.timeout_action() == inference::ModelQueuePolicy::DELAY;
  out.default_timeout_micros = policy.default_timeout_microseconds();
  out.allow_timeout_override = policy.allow_timeout_override();
  out.max_queue_size = policy.max_queue_size();
  return out;
}

}  // namespace

BatchingConfig BatchingConfigFrom(const inference::ModelConfig& config) {
  const auto& batching = config.dynamic_batching();
  BatchingConfig out;
  out.model_name = config.name();
  out.max_batch_size = config.max_batch_size();
  out.preferred_batch_sizes.assign(batching.preferred_batch_size().begin(),
                                   batching.preferred_batch_size().end());
  out.max_queue_delay_micros = batching.max_queue_delay_microseconds();
  out.preserve_ordering = batching.preserve_ordering();
  out.priority_levels = batching.priority_levels();
  out.default_priority_level = batching.default_priority_level();
  out.default_queue_policy = PolicyFrom(batching.default_queue_policy());
  for (const auto& [level, policy] : batching.priority_queue_policy()) {
    out.priority_queue_policy[level] = PolicyFrom(policy);
  }
  return out;
}

}  // namespace inferd::scheduling
