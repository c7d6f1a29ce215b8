// SPDX-License-Identifier: Apache-2.0
// absl::Status -> grpc::Status. The codes share their numbers
// (core::GrpcStatusCode); the message travels unchanged.
#pragma once

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace inferd::frontends::grpc {

::grpc::Status ToGrpcStatus(const absl::Status& status);

}  // namespace inferd::frontends::grpc
