// SPDX-License-Identifier: Apache-2.0
#include "worker_process.h"

#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

namespace inferd::python {
namespace {

// The descriptor number the worker finds its socket on (PROTOCOL.md).
constexpr int kWorkerControlFd = 3;

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

StatusOr<std::unique_ptr<WorkerProcess>> WorkerProcess::Start(const WorkerCommand& command) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    return Status::Internal(std::string("socketpair: ") + std::strerror(errno));
  }
  const int server_end = fds[0];
  const int worker_end = fds[1];

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // dup2 clears close-on-exec on the copy; every other descriptor the
  // server has (listening sockets, model files) stays out of the worker.
  posix_spawn_file_actions_adddup2(&actions, worker_end, kWorkerControlFd);
  posix_spawn_file_actions_addclosefrom_np(&actions, kWorkerControlFd + 1);

  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t empty;
  sigemptyset(&empty);
  sigset_t defaults;
  sigfillset(&defaults);
  posix_spawnattr_setsigmask(&attributes, &empty);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setflags(&attributes,
                           POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);

  std::vector<std::string> argv_strings{command.interpreter};
  argv_strings.insert(argv_strings.end(), command.arguments.begin(), command.arguments.end());
  std::vector<std::string> env_strings = command.environment;
  std::vector<char*> argv = CStrings(argv_strings);
  std::vector<char*> envp = CStrings(env_strings);

  pid_t pid = -1;
  // posix_spawnp searches PATH for a bare name, uses a path as given.
  const int error = ::posix_spawnp(&pid, command.interpreter.c_str(), &actions, &attributes,
                                   argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(worker_end);
  if (error != 0) {
    ::close(server_end);
    return Status(INFERD_ERROR_UNAVAILABLE, "cannot start the Python interpreter '" +
                                                command.interpreter + "': " + std::strerror(error));
  }
  return std::unique_ptr<WorkerProcess>(new WorkerProcess(pid, server_end));
}

WorkerProcess::~WorkerProcess() {
  if (!Running()) return;
  Kill();
}

void WorkerProcess::Reap(bool block) {
  if (reaped_) return;
  int status = 0;
  pid_t got;
  do {
    got = ::waitpid(pid_, &status, block ? 0 : WNOHANG);
  } while (got < 0 && errno == EINTR);
  if (got == pid_ || (got < 0 && errno == ECHILD)) {
    reaped_ = true;
    wait_status_ = got == pid_ ? status : 0;
  }
}

bool WorkerProcess::Running() {
  Reap(/*block=*/false);
  return !reaped_;
}

void WorkerProcess::Kill() {
  if (reaped_) return;
  ::kill(pid_, SIGKILL);
  Reap(/*block=*/true);
}

void WorkerProcess::WaitOrKill(int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  // A worker exits within milliseconds of FINALIZED; poll briefly rather
  // than install a SIGCHLD handler in the server.
  auto pause = std::chrono::microseconds(200);
  while (Running() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(pause);
    pause = std::min<std::chrono::microseconds>(pause * 2, std::chrono::milliseconds(20));
  }
  Kill();
}

std::string WorkerProcess::ExitDescription() {
  if (Running()) return "is running";
  if (WIFEXITED(wait_status_))
    return "exited with status " + std::to_string(WEXITSTATUS(wait_status_));
  if (WIFSIGNALED(wait_status_)) {
    const int signal = WTERMSIG(wait_status_);
    const char* name = ::sigabbrev_np(signal);
    return "was killed by signal " + std::to_string(signal) +
           (name != nullptr ? std::string(" (SIG") + name + ")" : std::string());
  }
  return "stopped";
}

}  // namespace inferd::python
