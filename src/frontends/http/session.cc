// SPDX-License-Identifier: Apache-2.0
#include "frontends/http/session.h"

#include <chrono>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "boost/asio/dispatch.hpp"
#include "boost/asio/post.hpp"
#include "boost/asio/write.hpp"
#include "boost/beast/http/read.hpp"
#include "frontends/http/request_checks.h"
#include "frontends/http/responder.h"
#include "frontends/http/routes/routes.h"
#include "frontends/http/string_view_util.h"

namespace inferd::frontends::http {
namespace {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace net = boost::asio;

constexpr size_t kMaxHeaderBytes = 64 * 1024;
constexpr size_t kReadChunk = 16 * 1024;
// A kept-alive connection may idle this long between requests; clients
// reuse pooled connections, so it is generous.
constexpr auto kIdleTimeout = std::chrono::seconds(600);
constexpr auto kBodyTimeout = std::chrono::seconds(300);
constexpr auto kWriteTimeout = std::chrono::seconds(300);
constexpr auto kLingerTimeout = std::chrono::seconds(5);

}  // namespace

Session::Session(net::ip::tcp::socket socket, std::shared_ptr<ServingContext> context)
    : stream_(std::move(socket)), context_(std::move(context)) {}

Session::~Session() { context_->tracker.Remove(this); }

void Session::Start() {
  if (!context_->tracker.Add(this, weak_from_this())) {
    CloseSocket();
    return;
  }
  beast::error_code ignored;
  stream_.socket().set_option(net::ip::tcp::no_delay(true), ignored);
  net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->ReadHeader(true); });
}

void Session::Close() {
  net::post(stream_.get_executor(), [self = shared_from_this()] {
    // A reply being written is finished first: its request was accepted and
    // is answered, and OnWrite closes then.
    if (self->write_in_progress_) {
      self->close_after_write_ = true;
      return;
    }
    self->CloseSocket();
  });
}

void Session::Deliver(std::function<HttpReply()> make) {
  net::post(stream_.get_executor(),
            [self = shared_from_this(), make = std::move(make)] { self->Write(make()); });
}

void Session::WatchDisconnect(std::shared_ptr<core::CancellationToken> token) {
  // Posted like Deliver, so it runs before the reply that follows it.
  net::post(stream_.get_executor(),
            [self = shared_from_this(), token = std::move(token)]() mutable {
              self->StartWatch(std::move(token));
            });
}

void Session::StartWatch(std::shared_ptr<core::CancellationToken> token) {
  token_ = token;
  // Bytes already read past this request are a pipelined next request: the
  // client is still there (and an end of stream behind them means it only
  // finished sending).
  if (closed_ || buffer_.size() > 0) return;
  watch_.Start(stream_.socket(), std::move(token), shared_from_this());
}

// Reads until the blank line that ends the header. The header is parsed from
// raw bytes (rather than with async_read_header) so that folded lines, which
// Beast would silently join, can be refused.
void Session::ReadHeader(bool fresh) {
  if (closed_) return;
  const std::string_view seen(static_cast<const char*>(buffer_.data().data()), buffer_.size());
  const size_t end = seen.find("\r\n\r\n");
  if (end != std::string_view::npos) {
    ParseHeader(end + 4);
    return;
  }
  if (seen.size() >= kMaxHeaderBytes) {
    Fail(431, absl::StrCat("request header exceeds ", kMaxHeaderBytes, " bytes"));
    return;
  }
  // One deadline for the whole header: trickling bytes does not extend it.
  if (fresh) stream_.expires_after(kIdleTimeout);
  stream_.async_read_some(buffer_.prepare(kReadChunk),
                          [self = shared_from_this()](beast::error_code ec, size_t n) {
                            if (ec) {
                              self->CloseSocket();  // peer gone, idle timeout or shutdown
                              return;
                            }
                            self->buffer_.commit(n);
                            self->ReadHeader(false);
                          });
}

void Session::ParseHeader(size_t header_size) {
  const std::string_view raw(static_cast<const char*>(buffer_.data().data()), header_size);
  if (absl::Status status = CheckRawHeader(raw); !status.ok()) {
    Fail(400, AsStd(status.message()));
    return;
  }
  parser_.emplace();
  parser_->body_limit(context_->options.max_body_bytes);
  parser_->header_limit(kMaxHeaderBytes);
  beast::error_code ec;
  const size_t used = parser_->put(net::buffer(raw.data(), raw.size()), ec);
  if (ec == bhttp::error::body_limit) {
    Fail(413, absl::StrCat("request body exceeds the limit of ", context_->options.max_body_bytes,
                           " bytes"));
    return;
  }
  if (ec || !parser_->is_header_done()) {
    Fail(400, absl::StrCat("malformed HTTP request: ", ec ? ec.message() : "incomplete header"));
    return;
  }
  buffer_.consume(used);
  const auto& header = parser_->get();
  if (absl::Status status = CheckRequestHeader(header.base(), header.version()); !status.ok()) {
    Fail(400, AsStd(status.message()));
    return;
  }
  version_ = header.version();
  const auto expect = header.find(bhttp::field::expect);
  if (expect != header.end() && !parser_->is_done() &&
      absl::EqualsIgnoreCase(absl::string_view(expect->value().data(), expect->value().size()),
                             "100-continue")) {
    static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
    stream_.expires_after(kWriteTimeout);
    net::async_write(stream_, net::buffer(kContinue.data(), kContinue.size()),
                     [self = shared_from_this()](beast::error_code ec, size_t) {
                       if (ec) {
                         self->CloseSocket();
                         return;
                       }
                       self->ReadBody();
                     });
    return;
  }
  ReadBody();
}

