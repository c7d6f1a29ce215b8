// SPDX-License-Identifier: Apache-2.0
// The standard Prometheus process metrics (memory, CPU time, start time,
// open descriptors), read from Linux's /proc/self. The parsers take the
// files' text so that tests can feed them.
#pragma once

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"

namespace inferd::frontends::metrics {

struct ProcessMetrics {
  double resident_memory_bytes = 0;
  double virtual_memory_bytes = 0;
  double cpu_seconds = 0;         // user + system
  double start_time_seconds = 0;  // since the Unix epoch
  int64_t open_fds = 0;
};

// The fields of /proc/self/stat that we use, in clock ticks.
struct ProcStat {
  uint64_t utime_ticks = 0;
  uint64_t stime_ticks = 0;
  uint64_t start_ticks = 0;  // after boot
};

// Parses /proc/<pid>/stat. InvalidArgument when it is malformed.
absl::StatusOr<ProcStat> ParseProcStat(std::string_view text);
// The `btime` line of /proc/stat: boot time, seconds since the epoch.
absl::StatusOr<uint64_t> ParseBootTime(std::string_view text);
// /proc/<pid>/statm: {total program size, resident set}, in pages.
absl::StatusOr<std::pair<uint64_t, uint64_t>> ParseStatm(std::string_view text);

// Reads /proc/self/{stat,statm,fd} and /proc/stat. An error where /proc is
// missing or unreadable; the exporter then leaves the process families out.
absl::StatusOr<ProcessMetrics> ReadProcessMetrics();

}  // namespace inferd::frontends::metrics
