// SPDX-License-Identifier: Apache-2.0
// The inferd executable: flags -> ServerOptions and frontend options, logging
// set-up, the start-up model table, and a clean stop on SIGINT/SIGTERM.
#include <malloc.h>
#include <pthread.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "base/cpu_cores.h"
#include "base/logging.h"
#include "cmd/startup_table.h"
#include "cmd/tfs_flags.h"
#include "frontends/grpc/grpc_frontend.h"
#include "frontends/http/http_frontend.h"
#include "frontends/metrics/bucket_flags.h"
#include "frontends/metrics/metrics_endpoint.h"
#include "server/response_cache.h"
#include "server/server.h"

namespace {

namespace metrics = inferd::frontends::metrics;

struct MetricsFlags {
  bool allow = true;
  int port = 8002;
  std::string address;  // empty: --host
  std::string duration_buckets =
      metrics::FormatDurationBuckets(inferd::core::HistogramBounds::Defaults().duration_ns);
  std::string batch_size_buckets =
      metrics::FormatBatchSizeBuckets(inferd::core::HistogramBounds::Defaults().batch_size);
  metrics::MetricsOptions options;
};

struct Flags {
  inferd::ServerOptions server;
  inferd::frontends::http::HttpOptions http;
  inferd::frontends::grpc::GrpcOptions grpc;
  MetricsFlags metrics;
  inferd::cmd::TfsFlags tfs;
  std::string log_level = "info";
  bool disable_auto_complete = false;
  std::string model_control_mode = "none";
  std::string version_transition_policy = "availability_preserving";
  double shutdown_grace_secs = 0;
  double exit_timeout_secs = 30;
  std::vector<std::string> cache_config;  // Triton's --cache-config values
  uint64_t response_cache_byte_size = 0;  // Triton's older flag
};

void AddLifecycleFlags(CLI::App& serve, Flags& flags) {
  serve
      .add_option("--model-control-mode", flags.model_control_mode,
                  "none: load every model at start-up; poll: also apply repository changes; "
                  "explicit: load only --load-model and what the load API asks for")
      ->check(CLI::IsMember({"none", "poll", "explicit"}))
      ->capture_default_str();
  serve.add_option("--load-model", flags.server.startup_models,
                   "Explicit mode: a model to load at start-up (repeat; * loads all)");
  serve
      .add_option("--repository-poll-secs", flags.server.repository_poll_secs,
                  "Poll mode: seconds between two repository scans; a change is applied once "
                  "the folder is unchanged across two scans")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  serve
      .add_option("--model-load-thread-count", flags.server.model_load_threads,
                  "Threads that load and warm up models (0: min(4, cores))")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  serve
      .add_option("--version-transition-policy", flags.version_transition_policy,
                  "How a new version replaces the old one: availability_preserving (load the "
                  "new one first) or resource_preserving (unload the old one first)")
      ->check(CLI::IsMember({"availability_preserving", "resource_preserving"}))
      ->capture_default_str();
  serve
      .add_option("--strict-readiness", flags.server.strict_readiness,
                  "Ready only when every model that should be loaded is ready")
      ->expected(0, 1)
      ->default_str("true");
  serve
      .add_option("--shutdown-grace-secs", flags.shutdown_grace_secs,
                  "On SIGTERM: keep serving this long with readiness false, so load balancers "
                  "stop sending, before no longer accepting requests")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  serve
      .add_option("--exit-timeout-secs", flags.exit_timeout_secs,
                  "On SIGTERM, after the grace period: time to finish accepted requests before "
                  "those still queued are answered with an error")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
}

void AddCacheFlags(CLI::App& serve, Flags& flags) {
  serve.add_option("--cache-config", flags.cache_config,
                   "Response cache: local,size=<bytes> (Triton's syntax); models opt in with "
                   "response_cache { enable: true }");
  serve
      .add_option("--response-cache-byte-size", flags.response_cache_byte_size,
                  "Triton's older spelling of --cache-config local,size=<bytes>")
      ->check(CLI::NonNegativeNumber);
}

// Fills the response cache size from the cache flags; false (after printing
// why) when they are invalid. As Triton, the two spellings are exclusive.
bool ApplyCacheFlags(const Flags& flags, inferd::ServerOptions& server) {
  if (flags.cache_config.empty()) {
    server.response_cache_bytes = flags.response_cache_byte_size;
    return true;
  }
  if (flags.response_cache_byte_size > 0) {
    std::cerr << "inferd: incompatible flags --response-cache-byte-size and --cache-config: "
                 "use --cache-config local,size=<bytes> alone\n";
    return false;
  }
  auto bytes = inferd::ParseCacheConfig(flags.cache_config);
  if (!bytes.ok()) {
    std::cerr << "inferd: " << bytes.status().message() << "\n";
    return false;
  }
  server.response_cache_bytes = *bytes;
  return true;
}

void AddMetricsFlags(CLI::App& serve, MetricsFlags& flags) {
  // Booleans with an optional value: --allow-metrics, --allow-metrics=false
  // and Triton's spelling --allow-metrics false all work.
  serve.add_option("--allow-metrics", flags.allow, "Serve Prometheus metrics on GET /metrics")
      ->expected(0, 1)
      ->default_str("true");
  serve.add_option("--metrics-port", flags.port, "Prometheus metrics port (0 picks a free one)")
      ->capture_default_str();
  serve.add_option("--metrics-address", flags.address,
                   "Address the metrics endpoint listens on (default: --host)");
  serve
      .add_option("--metrics-duration-buckets", flags.duration_buckets,
                  "Bucket bounds of the duration histograms: seconds, comma-separated, ascending")
      ->capture_default_str();
  serve
      .add_option("--metrics-batch-size-buckets", flags.batch_size_buckets,
                  "Bucket bounds of the batch size histogram: integers, comma-separated, ascending")
      ->capture_default_str();
  serve
      .add_option("--metrics-triton-names", flags.options.triton_names,
                  "Also export Triton's nv_inference_* metric names for the same data")
      ->expected(0, 1)
      ->default_str("true");
}

// Fills the histogram bounds from the bucket flags; false (after printing
// why) when they are invalid.
bool ApplyBucketFlags(const MetricsFlags& flags, inferd::ServerOptions& server) {
  auto durations = metrics::ParseDurationBuckets(flags.duration_buckets);
  auto batch_sizes = metrics::ParseBatchSizeBuckets(flags.batch_size_buckets);
  for (const absl::Status& status : {durations.status(), batch_sizes.status()}) {
    if (!status.ok()) {
      std::cerr << "inferd: " << status.message() << "\n";
      return false;
    }
  }
  server.histogram_bounds.duration_ns = *std::move(durations);
  server.histogram_bounds.batch_size = *std::move(batch_sizes);
  return true;
}

void AddServeFlags(CLI::App& serve, Flags& flags) {
  serve
      .add_option("--model-repository", flags.server.model_repositories,
                  "Model repository folder (repeat for several)")
      ->required();
  serve.add_option(
      "--backend-directory", flags.server.backend_directory,
      "Folder with <backend>/libinferd_<backend>.so (default: ../lib/backends beside the binary)");
  serve.add_option("--host", flags.http.host, "Address the HTTP and gRPC endpoints listen on")
      ->capture_default_str();
  serve.add_option("--http-port", flags.http.port, "HTTP/REST port (0 picks a free one)")
      ->capture_default_str();
  serve.add_option("--grpc-port", flags.grpc.port, "gRPC port (0 picks a free one)")
      ->capture_default_str();
  serve.add_option("--http-threads", flags.http.threads, "HTTP I/O threads")->capture_default_str();
  serve
      .add_option("--http-max-body-bytes", flags.http.max_body_bytes,
                  "Largest HTTP request body accepted (after decompression)")
      ->capture_default_str();
  serve
      .add_option("--http-max-json-input-bytes", flags.http.max_json_input_bytes,
                  "Largest total tensor data decoded from JSON in one request")
      ->capture_default_str();
  serve
      .add_option("--grpc-max-message-bytes", flags.grpc.max_message_bytes,
                  "Largest gRPC message sent or received")
      ->capture_default_str();
  serve
      .add_option("--grpc-max-concurrent-streams", flags.grpc.max_concurrent_streams,
                  "HTTP/2 streams one gRPC connection may open at once")
      ->capture_default_str();
  serve
      .add_option("--cpu-cores", flags.server.cpu_cores,
                  "Cores the default thread counts are sized for (0: all available)")
      ->capture_default_str();
  serve
      .add_option("--inline-execution-max-us", flags.server.inline_execution_max_us,
                  "Run a request to an idle unbatched model on the frontend's thread when its "
                  "recent executions took at most this many microseconds (0: never)")
      ->capture_default_str();
  serve.add_flag("--disable-auto-complete-config", flags.disable_auto_complete,
                 "Require a complete config.pbtxt; never derive one from the model file");
  serve.add_option("--log-level", flags.log_level, "trace, debug, info, warn, error or off")
      ->capture_default_str();
  AddMetricsFlags(serve, flags.metrics);
  AddLifecycleFlags(serve, flags);
  AddCacheFlags(serve, flags);
  inferd::cmd::AddTfsFlags(serve, flags.tfs);
}

// Blocks SIGINT/SIGTERM in every thread (threads inherit the mask), so that
// only the sigwait in main sees them.
sigset_t BlockStopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  return set;
}

