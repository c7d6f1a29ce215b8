// SPDX-License-Identifier: Apache-2.0
// A fixed set of threads running queued tasks in FIFO order. The control
// plane's load pool (docs/architecture.md, "Threading"): model loads and warm-ups run here, apart
// from the serving threads.
#pragma once

#include <deque>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "base/mutex.h"

namespace inferd::base {

class ThreadPool {
 public:
  // Starts max(threads, 1) threads named `name` (pthread names are cut to 15
  // characters).
  ThreadPool(int threads, std::string name);
  // Runs every task already scheduled, then joins the threads.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Queues `task`; it runs on one of the pool's threads. Tasks scheduled
  // from inside a task are fine. Must not be called once the destructor has
  // started.
  void Schedule(std::function<void()> task);
  int size() const { return static_cast<int>(threads_.size()); }

 private:
  void Run();

  Mutex mu_;
  std::deque<std::function<void()>> tasks_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace inferd::base
