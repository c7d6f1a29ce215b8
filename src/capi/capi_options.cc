// SPDX-License-Identifier: Apache-2.0
// INFERD_ServerOptions: inferd::ServerOptions filled from C, with inferd
// serve's defaults (docs/configuration.md).
#include <array>
#include <cmath>
#include <string_view>

#include "capi/capi_internal.h"

namespace {

using inferd::capi::Guarded;
using inferd::capi::RequireNonNull;

constexpr std::array<std::string_view, 6> kLogLevels = {"trace", "debug", "info",
                                                        "warn",  "error", "off"};

// Runs `set` on the options after checking them (and `value` when it is a
// pointer) for NULL.
template <typename Set>
INFERD_Error* SetOption(const char* function, INFERD_ServerOptions* options, Set&& set) {
  return Guarded(function, [&]() -> absl::Status {
    if (auto status = RequireNonNull(options, function, "options"); !status.ok()) return status;
    return set(options->options);
  });
}

absl::Status NonNullString(const char* function, const char* value, const char* what) {
  if (auto status = RequireNonNull(value, function, what); !status.ok()) return status;
  if (*value == '\0')
    return absl::InvalidArgumentError(absl::StrCat(function, ": ", what, " is empty"));
  return absl::OkStatus();
}

}  // namespace

extern "C" {

INFERD_Error* INFERD_ServerOptionsNew(INFERD_ServerOptions** options) {
  return Guarded("INFERD_ServerOptionsNew", [&]() -> absl::Status {
    if (auto status = RequireNonNull(options, "INFERD_ServerOptionsNew", "options"); !status.ok())
      return status;
    *options = new INFERD_ServerOptions;
    return absl::OkStatus();
  });
}

void INFERD_ServerOptionsDelete(INFERD_ServerOptions* options) { delete options; }

INFERD_Error* INFERD_ServerOptionsAddModelRepository(INFERD_ServerOptions* options,
                                                     const char* path) {
  constexpr char kFunction[] = "INFERD_ServerOptionsAddModelRepository";
  return SetOption(kFunction, options, [&](inferd::ServerOptions& o) -> absl::Status {
    if (auto status = NonNullString(kFunction, path, "path"); !status.ok()) return status;
    o.model_repositories.emplace_back(path);
    return absl::OkStatus();
  });
}

INFERD_Error* INFERD_ServerOptionsSetBackendDirectory(INFERD_ServerOptions* options,
                                                      const char* path) {
  constexpr char kFunction[] = "INFERD_ServerOptionsSetBackendDirectory";
  return SetOption(kFunction, options, [&](inferd::ServerOptions& o) -> absl::Status {
    if (auto status = NonNullString(kFunction, path, "path"); !status.ok()) return status;
    o.backend_directory = path;
    options->backend_directory_set = true;
    return absl::OkStatus();
  });
}

INFERD_Error* INFERD_ServerOptionsSetModelControlMode(INFERD_ServerOptions* options,
                                                      INFERD_ModelControlMode mode) {
  constexpr char kFunction[] = "INFERD_ServerOptionsSetModelControlMode";
  return SetOption(kFunction, options, [&](inferd::ServerOptions& o) -> absl::Status {
    using inferd::lifecycle::ModelControlMode;
    const int raw = inferd::capi::RawEnumValue(mode);
    switch (raw) {
      case INFERD_MODEL_CONTROL_NONE:
        o.model_control_mode = ModelControlMode::kNone;
        return absl::OkStatus();
      case INFERD_MODEL_CONTROL_POLL:
        o.model_control_mode = ModelControlMode::kPoll;
        return absl::OkStatus();
      case INFERD_MODEL_CONTROL_EXPLICIT:
        o.model_control_mode = ModelControlMode::kExplicit;
        return absl::OkStatus();
    }
    return absl::InvalidArgumentError(absl::StrCat(kFunction, ": unknown mode ", raw));
  });
}

INFERD_Error* INFERD_ServerOptionsAddStartupModel(INFERD_ServerOptions* options,
                                                  const char* model) {
  constexpr char kFunction[] = "INFERD_ServerOptionsAddStartupModel";
  return SetOption(kFunction, options, [&](inferd::ServerOptions& o) -> absl::Status {
    if (auto status = NonNullString(kFunction, model, "model"); !status.ok()) return status;
    o.startup_models.emplace_back(model);
    return absl::OkStatus();
  });
}

INFERD_Error* INFERD_ServerOptionsSetRepositoryPollSeconds(INFERD_ServerOptions* options,
                                                           double seconds) {
  constexpr char kFunction[] = "INFERD_ServerOptionsSetRepositoryPollSeconds";
  return SetOption(kFunction, options, [&](inferd::ServerOptions& o) -> absl::Status {
    if (!(seconds > 0) || !std::isfinite(seconds)) {
      return absl::InvalidArgumentError(
          absl::StrCat(kFunction, ": seconds must be a positive number, got ", seconds));
    }
    o.repository_poll_secs = seconds;
    return absl::OkStatus();
  });
}

INFERD_Error* INFERD_ServerOptionsSetStrictReadiness(INFERD_ServerOptions* options, int strict) {
  return SetOption("INFERD_ServerOptionsSetStrictReadiness", options,
                   [&](inferd::ServerOptions& o) -> absl::Status {
                     o.strict_readiness = strict != 0;
                     return absl::OkStatus();
                   });
}

INFERD_Error* INFERD_ServerOptionsSetCpuCores(INFERD_ServerOptions* options, int cores) {
  constexpr char kFunction[] = "INFERD_ServerOptionsSetCpuCores";
  return SetOption(kFunction, options, [&](inferd::ServerOptions& o) -> absl::Status {
    if (cores < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(kFunction, ": cores must be >= 0, got ", cores));
    }
    o.cpu_cores = cores;
    return absl::OkStatus();
  });
}

