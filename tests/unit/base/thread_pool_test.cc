// SPDX-License-Identifier: Apache-2.0
#include "base/thread_pool.h"

#include <pthread.h>

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "gtest/gtest.h"

namespace inferd::base {
namespace {

// Counts finished tasks; Await blocks until `n` have finished.
class Counter {
 public:
  void Add() {
    MutexLock lock(&mu_);
    ++count_;
  }
  void Await(int n) {
    MutexLock lock(&mu_);
    mu_.Await([&]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return count_ >= n; });
  }
  int count() {
    MutexLock lock(&mu_);
    return count_;
  }

 private:
  Mutex mu_;
  int count_ ABSL_GUARDED_BY(mu_) = 0;
};

TEST(ThreadPoolTest, RunsEveryTask) {
  Counter counter;
  ThreadPool pool(4, "test-pool");
  EXPECT_EQ(pool.size(), 4);
  for (int i = 0; i < 100; ++i) pool.Schedule([&] { counter.Add(); });
  counter.Await(100);
  EXPECT_EQ(counter.count(), 100);
}

TEST(ThreadPoolTest, StartsAtLeastOneThread) {
  Counter counter;
  ThreadPool pool(0, "test-pool");
  EXPECT_EQ(pool.size(), 1);
  pool.Schedule([&] { counter.Add(); });
  counter.Await(1);
}

TEST(ThreadPoolTest, DestructorRunsTheTasksStillQueued) {
  Counter counter;
  Notification started;
  Notification release;
  auto pool = std::make_unique<ThreadPool>(1, "test-pool");
  // The only thread is held by the first task, so the others stay queued.
  pool->Schedule([&] {
    started.Notify();
    release.WaitForNotification();
  });
  started.WaitForNotification();
  for (int i = 0; i < 10; ++i) pool->Schedule([&] { counter.Add(); });
  EXPECT_EQ(counter.count(), 0);
  release.Notify();
  pool.reset();
  EXPECT_EQ(counter.count(), 10);
}

TEST(ThreadPoolTest, RunsTasksInOrderOnOneThread) {
  Mutex mu;
  std::vector<int> order;
  {
    ThreadPool pool(1, "test-pool");
    for (int i = 0; i < 20; ++i) {
      pool.Schedule([&, i] {
        MutexLock lock(&mu);
        order.push_back(i);
      });
    }
  }
  MutexLock lock(&mu);
  ASSERT_EQ(order.size(), 20u);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(order[static_cast<size_t>(i)], i);
}

TEST(ThreadPoolTest, TasksMayScheduleTasks) {
  Counter counter;
  Notification last;
  // Declared before the pool, which runs it until the pool is destroyed.
  std::function<void(int)> step;
  ThreadPool pool(2, "test-pool");
  // A chain of 10 tasks, each scheduled by the one before.
  step = [&](int remaining) {
    counter.Add();
    if (remaining == 0) {
      last.Notify();
      return;
    }
    pool.Schedule([&step, remaining] { step(remaining - 1); });
  };
  pool.Schedule([&] { step(9); });
  last.WaitForNotification();
  EXPECT_EQ(counter.count(), 10);
}

// Every task waits until all of them have started: this completes only if
// the pool really runs `kThreads` tasks at the same time.
TEST(ThreadPoolTest, ThreadsRunInParallel) {
  constexpr int kThreads = 4;
  std::array<Notification, kThreads> arrived;
  Counter counter;
  ThreadPool pool(kThreads, "test-pool");
  for (int i = 0; i < kThreads; ++i) {
    pool.Schedule([&, i] {
      arrived[static_cast<size_t>(i)].Notify();
      for (auto& other : arrived) other.WaitForNotification();
      counter.Add();
    });
  }
  counter.Await(kThreads);
}

TEST(ThreadPoolTest, NamesItsThreadsCutTo15Characters) {
  Mutex mu;
  std::string name;
  Notification done;
  {
    ThreadPool pool(1, "inferd-load-pool-long-name");
    pool.Schedule([&] {
      char buffer[32] = {};
      pthread_getname_np(pthread_self(), buffer, sizeof(buffer));
      MutexLock lock(&mu);
      name = buffer;
    });
  }
  MutexLock lock(&mu);
  EXPECT_EQ(name, "inferd-load-poo");
}

}  // namespace
}  // namespace inferd::base
