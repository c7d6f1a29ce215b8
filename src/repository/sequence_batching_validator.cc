// SPDX-License-Identifier: Apache-2.0
#include "repository/sequence_batching_validator.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace inferd::repository {
namespace {

using Control = inference::ModelSequenceBatching::Control;
using Problems = std::vector<std::string>;

std::string KindName(Control::Kind kind) {
  return inference::ModelSequenceBatching_Control_Kind_Name(kind);
}

bool IsCorrIdType(inference::DataType type) {
  return type == inference::TYPE_UINT64 || type == inference::TYPE_INT64 ||
         type == inference::TYPE_UINT32 || type == inference::TYPE_INT32 ||
         type == inference::TYPE_STRING;
}

void CheckControl(const std::string& input, const Control& control, Problems& problems) {
  const std::string what = absl::StrCat("sequence_batching control_input '", input, "' (",
                                        KindName(control.kind()), ")");
  const int lists = (control.int32_false_true_size() > 0 ? 1 : 0) +
                    (control.fp32_false_true_size() > 0 ? 1 : 0) +
                    (control.bool_false_true_size() > 0 ? 1 : 0);
  if (control.kind() == Control::CONTROL_SEQUENCE_CORRID) {
    if (lists > 0) {
      problems.push_back(
          absl::StrCat(what, ": a CORRID control takes 'data_type', not *_false_true values"));
    }
    if (!IsCorrIdType(control.data_type())) {
      problems.push_back(
          absl::StrCat(what,
                       ": 'data_type' must be TYPE_UINT64, TYPE_INT64, TYPE_UINT32, TYPE_INT32 or "
                       "TYPE_STRING, not ",
                       inference::DataType_Name(control.data_type())));
    }
    return;
  }
  if (control.data_type() != inference::TYPE_INVALID) {
    problems.push_back(absl::StrCat(
        what, ": 'data_type' is only for CORRID; the *_false_true list gives the type"));
  }
  if (lists != 1) {
    problems.push_back(absl::StrCat(
        what, ": set exactly one of int32_false_true, fp32_false_true or bool_false_true"));
    return;
  }
  const int values = control.int32_false_true_size() + control.fp32_false_true_size() +
                     control.bool_false_true_size();
  if (values != 2) {
    problems.push_back(absl::StrCat(what, ": the false/true list must hold exactly 2 values (",
                                    values, " given)"));
  }
}

bool IsPlainRelativePath(const std::string& path) {
  if (path.empty() || path.front() == '/') return false;
  for (absl::string_view segment : absl::StrSplit(path, '/')) {
    if (segment == "..") return false;
  }
  return true;
}

void CheckState(const inference::ModelConfig& config,
                const inference::ModelSequenceBatching::State& state, int index,
                Problems& problems) {
  const std::string what = state.input_name().empty()
                               ? absl::StrCat("sequence_batching state #", index)
                               : absl::StrCat("sequence_batching state '", state.input_name(), "'");
  if (state.input_name().empty())
    problems.push_back(absl::StrCat(what, ": 'input_name' must be set"));
  if (state.output_name().empty()) {
    problems.push_back(absl::StrCat(what, ": 'output_name' must be set"));
  }
  if (state.data_type() == inference::TYPE_INVALID) {
    problems.push_back(absl::StrCat(what, ": 'data_type' must be set"));
  }
  if (state.dims_size() == 0) problems.push_back(absl::StrCat(what, ": 'dims' must not be empty"));
  for (int64_t d : state.dims()) {
    if (d == 0 || d < -1) {
      problems.push_back(
          absl::StrCat(what, ": dimension ", d, " is invalid (use >= 1, or -1 for any size)"));
    }
  }
  for (const auto& out : config.output()) {
    if (out.name() != state.output_name()) continue;
    // Listed as an output too: the client may ask for it (Triton's rule).
    if (out.data_type() != state.data_type()) {
      problems.push_back(absl::StrCat(what, ": output '", out.name(), "' has data_type ",
                                      inference::DataType_Name(out.data_type()),
                                      " but the state is ",
                                      inference::DataType_Name(state.data_type())));
    }
  }
  if (state.initial_state_size() > 1) {
    problems.push_back(absl::StrCat(what, ": 'initial_state' must hold at most one entry (",
                                    state.initial_state_size(), " given)"));
  }
  if (state.initial_state_size() != 1) return;
  const auto& initial = state.initial_state(0);
  if (initial.name().empty()) {
    problems.push_back(absl::StrCat(what, ": initial_state: 'name' must be set"));
  }
  if (initial.data_type() != state.data_type()) {
    problems.push_back(absl::StrCat(
        what, ": initial_state data_type ", inference::DataType_Name(initial.data_type()),
        " does not match the state's ", inference::DataType_Name(state.data_type())));
  }
  if (initial.dims_size() != state.dims_size()) {
    problems.push_back(absl::StrCat(what, ": initial_state has ", initial.dims_size(),
                                    " dims; the state has ", state.dims_size()));
  } else {
    for (int i = 0; i < initial.dims_size(); ++i) {
      if (initial.dims(i) < 1) {
        problems.push_back(absl::StrCat(what, ": initial_state dimension ", initial.dims(i),
                                        " is invalid (initial_state dims are fixed, >= 1)"));
      } else if (state.dims(i) != -1 && initial.dims(i) != state.dims(i)) {
        problems.push_back(absl::StrCat(what, ": initial_state dimension ", i, " is ",
                                        initial.dims(i), "; the state's is ", state.dims(i)));
      }
    }
  }
  switch (initial.state_data_case()) {
    case inference::ModelSequenceBatching::InitialState::STATE_DATA_NOT_SET:
      problems.push_back(absl::StrCat(what, ": initial_state: set 'zero_data' or 'data_file'"));
      break;
    case inference::ModelSequenceBatching::InitialState::kDataFile:
      if (!IsPlainRelativePath(initial.data_file())) {
        problems.push_back(absl::StrCat(what, ": initial_state data_file '", initial.data_file(),
                                        "' must be a relative path inside initial_state/"));
      }
      break;
    default:
      break;
  }
}

void CheckStrategy(const inference::ModelConfig& config, Problems& problems) {
  const auto& sequence = config.sequence_batching();
  if (sequence.has_direct()) {
    const float utilization = sequence.direct().minimum_slot_utilization();
    if (utilization < 0 || utilization > 1) {
      problems.push_back(absl::StrCat("sequence_batching direct: minimum_slot_utilization ",
                                      utilization, " is outside [0, 1]"));
    }
  }
  if (sequence.has_oldest()) {
    const auto& oldest = sequence.oldest();
    if (oldest.max_candidate_sequences() < 0) {
      problems.push_back("sequence_batching oldest: max_candidate_sequences must not be negative");
    }
    for (int32_t size : oldest.preferred_batch_size()) {
      if (size < 1 || size > std::max(1, config.max_batch_size())) {
        problems.push_back(absl::StrCat("sequence_batching oldest: preferred_batch_size ", size,
                                        " is outside [1, max_batch_size ",
                                        std::max(1, config.max_batch_size()), "]"));
      }
    }
  }
}

}  // namespace

