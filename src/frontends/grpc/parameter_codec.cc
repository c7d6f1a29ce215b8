// SPDX-License-Identifier: Apache-2.0
#include "frontends/grpc/parameter_codec.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace inferd::frontends::grpc {
namespace {

using Choice = inference::InferParameter::ParameterChoiceCase;

constexpr std::string_view kEmptyFinalResponse = "triton_enable_empty_final_response";

// absl::string_view is not std::string_view in Debian's Abseil.
absl::Status TypeError(absl::string_view key, absl::string_view expected) {
  return absl::InvalidArgumentError(
      absl::StrCat("request parameter '", key, "' must be ", expected));
}

bool IsNonNegativeInteger(const inference::InferParameter& p) {
  return (p.parameter_choice_case() == Choice::kInt64Param && p.int64_param() >= 0) ||
         p.parameter_choice_case() == Choice::kUint64Param;
}

// Checks the type of the keys the server interprets; others are free.
absl::Status CheckKnownKey(const std::string& key, const inference::InferParameter& p) {
  const Choice choice = p.parameter_choice_case();
  if (key == "priority" || key == "timeout") {
    if (!IsNonNegativeInteger(p)) return TypeError(key, "a non-negative int64 or a uint64");
  } else if (key == "sequence_id") {
    if (choice != Choice::kInt64Param && choice != Choice::kUint64Param &&
        choice != Choice::kStringParam) {
      return TypeError(key, "an int64, a uint64 or a string");
    }
  } else if (key == "sequence_start" || key == "sequence_end" || key == kEmptyFinalResponse) {
    if (choice != Choice::kBoolParam) return TypeError(key, "a bool");
  } else if (key.starts_with("triton_")) {
    return absl::InvalidArgumentError(
        absl::StrCat("request parameter '", key, "' is reserved (prefix 'triton_')"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<core::Parameter> DecodeParameter(std::string_view key,
                                                const inference::InferParameter& parameter) {
  switch (parameter.parameter_choice_case()) {
    case Choice::kBoolParam:
      return core::Parameter(parameter.bool_param());
    case Choice::kInt64Param:
      return core::Parameter(static_cast<int64_t>(parameter.int64_param()));
    case Choice::kUint64Param:
      return core::Parameter(static_cast<uint64_t>(parameter.uint64_param()));
    case Choice::kDoubleParam:
      return core::Parameter(parameter.double_param());
    case Choice::kStringParam:
      return core::Parameter(parameter.string_param());
    case Choice::PARAMETER_CHOICE_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("parameter '", std::string(key), "' has no value"));
}

absl::StatusOr<core::Parameters> DecodeRequestParameters(const ProtoParameters& parameters) {
  core::Parameters decoded;
  for (const auto& [key, value] : parameters) {
    INFERD_RETURN_IF_ERROR(CheckKnownKey(key, value));
    INFERD_ASSIGN_OR_RETURN(core::Parameter parameter, DecodeParameter(key, value));
    // Only the streaming path cares; the server never sees it.
    if (key == kEmptyFinalResponse) continue;
    decoded.emplace(key, std::move(parameter));
  }
  return decoded;
}

}  // namespace inferd::frontends::grpc
