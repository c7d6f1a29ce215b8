// SPDX-License-Identifier: Apache-2.0
#include "frontends/tfserving/model_status.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace inferd::frontends::tfserving {
namespace {

using tensorflow::serving::ModelVersionStatus;

ModelVersionStatus::State StateOf(const std::string& state) {
  if (state == "READY") return ModelVersionStatus::AVAILABLE;
  if (state == "LOADING") return ModelVersionStatus::LOADING;
  if (state == "UNLOADING") return ModelVersionStatus::UNLOADING;
  return ModelVersionStatus::END;  // failed to load, or unloaded
}

}  // namespace

absl::StatusOr<tensorflow::serving::GetModelStatusResponse> GetModelStatus(
    const Server& server, const std::string& model, const std::string& version) {
  tensorflow::serving::GetModelStatusResponse response;
  for (const ModelIndexEntry& entry : server.RepositoryIndex(/*ready_only=*/false)) {
    if (entry.name != model || entry.version.empty()) continue;
    if (!version.empty() && entry.version != version) continue;
    int64_t number = 0;
    if (!absl::SimpleAtoi(entry.version, &number)) continue;
    ModelVersionStatus* status = response.add_model_version_status();
    status->set_version(number);
    status->set_state(StateOf(entry.state));
    // An unloaded version is END with OK; one that failed says why.
    if (entry.state == "UNAVAILABLE" && !entry.reason.empty()) {
      status->mutable_status()->set_error_code(tensorflow::error::UNKNOWN);
      status->mutable_status()->set_error_message(entry.reason);
    } else {
      status->mutable_status()->set_error_code(tensorflow::error::OK);
    }
  }
  if (response.model_version_status_size() == 0) {
    return absl::NotFoundError(
        version.empty() ? absl::StrCat("Could not find any versions of model ", model)
                        : absl::StrCat("Could not find version ", version, " of model ", model));
  }
  return response;
}

}  // namespace inferd::frontends::tfserving
