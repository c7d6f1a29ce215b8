// SPDX-License-Identifier: Apache-2.0
// Encodes a core::InferResponse as a KServe v2 HTTP reply (docs/api.md,
// "HTTP/REST"): JSON outputs carry `data`; binary outputs carry
// parameters.binary_data_size only and their bytes follow the JSON, uncopied.
// No I/O.
#pragma once

#include "absl/status/statusor.h"
#include "core/infer_request.h"
#include "frontends/http/http_reply.h"
#include "frontends/http/infer_request_codec.h"

namespace inferd::frontends::http {

// application/json when every output is JSON; otherwise
// application/octet-stream with Inference-Header-Content-Length set to the
// JSON's size. Outputs in format.shared_memory are copied into their
// regions and carry name, datatype and shape only (Triton's reply). Errors as
// WriteJsonTensorData, and WriteSharedMemoryOutput's.
absl::StatusOr<HttpReply> EncodeInferResponse(const core::InferResponse& response,
                                              const OutputFormat& format);

}  // namespace inferd::frontends::http
