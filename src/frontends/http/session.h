// SPDX-License-Identifier: Apache-2.0
// One HTTP/1.1 connection: reads a request (header checks, body limit,
// 100-continue), dispatches it, writes the reply, and loops while the
// connection is kept alive. One request at a time (no pipelining); while it is
// in flight, a DisconnectWatch notices a client that went away. All work runs
// on the connection's strand; Deliver/Close/WatchDisconnect may be called from
// any thread.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "boost/asio/ip/tcp.hpp"
#include "boost/beast/core/flat_buffer.hpp"
#include "boost/beast/core/tcp_stream.hpp"
#include "boost/beast/http/parser.hpp"
#include "boost/beast/http/string_body.hpp"
#include "core/cancellation.h"
#include "frontends/http/disconnect_watch.h"
#include "frontends/http/http_reply.h"
#include "frontends/http/serving_context.h"

namespace inferd::frontends::http {

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(boost::asio::ip::tcp::socket socket, std::shared_ptr<ServingContext> context);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Registers with the tracker and starts reading.
  void Start();
  // Closes the socket; pending operations end with an error. Any thread.
  void Close();
  // Runs `make` on the strand and writes its reply. Any thread.
  void Deliver(std::function<HttpReply()> make);
  // Raises `token` if the client goes away before the reply of the current
  // request is written (see DisconnectWatch). Any thread; call it before the
  // reply can be delivered.
  void WatchDisconnect(std::shared_ptr<core::CancellationToken> token);

  // A streamed reply (Server-Sent Events, session_stream.cc), in place of
  // Deliver and posted in order like it: OpenStream writes the status line
  // and headers, StreamData one piece of the body (built on the strand by
  // `make`), EndStream the end of the body, after which the connection
  // serves the next request (HTTP/1.0: closes). The disconnect watch keeps
  // running while the stream is written; a client that stops reading for
  // more than kMaxStreamBacklog bytes is cut off and its request cancelled.
  // Any thread.
  void OpenStream(HttpReply head);
  void StreamData(std::function<std::string()> make);
  void EndStream();
  static constexpr size_t kMaxStreamBacklog = 64 << 20;

 private:
  using Parser = boost::beast::http::request_parser<boost::beast::http::string_body>;

  void ReadHeader(bool fresh);
  void ParseHeader(size_t header_size);
  void ReadBody();
  void OnBody(boost::beast::error_code ec);
  void Dispatch();
  void Write(HttpReply reply);
  void OnWrite(boost::beast::error_code ec, bool close);
  // Answers with an error and closes, without reading the rest of the request.
  void Fail(int status, std::string_view message);
  // Stops sending, discards what the client still sends for a short while
  // (so it can read our reply rather than get a reset), then closes.
  void Linger();
  void CloseSocket();
  void StartWatch(std::shared_ptr<core::CancellationToken> token);
  void StartStream(HttpReply head);
  void QueueStream(std::string bytes);
  void WriteStream();
  void OnStreamWrite(boost::beast::error_code ec);

  // The body of a streamed reply on its way out: one write at a time, the
  // pieces that arrive meanwhile wait and go out together.
  struct StreamState {
    bool chunked = true;  // HTTP/1.1; HTTP/1.0 ends the body by closing
    bool close = false;   // close the connection after the reply
    bool ended = false;   // EndStream came: nothing follows the queued bytes
    std::vector<std::string> queued;
    size_t queued_bytes = 0;
    std::vector<std::string> writing;  // owned until the write completes
  };

  boost::beast::tcp_stream stream_;
  boost::beast::flat_buffer buffer_;
  std::optional<Parser> parser_;
  const std::shared_ptr<ServingContext> context_;
  // Reply being written; owns the bytes until the write completes.
  HttpReply writing_;
  std::string head_;
  unsigned version_ = 11;
  bool keep_alive_ = false;
  bool closed_ = false;
  bool write_in_progress_ = false;  // Write to OnWrite
  bool close_after_write_ = false;  // Close() came during a write
  DisconnectWatch watch_;
  // The current request's token (WatchDisconnect), also raised when a
  // streamed reply cannot be written.
  std::shared_ptr<core::CancellationToken> token_;
  std::optional<StreamState> stream_state_;
};

}  // namespace inferd::frontends::http
