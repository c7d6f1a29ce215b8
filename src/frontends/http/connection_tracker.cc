// SPDX-License-Identifier: Apache-2.0
#include "frontends/http/connection_tracker.h"

#include <vector>

#include "base/logging.h"
#include "frontends/http/session.h"

namespace inferd::frontends::http {

bool ConnectionTracker::Add(Session* key, std::weak_ptr<Session> session) {
  absl::MutexLock lock(&mu_);
  if (closed_) return false;
  sessions_.emplace(key, std::move(session));
  return true;
}

void ConnectionTracker::Remove(Session* key) {
  absl::MutexLock lock(&mu_);
  sessions_.erase(key);
}

bool ConnectionTracker::WaitUntilEmpty(absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  return mu_.AwaitWithTimeout(
      absl::Condition(
          +[](std::unordered_map<Session*, std::weak_ptr<Session>>* sessions) {
            return sessions->empty();
          },
          &sessions_),
      timeout);
}

void ConnectionTracker::CloseAll() {
  std::vector<std::shared_ptr<Session>> open;
  {
    absl::MutexLock lock(&mu_);
    closed_ = true;
    for (auto& [key, weak] : sessions_) {
      if (auto session = weak.lock()) open.push_back(std::move(session));
    }
  }
  // Outside the lock: Close() only posts, but a session's destructor (which
  // calls Remove) may run when `open` is released.
  for (const auto& session : open) session->Close();
}

bool ConnectionTracker::BeginCall() {
  absl::MutexLock lock(&mu_);
  if (closed_) return false;
  ++calls_;
  return true;
}

void ConnectionTracker::EndCall() {
  absl::MutexLock lock(&mu_);
  --calls_;
}

void ConnectionTracker::WaitForCalls() {
  absl::MutexLock lock(&mu_);
  while (!mu_.AwaitWithTimeout(absl::Condition(
                                   +[](int* calls) { return *calls == 0; }, &calls_),
                               absl::Seconds(10))) {
    INFERD_LOG_WARN("http: still waiting for {} inference calls to finish", calls_);
  }
}

}  // namespace inferd::frontends::http
