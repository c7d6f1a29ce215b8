// SPDX-License-Identifier: Apache-2.0
// A request's place in a sequence: its correlation id and START/END flags,
// read from the request parameters the frontends parse (`sequence_id`,
// `sequence_start`, `sequence_end`, as tritonclient sends them), and the
// checks Triton makes before a request joins a sequence, with Triton's
// messages (docs/configuration.md, "Sequence batching").
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "core/infer_request.h"
#include "scheduling/sequence_config.h"

namespace inferd::scheduling {

// A correlation id: an unsigned integer or a string. 0 and "" mean "none".
class SequenceId {
 public:
  SequenceId() = default;
  explicit SequenceId(uint64_t number) : number_(number) {}
  explicit SequenceId(std::string text) : text_(std::move(text)), is_string_(true) {}

  bool is_string() const { return is_string_; }
  uint64_t number() const { return number_; }
  const std::string& text() const { return text_; }
  // Whether the id names a sequence (non-zero, non-empty).
  bool InSequence() const { return is_string_ ? !text_.empty() : number_ != 0; }
  std::string ToString() const { return is_string_ ? text_ : std::to_string(number_); }

  friend bool operator==(const SequenceId& a, const SequenceId& b) {
    return a.is_string_ == b.is_string_ && a.number_ == b.number_ && a.text_ == b.text_;
  }

 private:
  uint64_t number_ = 0;
  std::string text_;
  bool is_string_ = false;
};

struct SequenceIdHash {
  size_t operator()(const SequenceId& id) const {
    return id.is_string() ? std::hash<std::string>()(id.text())
                          : std::hash<uint64_t>()(id.number());
  }
};

struct SequenceFlags {
  SequenceId id;
  bool start = false;
  bool end = false;
};

// Reads sequence_id (uint64 or string; a gRPC int64 is taken as the uint64
// with the same bits, as Triton's gRPC server does), sequence_start and
// sequence_end (booleans; absent = false). InvalidArgument for other types.
absl::StatusOr<SequenceFlags> ReadSequenceFlags(const core::Parameters& parameters);

// Triton's checks for a request to a sequence model, in its order: batch
// size 1 for batching models, a non-zero or non-empty id, and an id whose
// type fits the CORRID control (when the model has one).
absl::Status CheckSequenceRequest(const SequenceConfig& config, const core::InferRequest& request,
                                  const SequenceFlags& flags, int64_t batch_size);

// Triton's error for a non-START request of a sequence the batcher does not
// know (never started, ended, or released after being idle).
absl::Status MissingStartError(const SequenceId& id, std::string_view model);

}  // namespace inferd::scheduling
