// SPDX-License-Identifier: Apache-2.0
#include "scheduling/sequence_slots.h"

namespace inferd::scheduling {

SlotPool::SlotPool(size_t lanes, size_t slots_per_lane) {
  for (size_t slot = 0; slot < slots_per_lane; ++slot) {
    for (size_t lane = 0; lane < lanes; ++lane) free_.emplace(slot, lane);
  }
}

std::optional<SlotRef> SlotPool::Acquire() {
  if (free_.empty()) return std::nullopt;
  const auto [slot, lane] = *free_.begin();
  free_.erase(free_.begin());
  return SlotRef{lane, slot};
}

void SlotPool::Release(SlotRef slot) { free_.emplace(slot.slot, slot.lane); }

}  // namespace inferd::scheduling
