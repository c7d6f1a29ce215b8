// SPDX-License-Identifier: Apache-2.0
#include "py_model.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <memory>

#include "py_interpreter.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

extern char** environ;

namespace inferd::python {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kMiB = 1ull << 20;
// A tensor whose size the config does not fix counts as this much.
constexpr uint64_t kVariableTensorBytes = 64 * 1024;

std::string_view Parameter(const INFERD_ModelSpec& spec, std::string_view key) {
  for (size_t i = 0; i < spec.parameter_count; ++i) {
    if (key == spec.parameters[i].key) return spec.parameters[i].value;
  }
  return {};
}

// The last --backend-config=python,<key>=... (a later flag wins).
std::string_view BackendSetting(const INFERD_ModelSpec& spec, std::string_view key) {
  std::string_view value;
  for (size_t i = 0; i < spec.backend_config_count; ++i) {
    if (key == spec.backend_config[i].key) value = spec.backend_config[i].value;
  }
  return value;
}

StatusOr<uint64_t> ParseUnsigned(std::string_view key, std::string_view text) {
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    return Status::InvalidArg("parameter '" + std::string(key) + "': '" + std::string(text) +
                              "' is not a non-negative integer");
  }
  return value;
}

StatusOr<std::chrono::milliseconds> ParseSeconds(std::string_view key, std::string_view text) {
  char* end = nullptr;
  const std::string copy(text);
  const double seconds = std::strtod(copy.c_str(), &end);
  if (copy.empty() || end != copy.c_str() + copy.size() || !(seconds >= 0) || seconds > 1e9) {
    return Status::InvalidArg("parameter '" + std::string(key) + "': '" + copy +
                              "' is not a number of seconds (0 for no limit)");
  }
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
}

uint64_t TensorBytes(const INFERD_TensorSpec& tensor, uint64_t rows) {
  const size_t element = backend_util::ElementByteSize(tensor.datatype);
  if (element == 0) return kVariableTensorBytes;
  uint64_t bytes = element * rows;
  for (size_t i = 0; i < tensor.dims_count; ++i) {
    if (tensor.dims[i] < 0) return kVariableTensorBytes;
    if (tensor.dims[i] > 0 &&
        bytes > std::numeric_limits<uint64_t>::max() / static_cast<uint64_t>(tensor.dims[i])) {
      return std::numeric_limits<uint64_t>::max() / 4;
    }
    bytes *= static_cast<uint64_t>(tensor.dims[i]);
  }
  return bytes;
}

// The folder this library was loaded from: the Python package is installed
// beside it (lib/backends/python/inferd_python).
std::string LibraryDirectory() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&LibraryDirectory), &info) == 0 ||
      info.dli_fname == nullptr) {
    return {};
  }
  std::error_code error;
  const fs::path path = fs::canonical(info.dli_fname, error);
  return error ? fs::path(info.dli_fname).parent_path().string() : path.parent_path().string();
}

bool IsExecutableFile(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error) && ::access(path.c_str(), X_OK) == 0;
}

// EXECUTION_ENV_PATH → the interpreter it names (see PyParameters); unset:
// the server-wide default (py_interpreter.h).
StatusOr<std::string> ResolveInterpreter(const std::string& execution_env,
                                         const std::string& model_directory,
                                         const std::string& default_interpreter) {
  if (execution_env.empty()) return DefaultInterpreter(default_interpreter).path;
  std::string text = execution_env;
  const std::string token = "$$TRITON_MODEL_DIRECTORY";
  for (size_t at = text.find(token); at != std::string::npos; at = text.find(token)) {
    text.replace(at, token.size(), model_directory);
  }
  fs::path path(text);
  if (path.is_relative()) path = fs::path(model_directory) / path;
  const std::string shown = "EXECUTION_ENV_PATH '" + path.string() + "'";
  std::error_code error;
  if (fs::is_directory(path, error)) {
    for (const char* name : {"bin/python3", "bin/python"}) {
      if (IsExecutableFile(path / name)) return (path / name).string();
    }
    return Status(INFERD_ERROR_UNAVAILABLE,
                  shown +
                      " is a folder without an executable bin/python3 (expected a "
                      "virtualenv or conda environment)");
  }
  const std::string file = path.filename().string();
  if (file.ends_with(".tar.gz") || file.ends_with(".tgz")) {
    return Status(INFERD_ERROR_UNSUPPORTED,
                  shown +
                      " is an archive; unpack it (tar -xzf) and set EXECUTION_ENV_PATH "
                      "to the unpacked folder");
  }
  if (!IsExecutableFile(path)) {
    return Status(INFERD_ERROR_UNAVAILABLE,
                  shown + " is neither an environment folder nor an executable interpreter");
  }
  return path.string();
}

