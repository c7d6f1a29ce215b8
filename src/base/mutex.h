// SPDX-License-Identifier: Apache-2.0
// The mutex of the concurrent core (scheduling, statistics): absl::Mutex's
// shape — Lock/Unlock, Await on a predicate, thread-safety annotations — on
// top of std::mutex and std::condition_variable. Why not absl::Mutex itself:
// Debian ships Abseil uninstrumented, so ThreadSanitizer cannot see its
// locking and reports false races; pthread primitives it does see, so the
// TSan job checks this code for real (docs/architecture.md, "Threading").
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>

#include "absl/base/thread_annotations.h"

namespace inferd::base {

class ABSL_LOCKABLE Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  // Like absl::Mutex, waiters re-check their condition whenever the mutex is
  // released, so callers need no explicit signalling. Notifying before the
  // unlock keeps a waiter from destroying the object under our feet.
  void Unlock() ABSL_UNLOCK_FUNCTION() {
    changed_.notify_all();
    mu_.unlock();
  }

  // REQUIRES: held. Releases the mutex until `condition()` holds.
  template <typename Condition>
  void Await(Condition condition) ABSL_EXCLUSIVE_LOCKS_REQUIRED(this) {
    // Waiting releases the mutex too: what this thread changed may be what
    // another waiter waits for. (Only on entry: re-waits change nothing.)
    changed_.notify_all();
    std::unique_lock<std::mutex> lock(mu_, std::adopt_lock);
    changed_.wait(lock, condition);
    lock.release();
  }
  // As Await, giving up after `timeout`; returns whether `condition()` holds.
  template <typename Condition, typename Rep, typename Period>
  bool AwaitWithTimeout(Condition condition, std::chrono::duration<Rep, Period> timeout)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(this) {
    changed_.notify_all();  // as in Await
    std::unique_lock<std::mutex> lock(mu_, std::adopt_lock);
    const bool met = changed_.wait_for(lock, timeout, condition);
    lock.release();
    return met;
  }

 private:
  friend class CondVar;
  std::mutex mu_;
  std::condition_variable changed_;
};

// A condition variable over a Mutex for hot paths: only Signal/SignalAll
// wake its waiters, not every unlock of the mutex, so a thread can wake
// exactly the one that has work instead of every waiter (each wake-up of a
// thread that finds nothing to do is two context switches). Code waiting on
// a CondVar must not also use Await on the same mutex for the same state.
class CondVar {
 public:
  CondVar() = default;
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;

  // REQUIRES: `mu` held. Releases it until signalled (or spuriously woken:
  // callers loop on their condition).
  void Wait(Mutex* mu) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();
  }
  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

class ABSL_SCOPED_LOCKABLE MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

// A mutex that can be waited for until a deadline (TimedLockable, for
// std::unique_lock). Why not std::timed_mutex: its try_lock_until calls
// pthread_mutex_clocklock, which GCC 12's ThreadSanitizer does not
// intercept, so TSan sees the unlock without the lock. Not for hot paths.
class TimedMutex {
 public:
  void lock() {
    MutexLock lock(&mu_);
    mu_.Await([this]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return !held_; });
    held_ = true;
  }
  bool try_lock() {
    MutexLock lock(&mu_);
    if (held_) return false;
    held_ = true;
    return true;
  }
  template <typename Duration>
  bool try_lock_until(std::chrono::time_point<std::chrono::steady_clock, Duration> deadline) {
    MutexLock lock(&mu_);
    // Clamped: condition_variable::wait_for overflows on time_point::max().
    const std::chrono::nanoseconds left = std::clamp<std::chrono::nanoseconds>(
        deadline - std::chrono::steady_clock::now(), std::chrono::nanoseconds::zero(),
        std::chrono::hours(24 * 365));
    if (!mu_.AwaitWithTimeout([this]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return !held_; }, left)) {
      return false;
    }
    held_ = true;
    return true;
  }
  void unlock() {
    MutexLock lock(&mu_);
    held_ = false;
  }

 private:
  Mutex mu_;
  bool held_ ABSL_GUARDED_BY(mu_) = false;
};

// A one-shot event (absl::Notification's shape, on base::Mutex).
class Notification {
 public:
  void Notify() {
    MutexLock lock(&mu_);
    notified_ = true;
  }
  bool HasBeenNotified() {
    MutexLock lock(&mu_);
    return notified_;
  }
  void WaitForNotification() {
    MutexLock lock(&mu_);
    mu_.Await([this]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return notified_; });
  }

 private:
  Mutex mu_;
  bool notified_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace inferd::base
