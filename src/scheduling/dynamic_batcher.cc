// SPDX-License-Identifier: Apache-2.0
#include "scheduling/dynamic_batcher.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"

namespace inferd::scheduling {
namespace {

std::vector<int64_t> PreferredSizes(const BatchingConfig& config) {
  std::vector<int64_t> sizes = config.preferred_batch_sizes;
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

int64_t DelayNanos(const BatchingConfig& config) {
  const uint64_t micros = config.max_queue_delay_micros;
  return static_cast<int64_t>(
      std::min<uint64_t>(micros, std::numeric_limits<int64_t>::max() / 2000) * 1000);
}

}  // namespace

struct DynamicBatcher::CancelRelay {
  explicit CancelRelay(DynamicBatcher* b) : batcher(b) {}
  base::Mutex mu;
  DynamicBatcher* batcher ABSL_GUARDED_BY(mu);  // null once the batcher stopped

  void Notify() {
    base::MutexLock lock(&mu);  // held so that Stop() cannot finish meanwhile
    if (batcher != nullptr) batcher->OnRequestCancelled();
  }
  void Detach() {
    base::MutexLock lock(&mu);
    batcher = nullptr;
  }
};

bool SameNonBatchShapes(const INFERD_Request& a, const INFERD_Request& b, bool batching) {
  const auto& inputs_a = a.request().inputs;
  const auto& inputs_b = b.request().inputs;
  if (inputs_a.size() != inputs_b.size()) return false;
  const size_t skip = batching ? 1 : 0;
  for (const auto& x : inputs_a) {
    auto y = std::find_if(inputs_b.begin(), inputs_b.end(),
                          [&](const core::Tensor& t) { return t.name == x.name; });
    if (y == inputs_b.end() || x.shape.size() != y->shape.size()) return false;
    if (!std::equal(x.shape.begin() + std::min(skip, x.shape.size()), x.shape.end(),
                    y->shape.begin() + std::min(skip, y->shape.size()))) {
      return false;
    }
  }
  return true;
}

DynamicBatcher::DynamicBatcher(const BatchingConfig& config,
                               std::vector<std::unique_ptr<backends::BackendInstance>> instances,
                               const base::Clock& clock, Timer& timer)
    : name_(config.model_name),
      max_rows_(config.max_batch_size > 0 ? config.max_batch_size : 1),
      batching_(config.max_batch_size > 0),
      preferred_(PreferredSizes(config)),
      max_delay_nanos_(DelayNanos(config)),
      clock_(clock),
      timer_(timer),
      ordered_(config.preserve_ordering ? std::make_shared<OrderedResponder>() : nullptr),
      queues_(config),
      idle_instances_(instances.size()),
      cancel_relay_(std::make_shared<CancelRelay>(this)),
      pool_(config.model_name, std::move(instances), clock, [this] { OnInstanceIdle(); }) {}

DynamicBatcher::~DynamicBatcher() { Stop(); }

void DynamicBatcher::Submit(std::unique_ptr<INFERD_Request> request) {
  const int64_t now = clock_.NowNanos();
  request->MarkQueued(now);
  const std::shared_ptr<core::CancellationToken> token = request->request().cancellation;
  absl::Status refused;
  std::vector<QueuedRequest> answer;
  std::vector<Batch> batches;
  {
    base::MutexLock lock(&mu_);
    const size_t level = queues_.LevelFor(request->priority());
    refused = stopping_ ? absl::UnavailableError(absl::StrCat("model '", name_, "' is stopping"))
                        : queues_.CheckCapacity(level);
    if (refused.ok()) {
      if (ordered_) {
        // Tickets follow queue order, which the lock makes the arrival order.
        request->WrapCallback(
            [this](core::InferCallback callback) { return ordered_->Wrap(std::move(callback)); });
      }
      QueuedRequest entry;
      entry.rows = batching_ ? request->batch_size() : 1;
      entry.timeout_deadline = queues_.TimeoutDeadline(level, request->timeout_micros(), now);
      entry.client_deadline = request->request().deadline_nanos;
      if (request->io().stats) request->io().stats->AddQueued(1);
      entry.request = std::move(request);
      queues_.Push(level, std::move(entry));
      DispatchLocked(answer, batches);
    }
  }
  if (!refused.ok()) {
    request->Complete(std::move(refused), core::FailureReason::kRejected);
    return;
  }
  // Outside the lock: runs the callback at once when already cancelled.
  if (token != nullptr) token->OnCancel([relay = cancel_relay_] { relay->Notify(); });
  for (auto& batch : batches) pool_.Enqueue(std::move(batch));
  Answer(std::move(answer), now);
}

void DynamicBatcher::OnRequestCancelled() {
  cancel_pending_.store(true, std::memory_order_release);
  timer_.Schedule(this, clock_.NowNanos());
}

void DynamicBatcher::OnInstanceIdle() {
  std::vector<QueuedRequest> answer;
  std::vector<Batch> batches;
  {
    base::MutexLock lock(&mu_);
    ++idle_instances_;
    DispatchLocked(answer, batches);
  }
  for (auto& batch : batches) pool_.Enqueue(std::move(batch));
  Answer(std::move(answer), clock_.NowNanos());
}

void DynamicBatcher::OnDeadline() {
  const int64_t now = clock_.NowNanos();
  std::vector<QueuedRequest> answer;
  std::vector<Batch> batches;
  {
    base::MutexLock lock(&mu_);
    timer_at_ = 0;
    const int64_t earliest = queues_.EarliestDeadline();
    const bool cancelled = cancel_pending_.exchange(false, std::memory_order_acq_rel);
    if (cancelled || (earliest != 0 && earliest <= now)) queues_.Sweep(now, answer);
    DispatchLocked(answer, batches);
  }
  for (auto& batch : batches) pool_.Enqueue(std::move(batch));
  Answer(std::move(answer), now);
}

void DynamicBatcher::DispatchLocked(std::vector<QueuedRequest>& answer,
                                    std::vector<Batch>& batches) {
  const int64_t now = clock_.NowNanos();
  int64_t wake_at = 0;
  while (idle_instances_ > 0 && !queues_.empty()) {
    Batch batch = FormBatchLocked(now, answer, wake_at);
    if (batch.empty()) break;
    --idle_instances_;
    batches.push_back(std::move(batch));
  }
  if (stopping_) return;  // Stop() cancelled the timer; nothing may re-arm it
  int64_t next = queues_.EarliestDeadline();
  if (wake_at != 0 && idle_instances_ > 0 && (next == 0 || wake_at < next)) next = wake_at;
  if (next != 0 && (timer_at_ == 0 || next < timer_at_)) {
    timer_at_ = next;
    timer_.Schedule(this, next);
  }
}

Batch DynamicBatcher::FormBatchLocked(int64_t now, std::vector<QueuedRequest>& answer,
                                      int64_t& wake_at) {
  std::vector<std::pair<QueuePosition, QueuedRequest>> taken;
  int64_t rows = 0;
  int64_t oldest = std::numeric_limits<int64_t>::max();
  size_t preferred_count = 0;  // requests forming the largest preferred size reached
  bool cannot_grow = false;    // the next request cannot join, or the batch is full
  QueuePosition position;
  while (queues_.NextPosition(position)) {
    QueuedRequest& front = queues_.Front(position);
    if (!AbandonedStatus(*front.request, now).ok()) {
      answer.push_back(queues_.PopFront(position));
      continue;
    }
    if (!position.delayed && front.timeout_deadline != 0 && front.timeout_deadline <= now) {
      QueuedRequest expired = queues_.PopFront(position);
      if (queues_.DelaysOnTimeout(position.level)) {
        queues_.Delay(position.level, std::move(expired));
      } else {
        answer.push_back(std::move(expired));
      }
      continue;
    }
    if ((!taken.empty() &&
         !SameNonBatchShapes(*taken.front().second.request, *front.request, batching_)) ||
        rows + front.rows > max_rows_) {
      cannot_grow = true;
      break;
    }
    rows += front.rows;
    oldest = std::min(oldest, front.request->queued_at());
    taken.emplace_back(position, queues_.PopFront(position));
    if (std::binary_search(preferred_.begin(), preferred_.end(), rows))
      preferred_count = taken.size();
    if (rows >= max_rows_) {
      cannot_grow = true;
      break;
    }
  }
  if (taken.empty()) return {};

  size_t send = 0;
  if (rows >= max_rows_) {
    send = taken.size();
  } else if (preferred_count > 0) {
    send = preferred_count;  // the largest preferred size that could be formed
  } else if (cannot_grow || stopping_ || max_delay_nanos_ == 0 ||
             now - oldest >= max_delay_nanos_) {
    send = taken.size();
  } else {
    wake_at = oldest + max_delay_nanos_;  // hold the partial batch until then
  }
  // Undo the pops that are not sent, in reverse, so the queues keep their order.
  for (size_t i = taken.size(); i > send; --i) {
    queues_.PushFront(taken[i - 1].first, std::move(taken[i - 1].second));
  }
  Batch batch;
  batch.reserve(send);
  for (size_t i = 0; i < send; ++i) batch.push_back(std::move(taken[i].second.request));
  return batch;
}

void DynamicBatcher::Answer(std::vector<QueuedRequest> answer, int64_t now) const {
  for (auto& entry : answer) {
    INFERD_Request& request = *entry.request;
    if (request.io().stats) request.io().stats->AddQueued(-1);
    if (auto abandoned = AbandonedStatus(request, now); !abandoned.ok()) {
      request.Complete(std::move(abandoned), core::FailureReason::kCanceled);
    } else {
      request.Complete(absl::UnavailableError("Request timeout expired"),
                       core::FailureReason::kRejected);
    }
  }
}

void DynamicBatcher::FailQueued(const absl::Status& status) {
  std::vector<QueuedRequest> queued;
  {
    base::MutexLock lock(&mu_);
    QueuePosition position;
    while (queues_.NextPosition(position)) queued.push_back(queues_.PopFront(position));
  }
  for (auto& entry : queued) {
    if (entry.request->io().stats) entry.request->io().stats->AddQueued(-1);
    entry.request->Complete(status, core::FailureReason::kRejected);
  }
  pool_.FailQueued(status);
}

void DynamicBatcher::Stop() {
  std::vector<QueuedRequest> answer;
  std::vector<Batch> batches;
  {
    base::MutexLock lock(&mu_);
    stopping_ = true;  // from now on partial batches leave at once
    DispatchLocked(answer, batches);
  }
  for (auto& batch : batches) pool_.Enqueue(std::move(batch));
  Answer(std::move(answer), clock_.NowNanos());
  cancel_relay_->Detach();  // before Cancel: a late cancellation must not re-arm the timer
  timer_.Cancel(this);
  {
    base::MutexLock lock(&mu_);
    auto drained = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return queues_.empty(); };
    mu_.Await(drained);
  }
  pool_.Stop();
}

}  // namespace inferd::scheduling
