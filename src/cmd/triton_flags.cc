// SPDX-License-Identifier: Apache-2.0
// Triton's flags of `tritonserver` that inferd has no spelling of its own
// for, and the resolution of every flag after parsing: each Triton flag is
// mapped onto inferd's behaviour, refused with the reason, or (the GPU and
// buffer-manager sizes) accepted with a log line saying it has no effect.
// The table of all of them: docs/configuration.md, "Triton's command line".
#include <filesystem>
#include <functional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/logging.h"
#include "cmd/flags.h"

namespace inferd::cmd {
namespace {

// Triton's booleans (true/on/1, false/off/0, any case); the value may be
// left out: `--allow-grpc` alone means true.
void AddTritonBool(CLI::App& serve, const std::string& name, const std::string& help,
                   std::function<void(bool)> set) {
  serve
      .add_option_function<std::string>(
          name,
          [name, set](const std::string& text) {
            const std::optional<bool> value = ParseTritonBool(text.empty() ? "true" : text);
            if (!value) {
              throw CLI::ValidationError(
                  name, "'" + text + "' is not a boolean (true, on, 1, false, off or 0)");
            }
            set(*value);
          },
          help)
      ->expected(0, 1)
      ->default_str("true");
}

// --backend-directory must hold inferd's backends: Triton's own
// (libtriton_<name>.so) are a different ABI and would only fail each model.
absl::Status CheckBackendDirectory(const std::string& directory) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::is_directory(directory, error)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--backend-directory=", directory, ": no such folder"));
  }
  bool triton = false;
  for (const auto& entry : fs::directory_iterator(directory, error)) {
    if (!entry.is_directory(error)) continue;
    const std::string name = entry.path().filename().string();
    if (fs::exists(entry.path() / ("libinferd_" + name + ".so"), error)) return absl::OkStatus();
    triton = triton || fs::exists(entry.path() / ("libtriton_" + name + ".so"), error);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "--backend-directory=", directory,
      " holds no inferd backend (<backend>/libinferd_<backend>.so)",
      triton ? "; it holds Triton's backends (libtriton_*.so), which inferd cannot load: leave "
               "--backend-directory out to use inferd's own"
             : ""));
}

absl::Status ResolveLogging(CLI::App& serve, Flags& flags) {
  std::string level = flags.log_level;
  if (flags.triton.log.any()) {
    if (serve.count("--log-level") > 0) {
      return absl::InvalidArgumentError(
          "--log-level and Triton's --log-verbose/--log-info/--log-warning/--log-error both "
          "set the log level: give one or the other");
    }
    absl::StatusOr<std::string> from_triton = LevelFromTritonFlags(flags.triton.log);
    if (!from_triton.ok()) return from_triton.status();
    level = *from_triton;
  }
  if (absl::Status status = base::SetLogLevel(level); !status.ok()) return status;
  if (flags.triton.log.format) return ApplyLogFormat(*flags.triton.log.format);
  return absl::OkStatus();
}

absl::Status ResolveBackendConfig(CLI::App& serve, Flags& flags) {
  BackendConfigs configs;
  if (!flags.triton.python.empty()) {
    // --python is --backend-config=python,interpreter=...; a later
    // --backend-config naming another one wins.
    configs.by_backend["python"].emplace_back("interpreter", flags.triton.python);
  }
  for (const std::string& argument : flags.triton.backend_config) {
    if (absl::Status status = AddBackendConfig(argument, configs); !status.ok()) return status;
  }
  flags.server.backend_config = std::move(configs.by_backend);
  flags.server.default_max_batch_size = configs.default_max_batch_size;
  if (serve.count("--backend-directory") > 0) {
    return CheckBackendDirectory(flags.server.backend_directory);
  }
  return absl::OkStatus();
}

void ResolveAutoComplete(CLI::App& serve, Flags& flags) {
  if (!flags.triton.strict_model_config) return;
  if (serve.count("--disable-auto-complete-config") > 0) {
    if (!*flags.triton.strict_model_config) {
      INFERD_LOG_WARN(
          "--strict-model-config=false and --disable-auto-complete-config: auto-complete is off "
          "(as Triton decides)");
    }
    return;
  }
  flags.disable_auto_complete = *flags.triton.strict_model_config;
  INFERD_LOG_INFO(
      "--strict-model-config={}: auto-complete is {} (Triton's older name for "
      "--disable-auto-complete-config)",
      *flags.triton.strict_model_config, flags.disable_auto_complete ? "off" : "on");
}

void LogFlagsWithoutEffect(const TritonFlags& triton) {
  if (triton.buffer_manager_thread_count) {
    INFERD_LOG_INFO(
        "--buffer-manager-thread-count={} has no effect: inferd has no buffer manager threads "
        "(inputs are decoded and outputs written on the I/O and instance threads)",
        *triton.buffer_manager_thread_count);
  }
  if (triton.pinned_memory_pool_byte_size) {
    INFERD_LOG_INFO(
        "--pinned-memory-pool-byte-size={} has no effect: pinned memory is for GPU copies, and "
        "this server runs on the CPU only",
        *triton.pinned_memory_pool_byte_size);
  }
  for (const std::string& pool : triton.cuda_memory_pool_byte_size) {
    INFERD_LOG_INFO(
        "--cuda-memory-pool-byte-size={} has no effect: this server runs on the CPU only", pool);
  }
}

}  // namespace

