// SPDX-License-Identifier: Apache-2.0
// Model repository: the index (optionally only ready models). Explicit
// load/unload is answered 501 until the Server offers it.
#include "absl/strings/str_cat.h"
#include "frontends/http/metadata_json.h"
#include "frontends/http/routes/routes.h"
#include "simdjson.h"

namespace inferd::frontends::http {
namespace {

// Body: empty or {"ready": bool}.
absl::StatusOr<bool> ParseReadyOnly(const std::string& body) {
  if (body.find_first_not_of(" \t\r\n") == std::string::npos) return false;
  simdjson::dom::parser parser;
  if (parser.allocate(std::max<size_t>(body.size(), 64), /*max_depth=*/8) != simdjson::SUCCESS) {
    return absl::ResourceExhaustedError("cannot allocate the JSON parser");
  }
  simdjson::dom::object root;
  if (const auto error = parser.parse(body).get(root); error != simdjson::SUCCESS) {
    return absl::InvalidArgumentError(
        absl::StrCat("repository index body must be a JSON object: ", simdjson::error_message(error)));
  }
  simdjson::dom::element ready;
  if (root["ready"].get(ready) != simdjson::SUCCESS) return false;
  bool value = false;
  if (ready.get(value) != simdjson::SUCCESS) {
    return absl::InvalidArgumentError("repository index 'ready' must be a boolean");
  }
  return value;
}

}  // namespace

HttpReply HandleRepository(const ServingContext& context, const IncomingRequest& request) {
  const RouteMatch& route = request.route;
  if (route.route != Route::kRepositoryIndex) {
    if (!route.repository.empty()) {
      return ErrorReply(absl::UnimplementedError(
          absl::StrCat("repository names are not supported; got '", route.repository, "'")));
    }
    return ErrorReply(absl::UnimplementedError(absl::StrCat(
        "explicit model ", route.route == Route::kRepositoryLoad ? "load" : "unload",
        " is not supported yet (model '", route.model, "')")));
  }
  const absl::StatusOr<bool> ready_only = ParseReadyOnly(*request.body);
  if (!ready_only.ok()) return ErrorReply(ready_only.status());
  return JsonReply(200, RepositoryIndexJson(context.server.RepositoryIndex(*ready_only)));
}

}  // namespace inferd::frontends::http
