// SPDX-License-Identifier: Apache-2.0
// One thread for the whole server that calls schedulers back at the moments
// they asked for: the dynamic batcher flushes a partial batch whose delay
// expired and rejects requests whose queue timeout passed (docs/architecture.md, "Threading": no
// thread per model). Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <thread>
#include <utility>

#include "base/clock.h"
#include "base/mutex.h"

namespace inferd::scheduling {

class TimerClient {
 public:
  virtual ~TimerClient() = default;
  // Called on the timer thread at or after the requested time. Must not call
  // SharedTimer::Cancel for itself.
  virtual void OnDeadline() = 0;
};

// What a scheduler needs from the timer; tests substitute a recording fake.
class Timer {
 public:
  virtual ~Timer() = default;
  // Asks for client->OnDeadline() at `at_nanos` (on the timer's clock). A
  // client has at most one pending call: the earlier time wins.
  virtual void Schedule(TimerClient* client, int64_t at_nanos) = 0;
  // Drops the pending call; when it returns, OnDeadline of `client` is not
  // running and will not run (unless scheduled again).
  virtual void Cancel(TimerClient* client) = 0;
};

class SharedTimer final : public Timer {
 public:
  // `clock` must be real time (the thread sleeps on it); borrowed.
  explicit SharedTimer(const base::Clock& clock = base::Clock::Real());
  ~SharedTimer() override;  // joins the thread; no client may remain
  SharedTimer(const SharedTimer&) = delete;
  SharedTimer& operator=(const SharedTimer&) = delete;

  void Schedule(TimerClient* client, int64_t at_nanos) override;
  void Cancel(TimerClient* client) override;

 private:
  void Run();

  const base::Clock& clock_;
  base::Mutex mu_;
  std::map<TimerClient*, int64_t> due_ ABSL_GUARDED_BY(mu_);               // client -> time
  std::set<std::pair<int64_t, TimerClient*>> order_ ABSL_GUARDED_BY(mu_);  // by time
  TimerClient* running_ ABSL_GUARDED_BY(mu_) = nullptr;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace inferd::scheduling
