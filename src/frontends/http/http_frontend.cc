// SPDX-License-Identifier: Apache-2.0
#include "frontends/http/http_frontend.h"

#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "base/logging.h"
#include "boost/asio/executor_work_guard.hpp"
#include "boost/asio/io_context.hpp"
#include "frontends/http/listener.h"
#include "frontends/http/serving_context.h"

namespace inferd::frontends::http {

// The io_context, its threads and the listener. Members are declared so that
// the io_context is destroyed last: destroying it destroys the handlers still
// queued, and with them the sessions they hold.
class FrontendCore {
 public:
  FrontendCore(Server& server, HttpOptions options)
      : io_(std::max(1, options.threads)),
        work_(boost::asio::make_work_guard(io_)),
        context_(std::make_shared<ServingContext>(server, std::move(options))) {}
  ~FrontendCore() { Stop(); }

  absl::Status Start() {
    auto listener = Listener::Create(io_, context_);
    if (!listener.ok()) return listener.status();
    listener_ = *std::move(listener);
    listener_->Start();
    const int threads = std::max(1, context_->options.threads);
    for (int i = 0; i < threads; ++i) {
      threads_.emplace_back([this] {
        io_.run();
        absl::MutexLock lock(&threads_mu_);
        ++threads_done_;
      });
    }
    INFERD_LOG_INFO("http: listening on {}:{} with {} I/O thread(s)", context_->options.host,
                    listener_->port(), threads);
    return absl::OkStatus();
  }

  int port() const { return listener_ ? listener_->port() : 0; }

  void Stop() {
    absl::MutexLock lock(&stop_mu_);
    if (stopped_) return;
    stopped_ = true;
    if (listener_) listener_->Stop();
    context_->tracker.CloseAll();
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
  std::vector<std::thread> threads_;
  absl::Mutex threads_mu_;
  size_t threads_done_ ABSL_GUARDED_BY(threads_mu_) = 0;
  absl::Mutex stop_mu_;
  bool stopped_ ABSL_GUARDED_BY(stop_mu_) = false;
};

absl::StatusOr<std::unique_ptr<HttpFrontend>> HttpFrontend::Create(Server& server,
                                                                   HttpOptions options) {
  if (options.port < 0 || options.port > 65535) {
    return absl::InvalidArgumentError("http: port must be in 0..65535");
  }
  auto core = std::make_unique<FrontendCore>(server, std::move(options));
  if (absl::Status status = core->Start(); !status.ok()) return status;
  return std::unique_ptr<HttpFrontend>(new HttpFrontend(std::move(core)));
}

HttpFrontend::HttpFrontend(std::unique_ptr<FrontendCore> core) : core_(std::move(core)) {}

HttpFrontend::~HttpFrontend() { Stop(); }

int HttpFrontend::port() const { return core_->port(); }

void HttpFrontend::Stop() { core_->Stop(); }

}  // namespace inferd::frontends::http
