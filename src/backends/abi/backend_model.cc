// SPDX-License-Identifier: Apache-2.0
#include "backends/abi/backend_model.h"

#include "absl/strings/str_cat.h"
#include "backends/abi/backend_request.h"
#include "core/model_config_json.h"

namespace inferd::backends {

ModelSpecStorage::ModelSpecStorage(const inference::ModelConfig& config, int64_t version,
                                   std::string model_directory, std::string model_path,
                                   int32_t default_intra_op_threads, INFERD_Server* server,
                                   BackendSettings backend_config)
    : name_(config.name()),
      model_directory_(std::move(model_directory)),
      model_path_(std::move(model_path)),
      // As Triton prints it (and GET /v2/models/m/config shows it): Python
      // models index it by field name and expect numbers and defaults.
      config_json_(core::ModelConfigToJson(config)),
      backend_config_(std::move(backend_config)) {
  for (const auto& in : config.input()) {
    inputs_.push_back({in.name(),
                       {in.dims().begin(), in.dims().end()},
                       {in.reshape().shape().begin(), in.reshape().shape().end()},
                       in.has_reshape()});
    input_types_.push_back(in.data_type());
    input_optional_.push_back(in.optional() ? 1 : 0);
  }
  for (const auto& out : config.output()) {
    outputs_.push_back({out.name(),
                        {out.dims().begin(), out.dims().end()},
                        {out.reshape().shape().begin(), out.reshape().shape().end()},
                        out.has_reshape()});
    output_types_.push_back(out.data_type());
    output_optional_.push_back(0);
  }
  AddSequenceTensors(config);
  FillTensors(inputs_, input_specs_, input_optional_, input_types_);
  FillTensors(outputs_, output_specs_, output_optional_, output_types_);
  for (const auto& [key, value] : config.parameters())
    parameters_.emplace_back(key, value.string_value());
  for (const auto& [key, value] : parameters_)
    parameter_specs_.push_back({key.c_str(), value.c_str()});

  spec_.struct_size = sizeof(INFERD_ModelSpec);
  spec_.name = name_.c_str();
  spec_.version = version;
  spec_.model_directory = model_directory_.c_str();
  spec_.model_path = model_path_.c_str();
  spec_.max_batch_size = config.max_batch_size();
  spec_.inputs = input_specs_.data();
  spec_.input_count = input_specs_.size();
  spec_.outputs = output_specs_.data();
  spec_.output_count = output_specs_.size();
  spec_.parameters = parameter_specs_.data();
  spec_.parameter_count = parameter_specs_.size();
  spec_.graph_optimization_level = config.optimization().graph().level();
  spec_.default_intra_op_threads = default_intra_op_threads;
  spec_.config_json = config_json_.c_str();
  spec_.server = server;
  spec_.decoupled = config.model_transaction_policy().decoupled() ? 1 : 0;
  for (const auto& [key, value] : backend_config_)
    backend_config_specs_.push_back({key.c_str(), value.c_str()});
  spec_.backend_config = backend_config_specs_.data();
  spec_.backend_config_count = backend_config_specs_.size();
}

namespace {

// The type of a control input's tensor: CORRID's data_type, or the type of
// its false/true list.
int ControlType(const inference::ModelSequenceBatching::Control& control) {
  if (control.kind() == inference::ModelSequenceBatching::Control::CONTROL_SEQUENCE_CORRID) {
    return control.data_type();
  }
  if (control.int32_false_true_size() > 0) return inference::TYPE_INT32;
  if (control.fp32_false_true_size() > 0) return inference::TYPE_FP32;
  return inference::TYPE_BOOL;
}

}  // namespace

void ModelSpecStorage::AddSequenceTensors(const inference::ModelConfig& config) {
  // The sequence batcher adds control inputs (dims [1]) and implicit state
  // inputs to every request and needs the state outputs produced, so a
  // backend sees them among the model's inputs and outputs
  // (docs/backends.md, "Sequence models").
  const auto& sequence = config.sequence_batching();
  for (const auto& input : sequence.control_input()) {
    if (input.control_size() == 0) continue;
    inputs_.push_back({input.name(), {1}, {}, false});
    input_types_.push_back(ControlType(input.control(0)));
    input_optional_.push_back(0);
  }
  for (const auto& state : sequence.state()) {
    inputs_.push_back({state.input_name(), {state.dims().begin(), state.dims().end()}, {}, false});
    input_types_.push_back(state.data_type());
    input_optional_.push_back(0);
    bool listed = false;
    for (const auto& out : config.output()) listed = listed || out.name() == state.output_name();
    if (listed) continue;
    outputs_.push_back(
        {state.output_name(), {state.dims().begin(), state.dims().end()}, {}, false});
    output_types_.push_back(state.data_type());
    output_optional_.push_back(0);
  }
}

void ModelSpecStorage::FillTensors(std::vector<TensorStorage>& storage,
                                   std::vector<INFERD_TensorSpec>& specs,
                                   std::vector<int>& optional_flags, std::vector<int>& types) {
  for (size_t i = 0; i < storage.size(); ++i) {
    const auto& t = storage[i];
    specs.push_back(INFERD_TensorSpec{
        t.name.c_str(), static_cast<INFERD_DataType>(types[i]), t.dims.data(), t.dims.size(),
        t.has_reshape ? t.reshape.data() : nullptr, t.reshape.size(), optional_flags[i]});
  }
}

absl::StatusOr<INFERD_Signature> DescribeModel(const BackendLibrary& library,
                                               const ModelSpecStorage& spec) {
  if (library.describe() == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "backend '", library.name(),
        "' cannot read model files to complete a config; write a complete config.pbtxt"));
  }
  INFERD_Signature signature;
  auto status = TakeError(library.describe()(ServerApi(), &spec.spec(), &signature));
  if (!status.ok()) return status;
  return signature;
}

absl::StatusOr<std::unique_ptr<BackendModel>> BackendModel::Create(
    std::shared_ptr<BackendLibrary> library, std::unique_ptr<ModelSpecStorage> spec) {
  INFERD_BackendModel* model = nullptr;
  auto status = TakeError(library->model_create()(ServerApi(), &spec->spec(), &model));
  if (!status.ok()) return status;
  if (model == nullptr) {
    return absl::InternalError(absl::StrCat("backend '", library->name(), "' created no model"));
  }
  return std::unique_ptr<BackendModel>(
      new BackendModel(std::move(library), std::move(spec), model));
}

BackendModel::~BackendModel() { library_->model_delete()(model_); }

absl::StatusOr<std::unique_ptr<BackendInstance>> BackendModel::CreateInstance(uint32_t index) {
  INFERD_BackendInstance* instance = nullptr;
  auto status = TakeError(library_->instance_create()(model_, index, &instance));
  if (!status.ok()) return status;
  if (instance == nullptr) {
    return absl::InternalError(
        absl::StrCat("backend '", library_->name(), "' created no instance"));
  }
  return std::make_unique<BackendInstance>(library_, instance);
}

BackendInstance::~BackendInstance() {
  if (library_ != nullptr) library_->instance_delete()(instance_);
}

void BackendInstance::Execute(std::vector<std::unique_ptr<INFERD_Request>> requests) {
  std::vector<INFERD_Request*> raw;
  raw.reserve(requests.size());
  for (auto& request : requests) raw.push_back(request.release());
  library_->execute()(instance_, raw.data(), raw.size());
}

}  // namespace inferd::backends
