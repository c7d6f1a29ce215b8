// SPDX-License-Identifier: Apache-2.0
#include "base/cpu_cores.h"

#include <sched.h>

#include <thread>

namespace inferd::base {

int AvailableCpuCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int count = CPU_COUNT(&set);
    if (count > 0) return count;
  }
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

}  // namespace inferd::base
