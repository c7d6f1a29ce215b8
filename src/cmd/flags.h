// SPDX-License-Identifier: Apache-2.0
// Everything `inferd serve` reads from its command line, before it becomes
// ServerOptions and frontend options (main.cc).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "cmd/backend_config.h"
#include "cmd/log_flags.h"
#include "cmd/object_store_flags.h"
#include "cmd/tfs_flags.h"
#include "frontends/grpc/grpc_frontend.h"
#include "frontends/http/http_frontend.h"
#include "frontends/metrics/bucket_flags.h"
#include "frontends/metrics/metrics_endpoint.h"
#include "server/server_options.h"

namespace inferd::cmd {

struct MetricsFlags {
  bool allow = true;
  int port = 8002;
  std::string address;  // empty: --host
  std::string duration_buckets =
      frontends::metrics::FormatDurationBuckets(core::HistogramBounds::Defaults().duration_ns);
  std::string batch_size_buckets =
      frontends::metrics::FormatBatchSizeBuckets(core::HistogramBounds::Defaults().batch_size);
  frontends::metrics::MetricsOptions options;
};

// Triton's flags that have no inferd spelling of their own (triton_flags.cc).
struct TritonFlags {
  bool allow_http = true;
  bool allow_grpc = true;
  std::optional<std::string> http_address, grpc_address;  // default: --host
  std::optional<bool> strict_model_config;
  bool exit_on_error = false;
  TritonLogFlags log;
  std::vector<std::string> backend_config;
  std::string python;
  // Accepted for Triton's command lines; they mean nothing on this CPU server.
  std::optional<int> buffer_manager_thread_count;
  std::optional<long long> pinned_memory_pool_byte_size;
  std::vector<std::string> cuda_memory_pool_byte_size;
};

struct Flags {
  ServerOptions server;
  frontends::http::HttpOptions http;
  frontends::grpc::GrpcOptions grpc;
  MetricsFlags metrics;
  std::string log_level = "info";
  bool disable_auto_complete = false;
  std::string model_control_mode = "none";
  std::string version_transition_policy = "availability_preserving";
  double shutdown_grace_secs = 0;
  double exit_timeout_secs = 30;
  std::vector<std::string> cache_config;  // Triton's --cache-config values
  uint64_t response_cache_byte_size = 0;  // Triton's older flag
  TritonFlags triton;
  TfsFlags tfs;
};

// inferd's own flags of `serve` (serve_flags.cc).
void AddServeFlags(CLI::App& serve, Flags& flags);
// Triton's (triton_flags.cc).
void AddTritonFlags(CLI::App& serve, Flags& flags);

// After parsing: the Triton flags turned into `flags`' options, logging set
// up (--log-level or Triton's log flags), and a log line for each accepted
// flag that has no effect here. InvalidArgument, with the flag and why, for
// anything refused; the caller prints it and exits 2.
absl::Status ResolveFlags(CLI::App& serve, Flags& flags);

}  // namespace inferd::cmd