void AddTritonFlags(CLI::App& serve, Flags& flags) {
  TritonFlags& triton = flags.triton;
  serve
      .add_option("--id", flags.server.server_name,
                  "The server name that server metadata reports (GET /v2, gRPC ServerMetadata)")
      ->capture_default_str();
  AddTritonBool(serve, "--allow-http", "Serve the HTTP/REST endpoint (Triton's flag)",
                [&triton](bool on) { triton.allow_http = on; });
  AddTritonBool(serve, "--allow-grpc", "Serve the gRPC endpoint (Triton's flag)",
                [&triton](bool on) { triton.allow_grpc = on; });
  serve.add_option_function<std::string>(
      "--http-address", [&triton](const std::string& host) { triton.http_address = host; },
      "Address the HTTP endpoint listens on (default: --host)");
  serve.add_option_function<std::string>(
      "--grpc-address", [&triton](const std::string& host) { triton.grpc_address = host; },
      "Address the gRPC endpoint listens on (default: --host)");
  AddTritonBool(serve, "--strict-model-config",
                "Triton's older name for --disable-auto-complete-config (true: auto-complete off); "
                "unset by default, the flag alone means true",
                [&triton](bool on) { triton.strict_model_config = on; });
  AddTritonBool(serve, "--exit-on-error",
                "Exit (status 1) when a start-up model fails to load, rather than serve the others "
                "(default false; the flag alone means true)",
                [&triton](bool on) { triton.exit_on_error = on; });
  serve.add_option_function<std::string>(
      "--log-verbose", [&triton](const std::string& level) { triton.log.verbose = level; },
      "Triton's verbose level: 0 off, 1 debug, 2 and above trace");
  AddTritonBool(serve, "--log-info", "Log info lines (Triton's flag)",
                [&triton](bool on) { triton.log.info = on; });
  AddTritonBool(serve, "--log-warning", "Log warnings (Triton's flag)",
                [&triton](bool on) { triton.log.warning = on; });
  AddTritonBool(serve, "--log-error", "Log errors (Triton's flag)",
                [&triton](bool on) { triton.log.error = on; });
  serve.add_option_function<std::string>(
      "--log-format", [&triton](const std::string& format) { triton.log.format = format; },
      "Triton's log line layouts: default or ISO8601 (without the flag: inferd's own)");
  serve
      .add_option("--backend-config", triton.backend_config,
                  "<backend>,<key>=<value> (repeat): settings of a backend, as Triton's; see "
                  "docs/configuration.md for the keys inferd's backends take")
      ->allow_extra_args(false);
  serve.add_option("--python", triton.python,
                   "Interpreter of Python models without EXECUTION_ENV_PATH (INFERD_PYTHON wins); "
                   "default: the first python3 on PATH that has numpy, then /usr/bin/python3");
  serve.add_option_function<int>(
      "--buffer-manager-thread-count",
      [&triton](int count) { triton.buffer_manager_thread_count = count; },
      "Accepted for Triton's command lines; no effect (logged)");
  serve.add_option_function<long long>(
      "--pinned-memory-pool-byte-size",
      [&triton](long long bytes) { triton.pinned_memory_pool_byte_size = bytes; },
      "Accepted for Triton's command lines; no effect on the CPU (logged)");
  serve
      .add_option_function<std::string>(
          "--cuda-memory-pool-byte-size",
          [&triton](const std::string& pool) {
            const size_t colon = pool.find(':');
            int device = 0;
            uint64_t bytes = 0;
            if (colon == std::string::npos || !absl::SimpleAtoi(pool.substr(0, colon), &device) ||
                !absl::SimpleAtoi(pool.substr(colon + 1), &bytes)) {
              throw CLI::ValidationError("--cuda-memory-pool-byte-size",
                                         "'" + pool + "' is not <GPU device>:<bytes>");
            }
            triton.cuda_memory_pool_byte_size.push_back(pool);
          },
          "<device>:<bytes>; accepted for Triton's command lines; no effect on the CPU (logged)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
}

absl::Status ResolveFlags(CLI::App& serve, Flags& flags) {
  if (absl::Status status = ResolveLogging(serve, flags); !status.ok()) return status;
  if (absl::Status status = ResolveBackendConfig(serve, flags); !status.ok()) return status;
  ResolveAutoComplete(serve, flags);
  const std::string host = flags.http.host;  // --host: every endpoint's default
  flags.http.host = flags.triton.http_address.value_or(host);
  flags.grpc.host = flags.triton.grpc_address.value_or(host);
  flags.http.serve_kserve = flags.triton.allow_http;
  LogFlagsWithoutEffect(flags.triton);
  return absl::OkStatus();
}

}  // namespace inferd::cmd
