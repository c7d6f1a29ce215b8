// SPDX-License-Identifier: Apache-2.0
// The inferd executable: flags -> ServerOptions and frontend options, logging
// set-up, the start-up model table, and a clean stop on SIGINT/SIGTERM.
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <pthread.h>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "base/logging.h"
#include "cmd/startup_table.h"
#include "frontends/grpc/grpc_frontend.h"
#include "frontends/http/http_frontend.h"
#include "server/server.h"

namespace {

struct Flags {
  inferd::ServerOptions server;
  inferd::frontends::http::HttpOptions http;
  inferd::frontends::grpc::GrpcOptions grpc;
  std::string log_level = "info";
  bool disable_auto_complete = false;
};

void AddServeFlags(CLI::App& serve, Flags& flags) {
  serve.add_option("--model-repository", flags.server.model_repositories,
                   "Model repository folder (repeat for several)")->required();
  serve.add_option("--backend-directory", flags.server.backend_directory,
                   "Folder with <backend>/libinferd_<backend>.so (default: ../lib/backends beside the binary)");
  serve.add_option("--host", flags.http.host, "Address the HTTP and gRPC endpoints listen on")->capture_default_str();
  serve.add_option("--http-port", flags.http.port, "HTTP/REST port (0 picks a free one)")->capture_default_str();
  serve.add_option("--grpc-port", flags.grpc.port, "gRPC port (0 picks a free one)")->capture_default_str();
  serve.add_option("--http-threads", flags.http.threads, "HTTP I/O threads")->capture_default_str();
  serve.add_option("--http-max-body-bytes", flags.http.max_body_bytes,
                   "Largest HTTP request body accepted (after decompression)")->capture_default_str();
  serve.add_option("--http-max-json-input-bytes", flags.http.max_json_input_bytes,
                   "Largest total tensor data decoded from JSON in one request")->capture_default_str();
  serve.add_option("--grpc-max-message-bytes", flags.grpc.max_message_bytes,
                   "Largest gRPC message sent or received")->capture_default_str();
  serve.add_option("--grpc-max-concurrent-streams", flags.grpc.max_concurrent_streams,
                   "HTTP/2 streams one gRPC connection may open at once")->capture_default_str();
  serve.add_option("--cpu-cores", flags.server.cpu_cores,
                   "Cores the default thread counts are sized for (0: all available)")->capture_default_str();
  serve.add_flag("--disable-auto-complete-config", flags.disable_auto_complete,
                 "Require a complete config.pbtxt; never derive one from the model file");
  serve.add_option("--log-level", flags.log_level, "trace, debug, info, warn, error or off")->capture_default_str();
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

int Serve(Flags& flags) {
  if (flags.server.backend_directory.empty()) flags.server.backend_directory = DefaultBackendDirectory();
  if (auto status = inferd::base::SetLogLevel(flags.log_level); !status.ok()) {
    std::cerr << status.message() << "\n";
    return 2;
  }
  const sigset_t stop_signals = BlockStopSignals();
  flags.server.auto_complete_config = !flags.disable_auto_complete;
  flags.grpc.host = flags.http.host;
  auto server = inferd::Server::Create(flags.server);
  if (!server.ok()) {
    INFERD_LOG_ERROR("cannot start: {}", server.status().ToString());
    return 1;
  }
  inferd::cmd::LogStartupTable(**server);
  auto http = inferd::frontends::http::HttpFrontend::Create(**server, flags.http);
  if (!http.ok()) {
    INFERD_LOG_ERROR("cannot start the HTTP endpoint: {}", http.status().ToString());
    return 1;
  }
  auto grpc = inferd::frontends::grpc::GrpcFrontend::Create(**server, flags.grpc);
  if (!grpc.ok()) {
    INFERD_LOG_ERROR("cannot start the gRPC endpoint: {}", grpc.status().ToString());
    return 1;
  }
  INFERD_LOG_INFO("serving HTTP on {}:{} and gRPC on {}:{}", flags.http.host, (*http)->port(), flags.grpc.host,
                  (*grpc)->port());
  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  INFERD_LOG_INFO("received signal {}, stopping", signal_number);
  // Frontends first so no new request arrives, then the server answers and
  // unloads what it accepted.
  (*http)->Stop();
  (*grpc)->Stop();
  (*server)->Stop();
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
