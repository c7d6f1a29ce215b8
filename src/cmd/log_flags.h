// SPDX-License-Identifier: Apache-2.0
// Triton's logging flags (--log-verbose, --log-info, --log-warning,
// --log-error, --log-format) mapped onto inferd's one spdlog threshold and
// its line layout.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace inferd::cmd {

struct TritonLogFlags {
  std::optional<std::string> verbose;  // an integer level, or true/false
  std::optional<bool> info, warning, error;
  std::optional<std::string> format;  // default | ISO8601
  bool any() const { return verbose || info || warning || error; }
};

// The spdlog level name the flags ask for: verbose >= 2 trace, 1 debug, then
// the lowest of info / warning / error still on, "off" when all are off.
// InvalidArgument for a set spdlog cannot express (a threshold shows every
// level above it: e.g. --log-warning=false with info on) or a bad verbose value.
absl::StatusOr<std::string> LevelFromTritonFlags(const TritonLogFlags& flags);

// Sets the log line layout: "default" is Triton's ("I1202 03:32:09.123456
// 4242] message", local time), "ISO8601" Triton's other one
// ("2026-12-02T03:32:09Z I 4242] message", UTC). InvalidArgument otherwise.
absl::Status ApplyLogFormat(std::string_view format);

// Triton's boolean values: true/on/1, false/off/0, any case.
std::optional<bool> ParseTritonBool(std::string_view text);

}  // namespace inferd::cmd
