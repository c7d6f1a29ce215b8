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
#include "cmd/flags.h"
#include "cmd/startup_table.h"
#include "server/response_cache.h"
#include "server/server.h"

namespace {

namespace metrics = inferd::frontends::metrics;
using inferd::cmd::Flags;
using inferd::cmd::MetricsFlags;

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

int Serve(CLI::App& serve, Flags& flags) {
  LimitMallocArenas(flags.server.cpu_cores);
  if (flags.server.backend_directory.empty())
    flags.server.backend_directory = DefaultBackendDirectory();
  if (auto status = inferd::cmd::ResolveFlags(serve, flags); !status.ok()) {
    std::cerr << "inferd: " << status.message() << "\n";
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
  if (flags.metrics.address.empty()) flags.metrics.address = flags.http.host;
  auto server = inferd::Server::Create(flags.server);
  if (!server.ok()) {
    INFERD_LOG_ERROR("cannot start: {}", server.status().ToString());
    return 1;
  }
  // The metrics endpoint runs on the HTTP frontend's I/O threads, and stops
  // with it: with --allow-http=false the frontend serves metrics alone.
  std::vector<inferd::frontends::http::SideEndpoint> side_endpoints;
  if (flags.metrics.allow) {
    side_endpoints.push_back(metrics::MetricsEndpoint(**server, flags.metrics.address,
                                                      flags.metrics.port, flags.metrics.options));
  }
  std::unique_ptr<inferd::frontends::http::HttpFrontend> http;
  if (flags.triton.allow_http || flags.metrics.allow) {
    auto created = inferd::frontends::http::HttpFrontend::Create(**server, flags.http,
                                                                 std::move(side_endpoints));
    if (!created.ok()) {
      INFERD_LOG_ERROR("cannot start the HTTP endpoint: {}", created.status().ToString());
      return 1;
    }
    http = *std::move(created);
  }
  std::unique_ptr<inferd::frontends::grpc::GrpcFrontend> grpc;
  if (flags.triton.allow_grpc) {
    auto created = inferd::frontends::grpc::GrpcFrontend::Create(**server, flags.grpc);
    if (!created.ok()) {
      INFERD_LOG_ERROR("cannot start the gRPC endpoint: {}", created.status().ToString());
      return 1;
    }
    grpc = *std::move(created);
  }
  std::vector<inferd::cmd::Endpoint> endpoints;
  if (flags.triton.allow_http) {
    endpoints.push_back({"HTTP", absl::StrCat(flags.http.host, ":", http->port())});
  }
  if (grpc) endpoints.push_back({"gRPC", absl::StrCat(flags.grpc.host, ":", grpc->port())});
  if (flags.metrics.allow) {
    endpoints.push_back({"Metrics", absl::StrCat("http://", flags.metrics.address, ":",
                                                 http->side_port(0), "/metrics")});
  }
  inferd::cmd::TfsFrontends tfs;
  if (auto status = inferd::cmd::StartTfsFrontends(**server, flags.tfs, flags.http, flags.grpc, tfs,
                                                   endpoints);
      !status.ok()) {
    INFERD_LOG_ERROR("cannot start the {}", status.ToString());
    return 1;
  }
  if (endpoints.empty())
    INFERD_LOG_WARN("no endpoint: --allow-http, --allow-grpc and --allow-metrics are all false");
  inferd::cmd::LogEndpointTable(endpoints);
  const auto load_start = std::chrono::steady_clock::now();
  (*server)->LoadStartupModels();
  inferd::cmd::LogStartupTable(**server);
  const auto stop_endpoints = [&] {
    if (http) http->Stop();
    if (grpc) grpc->Stop();
    tfs.Stop();
  };
  if (flags.triton.exit_on_error && !(*server)->StartupModelsReady()) {
    INFERD_LOG_ERROR("--exit-on-error: a start-up model failed to load (table above); exiting");
    (*server)->BeginShutdown();
    (*server)->Stop(std::chrono::milliseconds(0));
    stop_endpoints();
    return 1;
  }
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
  // New HTTP connections are refused from now on and every reply closes its
  // connection, so keep-alive clients are never cut off mid-request.
  if (http) http->BeginDrain();
  tfs.BeginDrain();
  (*server)->Stop(std::chrono::milliseconds(static_cast<int64_t>(flags.exit_timeout_secs * 1000)));
  // Every accepted request has been answered; the endpoints close now (the
  // HTTP frontend stops the metrics endpoint with it).
  stop_endpoints();
  INFERD_LOG_INFO("stopped");
  return 0;
}

// Started as `tritonserver` (the symlink beside the binary, for manifests
// written for Triton): `tritonserver <flags>` is `inferd serve <flags>`.
bool StartedAsTritonserver(const char* argv0) {
  return argv0 != nullptr && std::filesystem::path(argv0).filename() == "tritonserver";
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> args(argv, argv + argc);
  static char serve_command[] = "serve";
  if (StartedAsTritonserver(argv[0])) args.insert(args.begin() + 1, serve_command);
  CLI::App app{"inferd: a model inference server speaking KServe v2 over HTTP and gRPC"};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", absl::StrCat("inferd ", INFERD_VERSION));
  Flags flags;
  flags.server.backend_directory.clear();  // resolved beside the binary unless given
  // What Triton reports, so that clients checking the server's name work
  // unchanged; --id sets another (docs/configuration.md).
  flags.server.server_name = "triton";
  CLI::App* serve = app.add_subcommand("serve", "Serve the models of one or more repositories");
  inferd::cmd::AddServeFlags(*serve, flags);
  inferd::cmd::AddTritonFlags(*serve, flags);
  CLI11_PARSE(app, static_cast<int>(args.size()), args.data());
  if (serve->parsed()) return Serve(*serve, flags);
  std::cout << app.help();
  return 0;
}
