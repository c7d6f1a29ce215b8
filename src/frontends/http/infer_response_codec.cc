// SPDX-License-Identifier: Apache-2.0
#include "frontends/http/infer_response_codec.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "frontends/http/json_tensor_writer.h"
#include "frontends/http/json_writer.h"

namespace inferd::frontends::http {
namespace {

enum class Placement { kJson, kBinary, kSharedMemory };

absl::Status WriteOutput(const core::Tensor& output, Placement placement, JsonWriter& writer) {
  writer.StartObject();
  WriteKey(writer, "name");
  if (!WriteString(writer, output.name)) {
    return absl::InternalError("an output name is not valid UTF-8");
  }
  WriteKey(writer, "datatype");
  WriteString(writer, core::DataTypeProtocolName(output.datatype));
  WriteKey(writer, "shape");
  writer.StartArray();
  for (int64_t dim : output.shape) writer.Int64(dim);
  writer.EndArray();
  if (placement == Placement::kSharedMemory) {
    // As Triton: the bytes are in the region; the JSON has the metadata only.
  } else if (placement == Placement::kBinary) {
    // The C++ client requires binary_data_size in any output `parameters`,
    // so parameters appear only on binary outputs.
    WriteKey(writer, "parameters");
    writer.StartObject();
    WriteKey(writer, "binary_data_size");
    writer.Uint64(output.data.size);
    writer.EndObject();
  } else {
    WriteKey(writer, "data");
    INFERD_RETURN_IF_ERROR(WriteJsonTensorData(output, writer));
  }
  writer.EndObject();
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<HttpReply> EncodeInferResponse(const core::InferResponse& response,
                                              const OutputFormat& format) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartObject();
  if (!response.id.empty()) {
    WriteKey(writer, "id");
    if (!WriteString(writer, response.id)) {
      return absl::InvalidArgumentError("request id is not valid UTF-8");
    }
  }
  WriteKey(writer, "model_name");
  WriteString(writer, response.model_name);
  WriteKey(writer, "model_version");
  WriteString(writer, absl::StrCat(response.model_version));
  WriteKey(writer, "outputs");
  writer.StartArray();
  HttpReply reply;
  bool any_binary = false;
  for (const core::Tensor& output : response.outputs) {
    Placement placement = format.IsBinary(output.name) ? Placement::kBinary : Placement::kJson;
    if (!format.shared_memory.empty()) {
      const auto region = format.shared_memory.find(output.name);
      if (region != format.shared_memory.end()) {
        INFERD_RETURN_IF_ERROR(WriteSharedMemoryOutput(output, region->second));
        placement = Placement::kSharedMemory;
      }
    }
    const bool binary = placement == Placement::kBinary;
    any_binary = any_binary || binary;
    INFERD_RETURN_IF_ERROR(WriteOutput(output, placement, writer));
    if (binary && output.data.size > 0) reply.tail.push_back(output.data);
  }
  writer.EndArray();
  writer.EndObject();
  reply.body = TakeString(buffer);
  if (!any_binary) {
    reply.content_type = "application/json";
  } else {
    reply.content_type = "application/octet-stream";
    reply.headers.emplace_back("Inference-Header-Content-Length", absl::StrCat(reply.body.size()));
  }
  return reply;
}

}  // namespace inferd::frontends::http
