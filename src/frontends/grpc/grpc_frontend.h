// SPDX-License-Identifier: Apache-2.0
// The gRPC frontend: serves inference.GRPCInferenceService (KServe v2 with
// Triton's extensions) and grpc.health.v1.Health over inferd::Server, on
// gRPC's callback API (gRPC's own threads; none of ours).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "server/server.h"

namespace grpc {
class Server;
}

namespace inferd::frontends::grpc {

class HealthService;
class InferenceService;

// clang-format off
struct GrpcOptions {
  std::string host = "0.0.0.0";
  int port = 8001;                 // 0: pick a free port
  int max_message_bytes = INT32_MAX;  // send and receive; users never meet gRPC's 4 MB default
  int max_concurrent_streams = 1024;  // explicit HTTP/2 limits (grpc 1.51 predates Rapid Reset fixes)
};
// clang-format on

// Thread-safe. `server` must outlive this. grpc 1.51 lacks later HTTP/2
// denial-of-service fixes: on untrusted networks the port belongs behind a proxy.
class GrpcFrontend {
 public:
  // Binds and starts serving. InvalidArgument for bad options, Unavailable
  // when the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<GrpcFrontend>> Create(Server& server, GrpcOptions options);
  ~GrpcFrontend();  // Stop()
  GrpcFrontend(const GrpcFrontend&) = delete;
  GrpcFrontend& operator=(const GrpcFrontend&) = delete;

  int port() const;  // bound port
  // Stops accepting calls and waits for those in flight, cancelling them
  // after a short deadline. Idempotent.
  void Stop();

 private:
  explicit GrpcFrontend(Server& server);

  std::unique_ptr<InferenceService> inference_;
  std::unique_ptr<HealthService> health_;
  std::unique_ptr<::grpc::Server> grpc_server_;  // destroyed before the services
  int port_ = 0;
  std::once_flag stop_once_;
};

}  // namespace inferd::frontends::grpc
