// SPDX-License-Identifier: Apache-2.0
#include "py_interpreter.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "py_log.h"

extern char** environ;

namespace inferd::python {
namespace {

namespace fs = std::filesystem;

// A broken interpreter (a wrapper that hangs, a network file system) must not
// hold start-up: a numpy import takes well under a second.
constexpr auto kProbeTimeout = std::chrono::seconds(10);

bool IsExecutable(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error) && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

bool CanImportNumpy(const std::string& python) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // Quiet: a failing import's traceback is not the server's business here.
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t empty;
  sigemptyset(&empty);
  posix_spawnattr_setsigmask(&attributes, &empty);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK);
  std::string program = python, flag = "-c", code = "import numpy";
  char* argv[] = {program.data(), flag.data(), code.data(), nullptr};
  pid_t pid = -1;
  const int error = ::posix_spawn(&pid, python.c_str(), &actions, &attributes, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (error != 0) return false;
  const auto deadline = std::chrono::steady_clock::now() + kProbeTimeout;
  int status = 0;
  auto pause = std::chrono::milliseconds(2);
  for (;;) {
    const pid_t got = ::waitpid(pid, &status, WNOHANG);
    if (got == pid) break;
    if (got < 0 && errno != EINTR) return false;
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      return false;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min<std::chrono::milliseconds>(pause * 2, std::chrono::milliseconds(50));
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

InterpreterChoice ChooseInterpreter(std::string_view inferd_python, std::string_view configured,
                                    std::string_view search_path) {
  if (!inferd_python.empty()) {
    return {std::string(inferd_python), "from the INFERD_PYTHON environment variable"};
  }
  if (!configured.empty()) {
    return {std::string(configured), "from --python (--backend-config=python,interpreter=...)"};
  }
  std::set<fs::path> probed;  // PATH often lists one folder twice, or a symlink to it
  std::vector<std::string> without_numpy;
  size_t start = 0;
  while (start <= search_path.size()) {
    size_t end = search_path.find(':', start);
    if (end == std::string_view::npos) end = search_path.size();
    const std::string_view folder = search_path.substr(start, end - start);
    start = end + 1;
    // An empty PATH entry means the working folder; a server should not pick
    // an interpreter from wherever it was started.
    if (folder.empty()) continue;
    const fs::path candidate = fs::path(folder) / "python3";
    if (!IsExecutable(candidate)) continue;
    std::error_code error;
    const fs::path real = fs::canonical(candidate, error);
    if (!probed.insert(error ? candidate : real).second) continue;
    if (CanImportNumpy(candidate.string())) {
      std::string reason = "the first python3 on PATH that can import numpy";
      if (!without_numpy.empty()) {
        reason += " (without numpy:";
        for (const std::string& other : without_numpy) reason += " " + other;
        reason += ")";
      }
      return {candidate.string(), reason};
    }
    without_numpy.push_back(candidate.string());
  }
  const fs::path system_python = "/usr/bin/python3";
  if (IsExecutable(system_python)) {
    std::error_code error;
    const fs::path real = fs::canonical(system_python, error);
    // Already probed through PATH: known to lack numpy.
    const bool numpy =
        !probed.contains(error ? system_python : real) && CanImportNumpy(system_python.string());
    if (numpy) return {system_python.string(), "no python3 on PATH can import numpy; it can"};
    return {system_python.string(),
            "no python3 on PATH or /usr/bin/python3 can import numpy: Python models will be "
            "UNAVAILABLE until one can (install numpy, or set INFERD_PYTHON or --python)",
            /*warn=*/true};
  }
  return {"python3",
          "no python3 on PATH can import numpy and there is no /usr/bin/python3: set "
          "INFERD_PYTHON or --python",
          /*warn=*/true};
}

const InterpreterChoice& DefaultInterpreter(std::string_view configured) {
  static std::mutex mu;
  // Never erased, so references stay valid.
  static std::map<std::string, InterpreterChoice, std::less<>> chosen;
  std::lock_guard lock(mu);
  if (auto it = chosen.find(configured); it != chosen.end()) return it->second;
  const char* inferd_python = std::getenv("INFERD_PYTHON");
  const char* path = std::getenv("PATH");
  InterpreterChoice choice = ChooseInterpreter(inferd_python != nullptr ? inferd_python : "",
                                               configured, path != nullptr ? path : "");
  const std::string line =
      "Python models without EXECUTION_ENV_PATH run on " + choice.path + ": " + choice.reason;
  if (choice.warn) {
    LogWarning(line);
  } else {
    LogInfo(line);
  }
  return chosen.emplace(std::string(configured), std::move(choice)).first->second;
}

}  // namespace inferd::python
