// SPDX-License-Identifier: Apache-2.0
// Logging goes through spdlog; this header fixes the one logger everyone uses
// and the way its level is chosen from a flag.
#pragma once

#include <string_view>

#include "absl/status/status.h"
#include "spdlog/spdlog.h"

namespace inferd::base {

// Sets the global log level from "trace|debug|info|warn|error|off".
// Returns InvalidArgument for any other name.
absl::Status SetLogLevel(std::string_view level);

}  // namespace inferd::base

#define INFERD_LOG_DEBUG(...) ::spdlog::debug(__VA_ARGS__)
#define INFERD_LOG_INFO(...) ::spdlog::info(__VA_ARGS__)
#define INFERD_LOG_WARN(...) ::spdlog::warn(__VA_ARGS__)
#define INFERD_LOG_ERROR(...) ::spdlog::error(__VA_ARGS__)
