// SPDX-License-Identifier: Apache-2.0
// The one place where a Status becomes a protocol status: an HTTP code with
// the KServe {"error": ...} body, a gRPC code, or a backend ABI error code.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "inferd/backend.h"

namespace inferd::core {

// KServe/Triton HTTP mapping: NotFound 404, Unavailable 503, Internal 500,
// Unimplemented 501, everything else 400.
int HttpStatusCode(const absl::Status& status);
// {"error":"<escaped message>"}.
std::string ErrorJson(std::string_view message);
// absl and gRPC share their code numbers; this names the conversion.
int GrpcStatusCode(const absl::Status& status);
absl::Status StatusFromBackendError(INFERD_ErrorCode code, std::string message);
INFERD_ErrorCode BackendErrorCode(absl::StatusCode code);

}  // namespace inferd::core
