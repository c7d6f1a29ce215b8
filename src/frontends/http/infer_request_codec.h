// SPDX-License-Identifier: Apache-2.0
// Decodes a KServe v2 HTTP infer request (JSON header plus binary tensor
// blobs; docs/api.md, "HTTP/REST") into a core::InferRequest, and
// remembers how each output should be returned. Binary inputs are views into
// the body, which their Buffers keep alive: nothing is copied. No I/O.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "core/infer_request.h"
#include "server/shared_memory_tensors.h"

namespace inferd::frontends::http {

// Which outputs go back as binary blobs rather than JSON `data`, and which
// go into shared-memory regions instead (their windows leased until the reply
// is encoded).
struct OutputFormat {
  bool binary_default = false;                              // request parameter binary_data_output
  std::map<std::string, bool, std::less<>> binary_by_name;  // output parameter binary_data
  SharedMemoryOutputs shared_memory;                        // output parameters shared_memory_*

  bool IsBinary(std::string_view output_name) const;
};

struct DecodedInferRequest {
  std::unique_ptr<core::InferRequest> request;  // model name/version left empty
  OutputFormat format;
};

struct InferDecodeOptions {
  // Largest JSON header, and total tensor bytes its `data` arrays may
  // decode to. Bounds the parser's memory (several times the JSON size).
  size_t max_json_input_bytes = 64 << 20;
  // Regions that shared_memory_region parameters name; null: a request
  // naming one is refused. `model_name` is for error messages only.
  const SharedMemoryRegistry* shared_memory = nullptr;
  std::string_view model_name;
};

// `body` is the whole (decompressed) request body. `json_length` is the
// Inference-Header-Content-Length value (the JSON header's size, the rest of
// the body being binary blobs); nullopt when the header was absent, meaning
// the whole body is JSON. REQUIRES: *json_length in [1, body->size()].
// InvalidArgument for anything malformed; the message names the tensor.
absl::StatusOr<DecodedInferRequest> DecodeInferRequest(std::shared_ptr<const std::string> body,
                                                       std::optional<size_t> json_length,
                                                       const InferDecodeOptions& options);

// Parses an Inference-Header-Content-Length value against the body size:
// a decimal in [0, body_size], InvalidArgument otherwise.
absl::StatusOr<size_t> ParseInferenceHeaderLength(std::string_view value, size_t body_size);

}  // namespace inferd::frontends::http
