// SPDX-License-Identifier: Apache-2.0
#include "frontends/grpc/health_service.h"

namespace inferd::frontends::grpc {

::grpc::ServerUnaryReactor* HealthService::Check(
    ::grpc::CallbackServerContext* context, const ::grpc::health::v1::HealthCheckRequest*,
    ::grpc::health::v1::HealthCheckResponse* response) {
  using ::grpc::health::v1::HealthCheckResponse;
  response->set_status(server_.IsReady() ? HealthCheckResponse::SERVING
                                         : HealthCheckResponse::NOT_SERVING);
  ::grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(::grpc::Status::OK);
  return reactor;
}

}  // namespace inferd::frontends::grpc
