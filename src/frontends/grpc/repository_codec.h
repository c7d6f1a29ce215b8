// SPDX-License-Identifier: Apache-2.0
// RepositoryModelLoad/UnloadRequest -> what inferd::Server's repository
// extension takes (docs/api.md, repository extension). No I/O.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "grpc_service.pb.h"
#include "server/server.h"

namespace inferd::frontends::grpc {

// model_name and the parameters: `config` must be a string_param (the
// ModelConfig as JSON, passed on unparsed), each `file:<version>/<path>` a
// bytes_param with the raw file (the key loses its "file:" prefix). Other
// parameters are ignored, as Triton does. InvalidArgument for a parameter of
// the wrong type; Unimplemented for a non-empty repository_name (as Triton).
// Whether `config` came with the files is the Server's rule to enforce.
absl::StatusOr<ModelLoadRequest> DecodeModelLoadRequest(
    const inference::RepositoryModelLoadRequest& message);

struct ModelUnloadRequest {
  std::string model;
  bool unload_dependents = false;
};

// model_name and `unload_dependents` (a bool_param; false when absent).
// Errors as for load.
absl::StatusOr<ModelUnloadRequest> DecodeModelUnloadRequest(
    const inference::RepositoryModelUnloadRequest& message);

}  // namespace inferd::frontends::grpc
