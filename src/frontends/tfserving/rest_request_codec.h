// SPDX-License-Identifier: Apache-2.0
// The body of TF Serving's REST :predict: the row form
// {"instances": [...]} and the columnar form {"inputs": ...}, each with
// named tensors (objects) or the model's one input (bare values), an
// optional "signature_name", and {"b64": "..."} for binary strings. Each
// tensor's type is the model input's; its shape is the nesting of its JSON
// arrays (with the instance count in front, for rows). Parsed with
// simdjson. No I/O.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/tensor.h"
#include "server/server.h"

namespace inferd::frontends::tfserving {

struct RestPredictRequest {
  bool row_format = true;  // "instances"; false: "inputs"
  std::string signature_name;
  std::vector<core::Tensor> inputs;
};

// The signature_name alone, read before the model is resolved (empty when
// absent). InvalidArgument for a body that is not a JSON object or a
// signature_name that is not a string.
absl::StatusOr<std::string> ReadSignatureName(std::string_view body);

// `metadata` gives each input's type (and, for bare values, the one input's
// name). `max_bytes` bounds the decoded tensor data. InvalidArgument with
// what is wrong for any malformed body.
absl::StatusOr<RestPredictRequest> DecodeRestPredict(std::string_view body,
                                                     const ModelMetadata& metadata,
                                                     size_t max_bytes);

}  // namespace inferd::frontends::tfserving
