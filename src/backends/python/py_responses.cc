// SPDX-License-Identifier: Apache-2.0
#include "py_responses.h"

#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "py_log.h"
#include "worker_channel.h"

namespace inferd::python {
namespace {

// A block of the response pool: the worker may reuse it once every output
// pointing into it was released. The worker allocated it and set its first
// byte; clearing that byte hands it back (python/PROTOCOL.md "Response
// senders"), so freeing needs no message and works after the worker died.
struct PoolBlock {
  std::shared_ptr<ShmRegion> pool;
  uint64_t offset = 0;
  ~PoolBlock() {
    std::atomic_ref<uint8_t>(pool->base()[offset]).store(0, std::memory_order_release);
  }
};

// Keeps what a response output points into alive until the server lets go.
struct Keepalive {
  std::shared_ptr<const void> held;
  static void Release(void* context) { delete static_cast<Keepalive*>(context); }
};

INFERD_Error* NewError(const INFERD_ServerApi& api, INFERD_ErrorCode code,
                       const std::string& message) {
  return api.ErrorNew(code, message.c_str());
}

}  // namespace

struct ResponseRouter::Shared {
  Shared(const INFERD_ServerApi& api_in, bool decoupled_in, std::string describe_in)
      : api(api_in), decoupled(decoupled_in), describe(std::move(describe_in)) {}

  const INFERD_ServerApi& api;  // static server data
  const bool decoupled;
  const std::string describe;
  std::shared_ptr<ShmRegion> pool;
  std::unique_ptr<WorkerChannel> channel;  // the server's end; read by the reader thread only
  int worker_fd = -1;

  std::mutex mu;  // guards what follows
  std::unordered_map<uint64_t, std::shared_ptr<OpenRequest>> open;
  bool dead = false;  // the reader saw the socket close
  std::string worker = "the Python worker";

  void Run();
  void OnResponse(std::vector<uint8_t> payload);
  void OnIsCancelled(std::span<const uint8_t> payload);
  std::shared_ptr<OpenRequest> Find(uint64_t id);
  void Forget(uint64_t id);
  // Reports the compute phase (its end now, or `end_ns`) once, before the
  // request completes. REQUIRES: open.mu held, open.request set.
  void ReportTimes(OpenRequest& open, uint64_t end_ns);
  // Completes the request. REQUIRES: open.mu held, open.request set.
  void Complete(OpenRequest& open, INFERD_Error* error);
  // Fails every open request, except those whose EXECUTE is in flight when
  // `skip_in_execute` (the instance thread answers for those).
  void FailOpen(const std::string& message, bool skip_in_execute);
  // The outputs of a response as ResponseAddOutput calls; the error that
  // replaces the response when one cannot be added.
  INFERD_Error* AddOutputs(INFERD_Request* request, const ResponseMessage& message,
                           const std::shared_ptr<std::vector<uint8_t>>& payload);
};

StatusOr<std::unique_ptr<ResponseRouter>> ResponseRouter::Create(const INFERD_ServerApi& api,
                                                                 bool decoupled,
                                                                 std::string describe, ShmMode mode,
                                                                 uint64_t pool_bytes,
                                                                 const std::string& name_hint) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    return Status::Internal(std::string("socketpair for responses: ") + std::strerror(errno));
  }
  auto shared = std::make_shared<Shared>(api, decoupled, std::move(describe));
  shared->channel = std::make_unique<WorkerChannel>(fds[0]);
  shared->worker_fd = fds[1];
  if (decoupled && pool_bytes > 0 && mode != ShmMode::kNone) {
    StatusOr<std::shared_ptr<ShmRegion>> pool =
        ShmRegion::Create(mode, pool_bytes, name_hint + "-responses");
    if (pool.ok()) {
      shared->pool = std::move(*pool);
    } else {
      LogWarning(shared->describe + ": no shared memory for responses (" + pool.status().message() +
                 "); their tensors are copied inline");
    }
  }
  return std::unique_ptr<ResponseRouter>(new ResponseRouter(std::move(shared)));
}

ResponseRouter::~ResponseRouter() {
  CloseWorkerEnd();
  // Ends the reader's wait: it reads end of file, fails what it may, exits.
  ::shutdown(shared_->channel->fd(), SHUT_RDWR);
  if (thread_.joinable()) {
    // The reader's last RequestComplete may release the model version, and
    // with it this instance, on the reader itself: it then runs on alone on
    // `shared_`, which it co-owns, and exits at the end of file.
    if (thread_.get_id() == std::this_thread::get_id()) {
      thread_.detach();
    } else {
      thread_.join();
    }
  }
  shared_->FailOpen(shared_->describe + ": the instance is shutting down", false);
}

int ResponseRouter::worker_fd() const { return shared_->worker_fd; }

