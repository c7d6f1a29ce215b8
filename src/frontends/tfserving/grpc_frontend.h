// SPDX-License-Identifier: Apache-2.0
// TF Serving's gRPC API on a port of its own (--tfs-grpc-port, TF Serving's
// 8500): PredictionService and ModelService (prediction_service.h) on a
// grpc::Server separate from the KServe one, over inferd::Server alone.
#pragma once

#include <climits>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "server/server.h"

namespace grpc {
class Server;
}

namespace inferd::frontends::tfserving {

class PredictionService;
class ModelStatusService;

struct TfsGrpcOptions {
  std::string host = "0.0.0.0";
  int port = 8500;                    // 0: pick a free port
  int max_message_bytes = INT32_MAX;  // send and receive
  int max_concurrent_streams = 1024;
};

// Thread-safe. `server` must outlive this.
class TfsGrpcFrontend {
 public:
  // Binds and starts serving. InvalidArgument for bad options, Unavailable
  // when the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<TfsGrpcFrontend>> Create(Server& server,
                                                                 TfsGrpcOptions options);
  ~TfsGrpcFrontend();  // Stop()
  TfsGrpcFrontend(const TfsGrpcFrontend&) = delete;
  TfsGrpcFrontend& operator=(const TfsGrpcFrontend&) = delete;

  int port() const { return port_; }
  // Stops accepting calls and waits for those in flight, cancelling them
  // after a short deadline. Idempotent.
  void Stop();

 private:
  explicit TfsGrpcFrontend(Server& server);

  std::unique_ptr<PredictionService> prediction_;
  std::unique_ptr<ModelStatusService> model_status_;
  std::unique_ptr<::grpc::Server> grpc_server_;  // destroyed before the services
  int port_ = 0;
  std::once_flag stop_once_;
};

}  // namespace inferd::frontends::tfserving