void SetDefault(std::vector<std::string>& environment, const std::string& name,
                const std::string& value) {
  const std::string prefix = name + "=";
  for (const std::string& entry : environment) {
    if (entry.starts_with(prefix)) return;
  }
  environment.push_back(prefix + value);
}

void Set(std::vector<std::string>& environment, const std::string& name, const std::string& value) {
  const std::string prefix = name + "=";
  std::erase_if(environment, [&](const std::string& entry) { return entry.starts_with(prefix); });
  environment.push_back(prefix + value);
}

std::string Get(const std::vector<std::string>& environment, const std::string& name) {
  const std::string prefix = name + "=";
  for (const std::string& entry : environment) {
    if (entry.starts_with(prefix)) return entry.substr(prefix.size());
  }
  return {};
}

void WriteString(rapidjson::Writer<rapidjson::StringBuffer>& writer, std::string_view key,
                 std::string_view value) {
  writer.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
  writer.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

}  // namespace

StatusOr<PyParameters> ParseParameters(const INFERD_ModelSpec& spec) {
  PyParameters params;
  params.execution_env = std::string(Parameter(spec, "EXECUTION_ENV_PATH"));
  params.default_interpreter = std::string(BackendSetting(spec, "interpreter"));
  // Triton's Python backend settings are defaults; the model's parameters win.
  if (std::string_view text = BackendSetting(spec, "shm-default-byte-size"); !text.empty()) {
    StatusOr<uint64_t> bytes = ParseUnsigned("--backend-config=python,shm-default-byte-size", text);
    if (!bytes.ok()) return bytes.status();
    params.region_bytes = *bytes;
  }
  if (std::string_view text = BackendSetting(spec, "stub-timeout-seconds"); !text.empty()) {
    StatusOr<std::chrono::milliseconds> value =
        ParseSeconds("--backend-config=python,stub-timeout-seconds", text);
    if (!value.ok()) return value.status();
    params.initialize_timeout = *value;
  }
  const std::string_view mode = Parameter(spec, "shared_memory");
  const std::optional<ShmMode> parsed = ParseShmMode(mode);
  if (!parsed) {
    return Status::InvalidArg("parameter 'shared_memory': '" + std::string(mode) +
                              "' is not auto, dev-shm or none");
  }
  params.shm_mode = *parsed;
  if (std::string_view text = Parameter(spec, "shm_region_bytes"); !text.empty()) {
    StatusOr<uint64_t> bytes = ParseUnsigned("shm_region_bytes", text);
    if (!bytes.ok()) return bytes.status();
    params.region_bytes = *bytes;
  }
  if (std::string_view text = Parameter(spec, "shm_response_pool_bytes"); !text.empty()) {
    StatusOr<uint64_t> bytes = ParseUnsigned("shm_response_pool_bytes", text);
    if (!bytes.ok()) return bytes.status();
    params.response_pool_bytes = *bytes;
  }
  if (std::string_view text = Parameter(spec, "shm_max_region_bytes"); !text.empty()) {
    StatusOr<uint64_t> bytes = ParseUnsigned("shm_max_region_bytes", text);
    if (!bytes.ok()) return bytes.status();
    params.max_region_bytes = std::max<uint64_t>(*bytes, kRegionAlignment);
  }
  for (auto [key, field] : {std::pair{"execute_timeout_seconds", &params.execute_timeout},
                            std::pair{"initialize_timeout_seconds", &params.initialize_timeout}}) {
    if (std::string_view text = Parameter(spec, key); !text.empty()) {
      StatusOr<std::chrono::milliseconds> value = ParseSeconds(key, text);
      if (!value.ok()) return value.status();
      *field = *value;
    }
  }
  return params;
}

uint64_t EstimateRegionBytes(const INFERD_ModelSpec& spec, uint64_t max_region_bytes) {
  const uint64_t rows = spec.max_batch_size > 0 ? static_cast<uint64_t>(spec.max_batch_size) : 1;
  uint64_t total = 0;
  for (size_t i = 0; i < spec.input_count; ++i) total += AlignUp(TensorBytes(spec.inputs[i], rows));
  for (size_t i = 0; i < spec.output_count; ++i) {
    total += AlignUp(TensorBytes(spec.outputs[i], rows));
  }
  const uint64_t wanted = total > max_region_bytes / 2 ? max_region_bytes : 2 * total;
  return std::min(std::max(wanted, kMiB), max_region_bytes);
}

