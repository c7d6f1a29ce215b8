// SPDX-License-Identifier: Apache-2.0
#include "frontends/http/disconnect_watch.h"

#include <sys/socket.h>

#include <cerrno>

#include "boost/asio/error.hpp"

namespace inferd::frontends::http {

namespace net = boost::asio;
using tcp = net::ip::tcp;

void DisconnectWatch::Start(tcp::socket& socket, std::shared_ptr<core::CancellationToken> token,
                            std::shared_ptr<void> owner) {
  token_ = std::move(token);
  ++generation_;
  Arm(socket, std::move(owner));
}

void DisconnectWatch::Stop(tcp::socket& socket) {
  if (token_ == nullptr) return;
  token_.reset();
  boost::system::error_code ignored;
  socket.cancel(ignored);  // only the wait is pending: the session reads nothing meanwhile
}

void DisconnectWatch::Arm(tcp::socket& socket, std::shared_ptr<void> owner) {
  socket.async_wait(tcp::socket::wait_read,
                    [this, &socket, owner, generation = generation_](boost::system::error_code ec) {
                      if (token_ == nullptr || generation != generation_) return;  // stopped
                      if (ec == net::error::operation_aborted) return;  // cancelled or closed
                      if (ec) {
                        token_->Cancel();  // the socket is unusable: the client is gone
                        token_.reset();
                        return;
                      }
                      Arm(socket, owner);  // a spurious wake-up leaves the new wait pending
                    });
  switch (Look(socket)) {
    case Seen::kNothing:
      break;
    case Seen::kNextRequest:
      // The wait just armed completes at once (the bytes are there) and
      // finds the watch over. No cancel: it would also abort the write of
      // a streamed reply (session_stream.cc) that the next request waits for.
      token_.reset();
      break;
    case Seen::kGone:
      Stop(socket);
      break;
  }
}

DisconnectWatch::Seen DisconnectWatch::Look(tcp::socket& socket) {
  char byte;
  const ssize_t n = ::recv(socket.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n > 0) return Seen::kNextRequest;  // a pipelined request: read after the reply, as usual
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return Seen::kNothing;
  token_->Cancel();  // 0: end of stream; < 0: reset or another connection error
  return Seen::kGone;
}

}  // namespace inferd::frontends::http
