// SPDX-License-Identifier: Apache-2.0
#include "frontends/grpc/stream_infer_reactor.h"

#include <chrono>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "base/logging.h"
#include "frontends/grpc/infer_call.h"
#include "frontends/grpc/infer_request_codec.h"
#include "model_config.pb.h"

namespace inferd::frontends::grpc {
namespace {

using Tokens = std::vector<std::shared_ptr<core::CancellationToken>>;

void CancelAll(const Tokens& tokens) {
  // Outside the stream's lock: a queued request is answered (CANCELLED) from
  // inside Cancel(), and its answer takes the lock.
  for (const auto& token : tokens) token->Cancel();
}

}  // namespace

StreamInferReactor::StreamInferReactor(Server& server, ::grpc::CallbackServerContext* context,
                                       StreamRegistry& registry)
    : server_(server),
      registry_(registry),
      deadline_nanos_(DeadlineNanos(context->deadline(), std::chrono::system_clock::now(),
                                    base::Clock::Real().NowNanos())) {
  if (!registry_.Add(this)) {
    {
      absl::MutexLock lock(&mu_);
      finished_ = true;
    }
    Finish(::grpc::Status(::grpc::StatusCode::UNAVAILABLE,
                          "the gRPC endpoint is shutting down and takes no new streams"));
    return;
  }
  ReadNext();
}

void StreamInferReactor::ReadNext() {
  reading_ = std::make_shared<inference::ModelInferRequest>();
  StartRead(reading_.get());
}

void StreamInferReactor::OnReadDone(bool ok) {
  {
    absl::MutexLock lock(&mu_);
    if (!ok) {
      reads_done_ = true;  // half-closed by the client (or the call is over)
    } else {
      in_read_ = true;  // keeps the stream open until the request is in flight
    }
  }
  if (ok) {
    Submit(std::move(reading_));
    bool read_more = false;
    {
      absl::MutexLock lock(&mu_);
      in_read_ = false;
      read_more = !reads_done_ && !ending_ && !abandoned_ && !finished_;
      if (read_more && queue_.queued_bytes() >= kPauseReadsBytes) {
        read_paused_ = true;  // Pump reads again once the client caught up
        read_more = false;
      }
      read_starting_ = read_more;
    }
    if (read_more) {
      ReadNext();
      Pump(nullptr, /*read_started=*/true);
      return;
    }
  }
  Pump();
}

bool StreamInferReactor::IsDecoupled(const inference::ModelInferRequest& message) const {
  // An unknown model counts as ordinary: its error then keeps its place.
  auto config = server_.GetModelConfig(message.model_name(), message.model_version());
  return config.ok() && (*config)->model_transaction_policy().decoupled();
}

void StreamInferReactor::Submit(std::shared_ptr<inference::ModelInferRequest> message) {
  StreamRequestInfo info = StreamRequestInfoOf(*message);
  SharedMemoryOutputs shm_outputs;
  auto decoded = DecodeInferRequest(*message, message, &server_.shared_memory(), &shm_outputs);
  if (!decoded.ok()) {
    absl::MutexLock lock(&mu_);
    if (!abandoned_) {
      queue_.FillOrdered(queue_.ReserveOrdered(), EncodeStreamRefusal(info.id, decoded.status()));
    }
    return;
  }
  auto pending = std::make_shared<Pending>();
  pending->info = std::move(info);
  pending->shm_outputs = std::move(shm_outputs);
  pending->token = std::make_shared<core::CancellationToken>();
  const bool decoupled = IsDecoupled(*message);
  {
    absl::MutexLock lock(&mu_);
    if (abandoned_) return;  // cancelled meanwhile: nobody waits for it
    if (!decoupled) pending->place = queue_.ReserveOrdered();
    in_flight_.emplace(pending.get(), pending);
  }
  core::InferRequest& request = **decoded;
  request.cancellation = pending->token;
  request.deadline_nanos = deadline_nanos_;
  // Every stream request takes many responses, so a decoupled model is
  // served; an ordinary one never calls it.
  request.on_partial_response = [this, pending](absl::StatusOr<core::InferResponse> result) {
    OnResult(pending, std::move(result), /*final=*/false);
  };
  // The reactor outlives both callbacks: it finishes only once in_flight_ is
  // empty, which the final callback makes it.
  server_.InferAsync(*std::move(decoded),
                     [this, pending](absl::StatusOr<core::InferResponse> result) {
                       OnResult(pending, std::move(result), /*final=*/true);
                     });
}

void StreamInferReactor::OnResult(const std::shared_ptr<Pending>& pending,
                                  absl::StatusOr<core::InferResponse> result, bool final) {
  // Encoded here, on the thread that produced the answer, not under the lock.
  std::optional<inference::ModelStreamInferResponse> message;
  if (!abandoned_flag_.load(std::memory_order_acquire)) {
    message = EncodeStreamResult(pending->info, result, final, pending->shm_outputs);
  }
  Tokens to_cancel;
  {
    absl::MutexLock lock(&mu_);
    if (!abandoned_) {
      if (pending->place && final) {
        queue_.FillOrdered(*pending->place, std::move(message));
      } else if (message) {
        queue_.Push(*std::move(message));
      }
      if (queue_.queued_bytes() > kMaxQueuedBytes) {
        INFERD_LOG_WARN("grpc: a stream's client read none of {} MiB of answers; ending it",
                        queue_.queued_bytes() >> 20);
        to_cancel = Abandon(::grpc::Status(
            ::grpc::StatusCode::RESOURCE_EXHAUSTED,
            "the client did not read its responses: more than 256 MiB waited to be written"));
      }
    }
  }
  CancelAll(to_cancel);
  // The final answer takes the request out of in_flight_ inside Pump.
  Pump(final ? pending.get() : nullptr);
}

void StreamInferReactor::OnWriteDone(bool ok) {
  Tokens to_cancel;
  {
    absl::MutexLock lock(&mu_);
    writing_.reset();
    // A failed write: the stream is broken (the client went away).
    if (!ok && !abandoned_) {
      to_cancel = Abandon(::grpc::Status(::grpc::StatusCode::CANCELLED, "write failed"));
    }
  }
  CancelAll(to_cancel);
  Pump();
}

void StreamInferReactor::OnCancel() {
  INFERD_LOG_DEBUG(
      "grpc: a ModelStreamInfer stream was cancelled; its queued requests will not run");
  Tokens to_cancel;
  {
    absl::MutexLock lock(&mu_);
    if (!abandoned_) {
      to_cancel = Abandon(::grpc::Status(::grpc::StatusCode::CANCELLED, "stream cancelled"));
    }
  }
  CancelAll(to_cancel);
  Pump();
}

std::vector<std::shared_ptr<core::CancellationToken>> StreamInferReactor::Abandon(
    ::grpc::Status status) {
  abandoned_ = std::move(status);
  abandoned_flag_.store(true, std::memory_order_release);
  queue_.Clear();
  Tokens tokens;
  tokens.reserve(in_flight_.size());
  for (const auto& [key, pending] : in_flight_) tokens.push_back(pending->token);
  return tokens;
}

bool StreamInferReactor::ReadyToFinish() const {
  if (finished_ || in_read_ || read_starting_ || writing_ || !in_flight_.empty()) return false;
  if (abandoned_) return true;
  return (reads_done_ || ending_) && queue_.Idle();
}

void StreamInferReactor::Pump(Pending* answered, bool read_started) {
  while (true) {
    const inference::ModelStreamInferResponse* to_write = nullptr;
    bool read = false;
    std::optional<::grpc::Status> finish;
    {
      absl::MutexLock lock(&mu_);
      // Done under the same lock as the decision below: once a server
      // callback's request leaves in_flight_, another thread may finish the
      // stream (and gRPC delete it), so that callback touches nothing after
      // this section but what it decides here.
      if (answered != nullptr) in_flight_.erase(answered);
      answered = nullptr;
      if (read_started) read_starting_ = false;
      read_started = false;
      if (finished_) return;
      if (!writing_ && !abandoned_) {
        writing_ = queue_.Next();
        if (writing_) to_write = &*writing_;
      }
      if (read_paused_ && !reads_done_ && !ending_ && !abandoned_ &&
          queue_.queued_bytes() < kPauseReadsBytes / 2) {
        read_paused_ = false;
        read_starting_ = true;  // keeps the stream from finishing until StartRead
        read = true;
      }
      if (to_write == nullptr && !read && ReadyToFinish()) {
        finished_ = true;
        finish = abandoned_.value_or(::grpc::Status::OK);
      }
    }
    // gRPC calls, outside the lock: a reaction may run on this thread.
    if (to_write != nullptr) StartWrite(to_write);
    if (read) {
      ReadNext();
      read_started = true;  // cleared, and the state looked at again, under the lock
      continue;
    }
    if (finish) Finish(*finish);
    return;
  }
}

bool StreamInferReactor::BeginEnd() {
  absl::MutexLock lock(&mu_);
  ending_ = true;
  if (!ReadyToFinish()) return false;  // the last answer finishes it
  finished_ = true;
  return true;
}

void StreamInferReactor::FinishNow() { Finish(::grpc::Status::OK); }

void StreamInferReactor::OnDone() {
  registry_.Remove(this);
  delete this;
}

bool StreamRegistry::Add(StreamInferReactor* stream) {
  absl::MutexLock lock(&mu_);
  if (ended_) return false;
  streams_.insert(stream);
  return true;
}

void StreamRegistry::Remove(StreamInferReactor* stream) {
  absl::MutexLock lock(&mu_);
  streams_.erase(stream);
}

void StreamRegistry::EndAll() {
  std::vector<StreamInferReactor*> idle;
  {
    absl::MutexLock lock(&mu_);
    ended_ = true;
    // A stream that BeginEnd() marked finished cannot be done (and deleted)
    // before FinishNow(), so it may be finished after the lock is released.
    for (StreamInferReactor* stream : streams_) {
      if (stream->BeginEnd()) idle.push_back(stream);
    }
  }
  for (StreamInferReactor* stream : idle) stream->FinishNow();
}

}  // namespace inferd::frontends::grpc