void Session::ReadBody() {
  if (parser_->is_done()) {
    OnBody({});
    return;
  }
  stream_.expires_after(kBodyTimeout);
  bhttp::async_read(
      stream_, buffer_, *parser_,
      [self = shared_from_this()](beast::error_code ec, size_t) { self->OnBody(ec); });
}

void Session::OnBody(beast::error_code ec) {
  if (ec == bhttp::error::body_limit) {
    Fail(413, absl::StrCat("request body exceeds the limit of ", context_->options.max_body_bytes,
                           " bytes"));
    return;
  }
  if (ec == bhttp::error::end_of_stream || ec == bhttp::error::partial_message ||
      ec == net::error::operation_aborted || ec == beast::error::timeout || ec == net::error::eof ||
      ec == net::error::connection_reset) {
    CloseSocket();
    return;
  }
  if (ec) {
    Fail(400, absl::StrCat("malformed HTTP request body: ", ec.message()));
    return;
  }
  Dispatch();
}

void Session::Dispatch() {
  stream_.expires_never();  // nothing is pending while the server works
  bhttp::request<bhttp::string_body> message = parser_->release();
  parser_.reset();
  keep_alive_ = message.keep_alive();
  IncomingRequest request;
  request.body = std::make_shared<std::string>(std::move(message.body()));
  request.header = std::move(message.base());
  DispatchRequest(context_, std::move(request), Responder(shared_from_this()));
}

void Session::Write(HttpReply reply) {
  watch_.Stop(stream_.socket());  // before the write: the wait must not outlive the request
  if (closed_) return;
  writing_ = std::move(reply);
  // While draining every reply closes its connection, so that a client
  // sending continuously learns of it from a reply instead of from a closed
  // connection (its next connection is then refused: the listener is shut).
  const bool close = writing_.close_connection || !keep_alive_ ||
                     context_->draining.load(std::memory_order_acquire);
  head_ = SerializeReplyHead(writing_, version_, close);
  std::vector<net::const_buffer> buffers;
  buffers.reserve(2 + writing_.tail.size());
  buffers.emplace_back(head_.data(), head_.size());
  if (!writing_.body.empty()) buffers.emplace_back(writing_.body.data(), writing_.body.size());
  for (const core::Buffer& buffer : writing_.tail) {
    if (buffer.size > 0) buffers.emplace_back(buffer.data, buffer.size);
  }
  stream_.expires_after(kWriteTimeout);
  write_in_progress_ = true;
  net::async_write(stream_, buffers,
                   [self = shared_from_this(), close](beast::error_code ec, size_t) {
                     self->OnWrite(ec, close);
                   });
}

void Session::OnWrite(beast::error_code ec, bool close) {
  writing_ = HttpReply();  // releases output buffers (and the request body they may share)
  token_.reset();
  write_in_progress_ = false;
  if (ec || close_after_write_) {
    CloseSocket();
    return;
  }
  if (close) {
    Linger();
    return;
  }
  ReadHeader(true);
}

void Session::Fail(int status, std::string_view message) {
  HttpReply reply = ErrorReply(status, message);
  reply.close_connection = true;
  parser_.reset();
  Write(std::move(reply));
}

void Session::Linger() {
  beast::error_code ignored;
  stream_.socket().shutdown(net::ip::tcp::socket::shutdown_send, ignored);
  stream_.expires_after(kLingerTimeout);
  buffer_.clear();
  struct Drain {
    std::shared_ptr<Session> self;
    void operator()(beast::error_code ec, size_t) const {
      if (ec || self->closed_) {
        self->CloseSocket();
        return;
      }
      self->buffer_.clear();
      self->stream_.async_read_some(self->buffer_.prepare(kReadChunk), *this);
    }
  };
  Drain{shared_from_this()}({}, 0);
}

void Session::CloseSocket() {
  if (closed_) return;
  closed_ = true;
  beast::error_code ignored;
  stream_.socket().shutdown(net::ip::tcp::socket::shutdown_both, ignored);
  stream_.socket().close(ignored);
}

}  // namespace inferd::frontends::http