StatusOr<WorkerCommand> MakeWorkerCommand(const PyParameters& params,
                                          const std::string& model_directory,
                                          int32_t default_threads) {
  const std::string& execution_env = params.execution_env;
  StatusOr<std::string> interpreter =
      ResolveInterpreter(execution_env, model_directory, params.default_interpreter);
  if (!interpreter.ok()) return interpreter.status();
  const std::string package_directory = LibraryDirectory();
  if (package_directory.empty() ||
      !fs::exists(fs::path(package_directory) / "inferd_python_worker.py")) {
    return Status(INFERD_ERROR_UNAVAILABLE,
                  "the inferd_python package is not installed beside the python backend (in '" +
                      package_directory + "')");
  }
  WorkerCommand command;
  command.interpreter = *interpreter;
  command.arguments = {"-m", "inferd_python_worker"};
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    command.environment.emplace_back(*entry);
  }
  std::vector<std::string>& env = command.environment;
  const std::string python_path = Get(env, "PYTHONPATH");
  Set(env, "PYTHONPATH",
      python_path.empty() ? package_directory : package_directory + ":" + python_path);
  Set(env, "INFERD_PYTHON_CONTROL_FD", "3");
  // print() in model.py reaches the server's log as it happens.
  SetDefault(env, "PYTHONUNBUFFERED", "1");
  // numpy's BLAS and OpenMP would start a thread per core in every worker;
  // give each the server's share for one instance unless the user chose.
  const std::string threads = std::to_string(std::max(default_threads, 1));
  for (const char* name : {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"}) {
    SetDefault(env, name, threads);
  }
  if (!execution_env.empty()) {
    const fs::path bin = fs::path(*interpreter).parent_path();
    if (bin.filename() == "bin") {
      Set(env, "VIRTUAL_ENV", bin.parent_path().string());
      const std::string path = Get(env, "PATH");
      Set(env, "PATH", path.empty() ? bin.string() : bin.string() + ":" + path);
    }
  }
  return command;
}

StatusOr<std::unique_ptr<PyModel>> CreatePyModel(const INFERD_ServerApi& api,
                                                 const INFERD_ModelSpec& spec) {
  auto model = std::make_unique<PyModel>();
  model->api = &api;
  model->server = spec.server;
  model->name = spec.name != nullptr ? spec.name : "";
  model->version = spec.version;
  model->model_directory = spec.model_directory != nullptr ? spec.model_directory : "";
  model->config_json = spec.config_json != nullptr ? spec.config_json : "{}";
  std::error_code error;
  fs::path file = spec.model_path != nullptr ? spec.model_path : "";
  if (fs::is_directory(file, error)) file /= "model.py";
  if (!fs::is_regular_file(file, error)) {
    return Status(INFERD_ERROR_NOT_FOUND, "no model file '" + file.string() + "'");
  }
  model->model_file = fs::absolute(file, error).string();
  StatusOr<PyParameters> params = ParseParameters(spec);
  if (!params.ok()) return params.status();
  model->params = *params;
  StatusOr<WorkerCommand> command =
      MakeWorkerCommand(model->params, model->model_directory, spec.default_intra_op_threads);
  if (!command.ok()) return command.status();
  model->command = std::move(*command);
  model->initial_region_bytes =
      model->params.region_bytes > 0
          ? std::min(model->params.region_bytes, model->params.max_region_bytes)
          : EstimateRegionBytes(spec, model->params.max_region_bytes);
  model->decoupled = spec.decoupled != 0;
  model->response_pool_bytes =
      std::min(model->params.response_pool_bytes > 0 ? model->params.response_pool_bytes
                                                     : model->initial_region_bytes,
               model->params.max_region_bytes);
  return model;
}

std::string InitMessageJson(const PyModel& model, uint32_t index) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartObject();
  writer.Key("protocol");
  writer.Int(2);
  writer.Key("decoupled");
  writer.Bool(model.decoupled);
  WriteString(writer, "model_file", model.model_file);
  WriteString(writer, "model_directory", model.model_directory);
  writer.Key("args");
  writer.StartObject();
  WriteString(writer, "model_config", model.config_json);
  WriteString(writer, "model_instance_kind", "CPU");
  WriteString(writer, "model_instance_name", model.name + "_" + std::to_string(index));
  WriteString(writer, "model_instance_device_id", "0");
  WriteString(writer, "model_repository", model.model_directory);
  WriteString(writer, "model_version", std::to_string(model.version));
  WriteString(writer, "model_name", model.name);
  writer.EndObject();
  WriteString(writer, "log_prefix",
              "python model '" + model.name + "' instance " + std::to_string(index) + ": ");
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace inferd::python
