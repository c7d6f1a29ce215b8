// SPDX-License-Identifier: Apache-2.0
// Streamed replies of a Session (Server-Sent Events for generate_stream):
// the head, then the body piece by piece as the server produces it, each
// piece framed as an HTTP/1.1 chunk, then the last chunk. Everything runs
// on the session's strand; a backend thread only posts.
#include <utility>

#include "boost/asio/post.hpp"
#include "boost/asio/write.hpp"
#include "frontends/http/session.h"

namespace inferd::frontends::http {
namespace {

namespace beast = boost::beast;
namespace net = boost::asio;

constexpr auto kStreamWriteTimeout = std::chrono::seconds(300);

}  // namespace

void Session::OpenStream(HttpReply head) {
  net::post(stream_.get_executor(), [self = shared_from_this(), head = std::move(head)]() mutable {
    self->StartStream(std::move(head));
  });
}

void Session::StreamData(std::function<std::string()> make) {
  net::post(stream_.get_executor(), [self = shared_from_this(), make = std::move(make)] {
    if (self->closed_ || !self->stream_state_ || self->stream_state_->ended) return;
    std::string data = make();
    if (data.empty()) return;
    self->QueueStream(self->stream_state_->chunked ? ChunkFrame(data) : std::move(data));
  });
}

void Session::EndStream() {
  net::post(stream_.get_executor(), [self = shared_from_this()] {
    if (self->closed_ || !self->stream_state_ || self->stream_state_->ended) return;
    if (self->stream_state_->chunked) self->QueueStream(std::string(kLastChunk));
    if (self->stream_state_) self->stream_state_->ended = true;
    self->WriteStream();
  });
}

void Session::StartStream(HttpReply head) {
  if (closed_) return;
  stream_state_.emplace();
  stream_state_->chunked = version_ != 10;
  stream_state_->close = head.close_connection || !keep_alive_ || !stream_state_->chunked;
  QueueStream(SerializeStreamHead(head, version_, stream_state_->close));
}

void Session::QueueStream(std::string bytes) {
  StreamState& state = *stream_state_;
  state.queued_bytes += bytes.size();
  state.queued.push_back(std::move(bytes));
  if (state.queued_bytes > kMaxStreamBacklog) {
    // The client reads nothing: stop producing for it.
    if (token_) token_->Cancel();
    stream_state_.reset();
    CloseSocket();
    return;
  }
  WriteStream();
}

void Session::WriteStream() {
  if (closed_ || !stream_state_) return;
  StreamState& state = *stream_state_;
  if (!state.writing.empty()) return;  // OnStreamWrite takes what queued meanwhile
  if (state.queued.empty()) {
    if (!state.ended) return;
    // Done: no write is pending, so ending the watch cancels only its wait.
    const bool close = state.close;
    stream_state_.reset();
    watch_.Stop(stream_.socket());
    token_.reset();
    if (close) {
      Linger();
    } else {
      ReadHeader(true);
    }
    return;
  }
  state.writing.swap(state.queued);
  state.queued_bytes = 0;
  std::vector<net::const_buffer> buffers;
  buffers.reserve(state.writing.size());
  for (const std::string& piece : state.writing) buffers.emplace_back(piece.data(), piece.size());
  stream_.expires_after(kStreamWriteTimeout);
  net::async_write(stream_, buffers, [self = shared_from_this()](beast::error_code ec, size_t) {
    self->OnStreamWrite(ec);
  });
}

void Session::OnStreamWrite(beast::error_code ec) {
  // Between pieces nothing is pending: the next may come much later.
  stream_.expires_never();
  if (ec || !stream_state_) {
    if (token_) token_->Cancel();  // the client is gone: its request need not go on
    stream_state_.reset();
    CloseSocket();
    return;
  }
  stream_state_->writing.clear();
  WriteStream();
}

}  // namespace inferd::frontends::http