void ResponseRouter::CloseWorkerEnd() {
  if (shared_->worker_fd >= 0) ::close(shared_->worker_fd);
  shared_->worker_fd = -1;
}

const std::shared_ptr<ShmRegion>& ResponseRouter::pool() const { return shared_->pool; }

void ResponseRouter::Start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([shared = shared_] { shared->Run(); });
}

void ResponseRouter::SetWorkerDescription(std::string description) {
  std::lock_guard<std::mutex> lock(shared_->mu);
  shared_->worker = std::move(description);
}

std::shared_ptr<OpenRequest> ResponseRouter::Register(uint64_t id, INFERD_Request* request,
                                                      uint64_t compute_start_ns) {
  auto open = std::make_shared<OpenRequest>();
  open->request = request;
  open->id = id;
  open->compute_start_ns = compute_start_ns;
  std::lock_guard<std::mutex> lock(shared_->mu);
  shared_->open.emplace(id, open);
  return open;
}

void ResponseRouter::CompleteFromResult(OpenRequest& open, uint64_t compute_end_ns,
                                        const std::function<INFERD_Error*(INFERD_Request*)>& fill) {
  std::lock_guard<std::mutex> lock(open.mu);
  open.in_execute = false;
  if (open.request == nullptr) return;
  shared_->ReportTimes(open, compute_end_ns);
  shared_->Complete(open, fill(open.request));
}

void ResponseRouter::CompleteIfOpen(OpenRequest& open, INFERD_Error* error) {
  std::lock_guard<std::mutex> lock(open.mu);
  if (open.request == nullptr) {
    if (error != nullptr) shared_->api.ErrorDelete(error);
    return;
  }
  shared_->Complete(open, error);
}

void ResponseRouter::Leave(OpenRequest& open, uint64_t compute_end_ns) {
  bool dead = false;
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    dead = shared_->dead;
  }
  {
    std::lock_guard<std::mutex> lock(open.mu);
    open.in_execute = false;
    if (open.request == nullptr) return;
    shared_->ReportTimes(open, compute_end_ns);
    if (!dead) return;
  }
  // The reader already failed the others; this one was still executing.
  std::string worker;
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    worker = shared_->worker;
  }
  CompleteIfOpen(open, NewError(shared_->api, INFERD_ERROR_INTERNAL,
                                shared_->describe + ": " + worker +
                                    " exited before it sent the final response of this request"));
}

// ---- Shared ------------------------------------------------------------------

std::shared_ptr<OpenRequest> ResponseRouter::Shared::Find(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu);
  auto it = open.find(id);
  return it == open.end() ? nullptr : it->second;
}

void ResponseRouter::Shared::Forget(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu);
  open.erase(id);
}

void ResponseRouter::Shared::ReportTimes(OpenRequest& request, uint64_t end_ns) {
  if (request.compute_reported || request.compute_start_ns == 0) return;
  request.compute_reported = true;
  if (api.RequestReportComputeTimes == nullptr) return;
  if (end_ns == 0 && api.NowNanoseconds != nullptr) end_ns = api.NowNanoseconds();
  if (end_ns != 0) api.RequestReportComputeTimes(request.request, request.compute_start_ns, end_ns);
}

void ResponseRouter::Shared::Complete(OpenRequest& request, INFERD_Error* error) {
  ReportTimes(request, 0);
  api.RequestComplete(request.request, error);
  request.request = nullptr;
  Forget(request.id);
}

void ResponseRouter::Shared::FailOpen(const std::string& message, bool skip_in_execute) {
  std::vector<std::shared_ptr<OpenRequest>> requests;
  {
    std::lock_guard<std::mutex> lock(mu);
    for (const auto& [id, request] : open) requests.push_back(request);
  }
  for (const auto& request : requests) {
    std::lock_guard<std::mutex> lock(request->mu);
    if (request->request == nullptr || (skip_in_execute && request->in_execute)) continue;
    Complete(*request, NewError(api, INFERD_ERROR_INTERNAL, message));
  }
}

void ResponseRouter::Shared::Run() {
  for (;;) {
    StatusOr<WorkerChannel::Received> received = channel->ReceiveOrWake(std::nullopt, -1);
    if (!received.ok()) break;  // the worker exited (or the instance is going away)
    WorkerChannel::Message& message = received->message;
    if (message.type == MessageType::kResponse) {
      OnResponse(std::move(message.payload));
    } else if (message.type == MessageType::kIsCancelled) {
      OnIsCancelled(message.payload);
    } else {
      LogWarning(describe + ": ignored message type " +
                 std::to_string(static_cast<int>(message.type)) + " on the response socket");
    }
  }
  std::string worker_now;
  {
    std::lock_guard<std::mutex> lock(mu);
    dead = true;
    worker_now = worker;
  }
  FailOpen(
      describe + ": " + worker_now + " exited before it sent the final response of this request",
      /*skip_in_execute=*/true);
}

