// SPDX-License-Identifier: Apache-2.0
#include "frontends/http/http_frontend.h"

#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/logging.h"
#include "boost/asio/executor_work_guard.hpp"
#include "boost/asio/io_context.hpp"
#include "frontends/http/listener.h"
#include "frontends/http/serving_context.h"

namespace inferd::frontends::http {

// After a drain, how long Stop waits for open connections to end on their
// own (each closes after its next reply) before closing the rest.
constexpr absl::Duration kDrainLinger = absl::Milliseconds(500);

// The io_context, its threads and the listeners. Members are declared so that
// the io_context is destroyed last: destroying it destroys the handlers still
// queued, and with them the sessions they hold.
//
// Side endpoints (/metrics) get a listener and a ServingContext of their own
// on this io_context rather than a server of their own: the threading model
// gives metrics no thread, a scrape is a few kilobytes every few seconds,
// and the sessions' hardening (limits, timeouts, keep-alive) comes for free.
// They stop with the HTTP endpoint, before its threads are drained.
class FrontendCore {
 public:
  FrontendCore(Server& server, HttpOptions options, std::vector<SideEndpoint> side_endpoints)
      : io_(std::max(1, options.threads)),
        work_(boost::asio::make_work_guard(io_)),
        context_(std::make_shared<ServingContext>(server, options)) {
    for (SideEndpoint& side : side_endpoints) {
      HttpOptions side_options = options;
      side_options.host = side.host;
      side_options.port = side.port;
      side_names_.push_back(side.name);
      side_contexts_.push_back(std::make_shared<ServingContext>(server, std::move(side_options),
                                                                std::move(side.handler)));
    }
  }
  ~FrontendCore() { Stop(); }

  absl::Status Start() {
    // Bind everything before starting anything, so that a failure leaves
    // nothing running.
    std::shared_ptr<Listener> listener;
    if (context_->options.serve_kserve) {
      auto created = Listener::Create(io_, context_);
      if (!created.ok()) return created.status();
      listener = *std::move(created);
    }
    std::vector<std::shared_ptr<Listener>> side_listeners;
    for (size_t i = 0; i < side_contexts_.size(); ++i) {
      auto side = Listener::Create(io_, side_contexts_[i]);
      if (!side.ok()) {
        return absl::Status(
            side.status().code(),
            absl::StrCat(side_names_[i], " endpoint: ", std::string(side.status().message())));
      }
      side_listeners.push_back(*std::move(side));
    }
    listener_ = std::move(listener);
    side_listeners_ = std::move(side_listeners);
    if (listener_) listener_->Start();
    for (const auto& side : side_listeners_) side->Start();
    const int threads = std::max(1, context_->options.threads);
    for (int i = 0; i < threads; ++i) {
      threads_.emplace_back([this] {
        io_.run();
        absl::MutexLock lock(&threads_mu_);
        ++threads_done_;
      });
    }
    if (listener_) {
      INFERD_LOG_INFO("{}: listening on {}:{} with {} I/O thread(s)", context_->options.name,
                      context_->options.host, listener_->port(), threads);
    }
    for (size_t i = 0; i < side_listeners_.size(); ++i) {
      INFERD_LOG_INFO("{}: listening on {}:{} (HTTP I/O threads)", side_names_[i],
                      side_contexts_[i]->options.host, side_listeners_[i]->port());
    }
    return absl::OkStatus();
  }

  int port() const { return listener_ ? listener_->port() : 0; }
  int side_port(size_t index) const {
    return index < side_listeners_.size() ? side_listeners_[index]->port() : 0;
  }

  void BeginDrain() {
    absl::MutexLock lock(&stop_mu_);
    if (stopped_ || context_->draining.load()) return;
    if (listener_) listener_->Stop();
    context_->draining.store(true, std::memory_order_release);
  }

  void Stop() {
    absl::MutexLock lock(&stop_mu_);
    if (stopped_) return;
    stopped_ = true;
    if (listener_) listener_->Stop();
    if (context_->draining.load(std::memory_order_acquire)) {
      // Connections still open got no request since the drain began; give
      // a client that is sending one right now the time to be answered
      // (with Connection: close) before the rest are closed.
      context_->tracker.WaitUntilEmpty(kDrainLinger);
    }
    for (const auto& side : side_listeners_) side->Stop();
    context_->tracker.CloseAll();
    for (const auto& side : side_contexts_) side->tracker.CloseAll();
    // Callbacks of running requests post to session strands: keep the I/O
    // threads up until the last one has run.
    context_->tracker.WaitForCalls();
    work_.reset();
    // Let the queued handlers run out rather than stopping the io_context:
    // a queued reply may hold output buffers whose release function lives in
    // a backend library that the server unloads once we return.
    WaitForThreadsToFinish(absl::Seconds(10));
    io_.stop();  // only matters if something still had work
    for (std::thread& thread : threads_) thread.join();
    threads_.clear();
  }

 private:
  void WaitForThreadsToFinish(absl::Duration timeout) {
    absl::MutexLock lock(&threads_mu_);
    const auto all_done = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(threads_mu_) {
      return threads_done_ == threads_.size();
    };
    if (!threads_mu_.AwaitWithTimeout(absl::Condition(&all_done), timeout)) {
      INFERD_LOG_WARN("http: I/O threads still busy after shutdown; stopping them");
    }
  }

  boost::asio::io_context io_;
  // Keeps run() going while the server may still post replies (until Stop
  // has seen the last infer callback), even when no socket is open.
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::shared_ptr<ServingContext> context_;
  std::shared_ptr<Listener> listener_;
  std::vector<std::string> side_names_;
  std::vector<std::shared_ptr<ServingContext>> side_contexts_;
  std::vector<std::shared_ptr<Listener>> side_listeners_;
  std::vector<std::thread> threads_;
  absl::Mutex threads_mu_;
  size_t threads_done_ ABSL_GUARDED_BY(threads_mu_) = 0;
  absl::Mutex stop_mu_;
  bool stopped_ ABSL_GUARDED_BY(stop_mu_) = false;
};

absl::StatusOr<std::unique_ptr<HttpFrontend>> HttpFrontend::Create(
    Server& server, HttpOptions options, std::vector<SideEndpoint> side_endpoints) {
  if (options.port < 0 || options.port > 65535) {
    return absl::InvalidArgumentError("http: port must be in 0..65535");
  }
  for (const SideEndpoint& side : side_endpoints) {
    if (side.port < 0 || side.port > 65535) {
      return absl::InvalidArgumentError(absl::StrCat(side.name, ": port must be in 0..65535"));
    }
    if (!side.handler) {
      return absl::InvalidArgumentError(absl::StrCat(side.name, ": no handler"));
    }
  }
  auto core = std::make_unique<FrontendCore>(server, std::move(options), std::move(side_endpoints));
  if (absl::Status status = core->Start(); !status.ok()) return status;
  return std::unique_ptr<HttpFrontend>(new HttpFrontend(std::move(core)));
}

HttpFrontend::HttpFrontend(std::unique_ptr<FrontendCore> core) : core_(std::move(core)) {}

HttpFrontend::~HttpFrontend() { Stop(); }

int HttpFrontend::port() const { return core_->port(); }

void HttpFrontend::BeginDrain() { core_->BeginDrain(); }

int HttpFrontend::side_port(size_t index) const { return core_->side_port(index); }

void HttpFrontend::Stop() { core_->Stop(); }

}  // namespace inferd::frontends::http
