// SPDX-License-Identifier: Apache-2.0
#include "py_describe.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <climits>
#include <string_view>
#include <vector>

#include "py_model.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "worker_process.h"

namespace inferd::python {
namespace {

constexpr std::array<std::pair<std::string_view, INFERD_DataType>, 14> kTypeNames = {{
    {"TYPE_BOOL", INFERD_TYPE_BOOL},
    {"TYPE_UINT8", INFERD_TYPE_UINT8},
    {"TYPE_UINT16", INFERD_TYPE_UINT16},
    {"TYPE_UINT32", INFERD_TYPE_UINT32},
    {"TYPE_UINT64", INFERD_TYPE_UINT64},
    {"TYPE_INT8", INFERD_TYPE_INT8},
    {"TYPE_INT16", INFERD_TYPE_INT16},
    {"TYPE_INT32", INFERD_TYPE_INT32},
    {"TYPE_INT64", INFERD_TYPE_INT64},
    {"TYPE_FP16", INFERD_TYPE_FP16},
    {"TYPE_FP32", INFERD_TYPE_FP32},
    {"TYPE_FP64", INFERD_TYPE_FP64},
    {"TYPE_STRING", INFERD_TYPE_BYTES},
    {"TYPE_BF16", INFERD_TYPE_BF16},
}};

INFERD_DataType TypeFromName(std::string_view name) {
  for (const auto& [text, type] : kTypeNames) {
    if (text == name) return type;
  }
  return INFERD_TYPE_INVALID;
}

// A dims entry: a JSON number, or a string (protobuf's JSON for int64).
bool DimValue(const rapidjson::Value& value, int64_t& out) {
  if (value.IsInt64()) {
    out = value.GetInt64();
    return true;
  }
  if (!value.IsString()) return false;
  const char* text = value.GetString();
  const auto [end, error] = std::from_chars(text, text + value.GetStringLength(), out);
  return error == std::errc() && end == text + value.GetStringLength();
}

Status ReportTensors(const INFERD_ServerApi& api, INFERD_Signature* signature,
                     const rapidjson::Value& config, const char* key, bool batching, bool input) {
  if (!config.HasMember(key)) return Status();
  const rapidjson::Value& list = config[key];
  if (!list.IsArray())
    return Status::InvalidArg(std::string("auto_complete_config: '") + key + "' is not a list");
  for (const rapidjson::Value& tensor : list.GetArray()) {
    if (!tensor.IsObject() || !tensor.HasMember("name") || !tensor["name"].IsString()) {
      return Status::InvalidArg(std::string("auto_complete_config: an entry of '") + key +
                                "' has no name");
    }
    const std::string name = tensor["name"].GetString();
    const INFERD_DataType datatype = tensor.HasMember("data_type") && tensor["data_type"].IsString()
                                         ? TypeFromName(tensor["data_type"].GetString())
                                         : INFERD_TYPE_INVALID;
    if (datatype == INFERD_TYPE_INVALID) {
      return Status::InvalidArg("auto_complete_config: '" + name + "' has no valid data_type");
    }
    std::vector<int64_t> dims;
    if (batching) dims.push_back(-1);
    if (tensor.HasMember("dims") && tensor["dims"].IsArray()) {
      for (const rapidjson::Value& dim : tensor["dims"].GetArray()) {
        int64_t value = 0;
        if (!DimValue(dim, value)) {
          return Status::InvalidArg("auto_complete_config: '" + name + "' has a bad dimension");
        }
        dims.push_back(value);
      }
    }
    (input ? api.SignatureAddInput : api.SignatureAddOutput)(signature, name.c_str(), datatype,
                                                             dims.data(), dims.size());
  }
  return Status();
}

}  // namespace

Status DescribePythonModel(const INFERD_ServerApi& api, const INFERD_ModelSpec& spec,
                           INFERD_Signature* signature) {
  StatusOr<std::unique_ptr<PyModel>> model = CreatePyModel(api, spec);
  if (!model.ok()) return model.status();
  StatusOr<std::unique_ptr<WorkerProcess>> worker = WorkerProcess::Start((*model)->command);
  if (!worker.ok()) return worker.status();

  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartObject();
  writer.Key("model_file");
  writer.String((*model)->model_file.c_str());
  writer.Key("model_directory");
  writer.String((*model)->model_directory.c_str());
  writer.Key("config");
  writer.RawValue((*model)->config_json.data(), (*model)->config_json.size(),
                  rapidjson::kObjectType);
  writer.EndObject();
  WorkerChannel& channel = (*worker)->channel();
  Status status =
      channel.Send(MessageType::kAutoComplete,
                   std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(buffer.GetString()),
                                            buffer.GetSize()));
  bool timed_out = false;
  const auto timeout = (*model)->params.initialize_timeout;
  StatusOr<WorkerChannel::Message> answer =
      status.ok() ? channel.Receive(timeout.count() > 0
                                        ? std::optional(std::chrono::steady_clock::now() + timeout)
                                        : std::nullopt,
                                    &timed_out)
                  : StatusOr<WorkerChannel::Message>(status);
  (*worker)->Kill();  // it has nothing more to do
  if (!answer.ok()) {
    return Status(INFERD_ERROR_UNAVAILABLE,
                  timed_out ? "auto_complete_config did not finish within "
                              "initialize_timeout_seconds"
                            : "the Python worker " + (*worker)->ExitDescription() +
                                  " before auto_complete_config finished; its output is in the "
                                  "server's log");
  }
  if (answer->type == MessageType::kError) {
    ErrorMessage error = DecodeError(answer->payload);
    return Status(INFERD_ERROR_UNAVAILABLE, error.message);
  }
  if (answer->type != MessageType::kConfig) {
    return Status::Internal("the Python worker answered AUTO_COMPLETE with message type " +
                            std::to_string(static_cast<int>(answer->type)));
  }
  rapidjson::Document document;
  document.Parse(reinterpret_cast<const char*>(answer->payload.data()), answer->payload.size());
  if (document.HasParseError() || !document.IsObject() || !document.HasMember("config") ||
      !document["config"].IsObject()) {
    return Status::Internal("the Python worker's CONFIG is not a JSON object with 'config'");
  }
  const rapidjson::Value& config = document["config"];
  const int64_t max_batch_size =
      config.HasMember("max_batch_size") && config["max_batch_size"].IsInt64()
          ? config["max_batch_size"].GetInt64()
          : 0;
  const bool batching = max_batch_size > 0;
  api.SignatureSetMaxBatchSize(signature,
                               static_cast<int32_t>(std::min<int64_t>(max_batch_size, INT32_MAX)));
  INFERD_BACKEND_RETURN_IF_ERROR(ReportTensors(api, signature, config, "input", batching, true));
  return ReportTensors(api, signature, config, "output", batching, false);
}

}  // namespace inferd::python
