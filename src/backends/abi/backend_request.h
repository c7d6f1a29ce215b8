// SPDX-License-Identifier: Apache-2.0
// The server side of INFERD_Request: one validated inference request on its
// way through a backend, the response being built for it, and the promise
// that its callback runs exactly once.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/infer_request.h"
#include "core/model_stats.h"
#include "inferd/backend.h"

namespace inferd::backends {

// What a model version declares about its outputs, used to check what a
// backend hands back. Immutable and shared by all requests of the version.
struct OutputSpec {
  std::string name;
  core::DataType datatype = core::DataType::kInvalid;
  core::Shape dims;  // config dims, without the batch dimension
  bool has_reshape = false;
  // `reshape { shape: [] }`: a scalar to the model, [1] in the config's dims.
  bool scalar_reshape = false;
};

struct ModelIO {
  std::string model_name;
  int64_t model_version = 0;
  int32_t max_batch_size = 0;
  // model_transaction_policy { decoupled: true }: the backend may send any
  // number of responses per request (INFERD_Request::SendResponse).
  bool decoupled = false;
  std::vector<OutputSpec> outputs;
  // The version's statistics; every request records into them. Never null
  // for a loaded version (tests may leave it null).
  std::shared_ptr<core::ModelStats> stats;
  const OutputSpec* FindOutput(std::string_view name) const;
};

// One batch handed to an instance. Shared by the batch's requests; the last
// of them to complete records the execution (count, batch size, phase
// durations) before its own response leaves, so statistics read after the
// responses are exact.
struct ExecutionRecord {
  ExecutionRecord(int64_t start_nanos, int64_t total_batch_size, size_t request_count)
      : start(start_nanos), batch_size(total_batch_size), remaining(request_count) {}
  const int64_t start;
  const int64_t batch_size;  // rows across the batch's requests
  std::atomic<size_t> remaining;
};

}  // namespace inferd::backends

// Defined in the global namespace because backend.h declares it there.
struct INFERD_Request {
  // `pin` keeps the model version (and its backend library) alive while the
  // request is in flight. `output_names` are the outputs to produce, in the
  // order the response lists them. `batch_size` is 1 for non-batching models.
  INFERD_Request(std::unique_ptr<inferd::core::InferRequest> request,
                 inferd::core::InferCallback on_complete,
                 std::shared_ptr<const inferd::backends::ModelIO> io,
                 std::vector<std::string> output_names, int64_t batch_size,
                 std::shared_ptr<const void> pin);
  // Answers Internal when nobody completed the request: a bug costs one error
  // response, never a hung client.
  ~INFERD_Request();
  INFERD_Request(const INFERD_Request&) = delete;
  INFERD_Request& operator=(const INFERD_Request&) = delete;

  // Checks and stores one backend output.
  absl::Status AddOutput(std::string_view name, INFERD_DataType datatype, const int64_t* shape,
                         size_t shape_count, inferd::core::Buffer data);
  // Calls the callback with the response (status OK) or the error. Once
  // only; later calls are ignored. `reason` labels a failure in the metrics.
  // For a decoupled model: the outputs added since the last SendResponse go
  // as the final response; with none, a flags-only final response
  // (InferResponse::flags_only), unless SendResponse already sent the
  // final one, in which case Complete only releases the request.
  void Complete(absl::Status status,
                inferd::core::FailureReason reason = inferd::core::FailureReason::kBackend);
  // Decoupled models only: sends the outputs added since the last send as
  // one response (or `error`, when not OK), to the request's
  // on_partial_response, or as the final answer when `final` (the request
  // is then answered: statistics are recorded and the InferCallback runs;
  // the backend still hands the request back with Complete). Responses may
  // carry any subset of the requested outputs. FailedPrecondition for a
  // model that is not decoupled or after the final response.
  absl::Status SendResponse(absl::Status error, bool final);
  bool final_sent() const { return completed_; }
  // The request's parameters as a JSON object, built on first use (ABI
  // RequestParametersJson); valid while the request lives.
  const std::string& ParametersJson();

