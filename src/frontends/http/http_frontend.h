// SPDX-License-Identifier: Apache-2.0
// The HTTP/REST frontend: KServe v2 with Triton's extensions, served on
// Boost.Beast/Asio over inferd::Server alone. Create() binds and starts it;
// Stop() (or the destructor) shuts it down.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "frontends/http/http_reply.h"
#include "server/server.h"

namespace inferd::frontends::http {

struct IncomingRequest;
class Responder;
struct ServingContext;

// Answers one request in place of the KServe routes: runs on an I/O thread,
// must not block, and answers through the Responder exactly once (later, for
// work handed to the Server, between context->tracker.BeginCall/EndCall).
using RouteHandler = std::function<void(const std::shared_ptr<ServingContext>& context,
                                        IncomingRequest request, Responder responder)>;

struct HttpOptions {
  std::string name = "http";  // for logs
  // Set: every request on the port goes here instead of the KServe routes
  // (a second HTTP frontend with routes of its own: TF Serving's REST API,
  // frontends/tfserving/rest_routes.h).
  RouteHandler routes;
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
  // false: the KServe endpoint does not listen, only the side endpoints do
  // (Triton's --allow-http=false with metrics still served).
  bool serve_kserve = true;
};

// A plain HTTP endpoint on an address of its own, served by the frontend's
// I/O threads with the same connection handling (header checks, limits,
// keep-alive, timeouts) but `handler` instead of the KServe routes. The
// Prometheus /metrics endpoint is one: it gets no thread of its own.
struct SideEndpoint {
  std::string name;  // for logs and errors: "metrics"
  std::string host;
  int port = 0;  // 0: pick a free port
  // Answers one request from its method and target. Runs on an I/O thread,
  // so it must be quick and must not block.
  std::function<HttpReply(std::string_view method, std::string_view target)> handler;
};

class FrontendCore;

// Thread-safe. Owns its I/O threads; `server` is borrowed and must outlive it.
class HttpFrontend {
 public:
  // Binds and starts serving on its own threads, with `side_endpoints` on
  // the same threads. `server` must outlive it.
  static absl::StatusOr<std::unique_ptr<HttpFrontend>> Create(
      Server& server, HttpOptions options, std::vector<SideEndpoint> side_endpoints = {});
  ~HttpFrontend();  // Stop()
  HttpFrontend(const HttpFrontend&) = delete;
  HttpFrontend& operator=(const HttpFrontend&) = delete;

  int port() const;                   // the bound port
  int side_port(size_t index) const;  // the bound port of side_endpoints[index]
  // The server has stopped accepting requests (Server::Stop is draining
  // them): closes the listener, so new connections are refused, and makes
  // every reply from now on close its connection. Side endpoints keep
  // serving. Stop() then waits up to 500 ms for the open connections to
  // end before closing them (docs/deployment.md, "Shutdown").
  void BeginDrain();
  // Stops accepting (side endpoints too), closes connections, waits for
  // requests still running in the server to call back, joins the threads.
  // Idempotent.
  void Stop();

 private:
  explicit HttpFrontend(std::unique_ptr<FrontendCore> core);

  std::unique_ptr<FrontendCore> core_;
};

}  // namespace inferd::frontends::http
