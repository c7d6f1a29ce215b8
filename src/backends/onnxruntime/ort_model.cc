// SPDX-License-Identifier: Apache-2.0
#include "ort_model.h"

#include "ort_errors.h"
#include "ort_model_file.h"
#include "ort_session_config.h"
#include "ort_signature.h"

namespace inferd::ort {

using backend_util::CopyTensors;

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
