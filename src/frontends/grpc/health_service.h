// SPDX-License-Identifier: Apache-2.0
// grpc.health.v1.Health/Check answered from Server::IsReady, as Triton does:
// SERVING when ready, NOT_SERVING otherwise, whatever service is named.
// Watch is left to the base class (UNIMPLEMENTED).
#pragma once

#include "health.grpc.pb.h"
#include "server/server.h"

namespace inferd::frontends::grpc {

// Thread-safe. `server` must outlive this.
class HealthService final : public ::grpc::health::v1::Health::CallbackService {
 public:
  explicit HealthService(Server& server) : server_(server) {}
  HealthService(const HealthService&) = delete;
  HealthService& operator=(const HealthService&) = delete;

  ::grpc::ServerUnaryReactor* Check(::grpc::CallbackServerContext* context,
                                    const ::grpc::health::v1::HealthCheckRequest* request,
                                    ::grpc::health::v1::HealthCheckResponse* response) override;

 private:
  Server& server_;
};

}  // namespace inferd::frontends::grpc
