// SPDX-License-Identifier: Apache-2.0
// core::InferResponse -> ModelInferResponse (gRPC): one raw_output_contents
// entry per output, in order, as the official clients require. No I/O.
#pragma once

#include "core/infer_request.h"
#include "grpc_service.pb.h"

namespace inferd::frontends::grpc {

// Fills `message` (expected empty): id, model name, version as a decimal
// string, output metadata, and each output's bytes (BYTES tensors keep their
// length prefixes, as the raw encoding wants).
void EncodeInferResponse(const core::InferResponse& response,
                         inference::ModelInferResponse& message);

}  // namespace inferd::frontends::grpc
