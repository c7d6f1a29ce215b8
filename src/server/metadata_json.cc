// SPDX-License-Identifier: Apache-2.0
#include "server/metadata_json.h"

#include "core/json_writer.h"

namespace inferd {
namespace {

using core::JsonWriter;
using core::TakeString;
using core::WriteKey;
using core::WriteString;

void WriteStringField(JsonWriter& writer, std::string_view key, std::string_view value) {
  WriteKey(writer, key);
  if (!WriteString(writer, value)) writer.Null();  // not UTF-8 (a file name, say)
}

void WriteTensors(JsonWriter& writer, std::string_view key,
                  const std::vector<TensorMetadata>& tensors) {
  WriteKey(writer, key);
  writer.StartArray();
  for (const TensorMetadata& tensor : tensors) {
    writer.StartObject();
    WriteStringField(writer, "name", tensor.name);
    WriteStringField(writer, "datatype", core::DataTypeProtocolName(tensor.datatype));
    WriteKey(writer, "shape");
    writer.StartArray();
    for (int64_t dim : tensor.shape) writer.Int64(dim);
    writer.EndArray();
    writer.EndObject();
  }
  writer.EndArray();
}

}  // namespace

std::string ServerMetadataJson(const ServerMetadata& metadata) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartObject();
  WriteStringField(writer, "name", metadata.name);
  WriteStringField(writer, "version", metadata.version);
  WriteKey(writer, "extensions");
  writer.StartArray();
  for (const std::string& extension : metadata.extensions) WriteString(writer, extension);
  writer.EndArray();
  writer.EndObject();
  return TakeString(buffer);
}

std::string ModelMetadataJson(const ModelMetadata& metadata) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartObject();
  WriteStringField(writer, "name", metadata.name);
  WriteKey(writer, "versions");
  writer.StartArray();
  for (const std::string& version : metadata.versions) WriteString(writer, version);
  writer.EndArray();
  WriteStringField(writer, "platform", metadata.platform);
  WriteTensors(writer, "inputs", metadata.inputs);
  WriteTensors(writer, "outputs", metadata.outputs);
  writer.EndObject();
  return TakeString(buffer);
}

std::string RepositoryIndexJson(const std::vector<ModelIndexEntry>& entries) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartArray();
  for (const ModelIndexEntry& entry : entries) {
    writer.StartObject();
    WriteStringField(writer, "name", entry.name);
    // A model never loaded is its name alone, as Triton writes it.
    if (!entry.state.empty()) {
      WriteStringField(writer, "version", entry.version);
      WriteStringField(writer, "state", entry.state);
      WriteStringField(writer, "reason", entry.reason);
    }
    writer.EndObject();
  }
  writer.EndArray();
  return TakeString(buffer);
}

}  // namespace inferd
