// SPDX-License-Identifier: Apache-2.0
// The free sequence slots of a model's instances: with the direct strategy a
// slot is a batch row of one instance; with the oldest strategy it is one of
// an instance's candidate sequences. A new sequence takes the lowest free
// slot index over all instances, so that concurrent sequences spread over
// the instances before they share one. Not thread-safe: the sequence batcher
// guards it with its mutex.
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <utility>

namespace inferd::scheduling {

struct SlotRef {
  size_t lane = 0;  // the instance
  size_t slot = 0;  // the row (direct) or candidate index (oldest)
};

class SlotPool {
 public:
  SlotPool(size_t lanes, size_t slots_per_lane);
  // The lowest free slot (ties: the lowest instance), or nullopt when all
  // are taken.
  std::optional<SlotRef> Acquire();
  void Release(SlotRef slot);
  size_t free_count() const { return free_.size(); }

 private:
  std::set<std::pair<size_t, size_t>> free_;  // (slot, lane)
};

}  // namespace inferd::scheduling
