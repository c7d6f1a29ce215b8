// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the lifecycle tests that run threads (and run under
// TSan): everything synchronizes through base::Mutex, which TSan sees, not
// through Debian's uninstrumented absl::Mutex.
#pragma once

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "core/infer_request.h"
#include "scheduling/scheduler.h"

namespace inferd::lifecycle::test {

// Yields until `condition()` holds or `limit` has passed (a bound against a
// hang, never a wait for time to pass); returns whether it holds.
inline bool WaitUntil(const std::function<bool()>& condition,
                      std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

// The one result of an InferCallback.
class CapturedResult {
 public:
  core::InferCallback Callback() {
    return [this](absl::StatusOr<core::InferResponse> result) {
      base::MutexLock lock(&mu_);
      ++calls_;
      result_ = std::move(result);
    };
  }
  bool done() {
    base::MutexLock lock(&mu_);
    return calls_ > 0;
  }
  absl::StatusOr<core::InferResponse> Wait() {
    base::MutexLock lock(&mu_);
    mu_.Await([this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return calls_ > 0; });
    return *result_;
  }
  int calls() {
    base::MutexLock lock(&mu_);
    return calls_;
  }

 private:
  base::Mutex mu_;
  int calls_ ABSL_GUARDED_BY(mu_) = 0;
  std::optional<absl::StatusOr<core::InferResponse>> result_ ABSL_GUARDED_BY(mu_);
};

// A thread-safe list of what happened, in order.
class EventLog {
 public:
  void Add(std::string event) {
    base::MutexLock lock(&mu_);
    events_.push_back(std::move(event));
  }
  std::vector<std::string> events() {
    base::MutexLock lock(&mu_);
    return events_;
  }

 private:
  base::Mutex mu_;
  std::vector<std::string> events_ ABSL_GUARDED_BY(mu_);
};

// Wraps another scheduler and logs "create #n" / "destroy #n" (n counts the
// schedulers the factory built, from 1), so that tests can see in which
// order versions were loaded and unloaded.
class LoggingScheduler final : public scheduling::Scheduler {
 public:
  LoggingScheduler(std::unique_ptr<scheduling::Scheduler> inner, std::shared_ptr<EventLog> log,
                   int number)
      : inner_(std::move(inner)), log_(std::move(log)), number_(number) {
    log_->Add("create #" + std::to_string(number_));
  }
  ~LoggingScheduler() override {
    inner_.reset();
    log_->Add("destroy #" + std::to_string(number_));
  }
  void Submit(std::unique_ptr<INFERD_Request> request) override {
    inner_->Submit(std::move(request));
  }
  void Stop() override { inner_->Stop(); }
  void FailQueued(const absl::Status& status) override { inner_->FailQueued(status); }

 private:
  std::unique_ptr<scheduling::Scheduler> inner_;
  const std::shared_ptr<EventLog> log_;
  const int number_;
};

inline scheduling::SchedulerFactory LoggingSchedulerFactory(scheduling::SchedulerFactory inner,
                                                            std::shared_ptr<EventLog> log) {
  auto count = std::make_shared<std::atomic<int>>(0);
  return [inner = std::move(inner), log = std::move(log), count](
             const inference::ModelConfig& config,
             std::vector<std::unique_ptr<backends::BackendInstance>> instances,
             const std::string& model_directory)
             -> absl::StatusOr<std::unique_ptr<scheduling::Scheduler>> {
    auto built = inner(config, std::move(instances), model_directory);
    if (!built.ok()) return built.status();
    return std::unique_ptr<scheduling::Scheduler>(
        std::make_unique<LoggingScheduler>(std::move(*built), log, count->fetch_add(1) + 1));
  };
}

}  // namespace inferd::lifecycle::test
