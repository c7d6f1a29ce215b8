// SPDX-License-Identifier: Apache-2.0
// Request bodies of the repository extension (docs/api.md, "Model repository"):
// index, load and unload. Pure parsing, no I/O and no Server calls.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "server/server.h"

namespace inferd::frontends::http {

// POST /v2/repository/index: empty, or {"ready": bool}. Returns `ready`
// (false when absent). InvalidArgument for anything else.
absl::StatusOr<bool> ParseRepositoryIndexBody(std::string_view body);

// POST /v2/repository/models/{model}/load: empty, or
// {"parameters": {"config": str, "file:<version>/<path>": base64, ...}}.
// `config` must be a string (the ModelConfig as JSON, passed on unparsed);
// each `file:` value must be a string of valid base64, which is decoded
// (the key loses its "file:" prefix). Other parameters are ignored, as
// Triton does. InvalidArgument for a body that is not a JSON object, a
// `parameters` that is not an object, a value of the wrong type, bad base64
// or a key given twice. Whether `config` came with the files is the
// Server's rule to enforce.
absl::StatusOr<ModelLoadRequest> ParseModelLoadBody(std::string_view model, std::string_view body);

// POST /v2/repository/models/{model}/unload: empty, or
// {"parameters": {"unload_dependents": bool}}. Returns unload_dependents
// (false when absent); other parameters are ignored. InvalidArgument as for
// load.
absl::StatusOr<bool> ParseModelUnloadBody(std::string_view body);

}  // namespace inferd::frontends::http
