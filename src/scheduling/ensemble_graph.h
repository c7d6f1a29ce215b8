// SPDX-License-Identifier: Apache-2.0
// An ensemble's `ensemble_scheduling` turned into a checked data-flow graph:
// numbered tensors, and per step the tensors it reads and writes. Built once
// per loaded ensemble version, against the configs of the composing models
// as they are then; immutable and shared by every request of that version
// (docs/architecture.md, "Ensembles").
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "model_config.pb.h"

namespace inferd::scheduling {

struct EnsembleStep {
  std::string model_name;
  std::string model_version;  // decimal string; empty = the newest ready version
  std::string label;          // "step 2 ('ocr_det')", for messages
  struct Binding {
    std::string model_tensor;  // the composing model's input or output name
    int tensor = 0;            // index into EnsembleGraph::tensor_names
  };
  std::vector<Binding> inputs;
  std::vector<Binding> outputs;
  std::vector<std::string> output_names;  // outputs[i].model_tensor, the step's requested outputs
};

struct EnsembleGraph {
  std::string name;  // the ensemble's
  std::vector<std::string> tensor_names;
  std::vector<EnsembleStep> steps;
  // Per tensor: the step that writes it (-1 for the ensemble's inputs) and
  // the steps that read it.
  std::vector<int> producer;
  std::vector<std::vector<int>> consumers;
  // The ensemble's inputs and outputs, in config order, as tensor indices.
  std::vector<int> inputs;
  std::vector<int> outputs;
  std::vector<std::string> output_names;

  // Index of `tensor`, or -1.
  int FindTensor(std::string_view tensor) const;
  // The steps needed to produce `wanted` tensors (every step on a path to
  // one of them), as a flag per step.
  std::vector<bool> StepsFor(const std::vector<int>& wanted) const;
};

// The config of a composing model (the version the step names, or the
// newest ready one), or why there is none (shown in the step's problem).
using ComposingConfigLookup =
    std::function<absl::StatusOr<std::shared_ptr<const inference::ModelConfig>>(
        const std::string& model, int64_t version)>;

// The composing models an ensemble config names (each once, sorted).
std::vector<std::string> ComposingModels(const inference::ModelConfig& ensemble);

// Checks every rule at once and reports all problems in one
// InvalidArgument, each naming its step: unknown composing models, map keys
// that are not a tensor of the step's model, unmapped required inputs,
// tensors written twice or never, ensemble inputs nobody reads, cycles,
// data types and shapes that disagree between writer and reader, and a
// max_batch_size larger than a batching composing model's.
absl::StatusOr<std::shared_ptr<const EnsembleGraph>> BuildEnsembleGraph(
    const inference::ModelConfig& ensemble, const ComposingConfigLookup& lookup);

}  // namespace inferd::scheduling
