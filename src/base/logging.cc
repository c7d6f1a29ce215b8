// SPDX-License-Identifier: Apache-2.0
#include "base/logging.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace inferd::base {

absl::Status SetLogLevel(std::string_view level) {
  const auto parsed = spdlog::level::from_str(std::string(level));
  // from_str answers "off" for any unknown name, so check the round trip.
  if (parsed == spdlog::level::off && level != "off") {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown log level '", std::string(level),
                     "' (use trace, debug, info, warn, error or off)"));
  }
  spdlog::set_level(parsed);
  return absl::OkStatus();
}

}  // namespace inferd::base
