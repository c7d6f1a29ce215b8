// SPDX-License-Identifier: Apache-2.0
// Triton's dynamic batcher: combines queued requests into batches for the
// model's instances (docs/configuration.md). No thread of its own: a batch
// is formed by the thread that makes one possible — the submitting thread,
// an instance thread that just became free, or the shared timer when the
// oldest request's max_queue_delay expired or a queue timeout passed.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/mutex.h"
#include "scheduling/batching_config.h"
#include "scheduling/instance_pool.h"
#include "scheduling/ordered_responder.h"
#include "scheduling/priority_queues.h"
#include "scheduling/scheduler.h"
#include "scheduling/shared_timer.h"

namespace inferd::scheduling {

// Thread-safe. `clock` and `timer` are borrowed and outlive the batcher.
class DynamicBatcher final : public scheduling::Scheduler, public TimerClient {
 public:
  // REQUIRES: the config was validated (repository/model_config_validator).
  DynamicBatcher(const BatchingConfig& config,
                 std::vector<std::unique_ptr<backends::BackendInstance>> instances,
                 const base::Clock& clock, Timer& timer);
  ~DynamicBatcher() override;  // Stop()s

  void Submit(std::unique_ptr<INFERD_Request> request) override;
  // Dispatches every queued request as instances free up (no more waiting
  // for bigger batches), waits for them to finish, joins. Idempotent.
  void Stop() override;
  void FailQueued(const absl::Status& status) override;

  // The timer's call; public so that tests with a fake clock can drive it.
  void OnDeadline() override;

 private:
  // Forms and dispatches batches while an instance is idle and a batch is
  // due; schedules the timer for the next moment something becomes due.
  // Requests to answer (rejected, cancelled) are moved to `answer` and
  // completed by the caller after the lock is released.
  void DispatchLocked(std::vector<QueuedRequest>& answer, std::vector<Batch>& batches)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // One batch, or an empty one when none is due now. `wake_at` receives the
  // time the pending partial batch becomes due (0: not waiting).
  Batch FormBatchLocked(int64_t now, std::vector<QueuedRequest>& answer, int64_t& wake_at)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void OnInstanceIdle();
  void Answer(std::vector<QueuedRequest> answer, int64_t now) const;
  // A queued request's token was raised (any thread): asks the timer for a
  // sweep now, so that the request leaves the queue and is answered at once
  // rather than when it would have been batched.
  void OnRequestCancelled();

  const std::string name_;
  const int64_t max_rows_;                // max_batch_size, or 1 for a non-batching model
  const bool batching_;                   // max_batch_size > 0
  const std::vector<int64_t> preferred_;  // ascending
  const int64_t max_delay_nanos_;
  const base::Clock& clock_;
  Timer& timer_;
  std::shared_ptr<OrderedResponder> ordered_;  // null unless preserve_ordering

  base::Mutex mu_;
  PriorityQueues queues_ ABSL_GUARDED_BY(mu_);
  size_t idle_instances_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  int64_t timer_at_ ABSL_GUARDED_BY(mu_) = 0;  // pending timer call; 0 = none
  // Set by OnRequestCancelled; the next OnDeadline sweeps the queues.
  std::atomic<bool> cancel_pending_{false};
  // What the requests' cancellation callbacks hold: they may run after the
  // batcher is gone (a client leaving late), so they reach it through this,
  // which Stop() detaches.
  struct CancelRelay;
  std::shared_ptr<CancelRelay> cancel_relay_;

  // Last: its threads call back into the members above.
  InstancePool pool_;
};

// Whether two requests may share a batch: the same inputs with the same
// shapes after the batch dimension.
bool SameNonBatchShapes(const INFERD_Request& a, const INFERD_Request& b, bool batching);

}  // namespace inferd::scheduling
