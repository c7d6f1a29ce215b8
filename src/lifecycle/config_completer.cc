// SPDX-License-Identifier: Apache-2.0
#include "lifecycle/config_completer.h"

#include <set>
#include <string>

#include "absl/strings/str_cat.h"

namespace inferd::lifecycle {
namespace {

bool CanBatch(const INFERD_Signature& signature) {
  auto batchable = [](const backends::SignatureTensor& t) {
    return !t.dims.empty() && t.dims[0] == -1;
  };
  for (const auto& t : signature.inputs) {
    if (!batchable(t)) return false;
  }
  for (const auto& t : signature.outputs) {
    if (!batchable(t)) return false;
  }
  return !signature.inputs.empty() || !signature.outputs.empty();
}

// Config dims for a model tensor: the batch dimension dropped when batching;
// an empty result (a scalar to the model) becomes [1] with an empty reshape,
// as Triton completes it, so that the backend still gets the model's shape.
template <typename Tensor>
void FillTensor(const backends::SignatureTensor& from, bool batching, Tensor& to) {
  to.set_name(from.name);
  to.set_data_type(static_cast<inference::DataType>(from.datatype));
  const size_t first = batching ? 1 : 0;
  for (size_t i = first; i < from.dims.size(); ++i) to.add_dims(from.dims[i]);
  if (to.dims_size() == 0) {
    to.add_dims(1);
    to.mutable_reshape();
  }
}

// Tensors of a sequence model that the server supplies (control inputs,
// implicit state inputs) or takes (state outputs): never client tensors, so
// they stay out of `input` and `output`, as in Triton's configs.
std::set<std::string> SequenceTensorNames(const inference::ModelConfig& config) {
  std::set<std::string> names;
  for (const auto& input : config.sequence_batching().control_input()) names.insert(input.name());
  for (const auto& state : config.sequence_batching().state()) {
    names.insert(state.input_name());
    names.insert(state.output_name());
  }
  return names;
}

absl::Status CheckTypes(const INFERD_Signature& signature) {
  for (const auto* list : {&signature.inputs, &signature.outputs}) {
    for (const auto& t : *list) {
      if (t.datatype == core::DataType::kInvalid) {
        return absl::InvalidArgumentError(
            absl::StrCat("tensor '", t.name, "' of the model file has a type inferd cannot serve"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

bool NeedsCompletion(const inference::ModelConfig& config) {
  return config.input_size() + config.batch_input_size() == 0 || config.output_size() == 0;
}

absl::Status CompleteModelConfig(const INFERD_Signature& signature, inference::ModelConfig& config,
                                 int32_t default_max_batch_size) {
  if (!NeedsCompletion(config)) return absl::OkStatus();
  if (auto status = CheckTypes(signature); !status.ok()) return status;
  if (signature.max_batch_size) {
    // The backend knows (ABI 1.2); a value in the config still wins.
    if (config.max_batch_size() == 0) config.set_max_batch_size(*signature.max_batch_size);
  } else if (CanBatch(signature)) {
    if (config.max_batch_size() == 0) config.set_max_batch_size(default_max_batch_size);
    if (config.max_batch_size() > 1 && !config.has_dynamic_batching() &&
        !config.has_sequence_batching()) {
      config.mutable_dynamic_batching();
    }
  } else if (config.max_batch_size() > 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("model '", config.name(),
                     "' does not support batching while non-zero max_batch_size is specified"));
  }
  const bool batching = config.max_batch_size() > 0;
  const std::set<std::string> server_tensors = SequenceTensorNames(config);
  if (config.input_size() == 0) {
    for (const auto& t : signature.inputs) {
      if (server_tensors.count(t.name) == 0) FillTensor(t, batching, *config.add_input());
    }
  }
  if (config.output_size() == 0) {
    for (const auto& t : signature.outputs) {
      if (server_tensors.count(t.name) == 0) FillTensor(t, batching, *config.add_output());
    }
  }
  return absl::OkStatus();
}

}  // namespace inferd::lifecycle