INFERD_Error* ResponseRouter::Shared::AddOutputs(
    INFERD_Request* request, const ResponseMessage& message,
    const std::shared_ptr<std::vector<uint8_t>>& payload) {
  std::shared_ptr<PoolBlock> block;
  if (message.pool_block != kNoPoolBlock && pool != nullptr && message.pool_block < pool->size()) {
    block = std::make_shared<PoolBlock>(PoolBlock{pool, message.pool_block});
  }
  for (const WireTensor& output : message.response.outputs) {
    const void* data = output.data;
    std::shared_ptr<const void> held = payload;
    if (output.location == Location::kRegion) {
      if (block == nullptr || output.offset < message.pool_block ||
          output.byte_size > pool->size() || output.offset > pool->size() - output.byte_size) {
        return NewError(
            api, INFERD_ERROR_INTERNAL,
            "the Python worker placed a response output outside its response pool block");
      }
      data = pool->base() + output.offset;
      held = block;
    }
    const std::string name(output.name);
    INFERD_Error* error = api.ResponseAddOutput(
        request, name.c_str(), output.datatype, output.dims.data(), output.dims.size(), data,
        output.byte_size, &Keepalive::Release, new Keepalive{std::move(held)});
    if (error != nullptr) return error;
  }
  return nullptr;
}

void ResponseRouter::Shared::OnResponse(std::vector<uint8_t> payload) {
  auto owned = std::make_shared<std::vector<uint8_t>>(std::move(payload));
  StatusOr<ResponseMessage> message = DecodeResponse(*owned);
  if (!message.ok()) {
    // The frame was whole: only this response is lost. Its request (the
    // id leads the payload) ends with the error rather than waiting.
    LogWarning(describe + ": " + message.status().message());
    if (owned->size() < sizeof(uint64_t)) return;
    uint64_t id = 0;
    std::memcpy(&id, owned->data(), sizeof(id));
    if (std::shared_ptr<OpenRequest> request = Find(id)) {
      std::lock_guard<std::mutex> lock(request->mu);
      if (request->request != nullptr) {
        Complete(*request, NewError(api, INFERD_ERROR_INTERNAL, message.status().message()));
      }
    }
    return;
  }
  std::shared_ptr<OpenRequest> request = Find(message->request_id);
  if (request == nullptr) {
    // Completed already (a failed batch, a dead worker): nobody waits for
    // it. A pool block it holds is handed back as `message` goes.
    if (message->pool_block != kNoPoolBlock && pool != nullptr &&
        message->pool_block < pool->size()) {
      const PoolBlock handed_back{pool, message->pool_block};
    }
    return;
  }
  std::lock_guard<std::mutex> lock(request->mu);
  if (request->request == nullptr) return;
  INFERD_Error* error = nullptr;
  const WireResponse& response = message->response;
  if (message->has_response && response.has_error) {
    error = NewError(api, response.error_code, std::string(response.error_message));
  } else if (message->has_response) {
    error = AddOutputs(request->request, *message, owned);
  }
  if (!decoupled && !message->final) {
    // An ordinary model's one response travels with its final flag
    // (the worker holds it until then).
    if (error != nullptr) api.ErrorDelete(error);
    Complete(*request, NewError(api, INFERD_ERROR_INTERNAL,
                                "malformed message from the Python worker: a RESPONSE without "
                                "the final flag for a model that is not decoupled"));
    return;
  }
  if (message->final) {
    Complete(*request, error);
    return;
  }
  if (INFERD_Error* refused = api.RequestSendResponse(request->request, error, 0)) {
    LogWarning(describe + ": a response was dropped: " + api.ErrorMessage(refused));
    api.ErrorDelete(refused);
  }
}

void ResponseRouter::Shared::OnIsCancelled(std::span<const uint8_t> payload) {
  StatusOr<uint64_t> id = DecodeIsCancelled(payload);
  if (!id.ok()) {
    LogWarning(describe + ": " + id.status().message());
    return;
  }
  bool cancelled = false;
  if (std::shared_ptr<OpenRequest> request = Find(*id)) {
    std::lock_guard<std::mutex> lock(request->mu);
    if (request->request != nullptr && api.RequestIsCancelled != nullptr) {
      cancelled = api.RequestIsCancelled(request->request) != 0;
    }
  }
  const std::vector<uint8_t> answer = EncodeCancelled(*id, cancelled);
  if (Status sent = channel->Send(MessageType::kCancelled, answer); !sent.ok()) {
    LogWarning(describe + ": cannot answer IS_CANCELLED: " + sent.message());
  }
}

}  // namespace inferd::python
