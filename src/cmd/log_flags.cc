// SPDX-License-Identifier: Apache-2.0
#include "cmd/log_flags.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"

namespace inferd::cmd {

std::optional<bool> ParseTritonBool(std::string_view text) {
  const std::string lower = absl::AsciiStrToLower(std::string(text));
  if (lower == "true" || lower == "on" || lower == "1") return true;
  if (lower == "false" || lower == "off" || lower == "0") return false;
  return std::nullopt;
}

absl::StatusOr<std::string> LevelFromTritonFlags(const TritonLogFlags& flags) {
  int verbose = 0;
  if (flags.verbose) {
    if (std::optional<bool> on = ParseTritonBool(*flags.verbose);
        on && *flags.verbose != "0" && *flags.verbose != "1") {
      verbose = *on ? 1 : 0;
    } else if (!absl::SimpleAtoi(*flags.verbose, &verbose) || verbose < 0) {
      return absl::InvalidArgumentError(absl::StrCat("--log-verbose=", *flags.verbose,
                                                     ": expected a level >= 0 (or true/false)"));
    }
  }
  const bool info = flags.info.value_or(true);
  const bool warning = flags.warning.value_or(true);
  const bool error = flags.error.value_or(true);
  // One threshold: every level at or above it shows.
  if ((verbose > 0 && !(info && warning && error)) || (info && !(warning && error)) ||
      (warning && !error)) {
    return absl::InvalidArgumentError(
        "inferd logs every level above the lowest one enabled: --log-verbose, --log-info, "
        "--log-warning and --log-error can turn levels off only from the bottom up (e.g. "
        "--log-info=false keeps warnings and errors; --log-warning=false with info on "
        "cannot be done)");
  }
  if (verbose >= 2) return std::string("trace");
  if (verbose == 1) return std::string("debug");
  if (info) return std::string("info");
  if (warning) return std::string("warn");
  if (error) return std::string("error");
  return std::string("off");
}

absl::Status ApplyLogFormat(std::string_view format) {
  // Triton's layouts without its file:line (inferd's log calls do not carry
  // them). %L: one-letter level (I, W, E, D, T, C), %P: process id.
  if (format == "default") {
    spdlog::set_pattern("%L%m%d %H:%M:%S.%f %P] %v");
  } else if (format == "ISO8601") {
    spdlog::set_pattern("%Y-%m-%dT%H:%M:%SZ %L %P] %v", spdlog::pattern_time_type::utc);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("--log-format=", std::string(format), ": expected default or ISO8601"));
  }
  return absl::OkStatus();
}

}  // namespace inferd::cmd
