// SPDX-License-Identifier: Apache-2.0
#include "frontends/tfserving/model_target.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "frontends/http/string_view_util.h"

namespace inferd::frontends::tfserving {

using http::AsAbsl;

absl::StatusOr<ModelTarget> ResolveTarget(const Server& server, std::string_view model,
                                          std::optional<int64_t> version, std::string_view label,
                                          std::string_view signature) {
  ModelTarget target;
  target.model = std::string(model);
  if (model.empty()) return absl::InvalidArgumentError("Missing model name in request.");
  INFERD_RETURN_IF_ERROR(CheckSignature(model, signature));
  if (version && !label.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("model '", AsAbsl(model), "': a request names either a version or a label"));
  }
  if (version) {
    if (*version <= 0) {
      return absl::InvalidArgumentError(absl::StrCat("model '", AsAbsl(model), "': version ",
                                                     *version, " is not a positive number"));
    }
    target.version = std::to_string(*version);
  } else if (!label.empty()) {
    INFERD_ASSIGN_OR_RETURN(target.version, server.ResolveVersionLabel(model, label));
  }
  return target;
}

absl::Status CheckSignature(std::string_view model, std::string_view signature) {
  if (signature.empty() || signature == kDefaultSignature) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("Serving signature key \"", AsAbsl(signature), "\" not found. (model '",
                   AsAbsl(model), "' has the one signature \"", kDefaultSignature, "\")"));
}

absl::Status TfServingStatus(const absl::Status& status, const ModelTarget& target) {
  if (!absl::IsNotFound(status)) return status;
  const std::string request =
      target.version.empty() ? absl::StrCat("Latest(", target.model, ")")
                             : absl::StrCat("Specific(", target.model, ", ", target.version, ")");
  const std::string words = absl::StrCat("Servable not found for request: ", request);
  if (absl::StartsWith(status.message(), words)) return status;
  return absl::NotFoundError(absl::StrCat(words, "; ", status.message()));
}

}  // namespace inferd::frontends::tfserving