  const inferd::core::InferRequest& request() const { return *request_; }
  // For schedulers that add inputs the client does not send (sequence
  // control tensors, implicit state) before the backend sees the request.
  inferd::core::InferRequest& mutable_request() { return *request_; }
  const std::vector<std::string>& output_names() const { return output_names_; }
  // The sequence batcher asks the backend for an output the client did not
  // request (an implicit state's output_name, which ModelIO lists); the
  // batcher takes it out of the response before the client sees it.
  void AddOutputName(std::string name) {
    output_names_.push_back(std::move(name));
    outputs_.emplace_back();
  }
  int64_t batch_size() const { return batch_size_; }
  const inferd::backends::ModelIO& io() const { return *io_; }
  const std::shared_ptr<const inferd::backends::ModelIO>& shared_io() const { return io_; }
  // A row the server made up (the sequence batcher's padding): not counted
  // as a request in the statistics; its batch's execution still is.
  void SetUncounted();

  // Scheduling facts the server validated: priority level asked for (0 =
  // the model's default) and the request's own queue timeout in µs (0 = none).
  uint64_t priority() const { return priority_; }
  uint64_t timeout_micros() const { return timeout_micros_; }
  void SetScheduling(uint64_t priority, uint64_t timeout_micros) {
    priority_ = priority;
    timeout_micros_ = timeout_micros;
  }
  // The client sent a scalar input in the model's own shape ([] rather than
  // the config's [1]): scalar outputs keep the model's shape too.
  void AnswerInModelShapes() { model_shapes_ = true; }
  bool IsCancelled() const {
    return request_->cancellation != nullptr && request_->cancellation->IsCancelled();
  }

  // Timestamps (nanoseconds on the server's monotonic clock) for statistics.
  void MarkArrival(int64_t nanos) { times_.arrival = nanos; }
  void MarkQueued(int64_t nanos) { times_.queue_start = nanos; }
  int64_t queued_at() const { return times_.queue_start; }
  // The instance pool hands the request to an instance as part of `record`.
  void BeginExecution(std::shared_ptr<inferd::backends::ExecutionRecord> record);
  void SetComputeTimes(int64_t start_nanos, int64_t end_nanos) {
    times_.compute_start = start_nanos;
    times_.compute_end = end_nanos;
  }
  // Replaces the completion callback by wrap(callback) (preserve_ordering).
  void WrapCallback(
      const std::function<inferd::core::InferCallback(inferd::core::InferCallback)>& wrap) {
    on_complete_ = wrap(std::move(on_complete_));
  }

 private:
  absl::Status CheckOutputSize(const inferd::backends::OutputSpec& spec,
                               const inferd::core::Shape& shape,
                               const inferd::core::Buffer& data) const;
  inferd::core::Shape ClientShape(const inferd::backends::OutputSpec& spec,
                                  inferd::core::Shape shape) const;

  std::unique_ptr<inferd::core::InferRequest> request_;
  inferd::core::InferCallback on_complete_;
  std::shared_ptr<const inferd::backends::ModelIO> io_;
  std::vector<std::string> output_names_;
  int64_t batch_size_;
  std::shared_ptr<const void> pin_;
  void RecordStatistics(const absl::Status& status, inferd::core::FailureReason reason);
  // The outputs added so far as one response; `require_all` fails when one
  // is missing (every response of a model that is not decoupled).
  absl::StatusOr<inferd::core::InferResponse> TakeResponse(bool require_all);

  std::vector<std::optional<inferd::core::Tensor>> outputs_;  // by output_names_ index
  bool completed_ = false;
  bool uncounted_ = false;
  uint64_t priority_ = 0;
  uint64_t timeout_micros_ = 0;
  bool model_shapes_ = false;
  inferd::core::RequestTimes times_;
  std::shared_ptr<inferd::backends::ExecutionRecord> execution_;
  std::optional<std::string> parameters_json_;
};
