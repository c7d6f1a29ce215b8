// SPDX-License-Identifier: Apache-2.0
// The flags of TF Serving's APIs (--tfs-rest-port, --tfs-grpc-port) and
// starting those frontends: both off unless their flag is given
// (docs/configuration.md, "TensorFlow Serving APIs").
#pragma once

#include <memory>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "cmd/startup_table.h"
#include "frontends/grpc/grpc_frontend.h"
#include "frontends/http/http_frontend.h"
#include "frontends/tfserving/grpc_frontend.h"
#include "server/server.h"

namespace inferd::cmd {

struct TfsFlags {
  int rest_port = -1;  // -1: off; 0: pick a free port
  int grpc_port = -1;
};

void AddTfsFlags(CLI::App& serve, TfsFlags& flags);

// The frontends the flags asked for; Stop() stops them (idempotent).
struct TfsFrontends {
  std::unique_ptr<frontends::http::HttpFrontend> rest;
  std::unique_ptr<frontends::tfserving::TfsGrpcFrontend> grpc;
  void BeginDrain();  // the REST endpoint's (HttpFrontend::BeginDrain)
  void Stop();
};

// Starts them with the KServe frontends' host, threads and limits, and adds
// their addresses to `endpoints`. An error names the endpoint that failed.
absl::Status StartTfsFrontends(Server& server, const TfsFlags& flags,
                               const frontends::http::HttpOptions& http,
                               const frontends::grpc::GrpcOptions& grpc, TfsFrontends& out,
                               std::vector<Endpoint>& endpoints);

}  // namespace inferd::cmd
