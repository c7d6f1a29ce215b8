// SPDX-License-Identifier: Apache-2.0
#include "scheduling/sequence_batcher.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "base/logging.h"
#include "scheduling/dynamic_batcher.h"
#include "scheduling/instance_pool.h"

namespace inferd::scheduling {
namespace {

int64_t MicrosToNanos(uint64_t micros) {
  return static_cast<int64_t>(
      std::min<uint64_t>(micros, std::numeric_limits<int64_t>::max() / 2000) * 1000);
}

std::vector<int64_t> Ascending(std::vector<int64_t> sizes) {
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

}  // namespace

struct SequenceBatcher::Sequence {
  Sequence(SequenceId sequence_id, const std::vector<SequenceStateSpec>& specs, bool batching)
      : id(std::move(sequence_id)), states(specs, batching) {}
  const SequenceId id;
  std::deque<Entry> queue;
  std::optional<SlotRef> slot;  // nullopt: in the backlog
  bool in_flight = false;       // one of its requests is executing
  bool closed = false;          // takes no more requests
  int64_t last_request = 0;     // arrival of its latest request (idle release)
  int64_t backlog_expiry = 0;   // the `timeout` parameter while in the backlog; 0 = none
  SequenceStates states;
};

struct SequenceBatcher::CancelRelay {
  explicit CancelRelay(SequenceBatcher* b) : batcher(b) {}
  base::Mutex mu;
  SequenceBatcher* batcher ABSL_GUARDED_BY(mu);

