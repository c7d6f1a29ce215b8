// SPDX-License-Identifier: Apache-2.0
// Accepts TCP connections and starts a Session for each, on its own strand.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "boost/asio/io_context.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/asio/steady_timer.hpp"
#include "boost/asio/strand.hpp"
#include "frontends/http/serving_context.h"

namespace inferd::frontends::http {

class Listener : public std::enable_shared_from_this<Listener> {
 public:
  // Binds host:port (port 0: any free port). Unavailable when it cannot.
  static absl::StatusOr<std::shared_ptr<Listener>> Create(boost::asio::io_context& io,
                                                          std::shared_ptr<ServingContext> context);
  Listener(boost::asio::io_context& io, std::shared_ptr<ServingContext> context);

  void Start();
  // Stops accepting and closes the socket; waits for the acceptor's strand.
  // Call from outside the I/O threads.
  void Stop();
  int port() const { return port_; }

 private:
  absl::Status Bind();
  void Accept();

  boost::asio::io_context& io_;
  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer retry_timer_;
  const std::shared_ptr<ServingContext> context_;
  int port_ = 0;
  bool stopped_ = false;  // on strand_
};

}  // namespace inferd::frontends::http
