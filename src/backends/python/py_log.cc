// SPDX-License-Identifier: Apache-2.0
#include "py_log.h"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace inferd::python {
namespace {

void Log(const char* level, std::string_view message) {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm local{};
  ::localtime_r(&seconds, &local);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &local);
  // One fprintf per line: stdio locks the stream, so lines never interleave.
  std::fprintf(stderr, "[%s.%03d] [%s] python backend: %.*s\n", stamp, static_cast<int>(millis),
               level, static_cast<int>(message.size()), message.data());
}

}  // namespace

void LogWarning(std::string_view message) { Log("warning", message); }
void LogInfo(std::string_view message) { Log("info", message); }

}  // namespace inferd::python
