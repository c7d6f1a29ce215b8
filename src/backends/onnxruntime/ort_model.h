// SPDX-License-Identifier: Apache-2.0
// One loaded model version of the ONNX Runtime backend: an owned copy of the
// parts of INFERD_ModelSpec the instances need, plus the session options they
// all share. Instances each create their own session from it.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inferd/backend.h"
#include "shape_util.h"
#include "status.h"

namespace inferd::ort {

using backend_util::TensorConfig;

// Immutable after Create; shared read-only by the instances, which are
// deleted before it. `api` is borrowed and outlives the model.
class OrtModel {
 public:
  static StatusOr<std::unique_ptr<OrtModel>> Create(const INFERD_ServerApi& api,
                                                    const INFERD_ModelSpec& spec);

  // Loads a fresh session (one per instance) and checks it against the
  // config: every configured tensor must exist in the model with its type.
  StatusOr<Ort::Session> CreateSession() const;

  const INFERD_ServerApi& api() const { return api_; }
  const std::string& name() const { return name_; }
  bool batching() const { return max_batch_size_ > 0; }
  const std::vector<TensorConfig>& inputs() const { return inputs_; }
  const std::vector<TensorConfig>& outputs() const { return outputs_; }
  // nullptr when `name` is not a configured output.
  const TensorConfig* FindOutput(std::string_view name) const;

 private:
  OrtModel(const INFERD_ServerApi& api, std::string name, std::string path);

  const INFERD_ServerApi& api_;
  const std::string name_;
  const std::string path_;  // the .onnx file
  int32_t max_batch_size_ = 0;
  std::vector<TensorConfig> inputs_;
  std::vector<TensorConfig> outputs_;
  Ort::SessionOptions options_{nullptr};
};

}  // namespace inferd::ort
