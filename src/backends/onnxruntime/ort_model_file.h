// SPDX-License-Identifier: Apache-2.0
// Finding a version's ONNX file and opening a session on it. Sessions are
// created from the file path (never from bytes) so that external weight files
// named relative to the model resolve against its folder.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <string>

#include "status.h"

namespace inferd::ort {

// `model_path` is either the .onnx file or a folder holding model.onnx (as
// Triton allows, for models with external data). NOT_FOUND when neither.
StatusOr<std::string> ResolveModelFile(const char* model_path);

// Loads `path` into a new session of the shared Env. Load failures (corrupt
// or invalid models, missing external data) come back as errors naming
// `model_name` and the file; never throws.
StatusOr<Ort::Session> OpenSession(const std::string& model_name, const std::string& path,
                                   const Ort::SessionOptions& options);

}  // namespace inferd::ort
