// SPDX-License-Identifier: Apache-2.0
// How a route handler answers: exactly one Send or SendLater per request,
// from any thread. The reply is built and written on the connection's own
// executor, so a backend thread never encodes or touches the socket.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "core/cancellation.h"
#include "frontends/http/http_reply.h"

namespace inferd::frontends::http {

class Session;

// Copyable; keeps the session alive until the reply has been handed over,
// even if the client has gone (the write then simply fails).
class Responder {
 public:
  explicit Responder(std::shared_ptr<Session> session) : session_(std::move(session)) {}

  void Send(HttpReply reply) const;
  // Runs `make` on the session's executor and sends what it returns.
  void SendLater(std::function<HttpReply()> make) const;
  // Raises `token` when the client goes away before the reply is sent. Call
  // before Send/SendLater.
  void WatchDisconnect(std::shared_ptr<core::CancellationToken> token) const;

  // A streamed reply instead of Send/SendLater (Session::OpenStream): the
  // head once, any number of pieces, then EndStream exactly once.
  void OpenStream(HttpReply head) const;
  void StreamData(std::function<std::string()> make) const;
  void EndStream() const;

 private:
  std::shared_ptr<Session> session_;
};

}  // namespace inferd::frontends::http
