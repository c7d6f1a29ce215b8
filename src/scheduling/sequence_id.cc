// SPDX-License-Identifier: Apache-2.0
#include "scheduling/sequence_id.h"

#include <variant>

#include "absl/strings/str_cat.h"

namespace inferd::scheduling {
namespace {

absl::StatusOr<bool> ReadFlag(const core::Parameters& parameters, std::string_view key) {
  auto it = parameters.find(key);
  if (it == parameters.end()) return false;
  if (const auto* b = std::get_if<bool>(&it->second)) return *b;
  return absl::InvalidArgumentError(
      absl::StrCat("parameter '", std::string(key), "' must be a boolean"));
}

}  // namespace

absl::StatusOr<SequenceFlags> ReadSequenceFlags(const core::Parameters& parameters) {
  SequenceFlags flags;
  if (auto it = parameters.find("sequence_id"); it != parameters.end()) {
    const auto& value = it->second;
    if (const auto* u = std::get_if<uint64_t>(&value)) {
      flags.id = SequenceId(*u);
    } else if (const auto* i = std::get_if<int64_t>(&value)) {
      flags.id = SequenceId(static_cast<uint64_t>(*i));
    } else if (const auto* s = std::get_if<std::string>(&value)) {
      flags.id = SequenceId(*s);
    } else {
      return absl::InvalidArgumentError(
          "parameter 'sequence_id' must be an unsigned integer or a string");
    }
  }
  auto start = ReadFlag(parameters, "sequence_start");
  if (!start.ok()) return start.status();
  auto end = ReadFlag(parameters, "sequence_end");
  if (!end.ok()) return end.status();
  flags.start = *start;
  flags.end = *end;
  return flags;
}

absl::Status CheckSequenceRequest(const SequenceConfig& config, const core::InferRequest& request,
                                  const SequenceFlags& flags, int64_t batch_size) {
  if (config.max_batch_size > 0 && batch_size > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("inference request to model '", config.model_name,
                     "' must specify batch-size 1 due to requirements of sequence batcher"));
  }
  if (!flags.id.InSequence()) {
    return absl::InvalidArgumentError(absl::StrCat("inference request to model '",
                                                   config.model_name,
                                                   "' must specify a non-zero or non-empty "
                                                   "correlation ID"));
  }
  if (const SequenceControl* corrid = config.FindControl(ControlKind::kCorrId)) {
    const bool wants_string = corrid->datatype == core::DataType::kBytes;
    if (wants_string != flags.id.is_string()) {
      return absl::InvalidArgumentError(
          absl::StrCat("[request id: ", request.id.empty() ? "<id_unknown>" : request.id,
                       "] sequence batching control '", corrid->input_name, "' data-type is '",
                       flags.id.is_string() ? "BYTES" : "UINT64", "', but model '",
                       config.model_name, "' expects '", wants_string ? "BYTES" : "UINT64", "'"));
    }
  }
  return absl::OkStatus();
}

absl::Status MissingStartError(const SequenceId& id, std::string_view model) {
  return absl::InvalidArgumentError(absl::StrCat(
      "inference request for sequence ", id.ToString(), " to model '", std::string(model),
      "' must specify the START flag on the first request of the sequence"));
}

}  // namespace inferd::scheduling