void CheckSequenceBatching(const inference::ModelConfig& config, Problems& problems) {
  if (!config.has_sequence_batching()) return;
  const auto& sequence = config.sequence_batching();
  if (sequence.iterative_sequence()) {
    problems.push_back(
        "sequence_batching: iterative_sequence (Triton's request rescheduling for iterative "
        "decoding) is not available in inferd; remove it");
  }
  CheckStrategy(config, problems);
  std::set<std::string> model_inputs;
  for (const auto& in : config.input()) model_inputs.insert(in.name());
  std::set<std::string> names;  // tensors the server adds: controls and state inputs
  std::set<int> kinds;
  for (const auto& input : sequence.control_input()) {
    const std::string what = absl::StrCat("sequence_batching control_input '", input.name(), "'");
    if (input.name().empty()) {
      problems.push_back("sequence_batching control_input: 'name' must be set");
    } else if (!names.insert(input.name()).second) {
      problems.push_back(absl::StrCat(what, ": name is used twice"));
    }
    if (model_inputs.count(input.name()) > 0) {
      problems.push_back(absl::StrCat(
          what, ": is also listed in 'input'; the server sets control inputs, so remove it there"));
    }
    if (input.control_size() != 1) {
      problems.push_back(
          absl::StrCat(what, ": must hold exactly one control (", input.control_size(), " given)"));
    }
    for (const auto& control : input.control()) {
      if (!kinds.insert(control.kind()).second) {
        problems.push_back(absl::StrCat("sequence_batching: more than one control of kind ",
                                        KindName(control.kind())));
      }
      CheckControl(input.name(), control, problems);
    }
  }
  std::set<std::string> outputs;
  for (int i = 0; i < sequence.state_size(); ++i) {
    const auto& state = sequence.state(i);
    CheckState(config, state, i, problems);
    const std::string what = absl::StrCat("sequence_batching state '", state.input_name(), "'");
    if (!state.input_name().empty() && !names.insert(state.input_name()).second) {
      problems.push_back(
          absl::StrCat(what, ": input_name is used by another state or control input"));
    }
    if (model_inputs.count(state.input_name()) > 0) {
      problems.push_back(absl::StrCat(
          what,
          ": input_name is also listed in 'input'; the server sets the state, so remove it "
          "there"));
    }
    if (!state.output_name().empty() && !outputs.insert(state.output_name()).second) {
      problems.push_back(
          absl::StrCat(what, ": output_name '", state.output_name(), "' is used by another state"));
    }
  }
}

}  // namespace inferd::repository
