// SPDX-License-Identifier: Apache-2.0
// Support for the ONNX Runtime backend test: loading the backend library with
// dlopen (as the server does), building INFERD_ModelSpecs, and generating the
// test models with Python's `onnx` package.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "inferd/backend.h"

namespace inferd::testing {

// The backend's entry points, looked up with dlsym.
struct BackendLibrary {
  uint32_t (*api_version)(void) = nullptr;
  INFERD_Error* (*describe_model)(const INFERD_ServerApi*, const INFERD_ModelSpec*,
                                  INFERD_Signature*) = nullptr;
  INFERD_Error* (*model_create)(const INFERD_ServerApi*, const INFERD_ModelSpec*,
                                INFERD_BackendModel**) = nullptr;
  void (*model_delete)(INFERD_BackendModel*) = nullptr;
  INFERD_Error* (*instance_create)(INFERD_BackendModel*, uint32_t,
                                   INFERD_BackendInstance**) = nullptr;
  void (*instance_delete)(INFERD_BackendInstance*) = nullptr;
  void (*instance_execute)(INFERD_BackendInstance*, INFERD_Request**, size_t) = nullptr;
};

// Opens `path` (never closed); sets *error and returns nullopt on failure.
std::optional<BackendLibrary> LoadBackend(const std::string& path, std::string* error);

// Runs `python make_test_models.py dir`; returns false (with its output in
// *log) when python or the onnx package is missing.
bool GenerateModels(const std::string& python, const std::string& script, const std::string& dir,
                    std::string* log);

struct TensorConfig {
  std::string name;
  INFERD_DataType datatype;
  std::vector<int64_t> dims;
  std::optional<std::vector<int64_t>> reshape = std::nullopt;
  bool optional = false;
};

// Owns the strings and arrays an INFERD_ModelSpec points to.
class ModelSpecBuilder {
 public:
  ModelSpecBuilder(std::string name, std::string model_path, int32_t max_batch_size);
  ModelSpecBuilder& Input(TensorConfig tensor);
  ModelSpecBuilder& Output(TensorConfig tensor);
  ModelSpecBuilder& Parameter(std::string key, std::string value);
  ModelSpecBuilder& GraphLevel(int32_t level);
  // Valid until the builder changes or dies.
  const INFERD_ModelSpec* Build();

 private:
  static std::vector<INFERD_TensorSpec> Specs(const std::vector<TensorConfig>& tensors);

  std::string name_, directory_, path_;
  int32_t max_batch_size_;
  int32_t graph_level_ = 0;
  std::vector<TensorConfig> inputs_, outputs_;
  std::vector<std::pair<std::string, std::string>> parameters_;
  std::vector<INFERD_TensorSpec> input_specs_, output_specs_;
  std::vector<INFERD_Parameter> parameter_specs_;
  INFERD_ModelSpec spec_{};
};

}  // namespace inferd::testing
