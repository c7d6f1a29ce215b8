// SPDX-License-Identifier: Apache-2.0
// Test doubles for scheduler tests: an instance that records the batches it
// runs (and can be held shut), a timer that only records what was asked of
// it, and a builder for requests whose answers are captured.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/abi/backend_model.h"
#include "backends/abi/backend_request.h"
#include "base/mutex.h"
#include "core/model_stats.h"
#include "scheduling/batching_config.h"
#include "scheduling/shared_timer.h"

namespace inferd::scheduling::testing {

// What the instances ran, shared by all instances of a test. Thread-safe.
class ExecutionLog {
 public:
  struct Run {
    int instance = 0;
    std::vector<std::string> ids;  // request ids, in batch order
    int64_t rows = 0;
  };
  void Started(int instance, std::vector<std::string> ids, int64_t rows);
  void Finished(int instance);
  // Blocks until `count` batches have started / finished.
  void AwaitStarted(size_t count);
  void AwaitFinished(size_t count);
  std::vector<Run> runs() const;
  // Every executed request id, in execution order.
  std::vector<std::string> ExecutedIds() const;
  int running() const;
  int max_running() const;
  // Whether one instance ever ran two batches at once (never allowed).
  bool instance_overlapped() const;

 private:
  mutable base::Mutex mu_;
  std::vector<Run> runs_ ABSL_GUARDED_BY(mu_);
  size_t finished_ ABSL_GUARDED_BY(mu_) = 0;
  int running_ ABSL_GUARDED_BY(mu_) = 0;
  int max_running_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<int, int> running_on_ ABSL_GUARDED_BY(mu_);
  bool instance_overlapped_ ABSL_GUARDED_BY(mu_) = false;
};

// A gate that instances wait at before completing a batch. Starts open.
// With HoldOnly(id), only batches that contain request `id` wait.
class Gate {
 public:
  void Close();
  void Open();
  void HoldOnly(std::string id);
  void Wait(const std::vector<std::string>& ids);

 private:
  base::Mutex mu_;
  bool open_ ABSL_GUARDED_BY(mu_) = true;
  std::string only_ ABSL_GUARDED_BY(mu_);
};

// Completes every request of a batch with success (no outputs), after
// logging it and passing `gate`.
class RecordingInstance final : public backends::BackendInstance {
 public:
  RecordingInstance(int index, ExecutionLog& log, Gate& gate)
      : index_(index), log_(log), gate_(gate) {}
  void Execute(std::vector<std::unique_ptr<INFERD_Request>> requests) override;

 private:
  const int index_;
  ExecutionLog& log_;
  Gate& gate_;
};

std::vector<std::unique_ptr<backends::BackendInstance>> MakeInstances(int count, ExecutionLog& log,
                                                                      Gate& gate);

// Records the calls a scheduler asks for; tests call OnDeadline themselves.
class FakeTimer final : public Timer {
 public:
  void Schedule(TimerClient* client, int64_t at_nanos) override;
  void Cancel(TimerClient* client) override;
  // The pending time for `client`, if any.
  std::optional<int64_t> ScheduledFor(TimerClient* client) const;

 private:
  mutable base::Mutex mu_;
  std::vector<std::pair<TimerClient*, int64_t>> pending_ ABSL_GUARDED_BY(mu_);
};

// The answers that requests received. Thread-safe.
class Answers {
 public:
  void Record(const std::string& id, absl::Status status);
  void AwaitCount(size_t count);
  std::optional<absl::Status> For(const std::string& id) const;
  std::vector<std::string> Order() const;  // ids in the order they were answered
  size_t count() const;

 private:
  mutable base::Mutex mu_;
  std::vector<std::pair<std::string, absl::Status>> answers_ ABSL_GUARDED_BY(mu_);
};

struct RequestSpec {
  std::string id;
  int64_t rows = 1;                        // the batch dimension of input "x"
  std::vector<int64_t> inner_shape = {4};  // the dims after the batch dimension
  uint64_t priority = 0;
  uint64_t timeout_micros = 0;
  std::shared_ptr<core::CancellationToken> cancellation = nullptr;
};

// `config` for model "m" with `max_batch_size`.
BatchingConfig Batching(int max_batch_size, BatchingConfig config = {});

// A request of a model with no outputs, answered into `answers`.
std::unique_ptr<INFERD_Request> MakeRequest(const RequestSpec& spec, Answers& answers,
                                            std::shared_ptr<const backends::ModelIO> io = nullptr);
std::shared_ptr<const backends::ModelIO> MakeIO(int max_batch_size,
                                                std::shared_ptr<core::ModelStats> stats);

}  // namespace inferd::scheduling::testing
