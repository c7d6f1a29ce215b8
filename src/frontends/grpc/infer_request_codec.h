// SPDX-License-Identifier: Apache-2.0
// ModelInferRequest (gRPC) -> core::InferRequest, following Triton's input
// rules: each input takes its data from typed `contents` or from the next
// raw_input_contents entry, never both kinds in one request. No I/O.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "core/infer_request.h"
#include "grpc_service.pb.h"
#include "server/shared_memory_tensors.h"

namespace inferd::frontends::grpc {

// Raw entries (and same-width typed contents) are referenced, not copied:
// their Buffers hold `owner`, which must keep `message` alive. With a null
// owner the caller keeps `message` alive until the request is answered.
// InvalidArgument: unknown datatype, bad shape, raw and typed data mixed, an
// input without data, a size or count that does not match the shape, an
// unused raw entry, bad parameters, shared-memory parameters (this overload
// has no registry).
absl::StatusOr<std::unique_ptr<core::InferRequest>> DecodeInferRequest(
    const inference::ModelInferRequest& message, std::shared_ptr<const void> owner);

// The same, with inputs and outputs in shared-memory regions of
// `shared_memory` (parameters shared_memory_region: string_param,
// shared_memory_byte_size and shared_memory_offset: int64_param, Triton's
// rules and words). A region input takes no raw_input_contents entry and
// points into the region's mapping; each region output's leased window goes
// into `outputs`. Also the registry's errors (NotFound for an unknown region).
absl::StatusOr<std::unique_ptr<core::InferRequest>> DecodeInferRequest(
    const inference::ModelInferRequest& message, std::shared_ptr<const void> owner,
    const SharedMemoryRegistry* shared_memory, SharedMemoryOutputs* outputs);

}  // namespace inferd::frontends::grpc
