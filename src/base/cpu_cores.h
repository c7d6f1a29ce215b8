// SPDX-License-Identifier: Apache-2.0
// How many cores this process may run on: the affinity mask (taskset,
// cgroup cpusets), not the machine's total, so thread defaults fit it.
#pragma once

namespace inferd::base {

// At least 1.
int AvailableCpuCores();

}  // namespace inferd::base
