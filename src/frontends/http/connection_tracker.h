// SPDX-License-Identifier: Apache-2.0
// What shutdown must wait for or close: the open sessions, and the infer and
// model control calls whose completion callback has not run yet (it may run
// on a backend or control-plane thread at any time, and posts to the
// session's executor, so the I/O threads must outlive it). Thread-safe.
#pragma once

#include <memory>
#include <unordered_map>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace inferd::frontends::http {

class Session;

class ConnectionTracker {
 public:
  // Registers a session; false once CloseAll() has run (the caller closes it).
  bool Add(Session* key, std::weak_ptr<Session> session);
  void Remove(Session* key);
  // Waits until every session has ended or `timeout` has passed; true when
  // none is left.
  bool WaitUntilEmpty(absl::Duration timeout);
  // Closes every registered session and refuses new ones.
  void CloseAll();

  // Brackets one Server::InferAsync (or LoadModelAsync/UnloadModelAsync)
  // call: Begin before the call, End at the end of its completion callback.
  // Begin returns false (make no call) once CloseAll() has run, so that
  // WaitForCalls() cannot miss a late one.
  bool BeginCall();
  void EndCall();
  // Blocks until every begun call has ended.
  void WaitForCalls();

 private:
  absl::Mutex mu_;
  std::unordered_map<Session*, std::weak_ptr<Session>> sessions_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  int calls_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace inferd::frontends::http
