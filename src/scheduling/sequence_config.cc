// SPDX-License-Identifier: Apache-2.0
#include "scheduling/sequence_config.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "base/file_system.h"
#include "core/bytes_encoding.h"
#include "core/shape.h"
#include "model_config.pb.h"

namespace inferd::scheduling {
namespace {

ControlKind KindFrom(inference::ModelSequenceBatching::Control::Kind kind) {
  switch (kind) {
    case inference::ModelSequenceBatching::Control::CONTROL_SEQUENCE_START:
      return ControlKind::kStart;
    case inference::ModelSequenceBatching::Control::CONTROL_SEQUENCE_END:
      return ControlKind::kEnd;
    case inference::ModelSequenceBatching::Control::CONTROL_SEQUENCE_READY:
      return ControlKind::kReady;
    default:
      return ControlKind::kCorrId;
  }
}

SequenceControl ControlFrom(const std::string& input_name,
                            const inference::ModelSequenceBatching::Control& control) {
  SequenceControl out;
  out.input_name = input_name;
  out.kind = KindFrom(control.kind());
  if (out.kind == ControlKind::kCorrId) {
    out.datatype = static_cast<core::DataType>(control.data_type());
    return out;
  }
  // The validator made sure exactly one list holds two values.
  if (control.int32_false_true_size() == 2) {
    out.datatype = core::DataType::kInt32;
    out.false_bytes = ControlValueBytes(out.datatype, control.int32_false_true(0));
    out.true_bytes = ControlValueBytes(out.datatype, control.int32_false_true(1));
  } else if (control.fp32_false_true_size() == 2) {
    out.datatype = core::DataType::kFp32;
    out.false_bytes = ControlValueBytes(out.datatype, control.fp32_false_true(0));
    out.true_bytes = ControlValueBytes(out.datatype, control.fp32_false_true(1));
  } else {
    out.datatype = core::DataType::kBool;
    out.false_bytes = ControlValueBytes(out.datatype, control.bool_false_true(0) ? 1 : 0);
    out.true_bytes = ControlValueBytes(out.datatype, control.bool_false_true(1) ? 1 : 0);
  }
  return out;
}

// Zeros for `count` elements: BYTES elements are empty strings (a zero
// 4-byte length each).
std::string ZeroBytes(core::DataType datatype, int64_t count) {
  const size_t element = datatype == core::DataType::kBytes ? 4 : core::DataTypeByteSize(datatype);
  return std::string(static_cast<size_t>(count) * element, '\0');
}

absl::StatusOr<SequenceStateSpec> StateFrom(const inference::ModelSequenceBatching::State& state,
                                            const std::string& model_name,
                                            const std::string& model_directory) {
  SequenceStateSpec out;
  out.input_name = state.input_name();
  out.output_name = state.output_name();
  out.datatype = static_cast<core::DataType>(state.data_type());
  out.dims.assign(state.dims().begin(), state.dims().end());
  if (state.initial_state_size() == 0) {
    // Triton: variable dimensions are 1 for the starting request.
    for (int64_t d : out.dims) out.initial_shape.push_back(d == -1 ? 1 : d);
    auto count = core::ElementCount(out.initial_shape);
    if (!count.ok()) return count.status();
    out.initial_data = core::Buffer::Own(ZeroBytes(out.datatype, *count));
    return out;
  }
  const auto& initial = state.initial_state(0);
  out.initial_shape.assign(initial.dims().begin(), initial.dims().end());
  auto count = core::ElementCount(out.initial_shape);
  if (!count.ok()) return count.status();
  if (initial.has_zero_data()) {
    out.initial_data = core::Buffer::Own(ZeroBytes(out.datatype, *count));
    return out;
  }
  const std::string path =
      base::JoinPath(base::JoinPath(model_directory, "initial_state"), initial.data_file());
  auto bytes = base::ReadFile(path);
  if (!bytes.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "model '", model_name, "': initial_state '", initial.name(), "' of state '",
        state.input_name(), "': cannot read data_file '", path, "': ", bytes.status().message()));
  }
  if (out.datatype == core::DataType::kBytes) {
    auto elements = core::CountBytesElements(*bytes);
    if (!elements.ok() || *elements != *count) {
      return absl::InvalidArgumentError(absl::StrCat(
          "model '", model_name, "': initial_state data_file '", path, "' must hold ", *count,
          " BYTES elements (each a 4-byte little-endian length, then the bytes)"));
    }
    out.initial_data = core::Buffer::Own(std::move(*bytes));
    return out;
  }
  const size_t needed = static_cast<size_t>(*count) * core::DataTypeByteSize(out.datatype);
  if (bytes->size() < needed) {
    return absl::InvalidArgumentError(absl::StrCat(
        "model '", model_name, "': initial_state data_file '", path, "' has ", bytes->size(),
        " bytes; dims ", core::ShapeToString(out.initial_shape), " need ", needed));
  }
  bytes->resize(needed);  // Triton reads the first bytes and ignores the rest
  out.initial_data = core::Buffer::Own(std::move(*bytes));
  return out;
}

}  // namespace

std::string ControlValueBytes(core::DataType datatype, double value) {
  std::string bytes;
  if (datatype == core::DataType::kInt32) {
    const auto v = static_cast<int32_t>(value);
    bytes.assign(reinterpret_cast<const char*>(&v), sizeof(v));
  } else if (datatype == core::DataType::kFp32) {
    const auto v = static_cast<float>(value);
    bytes.assign(reinterpret_cast<const char*>(&v), sizeof(v));
  } else {
    bytes.assign(1, value != 0 ? '\1' : '\0');
  }
  return bytes;
}

const SequenceControl* SequenceConfig::FindControl(ControlKind kind) const {
  for (const auto& control : controls) {
    if (control.kind == kind) return &control;
  }
  return nullptr;
}

int32_t SequenceConfig::SlotsPerInstance() const {
  if (strategy == SequenceStrategy::kOldest && max_candidate_sequences > 0) {
    return max_candidate_sequences;
  }
  return std::max(1, max_batch_size);
}

absl::StatusOr<SequenceConfig> SequenceConfigFrom(const inference::ModelConfig& config,
                                                  const std::string& model_directory) {
  const auto& sequence = config.sequence_batching();
  SequenceConfig out;
  out.model_name = config.name();
  out.max_batch_size = config.max_batch_size();
  if (sequence.has_oldest()) {
    const auto& oldest = sequence.oldest();
    out.strategy = SequenceStrategy::kOldest;
    out.max_candidate_sequences = oldest.max_candidate_sequences();
    out.preferred_batch_sizes.assign(oldest.preferred_batch_size().begin(),
                                     oldest.preferred_batch_size().end());
    out.max_queue_delay_micros = oldest.max_queue_delay_microseconds();
    out.preserve_ordering = oldest.preserve_ordering();
  } else {
    out.max_queue_delay_micros = sequence.direct().max_queue_delay_microseconds();
    out.minimum_slot_utilization = sequence.direct().minimum_slot_utilization();
  }
  if (sequence.max_sequence_idle_microseconds() > 0) {
    out.max_sequence_idle_micros = sequence.max_sequence_idle_microseconds();
  }
  for (const auto& input : sequence.control_input()) {
    for (const auto& control : input.control())
      out.controls.push_back(ControlFrom(input.name(), control));
  }
  for (const auto& state : sequence.state()) {
    auto spec = StateFrom(state, config.name(), model_directory);
    if (!spec.ok()) return spec.status();
    out.states.push_back(std::move(*spec));
  }
  return out;
}

}  // namespace inferd::scheduling
