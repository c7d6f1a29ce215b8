// SPDX-License-Identifier: Apache-2.0
// Triton's --backend-config=<backend>,<key>=<value> (and the backend-less
// <key>=<value> for every backend): parsed, checked against what inferd's
// backends honour, and collected per backend for ServerOptions.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"

namespace inferd::cmd {

struct BackendConfigs {
  // Settings by backend name, in command-line order.
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> by_backend;
  // default-max-batch-size given without a backend (Triton's global form).
  int default_max_batch_size = 4;
};

// Adds one flag value. InvalidArgument, saying why and what is accepted, for
// a malformed value, a key the named inferd backend does not honour, or a
// value it would refuse. A backend that is not one of inferd's own (a custom
// backend) receives every key; it judges them itself.
absl::Status AddBackendConfig(std::string_view argument, BackendConfigs& configs);

// The interpreter of Python models set by --backend-config=python,interpreter=
// (or --python), or "" when none was given.
std::string PythonInterpreter(const BackendConfigs& configs);

}  // namespace inferd::cmd
