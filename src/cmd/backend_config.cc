// SPDX-License-Identifier: Apache-2.0
#include "cmd/backend_config.h"

#include <string_view>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace inferd::cmd {
namespace {

enum class Value { kCount, kBytes, kSeconds, kPath };

struct KnownKey {
  std::string_view key;
  Value value;
};

struct KnownBackend {
  std::string_view name;
  std::vector<KnownKey> keys;
  // Triton keys this backend has no behaviour for, with the reason.
  std::vector<std::pair<std::string_view, std::string_view>> refused;
};

// What inferd's own backends honour (docs/configuration.md, "Triton's
// command line"). Every backend also takes default-max-batch-size.
const std::vector<KnownBackend>& KnownBackends() {
  static const auto* known = new std::vector<KnownBackend>{
      {"onnxruntime",
       {{"intra_op_thread_count", Value::kCount}, {"inter_op_thread_count", Value::kCount}},
       {{"enable-global-threadpool",
         "inferd gives each session its own pool, sized so that all instances together fit "
         "the cores; set intra_op_thread_count instead"}}},
      {"python",
       {{"interpreter", Value::kPath},
        {"shm-default-byte-size", Value::kBytes},
        {"stub-timeout-seconds", Value::kSeconds}},
       {{"shm-growth-byte-size",
         "inferd's worker regions double in size when a batch does not fit, up to the model's "
         "shm_max_region_bytes"},
        {"shm-region-prefix-name", "inferd names each worker's region itself (one per instance)"},
        {"shm-message-queue-size",
         "inferd's workers exchange messages over a socket, not a shared-memory queue"}}},
      {"pytorch", {}, {}},
  };
  return *known;
}

absl::Status CheckValue(const std::string& backend, const KnownKey& key, const std::string& value) {
  const std::string flag =
      absl::StrCat("--backend-config=", backend, ",", std::string(key.key), "=", value);
  switch (key.value) {
    case Value::kCount:
    case Value::kBytes: {
      uint64_t parsed = 0;
      if (absl::SimpleAtoi(value, &parsed)) return absl::OkStatus();
      return absl::InvalidArgumentError(
          absl::StrCat(flag, ": '", value, "' is not a non-negative integer"));
    }
    case Value::kSeconds: {
      double parsed = 0;
      if (absl::SimpleAtod(value, &parsed) && parsed >= 0) return absl::OkStatus();
      return absl::InvalidArgumentError(
          absl::StrCat(flag, ": '", value, "' is not a number of seconds"));
    }
    case Value::kPath:
      if (!value.empty()) return absl::OkStatus();
      return absl::InvalidArgumentError(absl::StrCat(flag, ": the value is empty"));
  }
  return absl::OkStatus();
}

absl::Status CheckKey(const std::string& backend, const std::string& key,
                      const std::string& value) {
  if (key == "default-max-batch-size") {
    int parsed = 0;
    if (absl::SimpleAtoi(value, &parsed) && parsed >= 0) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat("--backend-config=", backend, ",", key, "=",
                                                   value, ": not a non-negative integer"));
  }
  for (const KnownBackend& known : KnownBackends()) {
    if (known.name != backend) continue;
    std::vector<std::string> accepted = {"default-max-batch-size"};
    for (const KnownKey& candidate : known.keys) {
      if (candidate.key == key) return CheckValue(backend, candidate, value);
      accepted.emplace_back(candidate.key);
    }
    for (const auto& [refused, why] : known.refused) {
      if (refused == key) {
        return absl::InvalidArgumentError(
            absl::StrCat("--backend-config=", backend, ",", key,
                         " has no effect in inferd: ", std::string(why)));
      }
    }
    return absl::InvalidArgumentError(absl::StrCat("--backend-config=", backend, ",", key, ": the ",
                                                   backend, " backend of inferd has no setting '",
                                                   key, "' (it takes ",
                                                   absl::StrJoin(accepted, ", "), ")"));
  }
  return absl::OkStatus();  // a custom backend's own settings
}

}  // namespace

absl::Status AddBackendConfig(std::string_view argument_view, BackendConfigs& configs) {
  const std::string argument(argument_view);
  const size_t equals = argument.find('=');
  if (equals == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--backend-config '", argument, "': expected <backend>,<key>=<value> or <key>=<value>"));
  }
  const std::string head = argument.substr(0, equals);
  const std::string value = argument.substr(equals + 1);
  // The comma before '=' separates the backend; a value may hold commas.
  const size_t comma = head.find(',');
  const std::string backend = comma == std::string::npos ? "" : head.substr(0, comma);
  const std::string key = comma == std::string::npos ? head : head.substr(comma + 1);
  if (key.empty() || (comma != std::string::npos && backend.empty())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--backend-config '", argument, "': expected <backend>,<key>=<value> or <key>=<value>"));
  }
  if (backend.empty()) {
    // Triton's global settings: only default-max-batch-size means anything
    // to a CPU server (the others are GPU memory and compute-capability knobs).
    if (key != "default-max-batch-size") {
      return absl::InvalidArgumentError(absl::StrCat(
          "--backend-config=", key, "=", value,
          ": inferd has no such global backend setting (it takes default-max-batch-size, or "
          "<backend>,<key>=<value>)"));
    }
    if (!absl::SimpleAtoi(value, &configs.default_max_batch_size) ||
        configs.default_max_batch_size < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--backend-config=default-max-batch-size=", value, ": not a non-negative integer"));
    }
    return absl::OkStatus();
  }
  if (absl::Status status = CheckKey(backend, key, value); !status.ok()) return status;
  configs.by_backend[backend].emplace_back(key, value);
  return absl::OkStatus();
}

std::string PythonInterpreter(const BackendConfigs& configs) {
  std::string interpreter;
  const auto it = configs.by_backend.find("python");
  if (it == configs.by_backend.end()) return interpreter;
  for (const auto& [key, value] : it->second) {
    if (key == "interpreter") interpreter = value;
  }
  return interpreter;
}

}  // namespace inferd::cmd
