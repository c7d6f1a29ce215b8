// SPDX-License-Identifier: Apache-2.0
// What the sequence batcher needs from a model's `sequence_batching` config,
// as plain values (docs/configuration.md, "Sequence batching"). Like
// BatchingConfig it keeps protobuf out of the batcher so that its tests build
// configs directly and run under ThreadSanitizer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/tensor.h"

namespace inference {
class ModelConfig;
}

namespace inferd::scheduling {

enum class SequenceStrategy { kDirect, kOldest };

// ModelSequenceBatching.Control.Kind.
enum class ControlKind { kStart, kEnd, kReady, kCorrId };

// One control tensor the batcher adds to every request of a sequence model.
struct SequenceControl {
  std::string input_name;
  ControlKind kind = ControlKind::kStart;
  core::DataType datatype = core::DataType::kInvalid;
  // START, END, READY: one element's bytes for false and for true
  // (int32_false_true, fp32_false_true or bool_false_true).
  std::string false_bytes = {};
  std::string true_bytes = {};
};

// One implicit state (sequence_batching.state).
struct SequenceStateSpec {
  std::string input_name;
  std::string output_name;
  core::DataType datatype = core::DataType::kInvalid;
  core::Shape dims = {};  // as configured, without the batch dimension; -1 = any
  // The state a sequence starts with, without the batch dimension:
  // initial_state (zero_data or data_file), else zeros with every -1 as 1.
  core::Shape initial_shape = {};
  core::Buffer initial_data = {};
};

struct SequenceConfig {
  std::string model_name = {};
  int32_t max_batch_size = 0;  // 0: the model does not batch
  SequenceStrategy strategy = SequenceStrategy::kDirect;
  // direct: max_queue_delay_microseconds, minimum_slot_utilization;
  // oldest: max_queue_delay_microseconds too.
  uint64_t max_queue_delay_micros = 0;
  float minimum_slot_utilization = 0;
  // oldest: candidate sequences per instance (0: max(1, max_batch_size)),
  // preferred batch sizes (any order), preserve_ordering.
  int32_t max_candidate_sequences = 0;
  std::vector<int64_t> preferred_batch_sizes = {};
  bool preserve_ordering = false;
  // A sequence with no request for this long is released (Triton's default
  // of one second when the config leaves it 0).
  uint64_t max_sequence_idle_micros = kDefaultIdleMicros;
  std::vector<SequenceControl> controls = {};
  std::vector<SequenceStateSpec> states = {};

  static constexpr uint64_t kDefaultIdleMicros = 1'000'000;

  // The control of `kind`, or null.
  const SequenceControl* FindControl(ControlKind kind) const;
  // Slots (direct) or candidate sequences (oldest) per instance.
  int32_t SlotsPerInstance() const;
};

// REQUIRES: config.has_sequence_batching() and the config was validated
// (repository/model_config_validator). Reads an initial_state data_file from
// <model_directory>/initial_state/ as Triton does; a missing or short file
// is an InvalidArgument naming it.
absl::StatusOr<SequenceConfig> SequenceConfigFrom(const inference::ModelConfig& config,
                                                  const std::string& model_directory);

// One element's bytes of a boolean control value of `datatype`
// (TYPE_INT32, TYPE_FP32 or TYPE_BOOL).
std::string ControlValueBytes(core::DataType datatype, double value);

}  // namespace inferd::scheduling
