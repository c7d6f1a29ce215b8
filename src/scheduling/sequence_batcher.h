// SPDX-License-Identifier: Apache-2.0
// Triton's sequence batcher (docs/configuration.md, "Sequence batching";
// docs/architecture.md, "The sequence batcher"): the requests of one
// sequence (one correlation id, from its START request to its END request)
// run on one instance, one at a time and in order, with the control tensors
// and implicit state the config asks for.
//
// - direct: each instance has max(1, max_batch_size) slots; a sequence holds
//   one slot (a batch row) for its whole life. A batch has one row per slot
//   up to the highest slot with a ready request; rows without one are
//   padding (READY false, zero inputs, answer discarded).
// - oldest: each instance has max_candidate_sequences candidates; a batch
//   takes the oldest ready request of distinct candidates, like the dynamic
//   batcher (preferred sizes, delay).
//
// New sequences wait in a backlog while every slot is taken. A sequence with
// no request for max_sequence_idle_microseconds is released. No thread of its
// own besides one runner per instance: batches form on the thread that
// makes one possible (a submit, a completion, the shared timer).
#pragma once

#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

#include "base/clock.h"
#include "base/mutex.h"
#include "scheduling/ordered_responder.h"
#include "scheduling/scheduler.h"
#include "scheduling/sequence_config.h"
#include "scheduling/sequence_controls.h"
#include "scheduling/sequence_id.h"
#include "scheduling/sequence_runner.h"
#include "scheduling/sequence_slots.h"
#include "scheduling/sequence_state.h"
#include "scheduling/shared_timer.h"

namespace inferd::scheduling {

// Thread-safe. `clock` and `timer` are borrowed and outlive the batcher.
class SequenceBatcher final : public Scheduler, public TimerClient {
 public:
  SequenceBatcher(SequenceConfig config,
                  std::vector<std::unique_ptr<backends::BackendInstance>> instances,
                  const base::Clock& clock, Timer& timer);
  ~SequenceBatcher() override;  // Stop()s

  void Submit(std::unique_ptr<INFERD_Request> request) override;
  // Refuses new sequences, runs every queued request (no more waiting for
  // fuller batches; slots of sequences with nothing queued are released so
  // that the backlog moves), waits for them, joins. Idempotent.
  void Stop() override;
  // Answers every queued request (slots and backlog) with `status`; the
  // sequences they belong to end. Executing requests finish normally.
  void FailQueued(const absl::Status& status) override;

  // The timer's call (idle sequences, partial batches whose delay expired,
  // deadlines, cancellations); public so that tests with a fake clock can
  // drive it.
  void OnDeadline() override;

 private:
  struct Entry {
    std::unique_ptr<INFERD_Request> request;
    bool start = false;
    bool end = false;
  };
  struct Sequence;
  struct Lane {
    std::vector<std::shared_ptr<Sequence>> slots;  // null: free
    size_t outstanding = 0;                        // requests of the running batch (padding too)
    std::shared_ptr<OrderedResponder> ordered;     // oldest + preserve_ordering
    std::unique_ptr<SequenceRunner> runner;
  };
  struct Answer {
    std::unique_ptr<INFERD_Request> request;
    absl::Status status;
    core::FailureReason reason;
  };
  // What a locked section leaves for after the lock: batches to run and
  // requests to answer.
  struct Work {
    std::vector<std::pair<size_t, Batch>> batches;  // by lane
    std::vector<Answer> answers;
  };

  // Frees the slots of finished sequences (and, when stopping, of idle
  // ones), gives them to the backlog, forms a batch for every idle
  // instance, and schedules the timer.
  void DispatchLocked(int64_t now, Work& work) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ReleaseFinishedLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void AssignLocked(const std::shared_ptr<Sequence>& sequence, SlotRef slot)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void FormDirectLocked(size_t lane, int64_t now, Work& work, int64_t& wake_at)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void FormOldestLocked(size_t lane, int64_t now, Work& work, int64_t& wake_at)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The sequences of `lane` whose next request may run now (ends those whose
  // next request was cancelled or passed its deadline).
  std::vector<std::shared_ptr<Sequence>> ReadyLocked(size_t lane, int64_t now, Work& work)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether `candidate`'s next request can share a batch with `first`'s.
  bool Compatible(const Sequence& first, const Sequence& candidate) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Pops the sequence's next request and prepares it to run in `lane`:
  // control tensors, state, completion hook.
  std::unique_ptr<INFERD_Request> TakeNextLocked(const std::shared_ptr<Sequence>& sequence,
                                                 size_t lane) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A padding row shaped like `like` (a request already taken for the batch).
  std::unique_ptr<INFERD_Request> PaddingLocked(const INFERD_Request& like,
                                                const std::vector<core::Tensor>& client_inputs,
                                                const Sequence& like_sequence, size_t lane)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Answers every queued request of `sequence` (the abandoned ones with their
  // own status) and ends it.
  void EndSequenceLocked(const std::shared_ptr<Sequence>& sequence, const absl::Status& status,
                         core::FailureReason reason, Work& work) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Closes a sequence to new requests (END seen, idle, cancelled).
  void CloseLocked(Sequence& sequence) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SweepLocked(int64_t now, Work& work) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ScheduleTimerLocked(int64_t now, int64_t wake_at) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool DrainedLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void OnRequestDone(const std::shared_ptr<Sequence>& sequence, size_t lane,
                     const std::vector<std::string>& strip,
                     absl::StatusOr<core::InferResponse>& response);
  void Finish(Work work);
  void OnRequestCancelled();

  const SequenceConfig config_;
  const int64_t max_rows_;  // max(1, max_batch_size)
  const int64_t max_delay_nanos_;
  const int64_t idle_nanos_;
  const std::vector<int64_t> preferred_;  // ascending
  const ControlTensors controls_;
  const base::Clock& clock_;
  Timer& timer_;

  base::Mutex mu_;
  std::vector<Lane> lanes_ ABSL_GUARDED_BY(mu_);
  SlotPool free_slots_ ABSL_GUARDED_BY(mu_);
  // Sequences that take requests, by id; ended ones live on in their slot
  // (or the backlog) until their last request finished.
  std::unordered_map<SequenceId, std::shared_ptr<Sequence>, SequenceIdHash> open_
      ABSL_GUARDED_BY(mu_);
  std::deque<std::shared_ptr<Sequence>> backlog_ ABSL_GUARDED_BY(mu_);
  size_t queued_ ABSL_GUARDED_BY(mu_) = 0;  // requests waiting, slots and backlog
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  int64_t timer_at_ ABSL_GUARDED_BY(mu_) = 0;  // pending timer call; 0 = none
  struct CancelRelay;                          // as in the dynamic batcher: outlives the batcher
  std::shared_ptr<CancelRelay> cancel_relay_;
};

}  // namespace inferd::scheduling