  void Notify() {
    base::MutexLock lock(&mu);
    if (batcher != nullptr) batcher->OnRequestCancelled();
  }
  void Detach() {
    base::MutexLock lock(&mu);
    batcher = nullptr;
  }
};

SequenceBatcher::SequenceBatcher(SequenceConfig config,
                                 std::vector<std::unique_ptr<backends::BackendInstance>> instances,
                                 const base::Clock& clock, Timer& timer)
    : config_(std::move(config)),
      max_rows_(std::max(1, config_.max_batch_size)),
      max_delay_nanos_(MicrosToNanos(config_.max_queue_delay_micros)),
      idle_nanos_(MicrosToNanos(config_.max_sequence_idle_micros)),
      preferred_(Ascending(config_.preferred_batch_sizes)),
      controls_(config_),
      clock_(clock),
      timer_(timer),
      free_slots_(instances.size(), static_cast<size_t>(config_.SlotsPerInstance())),
      cancel_relay_(std::make_shared<CancelRelay>(this)) {
  base::MutexLock lock(&mu_);
  lanes_.resize(instances.size());
  for (size_t i = 0; i < instances.size(); ++i) {
    lanes_[i].slots.resize(static_cast<size_t>(config_.SlotsPerInstance()));
    if (config_.strategy == SequenceStrategy::kOldest && config_.preserve_ordering) {
      lanes_[i].ordered = std::make_shared<OrderedResponder>();
    }
    lanes_[i].runner = std::make_unique<SequenceRunner>(std::move(instances[i]), clock_);
  }
}

SequenceBatcher::~SequenceBatcher() { Stop(); }

void SequenceBatcher::Submit(std::unique_ptr<INFERD_Request> request) {
  const int64_t now = clock_.NowNanos();
  request->MarkQueued(now);
  auto flags = ReadSequenceFlags(request->request().parameters);
  absl::Status refused =
      flags.ok() ? CheckSequenceRequest(config_, request->request(), *flags, request->batch_size())
                 : flags.status();
  core::FailureReason reason = core::FailureReason::kOther;
  const std::shared_ptr<core::CancellationToken> token = request->request().cancellation;
  Work work;
  if (refused.ok()) {
    base::MutexLock lock(&mu_);
    auto it = open_.find(flags->id);
    if (stopping_ && flags->start) {
      refused = absl::UnavailableError(
          "Server is stopping, scheduler for model has stopped accepting new inference requests");
      reason = core::FailureReason::kRejected;
    } else if (!flags->start && it == open_.end()) {
      refused = MissingStartError(flags->id, config_.model_name);
    } else {
      std::shared_ptr<Sequence> sequence;
      if (it != open_.end()) {
        sequence = it->second;
        if (flags->start) {
          // Triton's behaviour: the new sequence continues in the old one's
          // slot (or backlog place); the old one's queued requests run first
          // and the START request resets the state.
          INFERD_LOG_WARN(
              "sequence {} for model '{}' has a conflict. The previous sequence did not end "
              "before this sequence start. Previous sequence will be terminated early.",
              flags->id.ToString(), config_.model_name);
        }
      } else {
        sequence =
            std::make_shared<Sequence>(flags->id, config_.states, config_.max_batch_size > 0);
        open_.emplace(flags->id, sequence);
        if (auto slot = free_slots_.Acquire()) {
          AssignLocked(sequence, *slot);
        } else {
          backlog_.push_back(sequence);
        }
      }
      sequence->last_request = now;
      if (!sequence->slot && request->timeout_micros() > 0) {
        const int64_t expiry = now + MicrosToNanos(request->timeout_micros());
        sequence->backlog_expiry =
            sequence->backlog_expiry == 0 ? expiry : std::min(sequence->backlog_expiry, expiry);
      }
      if (request->io().stats) request->io().stats->AddQueued(1);
      sequence->queue.push_back(Entry{std::move(request), flags->start, flags->end});
      ++queued_;
      if (flags->end) CloseLocked(*sequence);
      DispatchLocked(now, work);
    }
  }
  if (!refused.ok()) {
    request->Complete(std::move(refused), reason);
    return;
  }
  // Outside the lock: runs the callback at once when already cancelled.
  if (token != nullptr) token->OnCancel([relay = cancel_relay_] { relay->Notify(); });
  Finish(std::move(work));
}

void SequenceBatcher::AssignLocked(const std::shared_ptr<Sequence>& sequence, SlotRef slot) {
  sequence->slot = slot;
  sequence->backlog_expiry = 0;
  lanes_[slot.lane].slots[slot.slot] = sequence;
}

void SequenceBatcher::CloseLocked(Sequence& sequence) {
  if (sequence.closed) return;
  sequence.closed = true;
  auto it = open_.find(sequence.id);
  if (it != open_.end() && it->second.get() == &sequence) open_.erase(it);
}

void SequenceBatcher::ReleaseFinishedLocked() {
  for (size_t l = 0; l < lanes_.size(); ++l) {
    for (size_t s = 0; s < lanes_[l].slots.size(); ++s) {
      auto& sequence = lanes_[l].slots[s];
      if (sequence == nullptr || !sequence->queue.empty() || sequence->in_flight) continue;
      if (!sequence->closed && !stopping_) continue;
      CloseLocked(*sequence);
      sequence->slot.reset();
      sequence.reset();
      free_slots_.Release(SlotRef{l, s});
    }
  }
  while (!backlog_.empty()) {
    const std::shared_ptr<Sequence> next = backlog_.front();
    if (next->queue.empty() && next->closed) {  // every request of it was answered
      backlog_.pop_front();
      continue;
    }
    auto slot = free_slots_.Acquire();
    if (!slot) break;
    backlog_.pop_front();
    AssignLocked(next, *slot);
  }
}

void SequenceBatcher::DispatchLocked(int64_t now, Work& work) {
  ReleaseFinishedLocked();
  int64_t wake_at = 0;
  for (size_t l = 0; l < lanes_.size(); ++l) {
    if (lanes_[l].outstanding > 0) continue;
    if (config_.strategy == SequenceStrategy::kDirect) {
      FormDirectLocked(l, now, work, wake_at);
    } else {
      FormOldestLocked(l, now, work, wake_at);
    }
  }
  // Batches that ended sequences (cancelled fronts) may have freed slots.
  ReleaseFinishedLocked();
  ScheduleTimerLocked(now, wake_at);
}

std::vector<std::shared_ptr<SequenceBatcher::Sequence>> SequenceBatcher::ReadyLocked(size_t lane,
                                                                                     int64_t now,
                                                                                     Work& work) {
  std::vector<std::shared_ptr<Sequence>> ready;
  for (const auto& sequence : lanes_[lane].slots) {
    if (sequence == nullptr || sequence->in_flight || sequence->queue.empty()) continue;
    if (auto abandoned = AbandonedStatus(*sequence->queue.front().request, now); !abandoned.ok()) {
      EndSequenceLocked(sequence, abandoned, core::FailureReason::kCanceled, work);
      continue;
    }
    ready.push_back(sequence);
  }
  return ready;
}

bool SequenceBatcher::Compatible(const Sequence& first, const Sequence& candidate) const {
  if (&first == &candidate) return true;
  return SameNonBatchShapes(*first.queue.front().request, *candidate.queue.front().request,
                            config_.max_batch_size > 0) &&
         first.states.SameShapes(candidate.states);
}

void SequenceBatcher::FormDirectLocked(size_t lane, int64_t now, Work& work, int64_t& wake_at) {
  const std::vector<std::shared_ptr<Sequence>> ready = ReadyLocked(lane, now, work);
  if (ready.empty()) return;
  int64_t earliest = std::numeric_limits<int64_t>::max();
  for (const auto& sequence : ready) {
    earliest = std::min(earliest, sequence->queue.front().request->queued_at());
  }
  // Triton: wait for minimum_slot_utilization of the slots to be ready, at
  // most max_queue_delay_microseconds; either at 0 means never wait.
  if (!stopping_ && max_delay_nanos_ > 0 && config_.minimum_slot_utilization > 0 &&
      now - earliest < max_delay_nanos_ &&
      static_cast<float>(ready.size()) / static_cast<float>(max_rows_) <
          config_.minimum_slot_utilization) {
    const int64_t due = earliest + max_delay_nanos_;
    wake_at = wake_at == 0 ? due : std::min(wake_at, due);
    return;
  }
  // A START request begins from the initial state: reset before shapes are
  // compared, so that padding rows get the shapes the batch will have.
  for (const auto& sequence : ready) {
    if (sequence->queue.front().start) sequence->states.Reset();
  }
  const std::shared_ptr<Sequence>& first = ready.front();
  const std::vector<core::Tensor> client_inputs = first->queue.front().request->request().inputs;
  std::vector<std::shared_ptr<Sequence>> rows(lanes_[lane].slots.size());
  size_t highest = 0;
  for (const auto& sequence : ready) {
    if (!Compatible(*first, *sequence)) continue;  // waits for a batch of its shapes
    rows[sequence->slot->slot] = sequence;
    highest = std::max(highest, sequence->slot->slot);
  }
  Batch batch(highest + 1);
  const Sequence* like_sequence = first.get();
  const size_t first_row = first->slot->slot;
  batch[first_row] = TakeNextLocked(first, lane);
  for (size_t row = 0; row <= highest; ++row) {
    if (row == first_row) continue;
    if (rows[row] != nullptr) batch[row] = TakeNextLocked(rows[row], lane);
  }
  for (size_t row = 0; row <= highest; ++row) {
    if (batch[row] == nullptr) {
      batch[row] = PaddingLocked(*batch[first_row], client_inputs, *like_sequence, lane);
    }
  }
  work.batches.emplace_back(lane, std::move(batch));
}

void SequenceBatcher::FormOldestLocked(size_t lane, int64_t now, Work& work, int64_t& wake_at) {
  std::vector<std::shared_ptr<Sequence>> ready = ReadyLocked(lane, now, work);
  if (ready.empty()) return;
  std::stable_sort(ready.begin(), ready.end(), [](const auto& a, const auto& b) {
    return a->queue.front().request->queued_at() < b->queue.front().request->queued_at();
  });
  for (const auto& sequence : ready) {
    if (sequence->queue.front().start) sequence->states.Reset();
  }
  size_t candidates = 0;
  for (const auto& sequence : lanes_[lane].slots) candidates += sequence != nullptr ? 1 : 0;
  std::vector<std::shared_ptr<Sequence>> taken;
  bool cannot_grow = false;
  size_t preferred_count = 0;
  for (const auto& sequence : ready) {
    if (static_cast<int64_t>(taken.size()) >= max_rows_ || !Compatible(*ready.front(), *sequence)) {
      cannot_grow = true;
      break;
    }
    taken.push_back(sequence);
    if (std::binary_search(preferred_.begin(), preferred_.end(),
                           static_cast<int64_t>(taken.size()))) {
      preferred_count = taken.size();
    }
  }
  // Every candidate of this instance has a request in the batch: nothing
  // else could join it.
  if (taken.size() >= candidates) cannot_grow = true;
  const int64_t oldest = ready.front()->queue.front().request->queued_at();
  size_t send = 0;
  if (static_cast<int64_t>(taken.size()) >= max_rows_) {
    send = taken.size();
  } else if (preferred_count > 0) {
    send = preferred_count;
  } else if (cannot_grow || stopping_ || max_delay_nanos_ == 0 ||
             now - oldest >= max_delay_nanos_) {
    send = taken.size();
  } else {
    const int64_t due = oldest + max_delay_nanos_;
    wake_at = wake_at == 0 ? due : std::min(wake_at, due);
    return;
  }
  Batch batch;
  batch.reserve(send);
  for (size_t i = 0; i < send; ++i) batch.push_back(TakeNextLocked(taken[i], lane));
  work.batches.emplace_back(lane, std::move(batch));
}

std::unique_ptr<INFERD_Request> SequenceBatcher::TakeNextLocked(
    const std::shared_ptr<Sequence>& sequence, size_t lane) {
  Entry entry = std::move(sequence->queue.front());
  sequence->queue.pop_front();
  --queued_;
  std::unique_ptr<INFERD_Request> request = std::move(entry.request);
  if (request->io().stats) request->io().stats->AddQueued(-1);
  core::InferRequest& inner = request->mutable_request();
  controls_.Add(sequence->id, entry.start, entry.end, /*ready=*/true, inner);
  std::vector<std::string> strip;
  if (!config_.states.empty()) {
    sequence->states.AddInputs(inner);
    for (const auto& state : config_.states) {
      const auto& names = request->output_names();
      if (std::find(names.begin(), names.end(), state.output_name) != names.end()) continue;
      // The backend must produce the next state; the client did not ask for it.
      request->AddOutputName(state.output_name);
      strip.push_back(state.output_name);
    }
    if (inner.on_partial_response) {
      // A decoupled model may send the next state in any of its responses.
      inner.on_partial_response = [this, sequence, strip,
                                   next = std::move(inner.on_partial_response)](
                                      absl::StatusOr<core::InferResponse> response) {
        if (response.ok()) {
          base::MutexLock lock(&mu_);
          sequence->states.TakeOutputs(*response, strip);
        }
        next(std::move(response));
      };
    }
  }
  sequence->in_flight = true;
  if (const auto& ordered = lanes_[lane].ordered) {
    request->WrapCallback(
        [&ordered](core::InferCallback callback) { return ordered->Wrap(std::move(callback)); });
  }
  request->WrapCallback(
      [this, sequence, lane, strip = std::move(strip)](core::InferCallback callback) {
        return [this, sequence, lane, strip,
                callback = std::move(callback)](absl::StatusOr<core::InferResponse> response) {
          OnRequestDone(sequence, lane, strip, response);
          callback(std::move(response));
        };
      });
  ++lanes_[lane].outstanding;
  return request;
}

std::unique_ptr<INFERD_Request> SequenceBatcher::PaddingLocked(
    const INFERD_Request& like, const std::vector<core::Tensor>& client_inputs,
    const Sequence& like_sequence, size_t lane) {
  auto inner = std::make_unique<core::InferRequest>();
  inner->model_name = config_.model_name;
  for (const auto& input : client_inputs) inner->inputs.push_back(ZeroTensorLike(input));
  controls_.Add(SequenceId(), false, false, /*ready=*/false, *inner);
  like_sequence.states.AddZeroInputs(*inner);
  auto padding = std::make_unique<INFERD_Request>(
      std::move(inner),
      [this, lane](absl::StatusOr<core::InferResponse>) {
        // A padding row's answer goes nowhere; it only frees the instance.
        absl::StatusOr<core::InferResponse> none = absl::CancelledError("padding");
        OnRequestDone(nullptr, lane, {}, none);
      },
      like.shared_io(), like.output_names(), /*batch_size=*/1, nullptr);
  padding->SetUncounted();
  ++lanes_[lane].outstanding;
  return padding;
}

void SequenceBatcher::OnRequestDone(const std::shared_ptr<Sequence>& sequence, size_t lane,
                                    const std::vector<std::string>& strip,
                                    absl::StatusOr<core::InferResponse>& response) {
  Work work;
  {
    base::MutexLock lock(&mu_);
    if (sequence != nullptr) {
      if (response.ok()) sequence->states.TakeOutputs(*response, strip);
      sequence->in_flight = false;
    }
    --lanes_[lane].outstanding;
    DispatchLocked(clock_.NowNanos(), work);
  }
  Finish(std::move(work));
}

void SequenceBatcher::EndSequenceLocked(const std::shared_ptr<Sequence>& sequence,
                                        const absl::Status& status, core::FailureReason reason,
                                        Work& work) {
  const int64_t now = clock_.NowNanos();
  const absl::Status others = absl::CancelledError(absl::StrCat(
      "sequence ", sequence->id.ToString(), " of model '", config_.model_name,
      "' was ended because another of its requests was cancelled or passed its deadline"));
  for (auto& entry : sequence->queue) {
    if (entry.request->io().stats) entry.request->io().stats->AddQueued(-1);
    absl::Status own = AbandonedStatus(*entry.request, now);
    if (reason == core::FailureReason::kCanceled && !own.ok()) {
      work.answers.push_back(Answer{std::move(entry.request), std::move(own), reason});
    } else {
      work.answers.push_back(Answer{std::move(entry.request),
                                    reason == core::FailureReason::kCanceled ? others : status,
                                    reason});
    }
    --queued_;
  }
  sequence->queue.clear();
  CloseLocked(*sequence);
}

void SequenceBatcher::SweepLocked(int64_t now, Work& work) {
  std::vector<std::shared_ptr<Sequence>> all;
  for (const auto& lane : lanes_) {
    for (const auto& sequence : lane.slots) {
      if (sequence != nullptr) all.push_back(sequence);
    }
  }
  for (const auto& sequence : backlog_) all.push_back(sequence);
  for (const auto& sequence : all) {
    if (!sequence->slot && sequence->backlog_expiry != 0 && sequence->backlog_expiry <= now) {
      EndSequenceLocked(
          sequence,
          absl::UnavailableError("timeout of the corresponding sequence has been expired"),
          core::FailureReason::kRejected, work);
      continue;
    }
    for (const auto& entry : sequence->queue) {
      if (auto abandoned = AbandonedStatus(*entry.request, now); !abandoned.ok()) {
        EndSequenceLocked(sequence, abandoned, core::FailureReason::kCanceled, work);
        break;
      }
    }
    // Idle release (Triton's reaper): only sequences holding a slot.
    if (sequence->slot && !sequence->closed && now - sequence->last_request >= idle_nanos_) {
      INFERD_LOG_DEBUG("sequence {} of model '{}' was idle for {} us: released",
                       sequence->id.ToString(), config_.model_name,
                       config_.max_sequence_idle_micros);
      CloseLocked(*sequence);
    }
  }
}

void SequenceBatcher::ScheduleTimerLocked(int64_t now, int64_t wake_at) {
  if (stopping_) return;  // Stop() cancelled the timer; nothing may re-arm it
  int64_t next = wake_at;
  auto consider = [&next](int64_t at) {
    if (at != 0 && (next == 0 || at < next)) next = at;
  };
  for (const auto& [id, sequence] : open_) {
    if (sequence->slot) consider(sequence->last_request + idle_nanos_);
  }
  for (const auto& lane : lanes_) {
    for (const auto& sequence : lane.slots) {
      if (sequence == nullptr) continue;
      for (const auto& entry : sequence->queue) consider(entry.request->request().deadline_nanos);
    }
  }
  for (const auto& sequence : backlog_) {
    consider(sequence->backlog_expiry);  // also for an ended one, absent from open_
    for (const auto& entry : sequence->queue) consider(entry.request->request().deadline_nanos);
  }
  (void)now;
  if (next != 0 && (timer_at_ == 0 || next < timer_at_)) {
    timer_at_ = next;
    timer_.Schedule(this, next);
  }
}

void SequenceBatcher::OnRequestCancelled() {
  // Every OnDeadline sweeps the queues: the cancelled request leaves at once.
  timer_.Schedule(this, clock_.NowNanos());
}

void SequenceBatcher::OnDeadline() {
  const int64_t now = clock_.NowNanos();
  Work work;
  {
    base::MutexLock lock(&mu_);
    timer_at_ = 0;
    SweepLocked(now, work);
    DispatchLocked(now, work);
  }
  Finish(std::move(work));
}

void SequenceBatcher::Finish(Work work) {
  for (auto& [lane, batch] : work.batches) {
    SequenceRunner* runner = nullptr;
    {
      base::MutexLock lock(&mu_);
      runner = lanes_[lane].runner.get();
    }
    runner->Run(std::move(batch));
  }
  for (auto& answer : work.answers) answer.request->Complete(answer.status, answer.reason);
}

bool SequenceBatcher::DrainedLocked() const {
  if (queued_ > 0 || !backlog_.empty()) return false;
  for (const auto& lane : lanes_) {
    if (lane.outstanding > 0) return false;
  }
  return true;
}

void SequenceBatcher::FailQueued(const absl::Status& status) {
  Work work;
  {
    base::MutexLock lock(&mu_);
    std::vector<std::shared_ptr<Sequence>> all;
    for (const auto& lane : lanes_) {
      for (const auto& sequence : lane.slots) {
        if (sequence != nullptr && !sequence->queue.empty()) all.push_back(sequence);
      }
    }
    for (const auto& sequence : backlog_) all.push_back(sequence);
    for (const auto& sequence : all) {
      EndSequenceLocked(sequence, status, core::FailureReason::kRejected, work);
    }
    DispatchLocked(clock_.NowNanos(), work);
  }
  Finish(std::move(work));
}

void SequenceBatcher::Stop() {
  Work work;
  {
    base::MutexLock lock(&mu_);
    if (lanes_.empty() || lanes_.front().runner == nullptr) return;  // stopped before
    stopping_ = true;  // partial batches leave at once; idle slots free up
    DispatchLocked(clock_.NowNanos(), work);
  }
  Finish(std::move(work));
  cancel_relay_->Detach();  // before Cancel: a late cancellation must not re-arm the timer
  timer_.Cancel(this);
  std::vector<std::unique_ptr<SequenceRunner>> runners;
  {
    base::MutexLock lock(&mu_);
    auto drained = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return DrainedLocked(); };
    mu_.Await(drained);
    for (auto& lane : lanes_) runners.push_back(std::move(lane.runner));
  }
  for (auto& runner : runners) runner->Stop();
}

}  // namespace inferd::scheduling
