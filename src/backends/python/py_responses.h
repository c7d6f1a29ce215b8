// SPDX-License-Identifier: Apache-2.0
// Response senders on the server side (python/PROTOCOL.md "Response
// senders"): the responses a Python model sends with
// request.get_response_sender().send() — every response of a decoupled
// model, an ordinary model's one response when it sends it instead of
// returning it. They arrive on a second socket, the response socket, at any
// time (also after execute() returned, while the next batch runs), so one
// thread per worker reads it and hands each response to its request
// (api->RequestSendResponse, then RequestComplete with the final flag).
//
// Every request of an EXECUTE is registered here before the EXECUTE is
// sent, and from then on it is touched only under its OpenRequest lock, by
// the instance thread (RESULT, failures) or by the reader thread
// (RESPONSEs): "calls about one request must not overlap" (backend.h). The
// first to complete it forgets it; the other then finds it gone.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include "inferd/backend.h"
#include "py_protocol.h"
#include "shm_region.h"

namespace inferd::python {

struct OpenRequest {
  std::mutex mu;
  INFERD_Request* request = nullptr;  // null once completed
  uint64_t id = 0;
  uint64_t compute_start_ns = 0;
  bool compute_reported = false;
  // Its EXECUTE is still in flight: the instance thread answers for it if
  // the worker dies, not the reader thread.
  bool in_execute = true;
};

class ResponseRouter {
 public:
  // A socket pair (the worker's end goes out with RESPONSE_SOCKET) and, for
  // a decoupled model with `pool_bytes` > 0 and shared memory allowed, the
  // response pool (RESPONSE_POOL); without it RESPONSE tensors go inline.
  static StatusOr<std::unique_ptr<ResponseRouter>> Create(const INFERD_ServerApi& api,
                                                          bool decoupled, std::string describe,
                                                          ShmMode mode, uint64_t pool_bytes,
                                                          const std::string& name_hint);
  // Stops the reader thread and fails every request still open.
  ~ResponseRouter();
  ResponseRouter(const ResponseRouter&) = delete;
  ResponseRouter& operator=(const ResponseRouter&) = delete;

  // The worker's end of the socket, to send with RESPONSE_SOCKET; close it
  // (CloseWorkerEnd) once sent.
  int worker_fd() const;
  void CloseWorkerEnd();
  // The response pool, or null.
  const std::shared_ptr<ShmRegion>& pool() const;
  // Starts the reader thread (again a no-op once started).
  void Start();
  // Who the worker is, for errors once it is gone ("pid 42").
  void SetWorkerDescription(std::string description);

  // Instance thread, before the EXECUTE is sent: the request is shared
  // with the reader thread from now on.
  std::shared_ptr<OpenRequest> Register(uint64_t id, INFERD_Request* request,
                                        uint64_t compute_start_ns);
  // RESULT answered the request: if it is still open, reports the compute
  // phase (until `compute_end_ns`), runs `fill(request)` (adds the outputs;
  // returns NULL or the error to complete with) and completes it.
  void CompleteFromResult(OpenRequest& open, uint64_t compute_end_ns,
                          const std::function<INFERD_Error*(INFERD_Request*)>& fill);
  // Completes the request with `error` (owned; NULL: success) if it is
  // still open; else frees `error`.
  void CompleteIfOpen(OpenRequest& open, INFERD_Error* error);
  // After RESULT left the request to its senders: reports the compute
  // times; fails it when the worker is already gone.
  void Leave(OpenRequest& open, uint64_t compute_end_ns);

  struct Shared;

 private:
  explicit ResponseRouter(std::shared_ptr<Shared> shared) : shared_(std::move(shared)) {}
  std::shared_ptr<Shared> shared_;
  std::thread thread_;
};

}  // namespace inferd::python
