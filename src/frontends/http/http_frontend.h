// SPDX-License-Identifier: Apache-2.0
// The HTTP/REST frontend: KServe v2 with Triton's extensions, served on
// Boost.Beast/Asio over inferd::Server alone. Create() binds and starts it;
// Stop() (or the destructor) shuts it down.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "server/server.h"

namespace inferd::frontends::http {

struct HttpOptions {
  std::string host = "0.0.0.0";
  int port = 8000;  // 0: pick a free port
  int threads = 1;  // I/O threads
  // Largest request body, as sent and after decompression. 256 MiB admits
  // 100 MB tensors with room for their JSON.
  size_t max_body_bytes = 256 << 20;
  // Largest JSON part of an infer request, and largest total of tensor data
  // decoded from its `data` arrays (Triton's --http-max-input-size). Binary
  // tensor data does not count.
  size_t max_json_input_bytes = 64 << 20;
};

class FrontendCore;

// Thread-safe. Owns its I/O threads; `server` is borrowed and must outlive it.
class HttpFrontend {
 public:
  // Binds and starts serving on its own threads. `server` must outlive it.
  static absl::StatusOr<std::unique_ptr<HttpFrontend>> Create(Server& server, HttpOptions options);
  ~HttpFrontend();  // Stop()
  HttpFrontend(const HttpFrontend&) = delete;
  HttpFrontend& operator=(const HttpFrontend&) = delete;

  int port() const;  // the bound port
  // Stops accepting, closes connections, waits for requests still running in
  // the server to call back, joins the threads. Idempotent.
  void Stop();

 private:
  explicit HttpFrontend(std::unique_ptr<FrontendCore> core);

  std::unique_ptr<FrontendCore> core_;
};

}  // namespace inferd::frontends::http