// <folder of the executable>/../lib/backends: where the build and `make
// install` put backends, so the binary finds them from any working folder.
std::string DefaultBackendDirectory() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "lib/backends";
  return (exe.parent_path().parent_path() / "lib" / "backends").string();
}

// glibc creates up to 8 malloc arenas per core and keeps each one's
// fragments; across load/unload cycles they held ~10 % more RSS than the
// first load did. One arena per core the server may use keeps contention
// where it was (never more busy threads than cores) and brought 50 cycles
// back to +3-4 % (docs/benchmarks.md). MALLOC_ARENA_MAX, when set, wins.
void LimitMallocArenas(int cpu_cores) {
  if (std::getenv("MALLOC_ARENA_MAX") != nullptr) return;
  const int cores = cpu_cores > 0 ? cpu_cores : inferd::base::AvailableCpuCores();
  mallopt(M_ARENA_MAX, std::max(2, cores));
}

int Serve(Flags& flags) {
  LimitMallocArenas(flags.server.cpu_cores);
  if (flags.server.backend_directory.empty())
    flags.server.backend_directory = DefaultBackendDirectory();
  if (auto status = inferd::base::SetLogLevel(flags.log_level); !status.ok()) {
    std::cerr << status.message() << "\n";
    return 2;
  }
  if (!ApplyBucketFlags(flags.metrics, flags.server)) return 2;
  if (!ApplyCacheFlags(flags, flags.server)) return 2;
  const sigset_t stop_signals = BlockStopSignals();
  flags.server.auto_complete_config = !flags.disable_auto_complete;
  flags.server.model_control_mode =
      *inferd::lifecycle::ParseModelControlMode(flags.model_control_mode);
  flags.server.version_transition_policy =
      *inferd::lifecycle::ParseTransitionPolicy(flags.version_transition_policy);
  // Endpoints first, models second: liveness answers while models load.
  flags.server.load_models_in_create = false;
  flags.grpc.host = flags.http.host;
  if (flags.metrics.address.empty()) flags.metrics.address = flags.http.host;
  auto server = inferd::Server::Create(flags.server);
  if (!server.ok()) {
    INFERD_LOG_ERROR("cannot start: {}", server.status().ToString());
    return 1;
  }
  // The metrics endpoint runs on the HTTP frontend's I/O threads, and stops with it.
  std::vector<inferd::frontends::http::SideEndpoint> side_endpoints;
  if (flags.metrics.allow) {
    side_endpoints.push_back(metrics::MetricsEndpoint(**server, flags.metrics.address,
                                                      flags.metrics.port, flags.metrics.options));
  }
  auto http = inferd::frontends::http::HttpFrontend::Create(**server, flags.http,
                                                            std::move(side_endpoints));
  if (!http.ok()) {
    INFERD_LOG_ERROR("cannot start the HTTP endpoint: {}", http.status().ToString());
    return 1;
  }
  auto grpc = inferd::frontends::grpc::GrpcFrontend::Create(**server, flags.grpc);
  if (!grpc.ok()) {
    INFERD_LOG_ERROR("cannot start the gRPC endpoint: {}", grpc.status().ToString());
    return 1;
  }
  std::vector<inferd::cmd::Endpoint> endpoints = {
      {"HTTP", absl::StrCat(flags.http.host, ":", (*http)->port())},
      {"gRPC", absl::StrCat(flags.grpc.host, ":", (*grpc)->port())}};
  if (flags.metrics.allow) {
    endpoints.push_back({"Metrics", absl::StrCat("http://", flags.metrics.address, ":",
                                                 (*http)->side_port(0), "/metrics")});
  }
  inferd::cmd::TfsFrontends tfs;
  if (auto status = inferd::cmd::StartTfsFrontends(**server, flags.tfs, flags.http, flags.grpc, tfs,
                                                   endpoints);
      !status.ok()) {
    INFERD_LOG_ERROR("cannot start the {}", status.ToString());
    return 1;
  }
  inferd::cmd::LogEndpointTable(endpoints);
  const auto load_start = std::chrono::steady_clock::now();
  (*server)->LoadStartupModels();
  inferd::cmd::LogStartupTable(**server);
  INFERD_LOG_INFO("start-up models loaded in {} ms; serving",
                  std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - load_start)
                      .count());
  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  // The shutdown sequence (docs/deployment.md): readiness false at once;
  // keep serving through the grace period (a second signal ends it early);
  // stop accepting and drain within the exit timeout, answering what is
  // still queued then; stop the endpoints; unload; exit 0.
  INFERD_LOG_INFO("received signal {}: readiness is now false; serving for {} s more",
                  signal_number, flags.shutdown_grace_secs);
  (*server)->BeginShutdown();
  if (flags.shutdown_grace_secs > 0) {
    const auto grace = std::chrono::duration<double>(flags.shutdown_grace_secs);
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(grace);
    const auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(grace - seconds);
    const timespec timeout{static_cast<time_t>(seconds.count()), static_cast<long>(nanos.count())};
    if (sigtimedwait(&stop_signals, nullptr, &timeout) > 0) {
      INFERD_LOG_INFO("second signal: ending the grace period early");
    }
  }
  INFERD_LOG_INFO("no longer accepting requests; draining for at most {} s",
                  flags.exit_timeout_secs);
  (*server)->Stop(std::chrono::milliseconds(static_cast<int64_t>(flags.exit_timeout_secs * 1000)));
  // Every accepted request has been answered; the endpoints close now (the
  // HTTP frontend stops the metrics endpoint with it).
  (*http)->Stop();
  (*grpc)->Stop();
  tfs.Stop();
  INFERD_LOG_INFO("stopped");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"inferd: a model inference server speaking KServe v2 over HTTP and gRPC"};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", absl::StrCat("inferd ", INFERD_VERSION));
  Flags flags;
  flags.server.backend_directory.clear();  // resolved beside the binary unless given
  CLI::App* serve = app.add_subcommand("serve", "Serve the models of one or more repositories");
  AddServeFlags(*serve, flags);
  CLI11_PARSE(app, argc, argv);
  if (serve->parsed()) return Serve(flags);
  std::cout << app.help();
  return 0;
}
