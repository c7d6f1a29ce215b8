// SPDX-License-Identifier: Apache-2.0
// C++ owners for a backend's model and instance objects. BackendModel keeps
// the INFERD_ModelSpec (and every string it points to) alive for as long as
// the backend may read it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/abi/backend_library.h"
#include "backends/abi/server_api.h"
#include "inferd/backend.h"
#include "model_config.pb.h"

namespace inferd::backends {

class BackendInstance;

// A backend's --backend-config settings (key, value), in command-line order.
using BackendSettings = std::vector<std::pair<std::string, std::string>>;

// Storage behind an INFERD_ModelSpec built from a ModelConfig.
class ModelSpecStorage {
 public:
  ModelSpecStorage(const inference::ModelConfig& config, int64_t version,
                   std::string model_directory, std::string model_path,
                   int32_t default_intra_op_threads, INFERD_Server* server = nullptr,
                   BackendSettings backend_config = {});
  ModelSpecStorage(const ModelSpecStorage&) = delete;
  ModelSpecStorage& operator=(const ModelSpecStorage&) = delete;
  const INFERD_ModelSpec& spec() const { return spec_; }

 private:
  struct TensorStorage {
    std::string name;
    std::vector<int64_t> dims;
    std::vector<int64_t> reshape;
    bool has_reshape = false;
  };
  void FillTensors(std::vector<TensorStorage>& storage, std::vector<INFERD_TensorSpec>& specs,
                   std::vector<int>& optional_flags, std::vector<int>& types);
  // A sequence model's control and state inputs and its state outputs.
  void AddSequenceTensors(const inference::ModelConfig& config);

  std::string name_, model_directory_, model_path_, config_json_;
  std::vector<TensorStorage> inputs_, outputs_;
  std::vector<int> input_types_, output_types_, input_optional_, output_optional_;
  std::vector<INFERD_TensorSpec> input_specs_, output_specs_;
  std::vector<std::pair<std::string, std::string>> parameters_;
  std::vector<INFERD_Parameter> parameter_specs_;
  BackendSettings backend_config_;
  std::vector<INFERD_Parameter> backend_config_specs_;
  INFERD_ModelSpec spec_{};
};

// Asks the backend what the model file declares (for auto-complete).
absl::StatusOr<INFERD_Signature> DescribeModel(const BackendLibrary& library,
                                               const ModelSpecStorage& spec);

class BackendModel {
 public:
  static absl::StatusOr<std::unique_ptr<BackendModel>> Create(
      std::shared_ptr<BackendLibrary> library, std::unique_ptr<ModelSpecStorage> spec);
  ~BackendModel();
  BackendModel(const BackendModel&) = delete;
  BackendModel& operator=(const BackendModel&) = delete;

  absl::StatusOr<std::unique_ptr<BackendInstance>> CreateInstance(uint32_t index);
  const BackendLibrary& library() const { return *library_; }

 private:
  BackendModel(std::shared_ptr<BackendLibrary> library, std::unique_ptr<ModelSpecStorage> spec,
               INFERD_BackendModel* model)
      : library_(std::move(library)), spec_(std::move(spec)), model_(model) {}

  std::shared_ptr<BackendLibrary> library_;
  std::unique_ptr<ModelSpecStorage> spec_;
  INFERD_BackendModel* const model_;
};

// One execution instance. Execute is called from one thread at a time.
class BackendInstance {
 public:
  BackendInstance(std::shared_ptr<BackendLibrary> library, INFERD_BackendInstance* instance)
      : library_(std::move(library)), instance_(instance) {}
  virtual ~BackendInstance();
  BackendInstance(const BackendInstance&) = delete;
  BackendInstance& operator=(const BackendInstance&) = delete;

  // Ownership of every request passes to the backend, which completes each.
  // Virtual only so that scheduler tests and benchmarks can stand in for a
  // backend (one indirect call per batch).
  virtual void Execute(std::vector<std::unique_ptr<INFERD_Request>> requests);

 protected:
  BackendInstance() : instance_(nullptr) {}  // for test doubles: no library

 private:
  std::shared_ptr<BackendLibrary> library_;
  INFERD_BackendInstance* const instance_;
};

}  // namespace inferd::backends
