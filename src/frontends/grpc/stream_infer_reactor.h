// SPDX-License-Identifier: Apache-2.0
// One ModelStreamInfer call (docs/api.md, "Streaming"): many requests on one
// bidirectional stream, each answered as Triton's gRPC frontend does —
// an ordinary model's one response in request order, a decoupled model's
// responses as they come (core::InferRequest::on_partial_response), errors
// as error_message without ending the stream.
//
// Nothing blocks a thread: requests are read one at a time and submitted
// with Server::InferAsync; answers are encoded on the thread that produced
// them and queued (StreamWriteQueue), and gRPC writes one at a time from
// the queue. While more than kPauseReadsBytes wait because the client does
// not read, no further request is read (backpressure on the client, never
// on a backend); past kMaxQueuedBytes the stream ends with
// RESOURCE_EXHAUSTED and its requests are cancelled.
//
// A client that half-closes gets every pending answer, then OK. A cancelled
// stream (client cancel, deadline, lost connection) raises the cancellation
// token of every request still in flight (a queued one leaves its queue),
// writes nothing more and ends once the server has answered them all: the
// reactor lives until its last callback ran.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "core/cancellation.h"
#include "frontends/grpc/stream_response_codec.h"
#include "frontends/grpc/stream_write_queue.h"
#include "grpc_service.grpc.pb.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/server_callback.h"
#include "server/server.h"

namespace inferd::frontends::grpc {

class StreamRegistry;

class StreamInferReactor final
    : public ::grpc::ServerBidiReactor<inference::ModelInferRequest,
                                       inference::ModelStreamInferResponse> {
 public:
  // Answers waiting to be written past which no further request is read.
  static constexpr size_t kPauseReadsBytes = 16 << 20;
  // Past this the client is not reading at all: the stream ends.
  static constexpr size_t kMaxQueuedBytes = 256 << 20;

  // Starts reading. `registry` (the service's) outlives every stream; the
  // reactor deletes itself in OnDone.
  StreamInferReactor(Server& server, ::grpc::CallbackServerContext* context,
                     StreamRegistry& registry);

  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

  // Shutdown (StreamRegistry::EndAll): read no more requests, answer those
  // in flight, then end with OK. Returns true when the stream is idle: the
  // caller must then call FinishNow() (outside the registry's lock).
  bool BeginEnd();
  void FinishNow();

 private:
  // One request of the stream, shared by its server callbacks.
  struct Pending {
    StreamRequestInfo info;
    std::shared_ptr<core::CancellationToken> token;
    std::optional<uint64_t> place;    // its ordered place (ordinary models)
    SharedMemoryOutputs shm_outputs;  // outputs into regions, leased until answered
  };

  ~StreamInferReactor() override = default;

  void ReadNext();
  void Submit(std::shared_ptr<inference::ModelInferRequest> message);
  bool IsDecoupled(const inference::ModelInferRequest& message) const;
  void OnResult(const std::shared_ptr<Pending>& pending, absl::StatusOr<core::InferResponse> result,
                bool final);
  // Starts the next write, resumes reading, or finishes, as the state allows.
  // `answered`: a request whose final answer was just queued, taken out of
  // in_flight_ here; `read_started`: the caller's StartRead returned.
  // Nothing of the reactor is touched after the gRPC calls it makes: a
  // server thread may be the last one to see the stream alive.
  void Pump(Pending* answered = nullptr, bool read_started = false);
  // Ends the stream early with `status`: drops what was not written and
  // returns the tokens of the requests in flight, to be cancelled outside
  // the lock.
  std::vector<std::shared_ptr<core::CancellationToken>> Abandon(::grpc::Status status)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool ReadyToFinish() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  Server& server_;
  StreamRegistry& registry_;
  const int64_t deadline_nanos_;
  // The message being read; a fresh one per read, since the inputs of the
  // request it becomes point into it.
  std::shared_ptr<inference::ModelInferRequest> reading_;

  absl::Mutex mu_;
  StreamWriteQueue queue_ ABSL_GUARDED_BY(mu_);
  // The message being written (gRPC reads it until OnWriteDone).
  std::optional<inference::ModelStreamInferResponse> writing_ ABSL_GUARDED_BY(mu_);
  std::unordered_map<Pending*, std::shared_ptr<Pending>> in_flight_ ABSL_GUARDED_BY(mu_);
  bool reads_done_ ABSL_GUARDED_BY(mu_) = false;   // half-closed, failed, or ending
  bool read_paused_ ABSL_GUARDED_BY(mu_) = false;  // a read is due once the queue drains
  bool ending_ ABSL_GUARDED_BY(mu_) = false;       // shutdown: no more reads
  // Between a read's completion and its request being in flight, and
  // between deciding to read and StartRead: the stream must not finish.
  bool in_read_ ABSL_GUARDED_BY(mu_) = false;
  bool read_starting_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;                    // Finish was (or is being) called
  std::optional<::grpc::Status> abandoned_ ABSL_GUARDED_BY(mu_);  // how the stream ends early
  // Read outside the lock by callbacks that may skip encoding.
  std::atomic<bool> abandoned_flag_{false};
};

// The streams of one InferenceService, so that shutdown can end them
// (GrpcFrontend::Stop). Thread-safe.
class StreamRegistry {
 public:
  // False once EndAll ran: the new stream must end at once.
  bool Add(StreamInferReactor* stream);
  void Remove(StreamInferReactor* stream);
  // Ends every stream once its requests are answered; streams that start
  // afterwards are refused with UNAVAILABLE.
  void EndAll();

 private:
  absl::Mutex mu_;
  std::unordered_set<StreamInferReactor*> streams_ ABSL_GUARDED_BY(mu_);
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace inferd::frontends::grpc
