// SPDX-License-Identifier: Apache-2.0
// gRPC InferParameter maps -> core::Parameters, applying the request-level
// rules of Triton's gRPC frontend: which oneof each known key may use, and
// that the triton_ prefix is reserved (except triton_enable_empty_final_response).
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "core/infer_request.h"
#include "google/protobuf/map.h"
#include "grpc_service.pb.h"

namespace inferd::frontends::grpc {

using ProtoParameters = google::protobuf::Map<std::string, inference::InferParameter>;

// The value of one parameter with its type. InvalidArgument when no oneof
// member is set.
absl::StatusOr<core::Parameter> DecodeParameter(std::string_view key,
                                                const inference::InferParameter& parameter);

// Request-level parameters of a ModelInferRequest. InvalidArgument for a
// reserved key, a known key of the wrong type (priority: int64 >= 0 or
// uint64; timeout: int64 >= 0 or uint64; sequence_id: int64, uint64 or string;
// sequence_start/_end: bool) or a parameter without a value.
// triton_enable_empty_final_response is accepted and not passed on.
absl::StatusOr<core::Parameters> DecodeRequestParameters(const ProtoParameters& parameters);

}  // namespace inferd::frontends::grpc
