// SPDX-License-Identifier: Apache-2.0
// Runs batches on a model's instances: one thread per instance (Triton's
// contract: an instance executes one batch at a time), all pulling from one
// FIFO so a batch goes to the first free instance. Requests whose client
// cancelled or whose deadline passed while queued are answered here instead
// of being executed.
#pragma once

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
  size_t instance_count() const { return instances_.size(); }

 private:
  void Run(backends::BackendInstance& instance);
  // Answers the requests that must not run; returns the rest.
  Batch DropAbandoned(Batch batch) const;

  const std::string name_;
  std::vector<std::unique_ptr<backends::BackendInstance>> instances_;
  const base::Clock& clock_;
  const std::function<void()> on_idle_;
  base::Mutex mu_;
  std::deque<Batch> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

// The status and failure reason for a request that should no longer run
// (client cancelled, deadline passed), or OK when it may run. Shared by the
// schedulers, which drop such requests while they are still queued.
absl::Status AbandonedStatus(const INFERD_Request& request, int64_t now_nanos);

}  // namespace inferd::scheduling
