// SPDX-License-Identifier: Apache-2.0
#include "ort_model_file.h"

#include <filesystem>
#include <system_error>

#include "ort_env.h"
#include "ort_errors.h"

namespace inferd::ort {

StatusOr<std::string> ResolveModelFile(const char* model_path) {
  if (model_path == nullptr || *model_path == '\0') {
    return Status::InvalidArg("no model path given");
  }
  std::error_code ec;
  std::filesystem::path path(model_path);
  if (std::filesystem::is_directory(path, ec)) path /= "model.onnx";
  if (!std::filesystem::is_regular_file(path, ec)) {
    return Status(INFERD_ERROR_NOT_FOUND, "model file '" + path.string() + "' not found");
  }
  return path.string();
}

StatusOr<Ort::Session> OpenSession(const std::string& model_name, const std::string& path,
                                   const Ort::SessionOptions& options) {
  std::optional<Ort::Session> session;
  Status status = CatchAll([&] {
    session.emplace(SharedEnv(), path.c_str(), options);
    return Status();
  });
  if (!status.ok()) {
    return WithContext(status, "model '" + model_name + "': failed to load '" + path + "'");
  }
  return std::move(*session);
}

}  // namespace inferd::ort
