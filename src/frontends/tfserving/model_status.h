// SPDX-License-Identifier: Apache-2.0
// TF Serving's model status (GetModelStatus, REST GET /v1/models/{m}) from
// the Server's repository index: READY is AVAILABLE, a version that failed
// to load or was unloaded is END (with the reason as an error status).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "server/server.h"
#include "tensorflow_serving/apis/get_model_status.pb.h"

namespace inferd::frontends::tfserving {

// `version` empty: every version of the model. NotFound with TF Serving's
// words ("Could not find any versions of model m", "Could not find version
// 3 of model m") when there is none.
absl::StatusOr<tensorflow::serving::GetModelStatusResponse> GetModelStatus(
    const Server& server, const std::string& model, const std::string& version);

}  // namespace inferd::frontends::tfserving
