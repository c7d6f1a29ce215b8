// SPDX-License-Identifier: Apache-2.0
// core::InferResponse -> ModelInferResponse (gRPC): one raw_output_contents
// entry per output, in order, as the official clients require. No I/O.
#pragma once

#include "absl/status/status.h"
#include "core/infer_request.h"
#include "grpc_service.pb.h"
#include "server/shared_memory_tensors.h"

namespace inferd::frontends::grpc {

// Fills `message` (expected empty): id, model name, version as a decimal
// string, output metadata, and each output's bytes (BYTES tensors keep their
// length prefixes, as the raw encoding wants).
void EncodeInferResponse(const core::InferResponse& response,
                         inference::ModelInferResponse& message);

// The same, except that each output in `shared_memory` is copied into its
// region and gets an empty raw_output_contents entry (as Triton: the entries
// stay one per output, in order, so clients index them as before).
// WriteSharedMemoryOutput's error when an output does not fit its window.
absl::Status EncodeInferResponse(const core::InferResponse& response,
                                 const SharedMemoryOutputs& shared_memory,
                                 inference::ModelInferResponse& message);

}  // namespace inferd::frontends::grpc
