// SPDX-License-Identifier: Apache-2.0
#include "cmd/tfs_flags.h"

#include "absl/strings/str_cat.h"
#include "frontends/tfserving/rest_routes.h"

namespace inferd::cmd {

void AddTfsFlags(CLI::App& serve, TfsFlags& flags) {
  // Given alone, each flag takes TF Serving's own port.
  serve
      .add_option("--tfs-rest-port", flags.rest_port,
                  "Serve TensorFlow Serving's REST API (/v1/models/...) on this port "
                  "(alone: 8501; 0 picks a free one; off unless given)")
      ->expected(0, 1)
      ->default_str("8501");
  serve
      .add_option("--tfs-grpc-port", flags.grpc_port,
                  "Serve TensorFlow Serving's gRPC API (PredictionService, ModelService) on "
                  "this port (alone: 8500; 0 picks a free one; off unless given)")
      ->expected(0, 1)
      ->default_str("8500");
}

void TfsFrontends::BeginDrain() {
  if (rest) rest->BeginDrain();
}

void TfsFrontends::Stop() {
  if (rest) rest->Stop();
  if (grpc) grpc->Stop();
}

absl::Status StartTfsFrontends(Server& server, const TfsFlags& flags,
                               const frontends::http::HttpOptions& http,
                               const frontends::grpc::GrpcOptions& grpc, TfsFrontends& out,
                               std::vector<Endpoint>& endpoints) {
  if (flags.rest_port >= 0) {
    frontends::http::HttpOptions options = http;
    options.port = flags.rest_port;
    auto rest = frontends::tfserving::StartTfsRestFrontend(server, std::move(options));
    if (!rest.ok()) {
      return absl::Status(rest.status().code(),
                          absl::StrCat("TF Serving REST endpoint: ", rest.status().message()));
    }
    out.rest = *std::move(rest);
    endpoints.push_back(
        {"TF Serving REST", absl::StrCat("http://", http.host, ":", out.rest->port(), "/v1")});
  }
  if (flags.grpc_port >= 0) {
    frontends::tfserving::TfsGrpcOptions options;
    options.host = grpc.host;
    options.port = flags.grpc_port;
    options.max_message_bytes = grpc.max_message_bytes;
    options.max_concurrent_streams = grpc.max_concurrent_streams;
    auto frontend = frontends::tfserving::TfsGrpcFrontend::Create(server, std::move(options));
    if (!frontend.ok()) {
      return absl::Status(frontend.status().code(),
                          absl::StrCat("TF Serving gRPC endpoint: ", frontend.status().message()));
    }
    out.grpc = *std::move(frontend);
    endpoints.push_back({"TF Serving gRPC", absl::StrCat(grpc.host, ":", out.grpc->port())});
  }
  return absl::OkStatus();
}

}  // namespace inferd::cmd
