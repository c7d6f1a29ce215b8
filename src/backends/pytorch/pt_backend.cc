// SPDX-License-Identifier: Apache-2.0
// Everything of the LibTorch backend that needs LibTorch (see pt_backend.h).
#include "pt_backend.h"

#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>
#include <torch/script.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pt_support.h"

namespace inferd::pt {

struct PtModel {
  PtModel(const INFERD_ServerApi& api_in) : api(api_in) {}

  const INFERD_ServerApi& api;
  std::string name;
  std::string path;  // the model.pt file
  int32_t max_batch_size = 0;
  std::vector<TensorConfig> inputs;
  std::vector<TensorConfig> outputs;
  TorchParameters params;
  // The module loaded at model creation; the first instance takes it.
  torch::jit::Module module;
  std::atomic<bool> module_taken{false};
  // Input binding: per config input, the forward() argument it is passed as
  // (by keyword), or its key in the one Dict[str, Tensor] argument.
  bool dict_input = false;
  std::string dict_argument;
  std::vector<std::string> input_arguments;
  // Output binding: per config output, its position in a returned tuple or
  // list (a returned dict is looked up by the output's name).
  std::vector<size_t> output_positions;

  bool batching() const { return max_batch_size > 0; }
  const TensorConfig* FindOutput(const std::string& output) const {
    for (const TensorConfig& config : outputs) {
      if (config.name == output) return &config;
    }
    return nullptr;
  }
};

struct PtInstance {
  const PtModel& model;
  torch::jit::Module module;
};

namespace {

// ---- Errors and types ---------------------------------------------------------

template <typename F>
Status CatchAll(INFERD_ErrorCode code, F&& body) noexcept {
  try {
    return body();
  } catch (const c10::Error& e) {
    return Status(code, std::string("libtorch: ") + e.what_without_backtrace());
  } catch (const std::exception& e) {
    return Status(code, std::string("libtorch: ") + e.what());
  } catch (...) {
    return Status(code, "libtorch: unknown exception");
  }
}

std::optional<at::ScalarType> ToTorchType(INFERD_DataType datatype) {
  switch (datatype) {
    case INFERD_TYPE_BOOL:
      return at::kBool;
    case INFERD_TYPE_UINT8:
      return at::kByte;
    case INFERD_TYPE_INT8:
      return at::kChar;
    case INFERD_TYPE_INT16:
      return at::kShort;
    case INFERD_TYPE_INT32:
      return at::kInt;
    case INFERD_TYPE_INT64:
      return at::kLong;
    case INFERD_TYPE_FP16:
      return at::kHalf;
    case INFERD_TYPE_FP32:
      return at::kFloat;
    case INFERD_TYPE_FP64:
      return at::kDouble;
    case INFERD_TYPE_BF16:
      return at::kBFloat16;
    default:
      return std::nullopt;  // UINT16/32/64 and BYTES: no LibTorch 1.13 type
  }
}

std::optional<INFERD_DataType> FromTorchType(at::ScalarType type) {
  switch (type) {
    case at::kBool:
      return INFERD_TYPE_BOOL;
    case at::kByte:
      return INFERD_TYPE_UINT8;
    case at::kChar:
      return INFERD_TYPE_INT8;
    case at::kShort:
      return INFERD_TYPE_INT16;
    case at::kInt:
      return INFERD_TYPE_INT32;
    case at::kLong:
      return INFERD_TYPE_INT64;
    case at::kHalf:
      return INFERD_TYPE_FP16;
    case at::kFloat:
      return INFERD_TYPE_FP32;
    case at::kDouble:
      return INFERD_TYPE_FP64;
    case at::kBFloat16:
      return INFERD_TYPE_BF16;
    default:
      return std::nullopt;
  }
}

Status CheckTypes(const std::vector<TensorConfig>& tensors, const char* kind) {
  for (const TensorConfig& tensor : tensors) {
    if (ToTorchType(tensor.datatype)) continue;
    std::string why =
        tensor.datatype == INFERD_TYPE_BYTES
            ? "BYTES (strings) are not supported by the pytorch backend"
            : std::string(DataTypeName(tensor.datatype)) + " has no LibTorch 1.13 tensor type";
    return Status::Unsupported(std::string(kind) + " '" + tensor.name + "': data type " + why);
  }
  return Status();
}

// ---- Binding (docs/backends.md, LibTorch) -------------------------------------------

Status BindInputs(PtModel& model) {
  c10::optional<torch::jit::Method> forward = model.module.find_method("forward");
  if (!forward) return Status::InvalidArg("the TorchScript module has no forward() method");
  const std::vector<c10::Argument>& schema = forward->function().getSchema().arguments();
  std::vector<std::string> arguments;  // without `self`
  for (size_t i = 1; i < schema.size(); ++i) arguments.push_back(schema[i].name());

  if (arguments.size() == 1 && schema[1].type()->kind() == c10::TypeKind::DictType) {
    model.dict_input = true;
    model.dict_argument = arguments[0];
    for (const TensorConfig& input : model.inputs) model.input_arguments.push_back(input.name);
    return Status();
  }
  const auto is_argument = [&](const TensorConfig& input) {
    return std::find(arguments.begin(), arguments.end(), input.name) != arguments.end();
  };
  const auto is_indexed = [](const TensorConfig& input) {
    return IndexOfName(input.name).has_value();
  };
  if (std::all_of(model.inputs.begin(), model.inputs.end(), is_argument)) {
    for (const TensorConfig& input : model.inputs) model.input_arguments.push_back(input.name);
    return Status();
  }
  if (std::all_of(model.inputs.begin(), model.inputs.end(), is_indexed)) {
    for (const TensorConfig& input : model.inputs) {
      const size_t index = *IndexOfName(input.name);
      if (index >= arguments.size()) {
        return Status::InvalidArg("input '" + input.name + "': forward() takes only " +
                                  std::to_string(arguments.size()) + " arguments");
      }
      model.input_arguments.push_back(arguments[index]);
    }
  } else {
    // Strict config order.
    if (model.inputs.size() > arguments.size()) {
      return Status::InvalidArg("the config has " + std::to_string(model.inputs.size()) +
                                " inputs but forward() takes only " +
                                std::to_string(arguments.size()) + " arguments");
    }
    for (size_t i = 0; i < model.inputs.size(); ++i) {
      model.input_arguments.push_back(arguments[i]);
    }
  }
  for (size_t i = 0; i < model.input_arguments.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (model.input_arguments[i] == model.input_arguments[j]) {
        return Status::InvalidArg("inputs '" + model.inputs[j].name + "' and '" +
                                  model.inputs[i].name + "' bind the same forward() argument");
      }
    }
  }
  return Status();
}

void BindOutputs(PtModel& model) {
  const auto is_indexed = [](const TensorConfig& output) {
    return IndexOfName(output.name).has_value();
  };
  const bool indexed = std::all_of(model.outputs.begin(), model.outputs.end(), is_indexed);
  for (size_t i = 0; i < model.outputs.size(); ++i) {
    model.output_positions.push_back(indexed ? *IndexOfName(model.outputs[i].name) : i);
  }
}

// ---- Execution ----------------------------------------------------------------

// Sets the intra-op thread count for this (the instance's) thread; see
// pt_backend.h.
void ApplyIntraOpThreads(int threads) {
  if (threads > 0 && at::get_num_threads() != threads) at::set_num_threads(threads);
}

// Always a copy: a TorchScript model may modify its inputs in place, and the
// request's memory is the server's (possibly read-only shared memory).
at::Tensor MakeInput(const TensorConfig& config, const GatheredInput& input) {
  at::Tensor tensor =
      at::empty(input.shape, at::TensorOptions().dtype(*ToTorchType(config.datatype)));
  auto* out = static_cast<char*>(tensor.data_ptr());
  for (const RequestTensor& part : input.parts) {
    if (part.byte_size == 0) continue;
    std::memcpy(out, part.data, part.byte_size);
    out += part.byte_size;
  }
  return tensor;
}

// Output `name` of a forward() result.
StatusOr<at::Tensor> SelectOutput(const PtModel& model, const c10::IValue& result,
                                  const std::string& name) {
  const TensorConfig* config = model.FindOutput(name);
  if (config == nullptr) return Status::InvalidArg("unknown output '" + name + "'");
  const size_t position =
      model.output_positions[static_cast<size_t>(config - model.outputs.data())];
  c10::IValue value;
  if (result.isGenericDict()) {
    const c10::Dict<c10::IValue, c10::IValue> dict = result.toGenericDict();
    auto it = dict.find(c10::IValue(name));
    if (it == dict.end()) {
      return Status::Internal("output '" + name + "': not a key of the returned dict");
    }
    value = it->value();
  } else if (result.isTuple() || result.isList()) {
    std::vector<c10::IValue> elements;
    if (result.isTuple()) {
      const auto& tuple = result.toTupleRef().elements();
      elements.assign(tuple.begin(), tuple.end());
    } else {
      const c10::ArrayRef<c10::IValue> list = result.toListRef();
      elements.assign(list.begin(), list.end());
    }
    if (position >= elements.size()) {
      return Status::Internal("output '" + name + "': the model returned only " +
                              std::to_string(elements.size()) + " values");
    }
    value = elements[position];
  } else if (result.isTensor()) {
    if (position != 0) {
      return Status::Internal("output '" + name + "': the model returned a single tensor");
    }
    value = result;
  } else {
    return Status::Internal("forward() returned " + result.tagKind() +
                            ", not a tensor, tuple, list or dict");
  }
  if (!value.isTensor()) {
    return Status::Internal("output '" + name + "': is " + value.tagKind() + ", not a tensor");
  }
  return value.toTensor();
}

// Keeps an output tensor alive while the server still sends it; each
// response output holds one reference.
class SharedTensor {
 public:
  explicit SharedTensor(at::Tensor tensor) : tensor_(std::move(tensor)) {}
  void Ref() { refs_.fetch_add(1, std::memory_order_relaxed); }
  static void Unref(void* self) {
    auto* shared = static_cast<SharedTensor*>(self);
    if (shared->refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete shared;
  }

 private:
  at::Tensor tensor_;
  std::atomic<int> refs_{1};
};

Status WriteOutput(const PtModel& model, RequestBatch& batch,
                   const std::vector<int64_t>& batch_sizes, const std::string& name,
                   at::Tensor tensor, const std::vector<bool>& wanted) {
  const TensorConfig* config = model.FindOutput(name);
  tensor = tensor.to(at::kCPU).contiguous();
  const std::optional<INFERD_DataType> datatype = FromTorchType(tensor.scalar_type());
  if (!datatype) {
    return Status::Internal("output '" + name + "': unsupported element type " +
                            std::string(c10::toString(tensor.scalar_type())));
  }
  if (config != nullptr && config->datatype != *datatype) {
    return Status::Internal("output '" + name + "': model produced " + DataTypeName(*datatype) +
                            " but the config says " + DataTypeName(config->datatype));
  }
  const Dims shape(tensor.sizes().begin(), tensor.sizes().end());
  const size_t element_size = ElementByteSize(*datatype);
  const bool slice = batch.size() > 1;
  int64_t row_elements = 0;
  if (slice) {
    int64_t total = 0;
    for (int64_t size : batch_sizes) total += size;
    if (!model.batching() || shape.empty() || shape[0] != total) {
      return Status::Internal("output '" + name + "': shape " + DimsToString(shape) +
                              " does not start with the batch size " + std::to_string(total));
    }
    row_elements = *ElementCount(std::span<const int64_t>(shape).subspan(1));
  }
  const auto* base = static_cast<const char*>(tensor.data_ptr());
  const int64_t elements = tensor.numel();
  auto* shared = new SharedTensor(tensor);
  int64_t row = 0;
  Status status;
  for (size_t i = 0; i < batch.size() && status.ok(); ++i) {
    const int64_t rows = slice ? batch_sizes[i] : 0;
    if (wanted[i] && !batch.completed(i)) {
      Dims model_shape = shape;
      int64_t first = 0;
      int64_t count = elements;
      if (slice) {
        model_shape[0] = rows;
        first = row * row_elements;
        count = rows * row_elements;
      }
      StatusOr<Dims> response_shape = ResponseShape(config, model.batching(), model_shape);
      if (!response_shape.ok()) {
        status = response_shape.status();
        break;
      }
      shared->Ref();
      INFERD_Error* error = batch.api().ResponseAddOutput(
          batch.request(i), name.c_str(), *datatype, response_shape->data(), response_shape->size(),
          base == nullptr ? nullptr : base + first * element_size,
          static_cast<size_t>(count) * element_size, &SharedTensor::Unref, shared);
      if (error != nullptr) batch.Complete(i, error);
    }
    row += rows;
  }
  SharedTensor::Unref(shared);
  return status;
}

Status Run(PtInstance& instance, RequestBatch& batch) {
  const PtModel& model = instance.model;
  if (batch.size() == 0) return Status();
  ApplyIntraOpThreads(model.params.intra_op_threads);
  std::optional<c10::InferenceMode> inference_mode;
  std::optional<torch::NoGradGuard> no_grad;
  if (model.params.inference_mode) {
    inference_mode.emplace();
  } else {
    no_grad.emplace();
  }

  std::vector<int64_t> batch_sizes;
  std::unordered_map<std::string, c10::IValue> kwargs;
  c10::Dict<std::string, at::Tensor> dict;
  for (size_t i = 0; i < model.inputs.size(); ++i) {
    const TensorConfig& config = model.inputs[i];
    GatheredInput input;
    INFERD_PT_RETURN_IF_ERROR(GatherInput(batch, config, model.batching(), batch_sizes, input));
    if (input.parts.empty()) continue;  // optional and absent
    at::Tensor tensor = MakeInput(config, input);
    if (model.dict_input) {
      dict.insert(model.input_arguments[i], std::move(tensor));
    } else {
      kwargs.emplace(model.input_arguments[i], std::move(tensor));
    }
  }
  if (model.dict_input) kwargs.emplace(model.dict_argument, dict);
  const RequestedOutputs requested = CollectRequestedOutputs(batch);
  if (requested.names.empty()) return Status();

  const uint64_t compute_start = batch.Now();
  c10::IValue result;
  INFERD_PT_RETURN_IF_ERROR(CatchAll(INFERD_ERROR_INTERNAL, [&] {
    result = instance.module.get_method("forward")(std::vector<c10::IValue>{}, kwargs);
    return Status();
  }));
  batch.ReportComputeTimes(compute_start, batch.Now());
  for (size_t j = 0; j < requested.names.size(); ++j) {
    StatusOr<at::Tensor> tensor = SelectOutput(model, result, requested.names[j]);
    if (!tensor.ok()) return tensor.status();
    INFERD_PT_RETURN_IF_ERROR(WriteOutput(model, batch, batch_sizes, requested.names[j],
                                          std::move(*tensor), requested.wanted[j]));
  }
  return Status();
}

StatusOr<torch::jit::Module> LoadModule(const std::string& path) {
  std::optional<torch::jit::Module> module;
  Status status = CatchAll(INFERD_ERROR_INVALID_ARG, [&] {
    module.emplace(torch::jit::load(path, c10::Device(c10::kCPU)));
    module->eval();
    return Status();
  });
  if (!status.ok()) return WithContext(status, "failed to load '" + path + "'");
  return std::move(*module);
}

}  // namespace

Status CreateModel(const INFERD_ServerApi& api, const INFERD_ModelSpec& spec, PtModel** out) {
  const std::string name = spec.name != nullptr ? spec.name : "";
  Status status = CatchAll(INFERD_ERROR_INTERNAL, [&]() -> Status {
    auto model = std::make_unique<PtModel>(api);
    model->name = name;
    StatusOr<std::string> path = ResolveModelFile(spec.model_path);
    if (!path.ok()) return path.status();
    model->path = std::move(*path);
    StatusOr<TorchParameters> params = ParseParameters(spec);
    if (!params.ok()) return params.status();
    model->params = *params;
    model->max_batch_size = spec.max_batch_size;
    model->inputs = CopyTensors(spec.inputs, spec.input_count);
    model->outputs = CopyTensors(spec.outputs, spec.output_count);
    INFERD_PT_RETURN_IF_ERROR(CheckTypes(model->inputs, "input"));
    INFERD_PT_RETURN_IF_ERROR(CheckTypes(model->outputs, "output"));
    StatusOr<torch::jit::Module> module = LoadModule(model->path);
    if (!module.ok()) return module.status();
    model->module = std::move(*module);
    INFERD_PT_RETURN_IF_ERROR(BindInputs(*model));
    BindOutputs(*model);
    *out = model.release();
    return Status();
  });
  return WithContext(status, "model '" + name + "'");
}

void DeleteModel(PtModel* model) noexcept {
  (void)CatchAll(INFERD_ERROR_INTERNAL, [&] {
    delete model;
    return Status();
  });
}

const INFERD_ServerApi& ModelApi(const PtModel& model) { return model.api; }

Status CreateInstance(PtModel& model, uint32_t index, PtInstance** out) {
  (void)index;  // errors already name the model
  Status status = CatchAll(INFERD_ERROR_INTERNAL, [&]() -> Status {
    if (!model.module_taken.exchange(true)) {
      *out = new PtInstance{model, std::move(model.module)};
      return Status();
    }
    StatusOr<torch::jit::Module> module = LoadModule(model.path);
    if (!module.ok()) return module.status();
    *out = new PtInstance{model, std::move(*module)};
    return Status();
  });
  return WithContext(status, "model '" + model.name + "'");
}

void DeleteInstance(PtInstance* instance) noexcept {
  (void)CatchAll(INFERD_ERROR_INTERNAL, [&] {
    delete instance;
    return Status();
  });
}

void Execute(PtInstance& instance, INFERD_Request** requests, size_t count) noexcept {
  // RequestBatch's destructor fails whatever is still open, even if
  // CatchAll itself were to fail.
  std::optional<RequestBatch> batch;
  try {
    batch.emplace(instance.model.api, requests, count);
  } catch (...) {
    for (size_t i = 0; i < count; ++i) {
      instance.model.api.RequestComplete(
          requests[i], instance.model.api.ErrorNew(INFERD_ERROR_INTERNAL, "out of memory"));
    }
    return;
  }
  Status status = CatchAll(INFERD_ERROR_INTERNAL, [&] { return Run(instance, *batch); });
  batch->CompleteRemaining(WithContext(status, "model '" + instance.model.name + "'"));
}

}  // namespace inferd::pt
