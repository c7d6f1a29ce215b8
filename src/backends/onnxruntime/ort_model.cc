// SPDX-License-Identifier: Apache-2.0
#include "ort_model.h"

#include "ort_errors.h"
#include "ort_model_file.h"
#include "ort_session_config.h"
#include "ort_signature.h"

namespace inferd::ort {
namespace {

std::vector<TensorConfig> CopyTensors(const INFERD_TensorSpec* specs, size_t count) {
  std::vector<TensorConfig> out;
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const INFERD_TensorSpec& spec = specs[i];
    TensorConfig& tensor = out.emplace_back();
    tensor.name = spec.name != nullptr ? spec.name : "";
    tensor.datatype = spec.datatype;
    if (spec.dims != nullptr) tensor.dims.assign(spec.dims, spec.dims + spec.dims_count);
    if (spec.reshape_dims != nullptr) {
      tensor.reshape.emplace(spec.reshape_dims, spec.reshape_dims + spec.reshape_dims_count);
    }
    tensor.optional = spec.optional != 0;
  }
  return out;
}

}  // namespace

OrtModel::OrtModel(const INFERD_ServerApi& api, std::string name, std::string path)
    : api_(api), name_(std::move(name)), path_(std::move(path)) {}

StatusOr<std::unique_ptr<OrtModel>> OrtModel::Create(const INFERD_ServerApi& api,
                                                     const INFERD_ModelSpec& spec) {
  const std::string name = spec.name != nullptr ? spec.name : "";
  StatusOr<std::string> path = ResolveModelFile(spec.model_path);
  if (!path.ok()) return WithContext(path.status(), "model '" + name + "'");
  StatusOr<SessionConfig> config = ParseSessionConfig(spec);
  if (!config.ok()) return WithContext(config.status(), "model '" + name + "'");

  std::unique_ptr<OrtModel> model(new OrtModel(api, name, std::move(*path)));
  model->max_batch_size_ = spec.max_batch_size;
  model->inputs_ = CopyTensors(spec.inputs, spec.input_count);
  model->outputs_ = CopyTensors(spec.outputs, spec.output_count);
  model->options_ = MakeSessionOptions(*config);
  return model;
}

StatusOr<Ort::Session> OrtModel::CreateSession() const {
  StatusOr<Ort::Session> session = OpenSession(name_, path_, options_);
  if (!session.ok()) return session;
  Status status = CheckConfigAgainstSession(*this, *session);
  if (!status.ok()) return WithContext(status, "model '" + name_ + "'");
  return session;
}

const TensorConfig* OrtModel::FindOutput(std::string_view name) const {
  for (const TensorConfig& output : outputs_) {
    if (output.name == name) return &output;
  }
  return nullptr;
}

}  // namespace inferd::ort
