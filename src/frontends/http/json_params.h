// SPDX-License-Identifier: Apache-2.0
// Request-level KServe `parameters` from JSON to core::Parameters, keeping
// their JSON types: strings, booleans, integers (int64, or uint64 above
// INT64_MAX) and doubles. Triton's reserved `triton_` keys are refused.
#pragma once

#include "absl/status/statusor.h"
#include "core/infer_request.h"
#include "simdjson.h"

namespace inferd::frontends::http {

// Every parameter except binary_data_output, which only concerns this
// frontend and is stored in `binary_data_output` (left unchanged if absent).
// InvalidArgument for a non-object, a `triton_` key, a non-scalar value or a
// non-boolean binary_data_output.
absl::StatusOr<core::Parameters> ParseRequestParameters(simdjson::dom::element params,
                                                        bool& binary_data_output);

}  // namespace inferd::frontends::http
