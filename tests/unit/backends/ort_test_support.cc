// SPDX-License-Identifier: Apache-2.0
#include "ort_test_support.h"

#include <dlfcn.h>

#include <array>
#include <cstdio>
#include <memory>

namespace inferd::testing {
namespace {

template <typename Fn>
bool Find(void* handle, const char* name, Fn& fn, std::string* error) {
  fn = reinterpret_cast<Fn>(dlsym(handle, name));
  if (fn == nullptr) *error = std::string("missing symbol ") + name;
  return fn != nullptr;
}

}  // namespace

std::optional<BackendLibrary> LoadBackend(const std::string& path, std::string* error) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    *error = dlerror();
    return std::nullopt;
  }
  BackendLibrary lib;
  if (!Find(handle, "INFERD_BackendApiVersion", lib.api_version, error) ||
      !Find(handle, "INFERD_BackendDescribeModel", lib.describe_model, error) ||
      !Find(handle, "INFERD_BackendModelCreate", lib.model_create, error) ||
      !Find(handle, "INFERD_BackendModelDelete", lib.model_delete, error) ||
      !Find(handle, "INFERD_BackendInstanceCreate", lib.instance_create, error) ||
      !Find(handle, "INFERD_BackendInstanceDelete", lib.instance_delete, error) ||
      !Find(handle, "INFERD_BackendInstanceExecute", lib.instance_execute, error)) {
    return std::nullopt;
  }
  return lib;
}

bool GenerateModels(const std::string& python, const std::string& script, const std::string& dir,
                    std::string* log) {
  const std::string command = "'" + python + "' '" + script + "' '" + dir + "' 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), &pclose);
  if (pipe == nullptr) {
    *log = "cannot run " + command;
    return false;
  }
  std::array<char, 256> chunk;
  size_t n = 0;
  while ((n = fread(chunk.data(), 1, chunk.size(), pipe.get())) > 0) log->append(chunk.data(), n);
  return pclose(pipe.release()) == 0;
}

ModelSpecBuilder::ModelSpecBuilder(std::string name, std::string model_path, int32_t max_batch_size)
    : name_(std::move(name)), path_(std::move(model_path)), max_batch_size_(max_batch_size) {
  directory_ = path_.substr(0, path_.find_last_of('/'));
}

ModelSpecBuilder& ModelSpecBuilder::Input(TensorConfig tensor) {
  inputs_.push_back(std::move(tensor));
  return *this;
}

ModelSpecBuilder& ModelSpecBuilder::Output(TensorConfig tensor) {
  outputs_.push_back(std::move(tensor));
  return *this;
}

ModelSpecBuilder& ModelSpecBuilder::Parameter(std::string key, std::string value) {
  parameters_.emplace_back(std::move(key), std::move(value));
  return *this;
}

ModelSpecBuilder& ModelSpecBuilder::GraphLevel(int32_t level) {
  graph_level_ = level;
  return *this;
}

std::vector<INFERD_TensorSpec> ModelSpecBuilder::Specs(const std::vector<TensorConfig>& tensors) {
  std::vector<INFERD_TensorSpec> specs;
  for (const TensorConfig& t : tensors) {
    specs.push_back({t.name.c_str(), t.datatype, t.dims.data(), t.dims.size(),
                     t.reshape ? t.reshape->data() : nullptr, t.reshape ? t.reshape->size() : 0,
                     t.optional ? 1 : 0});
  }
  return specs;
}

const INFERD_ModelSpec* ModelSpecBuilder::Build() {
  input_specs_ = Specs(inputs_);
  output_specs_ = Specs(outputs_);
  parameter_specs_.clear();
  for (const auto& [key, value] : parameters_)
    parameter_specs_.push_back({key.c_str(), value.c_str()});
  spec_ = INFERD_ModelSpec{};
  spec_.struct_size = sizeof(INFERD_ModelSpec);
  spec_.name = name_.c_str();
  spec_.version = 1;
  spec_.model_directory = directory_.c_str();
  spec_.model_path = path_.c_str();
  spec_.max_batch_size = max_batch_size_;
  spec_.inputs = input_specs_.data();
  spec_.input_count = input_specs_.size();
  spec_.outputs = output_specs_.data();
  spec_.output_count = output_specs_.size();
  spec_.parameters = parameter_specs_.data();
  spec_.parameter_count = parameter_specs_.size();
  spec_.graph_optimization_level = graph_level_;
  spec_.default_intra_op_threads = 1;
  spec_.config_json = "{}";
  return &spec_;
}

}  // namespace inferd::testing

// LeakSanitizer hook (unused without -fsanitize): ONNX Runtime 1.30 itself
// leaks one small allocation per process, even with its Env destroyed.
extern "C" const char* __lsan_default_suppressions() { return "leak:libonnxruntime.so"; }
