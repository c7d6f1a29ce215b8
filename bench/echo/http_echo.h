// SPDX-License-Identifier: Apache-2.0
// The HTTP/1.1 half of the echo server: Boost.Beast sessions on the caller's
// io_context, answering KServe v2 metadata, config and infer calls for one model
// at once (zero-filled binary outputs). The transport limit of inferd's HTTP path.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "boost/asio/io_context.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "echo/model_spec.h"

namespace inferd::bench {

struct HttpEchoState;

// Not thread-safe: run its io_context on one thread. `io` must outlive *this.
class HttpEcho {
 public:
  // Listens on host:port (port 0 picks a free one).
  static absl::StatusOr<std::unique_ptr<HttpEcho>> Create(boost::asio::io_context& io,
                                                          ModelSpec model, const std::string& host,
                                                          int port);
  ~HttpEcho();
  HttpEcho(const HttpEcho&) = delete;
  HttpEcho& operator=(const HttpEcho&) = delete;

  int port() const { return port_; }
  // Stops accepting; open sessions end when the io_context stops.
  void Stop();

 private:
  HttpEcho(boost::asio::io_context& io, std::shared_ptr<HttpEchoState> state);
  void Accept();

  boost::asio::ip::tcp::acceptor acceptor_;
  std::shared_ptr<HttpEchoState> state_;  // shared with the sessions
  int port_ = 0;
};

}  // namespace inferd::bench
