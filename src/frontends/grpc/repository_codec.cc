// SPDX-License-Identifier: Apache-2.0
#include "frontends/grpc/repository_codec.h"

#include <string_view>

#include "absl/strings/str_cat.h"

namespace inferd::frontends::grpc {
namespace {

using Choice = inference::ModelRepositoryParameter::ParameterChoiceCase;

constexpr std::string_view kFilePrefix = "file:";

absl::Status CheckRepositoryName(const std::string& repository, std::string_view what) {
  if (repository.empty()) return absl::OkStatus();
  return absl::UnimplementedError(absl::StrCat("'repository_name' is not supported in model ",
                                               absl::string_view(what.data(), what.size()),
                                               "; got '", repository, "'"));
}

absl::Status WrongType(std::string_view action, const std::string& key, std::string_view expected) {
  return absl::InvalidArgumentError(absl::StrCat(
      "invalid value type for model ", absl::string_view(action.data(), action.size()),
      " parameter '", key, "', expected ", absl::string_view(expected.data(), expected.size())));
}

}  // namespace

absl::StatusOr<ModelLoadRequest> DecodeModelLoadRequest(
    const inference::RepositoryModelLoadRequest& message) {
  if (absl::Status status = CheckRepositoryName(message.repository_name(), "load"); !status.ok()) {
    return status;
  }
  ModelLoadRequest request;
  request.model = message.model_name();
  for (const auto& [key, parameter] : message.parameters()) {
    if (key == "config") {
      if (parameter.parameter_choice_case() != Choice::kStringParam) {
        return WrongType("load", key, "string_param");
      }
      request.config_json = parameter.string_param();
    } else if (std::string_view(key).substr(0, kFilePrefix.size()) == kFilePrefix) {
      if (parameter.parameter_choice_case() != Choice::kBytesParam) {
        return WrongType("load", key, "bytes_param");
      }
      // A protobuf map has unique keys: no duplicates to check.
      request.files.emplace(key.substr(kFilePrefix.size()), parameter.bytes_param());
    }
    // Any other parameter is ignored, as Triton does.
  }
  return request;
}

absl::StatusOr<ModelUnloadRequest> DecodeModelUnloadRequest(
    const inference::RepositoryModelUnloadRequest& message) {
  if (absl::Status status = CheckRepositoryName(message.repository_name(), "unload");
      !status.ok()) {
    return status;
  }
  ModelUnloadRequest request;
  request.model = message.model_name();
  const auto it = message.parameters().find("unload_dependents");
  if (it != message.parameters().end()) {
    if (it->second.parameter_choice_case() != Choice::kBoolParam) {
      return WrongType("unload", it->first, "bool_param");
    }
    request.unload_dependents = it->second.bool_param();
  }
  return request;
}

}  // namespace inferd::frontends::grpc