INFERD_Error* INFERD_ServerOptionsSetModelLoadThreads(INFERD_ServerOptions* options, int threads) {
  constexpr char kFunction[] = "INFERD_ServerOptionsSetModelLoadThreads";
  return SetOption(kFunction, options, [&](inferd::ServerOptions& o) -> absl::Status {
    if (threads < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(kFunction, ": threads must be >= 0, got ", threads));
    }
    o.model_load_threads = threads;
    return absl::OkStatus();
  });
}

INFERD_Error* INFERD_ServerOptionsSetAutoCompleteConfig(INFERD_ServerOptions* options,
                                                        int auto_complete) {
  return SetOption("INFERD_ServerOptionsSetAutoCompleteConfig", options,
                   [&](inferd::ServerOptions& o) -> absl::Status {
                     o.auto_complete_config = auto_complete != 0;
                     return absl::OkStatus();
                   });
}

INFERD_Error* INFERD_ServerOptionsSetExitTimeoutSeconds(INFERD_ServerOptions* options,
                                                        double seconds) {
  constexpr char kFunction[] = "INFERD_ServerOptionsSetExitTimeoutSeconds";
  return SetOption(kFunction, options, [&](inferd::ServerOptions&) -> absl::Status {
    // Up to a year: anything longer is "wait for every request" anyway, and
    // the milliseconds must not overflow.
    if (!(seconds >= 0) || seconds > 365.0 * 24 * 3600) {
      return absl::InvalidArgumentError(
          absl::StrCat(kFunction, ": seconds must be in [0, one year], got ", seconds));
    }
    options->exit_timeout = std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
    return absl::OkStatus();
  });
}

INFERD_Error* INFERD_ServerOptionsSetLogLevel(INFERD_ServerOptions* options, const char* level) {
  constexpr char kFunction[] = "INFERD_ServerOptionsSetLogLevel";
  return SetOption(kFunction, options, [&](inferd::ServerOptions&) -> absl::Status {
    if (auto status = RequireNonNull(level, kFunction, "level"); !status.ok()) return status;
    for (std::string_view known : kLogLevels) {
      if (known == level) {
        options->log_level = std::string(level);
        return absl::OkStatus();
      }
    }
    return absl::InvalidArgumentError(
        absl::StrCat(kFunction, ": unknown log level '", level,
                     "' (use trace, debug, info, warn, error or off)"));
  });
}

}  // extern "C"
