// SPDX-License-Identifier: Apache-2.0
// ModelInferRequest (gRPC) -> core::InferRequest, following Triton's input
// rules: each input takes its data from typed `contents` or from the next
// raw_input_contents entry, never both kinds in one request. No I/O.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "core/infer_request.h"
#include "grpc_service.pb.h"

namespace inferd::frontends::grpc {

// Raw entries (and same-width typed contents) are referenced, not copied:
// their Buffers hold `owner`, which must keep `message` alive. With a null
// owner the caller keeps `message` alive until the request is answered.
// InvalidArgument: unknown datatype, bad shape, raw and typed data mixed, an
// input without data, a size or count that does not match the shape, an
// unused raw entry, bad parameters, shared-memory parameters (no region can
// be registered yet). Unimplemented: classification outputs.
absl::StatusOr<std::unique_ptr<core::InferRequest>> DecodeInferRequest(
    const inference::ModelInferRequest& message, std::shared_ptr<const void> owner);

}  // namespace inferd::frontends::grpc
