// SPDX-License-Identifier: Apache-2.0
#include "scheduling/sequence_state.h"

#include <algorithm>

#include "scheduling/sequence_controls.h"

namespace inferd::scheduling {

SequenceStates::SequenceStates(const std::vector<SequenceStateSpec>& specs, bool batching)
    : specs_(specs), batching_(batching) {
  Reset();
}

void SequenceStates::Reset() {
  current_.clear();
  current_.reserve(specs_.size());
  for (const auto& spec : specs_) {
    core::Shape shape;
    if (batching_) shape.push_back(1);
    shape.insert(shape.end(), spec.initial_shape.begin(), spec.initial_shape.end());
    current_.push_back(
        core::Tensor{spec.input_name, spec.datatype, std::move(shape), spec.initial_data});
  }
}

void SequenceStates::AddInputs(core::InferRequest& request) const {
  for (const auto& state : current_) request.inputs.push_back(state);
}

void SequenceStates::AddZeroInputs(core::InferRequest& request) const {
  for (const auto& state : current_) request.inputs.push_back(ZeroTensorLike(state));
}

void SequenceStates::TakeOutputs(core::InferResponse& response,
                                 const std::vector<std::string>& strip) {
  for (size_t i = 0; i < specs_.size(); ++i) {
    for (const auto& output : response.outputs) {
      if (output.name != specs_[i].output_name) continue;
      current_[i] = core::Tensor{specs_[i].input_name, output.datatype, output.shape, output.data};
      break;
    }
  }
  if (strip.empty()) return;
  auto& outputs = response.outputs;
  outputs.erase(std::remove_if(outputs.begin(), outputs.end(),
                               [&strip](const core::Tensor& t) {
                                 return std::find(strip.begin(), strip.end(), t.name) !=
                                        strip.end();
                               }),
                outputs.end());
}

bool SequenceStates::SameShapes(const SequenceStates& other) const {
  if (current_.size() != other.current_.size()) return false;
  for (size_t i = 0; i < current_.size(); ++i) {
    if (current_[i].shape != other.current_[i].shape) return false;
  }
  return true;
}

}  // namespace inferd::scheduling
