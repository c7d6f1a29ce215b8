// SPDX-License-Identifier: Apache-2.0
#include "base/thread_pool.h"

#include <pthread.h>

#include <algorithm>
#include <utility>

namespace inferd::base {

ThreadPool::ThreadPool(int threads, std::string name) {
  // Linux keeps 16 bytes of a thread name, the terminating NUL included.
  const std::string thread_name = name.substr(0, 15);
  const int count = std::max(threads, 1);
  threads_.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    threads_.emplace_back([this, thread_name] {
      (void)pthread_setname_np(pthread_self(), thread_name.c_str());  // a name is only a help
      Run();
    });
  }
}

ThreadPool::~ThreadPool() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  for (auto& thread : threads_) thread.join();
}

void ThreadPool::Schedule(std::function<void()> task) {
  MutexLock lock(&mu_);
  tasks_.push_back(std::move(task));
}

void ThreadPool::Run() {
  while (true) {
    std::function<void()> task;
    {
      MutexLock lock(&mu_);
      mu_.Await([this]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return stopping_ || !tasks_.empty(); });
      // Stopping with nothing left. A task still running elsewhere may queue
      // another; its own thread comes back here and runs it.
      if (tasks_.empty()) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

}  // namespace inferd::base
