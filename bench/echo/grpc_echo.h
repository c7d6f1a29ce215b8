// SPDX-License-Identifier: Apache-2.0
// The gRPC half of the echo server: grpc++'s callback API (as inferd uses),
// answering KServe v2 metadata, config and ModelInfer for one model at once
// (zero-filled raw_output_contents). The transport limit of inferd's gRPC path.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "echo/model_spec.h"
#include "grpc_service.grpc.pb.h"
#include "grpcpp/server.h"

namespace inferd::bench {

class EchoService;

class GrpcEcho {
 public:
  // Listens on host:port (port 0 picks a free one).
  static absl::StatusOr<std::unique_ptr<GrpcEcho>> Create(ModelSpec model, const std::string& host,
                                                          int port);
  ~GrpcEcho();
  GrpcEcho(const GrpcEcho&) = delete;
  GrpcEcho& operator=(const GrpcEcho&) = delete;

  int port() const { return port_; }
  void Stop();

 private:
  GrpcEcho() = default;

  std::unique_ptr<EchoService> service_;
  std::unique_ptr<::grpc::Server> server_;
  int port_ = 0;
};

}  // namespace inferd::bench
