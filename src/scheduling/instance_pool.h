// SPDX-License-Identifier: Apache-2.0
// Runs batches on a model's instances: one thread per instance (Triton's
// contract: an instance executes one batch at a time), all pulling from one
// FIFO so a batch goes to the first free instance. Requests whose client
// cancelled or whose deadline passed while queued are answered here instead
// of being executed. A caller may instead run a batch on its own thread
// when an instance is idle and nothing is queued (TryExecuteOnCaller): the
// instance is lent to it for that batch, its thread waits meanwhile.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "backends/abi/backend_model.h"
#include "backends/abi/backend_request.h"
#include "base/clock.h"
#include "base/mutex.h"

namespace inferd::scheduling {

using Batch = std::vector<std::unique_ptr<INFERD_Request>>;

class InstancePool {
 public:
  // Starts one thread per instance; `name` labels errors. `on_idle`, when
  // set, is called by an instance thread each time it finished a batch and
  // is about to wait for the next (the dynamic batcher forms its next batch
  // there). `clock` is borrowed and outlives the pool.
  InstancePool(std::string name, std::vector<std::unique_ptr<backends::BackendInstance>> instances,
               const base::Clock& clock = base::Clock::Real(),
               std::function<void()> on_idle = nullptr);
  // Stop()s and joins.
  ~InstancePool();
  InstancePool(const InstancePool&) = delete;
  InstancePool& operator=(const InstancePool&) = delete;

  // Queues a batch for the next free instance. After Stop() the batch's
  // requests are completed with Unavailable instead.
  void Enqueue(Batch batch);
  // Stops accepting, lets the instances finish every queued batch, joins.
  // Idempotent. Must not be called from `on_idle`.
  void Stop();
  // Completes the queued batches' requests with `status` (Rejected).
  void FailQueued(const absl::Status& status);

  // Runs `batch` on the calling thread if an instance is idle, nothing is
  // queued and the pool is not stopping; returns false (batch untouched)
  // otherwise. Statistics, cancellation and deadlines as for a queued batch.
  bool TryExecuteOnCaller(Batch& batch);

  // Mean wall time of the recent executions (an exponential moving average
  // over the last ~16), and whether enough were seen for it to mean
  // anything: a scheduler lends an instance to its caller only for models
  // whose executions are known to be short.
  int64_t recent_execution_nanos() const { return recent_execution_nanos_.load(); }
  bool has_execution_history() const { return executions_seen_.load() >= kHistoryNeeded; }
  size_t instance_count() const { return instances_.size(); }

 private:
  // An instance's state as its thread and lenders see it.
  // Each thread sleeps on its own CondVar and is woken only when there is a
  // batch for it: one wake-up per batch, not one per thread.
  struct Slot {
    bool waiting = false;  // its thread waits for a batch
    bool woken = false;    // signalled for a queued batch, not yet running
    bool lent = false;     // a caller runs a batch on it; its thread must not
    base::CondVar wake;
  };
  static constexpr int64_t kHistoryNeeded = 8;

  void Run(size_t index);
  // Wakes one waiting thread whose instance is free, if any.
  void WakeOne() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Answers the requests that must not run; returns the rest.
  Batch DropAbandoned(Batch batch) const;
  // Statistics, then Execute, then the execution-time average.
  void ExecuteBatch(backends::BackendInstance& instance, Batch batch);

  const std::string name_;
  std::vector<std::unique_ptr<backends::BackendInstance>> instances_;
  const base::Clock& clock_;
  const std::function<void()> on_idle_;
  base::Mutex mu_;
  std::deque<Batch> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<Slot> slots_ ABSL_GUARDED_BY(mu_);
  int lent_ ABSL_GUARDED_BY(mu_) = 0;  // instances running a caller's batch
  base::CondVar lent_returned_;        // Stop waits on it for lent_ == 0
  std::atomic<int64_t> recent_execution_nanos_{0};
  std::atomic<int64_t> executions_seen_{0};
  std::vector<std::thread> threads_;
};

// The status and failure reason for a request that should no longer run
// (client cancelled, deadline passed), or OK when it may run. Shared by the
// schedulers, which drop such requests while they are still queued.
absl::Status AbandonedStatus(const INFERD_Request& request, int64_t now_nanos);

}  // namespace inferd::scheduling
