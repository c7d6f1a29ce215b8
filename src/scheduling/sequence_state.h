// SPDX-License-Identifier: Apache-2.0
// Implicit state (sequence_batching.state): the tensors the server keeps for
// one sequence between its requests. Each request gets the current state as
// the input `input_name`; the backend's output `output_name` becomes the next
// state. A new sequence (START) begins with the initial state. Not
// thread-safe: the sequence batcher guards it with its mutex.
#pragma once

#include <string>
#include <vector>

#include "core/infer_request.h"
#include "scheduling/sequence_config.h"

namespace inferd::scheduling {

class SequenceStates {
 public:
  // `specs` is borrowed and outlives this (the batcher's config).
  SequenceStates(const std::vector<SequenceStateSpec>& specs, bool batching);

  // Back to the initial state (a request with START).
  void Reset();
  // Appends the current state tensors as inputs (shape [1, ...] for a
  // batching model).
  void AddInputs(core::InferRequest& request) const;
  // Appends zeros shaped like the current states: a padding row's state.
  void AddZeroInputs(core::InferRequest& request) const;
  // Takes each state's output from a successful response as the next state
  // (no copy: the tensor's buffer is shared) and removes from the response
  // the outputs named in `strip` (those the client did not ask for).
  void TakeOutputs(core::InferResponse& response, const std::vector<std::string>& strip);
  // Whether two sequences' states have the same shapes (their rows can be
  // batched together).
  bool SameShapes(const SequenceStates& other) const;

 private:
  const std::vector<SequenceStateSpec>& specs_;
  const bool batching_;
  std::vector<core::Tensor> current_;  // by spec index, named input_name
};

}  // namespace inferd::scheduling
