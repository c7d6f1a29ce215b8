// SPDX-License-Identifier: Apache-2.0
// TF Serving's REST paths: GET /v1/models/{m}[/versions/{v}|/labels/{l}]
// (status), the same with /metadata, and POST
// /v1/models/{m}[/versions/{v}|/labels/{l}]:predict (or :classify,
// :regress). No I/O; unit-tested on its own.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace inferd::frontends::tfserving {

enum class RestAction { kStatus, kMetadata, kPredict, kClassify, kRegress };

struct RestRoute {
  RestAction action = RestAction::kStatus;
  std::string model;
  std::optional<int64_t> version;
  std::string label;  // empty: none
};

// NotFound "Not Found" for a path outside /v1/; InvalidArgument "Malformed
// request: <method> <path>" (TF Serving's words) for a /v1/ path or method
// that matches no route. The query string is ignored.
absl::StatusOr<RestRoute> MatchRestRoute(std::string_view method, std::string_view target);

}  // namespace inferd::frontends::tfserving
