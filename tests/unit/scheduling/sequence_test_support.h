// SPDX-License-Identifier: Apache-2.0
// Test doubles for the sequence batcher: an accumulator instance that reads
// the control and state tensors the batcher added (and records them per
// row), computes y = x + state and hands the next state back; and builders
// for configs and requests with sequence parameters.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/abi/backend_model.h"
#include "backends/abi/backend_request.h"
#include "base/mutex.h"
#include "core/model_stats.h"
#include "scheduling/sequence_config.h"

namespace inferd::scheduling::testing {

// One row as the backend saw it.
struct SeenRow {
  std::string id;  // request id ("" for padding)
  int32_t x = 0;
  std::optional<int32_t> start, end, ready;  // the control values (INT32 controls)
  std::optional<uint64_t> corrid;            // UINT64 CORRID
  std::optional<int32_t> state;              // the state input's first element
  std::vector<int64_t> start_shape;          // the START control's shape
};

class SequenceLog {
 public:
  void Record(int instance, std::vector<SeenRow> rows);
  void AwaitBatches(size_t count);
  std::vector<std::pair<int, std::vector<SeenRow>>> batches() const;
  // Rows of request `id` (padding excluded), in execution order.
  std::vector<SeenRow> RowsOf(const std::string& id) const;

 private:
  mutable base::Mutex mu_;
  std::vector<std::pair<int, std::vector<SeenRow>>> batches_ ABSL_GUARDED_BY(mu_);
};

// Waits at Hold() points: while closed, every Execute blocks before it
// completes its requests.
class SequenceGate {
 public:
  void Close();
  void Open();
  void Pass();

 private:
  base::Mutex mu_;
  bool open_ ABSL_GUARDED_BY(mu_) = true;
};

// y = x + S_IN (state, when configured), S_OUT = y. Control inputs named
// START/END/READY/CORRID are recorded when present.
class AccumulatorInstance final : public backends::BackendInstance {
 public:
  AccumulatorInstance(int index, SequenceLog& log, SequenceGate& gate)
      : index_(index), log_(log), gate_(gate) {}
  // For a decoupled model (ModelIO::decoupled): the outputs go in one
  // response sent with SendResponse, then a final flag alone.
  void Execute(std::vector<std::unique_ptr<INFERD_Request>> requests) override;

 private:
  const int index_;
  SequenceLog& log_;
  SequenceGate& gate_;
};

std::vector<std::unique_ptr<backends::BackendInstance>> MakeAccumulators(int count,
                                                                         SequenceLog& log,
                                                                         SequenceGate& gate);

// A direct-strategy config for model "m" with INT32 controls START, END and
// READY ([0, 1]), a UINT64 CORRID, and (when `with_state`) an INT32 state
// S_IN -> S_OUT of dims [1].
SequenceConfig AccumulatorConfig(int max_batch_size, bool with_state);

// The model's outputs: y (INT32 [1]) and S_OUT (the state output, not a
// client output).
std::shared_ptr<const backends::ModelIO> AccumulatorIO(int max_batch_size,
                                                       std::shared_ptr<core::ModelStats> stats,
                                                       bool decoupled = false);

struct SequenceRequestSpec {
  std::string id;
  core::Parameter sequence_id = uint64_t{0};
  bool start = false;
  bool end = false;
  int32_t x = 0;
  int64_t rows = 1;
  std::shared_ptr<core::CancellationToken> cancellation = nullptr;
  int64_t deadline_nanos = 0;
  uint64_t timeout_micros = 0;
};

// The answers: status and y per request id. Thread-safe.
class SequenceAnswers {
 public:
  void Record(const std::string& id, absl::StatusOr<core::InferResponse> response);
  void AwaitCount(size_t count);
  std::optional<absl::Status> StatusOf(const std::string& id) const;
  std::optional<int32_t> YOf(const std::string& id) const;
  // The output names the client got for `id`.
  std::vector<std::string> OutputsOf(const std::string& id) const;
  // y of the partial (non-final) responses of `id`, in order.
  std::vector<int32_t> PartialYsOf(const std::string& id) const;
  void RecordPartial(const std::string& id, const core::InferResponse& response);
  size_t count() const;
  size_t CountOf(const std::string& id) const;

 private:
  struct One {
    std::string id;
    absl::Status status;
    std::optional<int32_t> y;
    std::vector<std::string> outputs;
  };
  mutable base::Mutex mu_;
  std::vector<One> answers_ ABSL_GUARDED_BY(mu_);
  std::vector<std::pair<std::string, int32_t>> partial_ ABSL_GUARDED_BY(mu_);
};

std::unique_ptr<INFERD_Request> MakeSequenceRequest(const SequenceRequestSpec& spec,
                                                    SequenceAnswers& answers,
                                                    std::shared_ptr<const backends::ModelIO> io,
                                                    std::vector<std::string> outputs = {"y"});

}  // namespace inferd::scheduling::testing
