// SPDX-License-Identifier: Apache-2.0
#include "frontends/http/listener.h"

#include <chrono>
#include <future>

#include "absl/strings/str_cat.h"
#include "base/logging.h"
#include "boost/asio/post.hpp"
#include "boost/asio/strand.hpp"
#include "frontends/http/session.h"
#include "frontends/http/string_view_util.h"

namespace inferd::frontends::http {

namespace net = boost::asio;
using net::ip::tcp;

Listener::Listener(net::io_context& io, std::shared_ptr<ServingContext> context)
    : io_(io),
      strand_(net::make_strand(io)),
      acceptor_(strand_),
      retry_timer_(strand_),
      context_(std::move(context)) {}

absl::StatusOr<std::shared_ptr<Listener>> Listener::Create(
    net::io_context& io, std::shared_ptr<ServingContext> context) {
  auto listener = std::make_shared<Listener>(io, std::move(context));
  if (absl::Status status = listener->Bind(); !status.ok()) return status;
  return listener;
}

absl::Status Listener::Bind() {
  const HttpOptions& options = context_->options;
  boost::system::error_code ec;
  tcp::resolver resolver(io_);
  const auto results =
      resolver.resolve(options.host, std::to_string(options.port),
                       tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec || results.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("http: cannot resolve host '", options.host,
                                                   "': ", ec ? ec.message() : "no address"));
  }
  const tcp::endpoint endpoint = results.begin()->endpoint();
  const auto fail = [&](std::string_view what) {
    return absl::UnavailableError(absl::StrCat("http: cannot ", AsAbsl(what), " ", options.host,
                                               ":", options.port, ": ", ec.message()));
  };
  if (acceptor_.open(endpoint.protocol(), ec)) return fail("open");
  if (acceptor_.set_option(net::socket_base::reuse_address(true), ec)) return fail("configure");
  if (acceptor_.bind(endpoint, ec)) return fail("bind");
  if (acceptor_.listen(net::socket_base::max_listen_connections, ec)) return fail("listen on");
  port_ = acceptor_.local_endpoint(ec).port();
  return absl::OkStatus();
}

void Listener::Start() {
  net::post(strand_, [self = shared_from_this()] { self->Accept(); });
}

void Listener::Stop() {
  auto closed = std::make_shared<std::promise<void>>();
  std::future<void> done = closed->get_future();
  net::post(strand_, [self = shared_from_this(), closed] {
    self->stopped_ = true;
    boost::system::error_code ignored;
    self->acceptor_.close(ignored);
    self->retry_timer_.cancel();
    closed->set_value();
  });
  // Wait so that no connection lands in the backlog after Stop() returns.
  if (done.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
    INFERD_LOG_WARN("http: the listener did not close within 5 s");
  }
}

void Listener::Accept() {
  if (stopped_) return;
  acceptor_.async_accept(
      net::make_strand(io_),
      [self = shared_from_this()](boost::system::error_code ec, tcp::socket socket) {
        if (self->stopped_ || ec == net::error::operation_aborted) return;
        if (ec) {
          // Out of descriptors, say: wait a little rather than spin.
          INFERD_LOG_WARN("http: accept failed: {}", ec.message());
          self->retry_timer_.expires_after(std::chrono::milliseconds(100));
          self->retry_timer_.async_wait([self](boost::system::error_code) { self->Accept(); });
          return;
        }
        std::make_shared<Session>(std::move(socket), self->context_)->Start();
        self->Accept();
      });
}

}  // namespace inferd::frontends::http
