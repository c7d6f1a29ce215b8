// SPDX-License-Identifier: Apache-2.0
#include "frontends/grpc/grpc_status.h"

#include <string>

#include "core/status_mapping.h"

namespace inferd::frontends::grpc {

::grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return ::grpc::Status::OK;
  return ::grpc::Status(static_cast<::grpc::StatusCode>(core::GrpcStatusCode(status)),
                        std::string(status.message()));
}

}  // namespace inferd::frontends::grpc
