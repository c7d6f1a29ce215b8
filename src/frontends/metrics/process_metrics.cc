// SPDX-License-Identifier: Apache-2.0
#include "frontends/metrics/process_metrics.h"

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/file_system.h"
#include "base/status_macros.h"

namespace inferd::frontends::metrics {
namespace {

absl::Status Malformed(std::string_view file) {
  return absl::InvalidArgumentError(absl::StrCat("malformed ", std::string(file)));
}

std::vector<absl::string_view> Fields(std::string_view text) {
  return absl::StrSplit(absl::string_view(text.data(), text.size()), absl::ByAnyChar(" \t\n"),
                        absl::SkipEmpty());
}

}  // namespace

absl::StatusOr<ProcStat> ParseProcStat(std::string_view text) {
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so
  // the fields start after the last ')'.
  const size_t close = text.rfind(')');
  if (close == std::string_view::npos) return Malformed("/proc/self/stat");
  const std::vector<absl::string_view> fields = Fields(text.substr(close + 1));
  // Counting from field 3 (state) as index 0: utime is field 14, stime 15,
  // starttime 22 (proc(5)).
  constexpr size_t kUtime = 14 - 3, kStime = 15 - 3, kStart = 22 - 3;
  ProcStat stat;
  if (fields.size() <= kStart || !absl::SimpleAtoi(fields[kUtime], &stat.utime_ticks) ||
      !absl::SimpleAtoi(fields[kStime], &stat.stime_ticks) ||
      !absl::SimpleAtoi(fields[kStart], &stat.start_ticks)) {
    return Malformed("/proc/self/stat");
  }
  return stat;
}

absl::StatusOr<uint64_t> ParseBootTime(std::string_view text) {
  for (absl::string_view line : absl::StrSplit(absl::string_view(text.data(), text.size()), '\n')) {
    const std::vector<absl::string_view> fields =
        absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    uint64_t seconds = 0;
    if (fields.size() == 2 && fields[0] == "btime" && absl::SimpleAtoi(fields[1], &seconds)) {
      return seconds;
    }
  }
  return Malformed("/proc/stat (no btime)");
}

absl::StatusOr<std::pair<uint64_t, uint64_t>> ParseStatm(std::string_view text) {
  const std::vector<absl::string_view> fields = Fields(text);
  std::pair<uint64_t, uint64_t> pages;
  if (fields.size() < 2 || !absl::SimpleAtoi(fields[0], &pages.first) ||
      !absl::SimpleAtoi(fields[1], &pages.second)) {
    return Malformed("/proc/self/statm");
  }
  return pages;
}

absl::StatusOr<ProcessMetrics> ReadProcessMetrics() {
  INFERD_ASSIGN_OR_RETURN(const std::string stat_text, base::ReadFile("/proc/self/stat"));
  INFERD_ASSIGN_OR_RETURN(const ProcStat stat, ParseProcStat(stat_text));
  INFERD_ASSIGN_OR_RETURN(const std::string statm_text, base::ReadFile("/proc/self/statm"));
  INFERD_ASSIGN_OR_RETURN(const auto pages, ParseStatm(statm_text));
  INFERD_ASSIGN_OR_RETURN(const std::string boot_text, base::ReadFile("/proc/stat"));
  INFERD_ASSIGN_OR_RETURN(const uint64_t boot_time, ParseBootTime(boot_text));
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
  if (ticks <= 0 || page <= 0) return absl::InternalError("sysconf failed");

  ProcessMetrics out;
  out.virtual_memory_bytes = static_cast<double>(pages.first) * page;
  out.resident_memory_bytes = static_cast<double>(pages.second) * page;
  out.cpu_seconds = static_cast<double>(stat.utime_ticks + stat.stime_ticks) / ticks;
  out.start_time_seconds =
      static_cast<double>(boot_time) + static_cast<double>(stat.start_ticks) / ticks;
  std::error_code ec;
  for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end;
       it.increment(ec)) {
    ++out.open_fds;
  }
  if (ec) return absl::InternalError(absl::StrCat("cannot list /proc/self/fd: ", ec.message()));
  return out;
}

}  // namespace inferd::frontends::metrics
