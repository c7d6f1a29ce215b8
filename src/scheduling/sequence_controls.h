// SPDX-License-Identifier: Apache-2.0
// The control tensors the sequence batcher adds to each request row
// (control_input: CONTROL_SEQUENCE_START, END, READY, CORRID), with Triton's
// shapes: [1, 1] for a batching model (one row), [1] otherwise. The boolean
// values' buffers are built once and shared by every request.
#pragma once

#include <optional>
#include <vector>

#include "core/infer_request.h"
#include "scheduling/sequence_config.h"
#include "scheduling/sequence_id.h"

namespace inferd::scheduling {

class ControlTensors {
 public:
  explicit ControlTensors(const SequenceConfig& config);

  // Appends one tensor per configured control to `request`. `ready` false
  // marks a padding row: START and END are false then, CORRID is 0 (or "").
  void Add(const SequenceId& id, bool start, bool end, bool ready,
           core::InferRequest& request) const;

 private:
  struct Boolean {
    std::string name;
    ControlKind kind;
    core::DataType datatype;
    core::Buffer false_value;
    core::Buffer true_value;
  };
  core::Shape shape_;
  std::vector<Boolean> booleans_;
  std::optional<SequenceControl> corrid_;
};

// A tensor of `like`'s name, type and shape holding zeros (BYTES: empty
// strings): a padding row's inputs and implicit state.
core::Tensor ZeroTensorLike(const core::Tensor& like);

}  // namespace inferd::scheduling
