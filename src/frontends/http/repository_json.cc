// SPDX-License-Identifier: Apache-2.0
#include "frontends/http/repository_json.h"

#include <algorithm>
#include <optional>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "frontends/http/string_view_util.h"
#include "simdjson.h"

namespace inferd::frontends::http {
namespace {

// Deep enough for any parameter value a client may send; unknown ones are
// skipped whatever they hold.
constexpr size_t kMaxDepth = 64;
constexpr std::string_view kFilePrefix = "file:";

bool IsBlank(std::string_view body) {
  return body.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

// Parses `body` into `parser` and returns its root object, `what` naming the
// request in errors.
absl::StatusOr<simdjson::dom::object> ParseObject(simdjson::dom::parser& parser,
                                                  std::string_view body, std::string_view what) {
  if (parser.allocate(std::max<size_t>(body.size(), 64), kMaxDepth) != simdjson::SUCCESS) {
    return absl::ResourceExhaustedError("cannot allocate the JSON parser");
  }
  simdjson::dom::object root;
  if (const auto error = parser.parse(body.data(), body.size()).get(root);
      error != simdjson::SUCCESS) {
    return absl::InvalidArgumentError(absl::StrCat(
        AsAbsl(what), " body must be a JSON object: ", simdjson::error_message(error)));
  }
  return root;
}

// The "parameters" member of `root`, or nullopt when there is none.
absl::StatusOr<std::optional<simdjson::dom::object>> Parameters(simdjson::dom::object root,
                                                                std::string_view what) {
  simdjson::dom::element element;
  if (root["parameters"].get(element) != simdjson::SUCCESS) return std::nullopt;
  simdjson::dom::object parameters;
  if (element.get(parameters) != simdjson::SUCCESS) {
    return absl::InvalidArgumentError(
        absl::StrCat(AsAbsl(what), " 'parameters' must be a JSON object"));
  }
  return parameters;
}

}  // namespace

absl::StatusOr<bool> ParseRepositoryIndexBody(std::string_view body) {
  if (IsBlank(body)) return false;
  simdjson::dom::parser parser;
  absl::StatusOr<simdjson::dom::object> root = ParseObject(parser, body, "repository index");
  if (!root.ok()) return root.status();
  simdjson::dom::element ready;
  if ((*root)["ready"].get(ready) != simdjson::SUCCESS) return false;
  bool value = false;
  if (ready.get(value) != simdjson::SUCCESS) {
    return absl::InvalidArgumentError("repository index 'ready' must be a boolean");
  }
  return value;
}

absl::StatusOr<ModelLoadRequest> ParseModelLoadBody(std::string_view model, std::string_view body) {
  ModelLoadRequest request;
  request.model = std::string(model);
  if (IsBlank(body)) return request;
  simdjson::dom::parser parser;
  absl::StatusOr<simdjson::dom::object> root = ParseObject(parser, body, "model load");
  if (!root.ok()) return root.status();
  absl::StatusOr<std::optional<simdjson::dom::object>> parameters = Parameters(*root, "model load");
  if (!parameters.ok()) return parameters.status();
  if (!parameters->has_value()) return request;
  bool have_config = false;
  for (const auto field : **parameters) {
    const std::string_view key = field.key;
    if (key == "config") {
      std::string_view config;
      if (field.value.get(config) != simdjson::SUCCESS) {
        return absl::InvalidArgumentError(
            "model load parameter 'config' must be a string holding the model configuration as "
            "JSON");
      }
      if (have_config) {
        return absl::InvalidArgumentError("model load parameter 'config' is given twice");
      }
      have_config = true;
      request.config_json = std::string(config);
    } else if (key.substr(0, kFilePrefix.size()) == kFilePrefix) {
      std::string_view encoded;
      if (field.value.get(encoded) != simdjson::SUCCESS) {
        return absl::InvalidArgumentError(
            absl::StrCat("model load parameter '", AsAbsl(key), "' must be a base64 string"));
      }
      std::string decoded;
      if (!absl::Base64Unescape(AsAbsl(encoded), &decoded)) {
        return absl::InvalidArgumentError(
            absl::StrCat("model load parameter '", AsAbsl(key), "' is not valid base64"));
      }
      if (!request.files.emplace(std::string(key.substr(kFilePrefix.size())), std::move(decoded))
               .second) {
        return absl::InvalidArgumentError(
            absl::StrCat("model load parameter '", AsAbsl(key), "' is given twice"));
      }
    }
    // Any other parameter is ignored, as Triton does.
  }
  return request;
}

absl::StatusOr<bool> ParseModelUnloadBody(std::string_view body) {
  if (IsBlank(body)) return false;
  simdjson::dom::parser parser;
  absl::StatusOr<simdjson::dom::object> root = ParseObject(parser, body, "model unload");
  if (!root.ok()) return root.status();
  absl::StatusOr<std::optional<simdjson::dom::object>> parameters =
      Parameters(*root, "model unload");
  if (!parameters.ok()) return parameters.status();
  if (!parameters->has_value()) return false;
  simdjson::dom::element element;
  if ((**parameters)["unload_dependents"].get(element) != simdjson::SUCCESS) return false;
  bool value = false;
  if (element.get(value) != simdjson::SUCCESS) {
    return absl::InvalidArgumentError(
        "model unload parameter 'unload_dependents' must be a boolean");
  }
  return value;
}

}  // namespace inferd::frontends::http
