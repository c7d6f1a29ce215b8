// SPDX-License-Identifier: Apache-2.0
#include "frontends/http/json_params.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "frontends/http/string_view_util.h"

namespace inferd::frontends::http {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

absl::StatusOr<core::Parameter> ToParameter(element value, std::string_view key) {
  switch (value.type()) {
    case element_type::STRING:
      return core::Parameter(std::string(value.get_string().value_unsafe()));
    case element_type::BOOL:
      return core::Parameter(value.get_bool().value_unsafe());
    case element_type::INT64:
      return core::Parameter(value.get_int64().value_unsafe());
    case element_type::UINT64:
      return core::Parameter(value.get_uint64().value_unsafe());
    case element_type::DOUBLE:
      return core::Parameter(value.get_double().value_unsafe());
    default:
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("parameter '", AsAbsl(key), "' must be a string, a number or a boolean"));
}

}  // namespace

absl::StatusOr<core::Parameters> ParseRequestParameters(element params, bool& binary_data_output) {
  simdjson::dom::object fields;
  if (params.get(fields) != simdjson::SUCCESS) {
    return absl::InvalidArgumentError("request 'parameters' must be an object");
  }
  core::Parameters out;
  for (const auto field : fields) {
    const std::string_view key = field.key;
    if (absl::StartsWith(AsAbsl(key), "triton_")) {
      return absl::InvalidArgumentError(absl::StrCat(
          "parameter '", AsAbsl(key), "' is reserved: the 'triton_' prefix is for the server"));
    }
    if (key == "binary_data_output") {
      if (field.value.get(binary_data_output) != simdjson::SUCCESS) {
        return absl::InvalidArgumentError("parameter 'binary_data_output' must be a boolean");
      }
      continue;
    }
    auto value = ToParameter(field.value, key);
    if (!value.ok()) return value.status();
    if (!out.emplace(std::string(key), *std::move(value)).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("parameter '", AsAbsl(key), "' is given twice"));
    }
  }
  return out;
}

}  // namespace inferd::frontends::http
