// SPDX-License-Identifier: Apache-2.0
// Notices that the client of an in-flight request went away. While the server
// works on a request the session does not read the socket, so a closed
// connection would go unseen until the reply is written; the watch waits for
// the socket to become readable and peeks at it: end of stream or a
// connection error raise the request's cancellation token (a queued request
// then leaves the queue unexecuted), while bytes (a pipelined next request)
// end the watch and stay unread. Like nginx, a client that half-closes its
// side after sending counts as gone.
#pragma once

#include <cstdint>
#include <memory>

#include "boost/asio/ip/tcp.hpp"
#include "core/cancellation.h"

namespace inferd::frontends::http {

// Not thread-safe: every call, and the completion of the wait it starts, runs
// on the executor (strand) of the socket. The owner of the socket owns this.
class DisconnectWatch {
 public:
  // Starts watching `socket` on behalf of `token`. `owner` keeps the socket
  // (and this) alive while a wait is pending. REQUIRES: no other operation on
  // the socket is pending until Stop().
  void Start(boost::asio::ip::tcp::socket& socket, std::shared_ptr<core::CancellationToken> token,
             std::shared_ptr<void> owner);
  // Ends the watch and cancels the pending wait, if any: the reply is about
  // to be written. Does nothing when no watch is running.
  void Stop(boost::asio::ip::tcp::socket& socket);

 private:
  // Waits for readability, then looks: arming first means that data or an
  // end of stream arriving meanwhile cannot be missed (asio's reactor is
  // edge-triggered and a wait is never tried speculatively).
  void Arm(boost::asio::ip::tcp::socket& socket, std::shared_ptr<void> owner);
  // Peeks at the socket: nothing yet, a next request waiting (the watch is
  // over), or the client gone (the token is raised).
  enum class Seen { kNothing, kNextRequest, kGone };
  Seen Look(boost::asio::ip::tcp::socket& socket);

  std::shared_ptr<core::CancellationToken> token_;  // null: not watching
  uint64_t generation_ = 0;  // tells a wait of an earlier request from the current one
};

}  // namespace inferd::frontends::http
