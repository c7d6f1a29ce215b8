// SPDX-License-Identifier: Apache-2.0
// Starting, watching and stopping one Python worker process. posix_spawn
// (not fork) because the server is multi-threaded; the worker gets its end
// of a socket pair as descriptor 3, nothing else of the server's, its own
// process group (a Ctrl-C in the server's terminal reaches only the server,
// which then finalizes its workers) and a clean signal mask.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "py_protocol.h"
#include "worker_channel.h"

namespace inferd::python {

struct WorkerCommand {
  std::string interpreter;             // a path, or a name looked up in PATH
  std::vector<std::string> arguments;  // after argv[0]
  // Full environment ("NAME=value") of the worker.
  std::vector<std::string> environment;
};

class WorkerProcess {
 public:
  static StatusOr<std::unique_ptr<WorkerProcess>> Start(const WorkerCommand& command);
  ~WorkerProcess();  // kills the worker if it still runs, and reaps it
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  pid_t pid() const { return pid_; }
  WorkerChannel& channel() { return channel_; }

  // True while the process has not exited (reaps it when it has).
  bool Running();
  // SIGKILL and reap.
  void Kill();
  // Waits up to `timeout_ms` for a voluntary exit, then kills.
  void WaitOrKill(int timeout_ms);
  // "exited with status 1", "killed by signal 9 (Killed)", or "is running".
  std::string ExitDescription();

 private:
  WorkerProcess(pid_t pid, int fd) : pid_(pid), channel_(fd) {}
  void Reap(bool block);

  pid_t pid_;
  bool reaped_ = false;
  int wait_status_ = 0;
  WorkerChannel channel_;
};

}  // namespace inferd::python
