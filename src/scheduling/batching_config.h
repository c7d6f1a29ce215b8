// SPDX-License-Identifier: Apache-2.0
// What the dynamic batcher needs from a model's `dynamic_batching` config, as
// plain values. Keeping protobuf out of the batcher lets its tests build
// configs directly and run under ThreadSanitizer (Debian's uninstrumented
// libprotobuf and TSan-compiled protobuf headers disagree on layouts).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace inference {
class ModelConfig;
}

namespace inferd::scheduling {

// ModelQueuePolicy (docs/configuration.md).
struct QueuePolicy {
  bool delay_on_timeout = false;        // timeout_action: DELAY (else REJECT)
  uint64_t default_timeout_micros = 0;  // 0 = no timeout
  bool allow_timeout_override = false;  // a request's `timeout` may shorten it
  uint32_t max_queue_size = 0;          // 0 = unlimited
};

// ModelDynamicBatching (docs/configuration.md) plus max_batch_size.
struct BatchingConfig {
  std::string model_name = {};
  int32_t max_batch_size = 0;                       // 0: the model does not batch
  std::vector<int64_t> preferred_batch_sizes = {};  // any order
  uint64_t max_queue_delay_micros = 0;
  bool preserve_ordering = false;
  uint64_t priority_levels = 0;  // 0 = one queue
  uint64_t default_priority_level = 0;
  QueuePolicy default_queue_policy = {};
  std::map<uint64_t, QueuePolicy> priority_queue_policy = {};  // by level (1-based)
};

// REQUIRES: config.has_dynamic_batching().
BatchingConfig BatchingConfigFrom(const inference::ModelConfig& config);

}  // namespace inferd::scheduling
