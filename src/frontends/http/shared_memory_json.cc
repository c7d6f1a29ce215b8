// SPDX-License-Identifier: Apache-2.0
#include "frontends/http/shared_memory_json.h"

#include "frontends/http/json_writer.h"
#include "simdjson.h"

namespace inferd::frontends::http {

std::string SharedMemoryStatusJson(const std::vector<SharedMemoryRegionStatus>& regions) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartArray();
  for (const SharedMemoryRegionStatus& region : regions) {
    writer.StartObject();
    WriteKey(writer, "name");
    if (!WriteString(writer, region.name)) writer.Null();
    WriteKey(writer, "key");
    if (!WriteString(writer, region.key)) writer.Null();
    WriteKey(writer, "offset");
    writer.Uint64(region.offset);
    WriteKey(writer, "byte_size");
    writer.Uint64(region.byte_size);
    writer.EndObject();
  }
  writer.EndArray();
  return TakeString(buffer);
}

absl::StatusOr<SharedMemoryRegisterBody> ParseSharedMemoryRegisterBody(std::string_view body) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(body.data(), body.size()).get(root) != simdjson::SUCCESS) {
    return absl::InvalidArgumentError("shared memory register request must be a JSON object");
  }
  simdjson::dom::object fields;
  if (root.get(fields) != simdjson::SUCCESS) {
    return absl::InvalidArgumentError("shared memory register request must be a JSON object");
  }
  SharedMemoryRegisterBody out;
  simdjson::dom::element value;
  if (fields["key"].get(value) != simdjson::SUCCESS) {
    return absl::InvalidArgumentError("Shared memory register request has no 'key' field");
  }
  std::string_view key;
  if (value.get(key) != simdjson::SUCCESS) {
    return absl::InvalidArgumentError("shared memory register request 'key' must be a string");
  }
  out.key = std::string(key);
  if (fields["offset"].get(value) == simdjson::SUCCESS &&
      value.get(out.offset) != simdjson::SUCCESS) {
    return absl::InvalidArgumentError(
        "shared memory register request 'offset' must be a non-negative integer");
  }
  if (fields["byte_size"].get(value) != simdjson::SUCCESS) {
    return absl::InvalidArgumentError("Shared memory register request has no 'byte_size' field");
  }
  if (value.get(out.byte_size) != simdjson::SUCCESS) {
    return absl::InvalidArgumentError(
        "shared memory register request 'byte_size' must be a non-negative integer");
  }
  return out;
}

}  // namespace inferd::frontends::http
