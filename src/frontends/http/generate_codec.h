// SPDX-License-Identifier: Apache-2.0
// Triton's generate extension (docs/api.md, "Generate"): a flat JSON object
// in, a flat JSON object out, no tensor envelope. No I/O.
//
// Request: every top-level key that names a model input becomes that input
// (a scalar or a flat array; strings for BYTES), shaped to the input's
// shape as Triton does (the values fill the fixed dimensions, the innermost
// variable one takes the rest, other variable ones are 1); every other key
// is a request parameter (string, integer, double or boolean). The
// "parameters" object is read the same way, key by key.
// Response: "model_name", "model_version", and one key per output, its
// value a scalar when the output has one element, else a flat array.
// Server-Sent Events frame each response as `data: <json>\n\n`.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/data_type.h"
#include "core/infer_request.h"
#include "core/shape.h"

namespace inferd::frontends::http {

// A model input as the model metadata gives it (the shape with a leading -1
// when the model batches).
struct GenerateInput {
  std::string name;
  core::DataType datatype = core::DataType::kInvalid;
  core::Shape shape;
};

// `body` is the whole request body. The request has no model name or
// version yet. InvalidArgument for a body that is not a JSON object, a
// value that does not fit its input's type or shape, a parameter that is
// not a scalar, a reserved (`triton_`) parameter, or a "parameters" key that
// is not an object or names an input. `max_json_bytes` bounds the body and
// the tensor bytes decoded from it (--http-max-input-size).
absl::StatusOr<std::unique_ptr<core::InferRequest>> DecodeGenerateRequest(
    std::string_view body, const std::vector<GenerateInput>& inputs, size_t max_json_bytes);

// The response object. InvalidArgument when a BYTES output is not UTF-8
// (generate has no binary outputs); Internal for a malformed tensor.
absl::StatusOr<std::string> EncodeGenerateResponse(const core::InferResponse& response);

// One Server-Sent Event carrying `json` (a single line, as every JSON this
// server writes): "data: <json>\n\n".
std::string SseEvent(std::string_view json);

// What /generate answers when the model did not send exactly one response
// (Triton's words).
inline constexpr char kGenerateNeedsOneResponse[] =
    "generate expects model to produce exactly 1 response, use generate stream for model that "
    "generates various number of responses";

}  // namespace inferd::frontends::http
