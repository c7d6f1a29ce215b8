// SPDX-License-Identifier: Apache-2.0
// TF Serving's REST replies: the :predict body ({"predictions": rows} for a
// row request, {"outputs": ...} for a columnar one), model status and
// metadata as TF Serving's JSON, and errors as {"error": "..."} with TF
// Serving's HTTP status for each code. No I/O.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "core/infer_request.h"
#include "frontends/http/http_reply.h"
#include "google/protobuf/message.h"

namespace inferd::frontends::tfserving {

// One output: its nested values. Several: an object by output name (in
// columns) or one object per row. Rows need every output to have the same
// first dimension (InvalidArgument otherwise). A BYTES value is a string,
// or {"b64": ...} when the output's name ends in "_bytes" (TF Serving's
// rule) or the bytes are not UTF-8.
absl::StatusOr<std::string> EncodeRestPredict(const core::InferResponse& response, bool row_format);

// A protobuf reply (model status, metadata) as TF Serving writes it: field
// names as in the .proto, defaults included.
absl::StatusOr<std::string> ProtoJson(const google::protobuf::Message& message);

// TF Serving's HTTP status for a status code (its http_server.cc mapping:
// NotFound 404, InvalidArgument and FailedPrecondition 400, Unavailable
// 503, Unimplemented 501, ...).
int TfServingHttpStatus(const absl::Status& status);
// {"error": message} with that status.
http::HttpReply TfServingErrorReply(const absl::Status& status);

}  // namespace inferd::frontends::tfserving
