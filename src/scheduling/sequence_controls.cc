// SPDX-License-Identifier: Apache-2.0
#include "scheduling/sequence_controls.h"

#include <cstring>

#include "core/shape.h"

namespace inferd::scheduling {
namespace {

// The CORRID value in the control's type: integers keep the low bits of the
// id, as Triton copies them; TYPE_STRING is one BYTES element.
std::string CorrIdBytes(core::DataType datatype, const SequenceId& id) {
  std::string bytes;
  if (datatype == core::DataType::kBytes) {
    const std::string& text = id.text();
    const auto length = static_cast<uint32_t>(text.size());
    bytes.assign(reinterpret_cast<const char*>(&length), sizeof(length));
    bytes += text;
    return bytes;
  }
  const uint64_t value = id.number();
  bytes.assign(core::DataTypeByteSize(datatype), '\0');
  std::memcpy(bytes.data(), &value, bytes.size());  // little-endian: the low bytes
  return bytes;
}

}  // namespace

ControlTensors::ControlTensors(const SequenceConfig& config)
    : shape_(config.max_batch_size > 0 ? core::Shape{1, 1} : core::Shape{1}) {
  for (const auto& control : config.controls) {
    if (control.kind == ControlKind::kCorrId) {
      corrid_ = control;
      continue;
    }
    booleans_.push_back(Boolean{control.input_name, control.kind, control.datatype,
                                core::Buffer::Copy(control.false_bytes),
                                core::Buffer::Copy(control.true_bytes)});
  }
}

void ControlTensors::Add(const SequenceId& id, bool start, bool end, bool ready,
                         core::InferRequest& request) const {
  for (const auto& control : booleans_) {
    bool value = false;
    switch (control.kind) {
      case ControlKind::kStart:
        value = ready && start;
        break;
      case ControlKind::kEnd:
        value = ready && end;
        break;
      default:
        value = ready;
        break;
    }
    request.inputs.push_back(core::Tensor{control.name, control.datatype, shape_,
                                          value ? control.true_value : control.false_value});
  }
  if (corrid_) {
    const SequenceId none =
        corrid_->datatype == core::DataType::kBytes ? SequenceId(std::string()) : SequenceId(0);
    request.inputs.push_back(
        core::Tensor{corrid_->input_name, corrid_->datatype, shape_,
                     core::Buffer::Own(CorrIdBytes(corrid_->datatype, ready ? id : none))});
  }
}

core::Tensor ZeroTensorLike(const core::Tensor& like) {
  const int64_t count = core::ElementCount(like.shape).value_or(0);
  const size_t element =
      like.datatype == core::DataType::kBytes ? 4 : core::DataTypeByteSize(like.datatype);
  return core::Tensor{like.name, like.datatype, like.shape,
                      core::Buffer::Own(std::string(static_cast<size_t>(count) * element, '\0'))};
}

}  // namespace inferd::scheduling
