// SPDX-License-Identifier: Apache-2.0
// What a TF Serving request names (model, version or version label,
// signature) resolved against the Server, and TF Serving's wording of the
// errors its clients match on. Shared by the REST and gRPC frontends.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "server/server.h"

namespace inferd::frontends::tfserving {

// The one signature every model has: its inputs and outputs as they are.
inline constexpr char kDefaultSignature[] = "serving_default";
inline constexpr char kPredictMethod[] = "tensorflow/serving/predict";

struct ModelTarget {
  std::string model;
  std::string version;  // decimal; empty: the newest ready version
  std::string signature = kDefaultSignature;
};

// Resolves `label` (when not empty) through Server::ResolveVersionLabel, so
// labels mean the same in every frontend. An empty signature is the default
// one; another is FailedPrecondition `Serving signature key "x" not found.`
// (TF Serving's words). InvalidArgument when both a version and a label are
// given or the version is not positive.
absl::StatusOr<ModelTarget> ResolveTarget(const Server& server, std::string_view model,
                                          std::optional<int64_t> version, std::string_view label,
                                          std::string_view signature);

// OK for an empty signature or the default one; FailedPrecondition
// `Serving signature key "x" not found.` (TF Serving's words) otherwise.
absl::Status CheckSignature(std::string_view model, std::string_view signature);

// TF Serving's words for an unknown model or version, which its clients
// match on, before inferd's own message: NotFound becomes "Servable not
// found for request: Latest(m)" (or "Specific(m, 3)"), then "; " and the
// detail. Other errors keep their message.
absl::Status TfServingStatus(const absl::Status& status, const ModelTarget& target);

}  // namespace inferd::frontends::tfserving
