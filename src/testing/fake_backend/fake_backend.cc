// SPDX-License-Identifier: Apache-2.0
// The fake backend: reports the signature written in its model file and
// answers each request by echoing input i as output i (paired by position in
// the config), so tests can check every byte that went through the server.
// Test-only directives of the model file can hold Execute at a gate and log
// each execution, so that integration tests can observe scheduling.
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "fake_model_file.h"
#include "inferd/backend.h"

struct INFERD_BackendModel {
  const INFERD_ServerApi* api = nullptr;
  std::string name;
  std::vector<std::string> inputs;   // config input names, in order
  std::vector<std::string> outputs;  // config output names, in order
  inferd::fake::FakeModelFile file;
};

struct INFERD_BackendInstance {
  INFERD_BackendModel* model = nullptr;
  uint32_t index = 0;
};

namespace {

using inferd::fake::FakeModelFile;

INFERD_Error* Error(const INFERD_ServerApi* api, INFERD_ErrorCode code,
                    const std::string& message) {
  return api->ErrorNew(code, message.c_str());
}

// Echoes the input paired with `output_name`; returns the error to answer.
INFERD_Error* EchoOutput(const INFERD_BackendModel& model, INFERD_Request* request,
                         const char* output_name) {
  const INFERD_ServerApi* api = model.api;
  size_t position = 0;
  while (position < model.outputs.size() && model.outputs[position] != output_name) ++position;
  if (position >= model.outputs.size() || position >= model.inputs.size()) {
    return Error(api, INFERD_ERROR_INTERNAL,
                 std::string("fake backend has no input for output '") + output_name + "'");
  }
  for (size_t i = 0; i < api->RequestInputCount(request); ++i) {
    const char* name = nullptr;
    INFERD_DataType datatype = INFERD_TYPE_INVALID;
    const int64_t* shape = nullptr;
    size_t shape_count = 0;
    const void* data = nullptr;
    size_t byte_size = 0;
    api->RequestInput(request, i, &name, &datatype, &shape, &shape_count, &data, &byte_size);
    if (model.inputs[position] != name) continue;
    void* copy = std::malloc(byte_size == 0 ? 1 : byte_size);
    if (copy == nullptr) return Error(api, INFERD_ERROR_INTERNAL, "fake backend is out of memory");
    if (byte_size > 0) std::memcpy(copy, data, byte_size);
    return api->ResponseAddOutput(request, output_name, datatype, shape, shape_count, copy,
                                  byte_size, &std::free, copy);
  }
  return Error(
      api, INFERD_ERROR_INVALID_ARG,
      "fake backend needs input '" + model.inputs[position] + "' for output '" + output_name + "'");
}

void Run(const INFERD_BackendModel& model, INFERD_Request* request) {
  const INFERD_ServerApi* api = model.api;
  if (model.file.fail_execute) {
    api->RequestComplete(request,
                         Error(api, INFERD_ERROR_INTERNAL,
                               "fake model '" + model.name + "' failed to execute (fail_execute)"));
    return;
  }
  INFERD_Error* error = nullptr;
  for (size_t i = 0; error == nullptr && i < api->RequestOutputCount(request); ++i) {
    error = EchoOutput(model, request, api->RequestOutputName(request, i));
  }
  api->RequestComplete(request, error);
}

// The first element of the request's first input read as INT32, as text;
// "-" when there is none. Identifies requests in the execution log.
std::string FirstValue(const INFERD_ServerApi* api, INFERD_Request* request) {
  if (api->RequestInputCount(request) == 0) return "-";
  const char* name = nullptr;
  INFERD_DataType datatype = INFERD_TYPE_INVALID;
  const int64_t* shape = nullptr;
  size_t shape_count = 0;
  const void* data = nullptr;
  size_t byte_size = 0;
  api->RequestInput(request, 0, &name, &datatype, &shape, &shape_count, &data, &byte_size);
  if (datatype != INFERD_TYPE_INT32 || byte_size < sizeof(int32_t)) return "-";
  int32_t value = 0;
  std::memcpy(&value, data, sizeof(value));
  return std::to_string(value);
}

// Appends one line to the execution log; instances append concurrently.
void AppendLog(const std::string& path, const char* event, uint32_t instance,
               const std::vector<std::string>& values) {
  static std::mutex mu;
  std::string line = std::string(event) + " " + std::to_string(instance);
  for (const auto& value : values) line += " " + value;
  line += "\n";
  std::lock_guard<std::mutex> lock(mu);
  std::ofstream(path, std::ios::app) << line << std::flush;
}

// Test-only: polls, so that a test opens the gate just by creating the file.
void WaitUntilExists(const std::string& path) {
  while (::access(path.c_str(), F_OK) != 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

}  // namespace

extern "C" {

INFERD_BACKEND_EXPORT uint32_t INFERD_BackendApiVersion(void) {
  return (INFERD_BACKEND_API_VERSION_MAJOR << 16) | INFERD_BACKEND_API_VERSION_MINOR;
}

INFERD_BACKEND_EXPORT INFERD_Error* INFERD_BackendDescribeModel(const INFERD_ServerApi* api,
                                                                const INFERD_ModelSpec* spec,
                                                                INFERD_Signature* signature) {
  try {
    FakeModelFile file;
    std::string error;
    if (!inferd::fake::ReadFakeModelFile(spec->model_path, &file, &error)) {
      return Error(api, INFERD_ERROR_NOT_FOUND, error);
    }
    for (const auto& t : file.inputs) {
      api->SignatureAddInput(signature, t.name.c_str(), t.datatype, t.dims.data(), t.dims.size());
    }
    for (const auto& t : file.outputs) {
      api->SignatureAddOutput(signature, t.name.c_str(), t.datatype, t.dims.data(), t.dims.size());
    }
    return nullptr;
  } catch (const std::exception& e) {
    return Error(api, INFERD_ERROR_INTERNAL, e.what());
  }
}

INFERD_BACKEND_EXPORT INFERD_Error* INFERD_BackendModelCreate(const INFERD_ServerApi* api,
                                                              const INFERD_ModelSpec* spec,
                                                              INFERD_BackendModel** model) {
  try {
    auto created = new INFERD_BackendModel;
    created->api = api;
    created->name = spec->name;
    std::string error;
    if (!inferd::fake::ReadFakeModelFile(spec->model_path, &created->file, &error)) {
      delete created;
      return Error(api, INFERD_ERROR_NOT_FOUND, error);
    }
    if (!created->file.block_load_until_exists.empty()) {
      WaitUntilExists(created->file.block_load_until_exists);
    }
    if (created->file.fail_load) {
      delete created;
      return Error(api, INFERD_ERROR_INTERNAL,
                   std::string("fake model '") + spec->name + "' refused to load (fail_load)");
    }
    for (size_t i = 0; i < spec->input_count; ++i)
      created->inputs.emplace_back(spec->inputs[i].name);
    for (size_t i = 0; i < spec->output_count; ++i)
      created->outputs.emplace_back(spec->outputs[i].name);
    *model = created;
    return nullptr;
  } catch (const std::exception& e) {
    return Error(api, INFERD_ERROR_INTERNAL, e.what());
  }
}

INFERD_BACKEND_EXPORT void INFERD_BackendModelDelete(INFERD_BackendModel* model) { delete model; }

INFERD_BACKEND_EXPORT INFERD_Error* INFERD_BackendInstanceCreate(
    INFERD_BackendModel* model, uint32_t index, INFERD_BackendInstance** instance) {
  if (model->file.fail_instance) {
    return Error(model->api, INFERD_ERROR_INTERNAL,
                 "fake model '" + model->name + "' refused to create instance " +
                     std::to_string(index) + " (fail_instance)");
  }
  *instance = new (std::nothrow) INFERD_BackendInstance{model, index};
  return *instance == nullptr ? Error(model->api, INFERD_ERROR_INTERNAL, "out of memory") : nullptr;
}

INFERD_BACKEND_EXPORT void INFERD_BackendInstanceDelete(INFERD_BackendInstance* instance) {
  delete instance;
}

INFERD_BACKEND_EXPORT void INFERD_BackendInstanceExecute(INFERD_BackendInstance* instance,
                                                         INFERD_Request** requests,
                                                         size_t request_count) {
  const FakeModelFile& file = instance->model->file;
  std::vector<std::string> values;  // read before any request completes
  if (!file.log_executions.empty() || !file.block_until_exists_for_value.empty()) {
    for (size_t i = 0; i < request_count; ++i)
      values.push_back(FirstValue(instance->model->api, requests[i]));
  }
  if (!file.log_executions.empty())
    AppendLog(file.log_executions, "start", instance->index, values);
  if (!file.block_until_exists.empty()) WaitUntilExists(file.block_until_exists);
  if (!file.block_until_exists_for_value.empty() && !values.empty()) {
    WaitUntilExists(file.block_until_exists_for_value + "/" + values.front());
  }
  for (size_t i = 0; i < request_count; ++i) {
    try {
      Run(*instance->model, requests[i]);
    } catch (const std::exception& e) {
      // Run can throw (bad_alloc) only before it completes the request.
      const INFERD_ServerApi* api = instance->model->api;
      api->RequestComplete(requests[i], Error(api, INFERD_ERROR_INTERNAL, e.what()));
    }
  }
  if (!file.log_executions.empty()) AppendLog(file.log_executions, "end", instance->index, values);
}

}  // extern "C"
