// SPDX-License-Identifier: Apache-2.0
#include "core/model_config_json.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "core/json_writer.h"

namespace inferd::core {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

void WriteMessage(const Message& message, JsonWriter& writer);

void WriteFloatValue(double value, bool single, JsonWriter& writer) {
  if (!std::isfinite(value)) {
    // Proto JSON spells these as strings.
    WriteString(writer, std::isnan(value) ? "NaN" : (value > 0 ? "Infinity" : "-Infinity"));
    return;
  }
  if (!single) {
    writer.Double(value);
    return;
  }
  char text[32];
  const auto result = std::to_chars(text, text + sizeof(text), static_cast<float>(value));
  writer.RawValue(text, static_cast<size_t>(result.ptr - text), rapidjson::kNumberType);
}

void WriteEnum(const google::protobuf::EnumValueDescriptor* value, int number, JsonWriter& writer) {
  if (value != nullptr) {
    WriteString(writer, value->name());
  } else {
    writer.Int(number);  // a number this build does not know
  }
}

// One value of `field`: index < 0 for a singular field.
void WriteValue(const Message& message, const FieldDescriptor* field, int index,
                JsonWriter& writer) {
  const Reflection* r = message.GetReflection();
  const bool rep = index >= 0;
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      writer.Int(rep ? r->GetRepeatedInt32(message, field, index) : r->GetInt32(message, field));
      break;
    case FieldDescriptor::CPPTYPE_INT64:
      writer.Int64(rep ? r->GetRepeatedInt64(message, field, index) : r->GetInt64(message, field));
      break;
    case FieldDescriptor::CPPTYPE_UINT32:
      writer.Uint(rep ? r->GetRepeatedUInt32(message, field, index) : r->GetUInt32(message, field));
      break;
    case FieldDescriptor::CPPTYPE_UINT64:
      writer.Uint64(rep ? r->GetRepeatedUInt64(message, field, index)
                        : r->GetUInt64(message, field));
      break;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      WriteFloatValue(
          rep ? r->GetRepeatedDouble(message, field, index) : r->GetDouble(message, field), false,
          writer);
      break;
    case FieldDescriptor::CPPTYPE_FLOAT:
      WriteFloatValue(
          rep ? r->GetRepeatedFloat(message, field, index) : r->GetFloat(message, field), true,
          writer);
      break;
    case FieldDescriptor::CPPTYPE_BOOL:
      writer.Bool(rep ? r->GetRepeatedBool(message, field, index) : r->GetBool(message, field));
      break;
    case FieldDescriptor::CPPTYPE_ENUM: {
      const int number =
          rep ? r->GetRepeatedEnumValue(message, field, index) : r->GetEnumValue(message, field);
      WriteEnum(field->enum_type()->FindValueByNumber(number), number, writer);
      break;
    }
    case FieldDescriptor::CPPTYPE_STRING: {
      std::string scratch;
      const std::string& value =
          rep ? r->GetRepeatedStringReference(message, field, index, &scratch)
              : r->GetStringReference(message, field, &scratch);
      if (field->type() == FieldDescriptor::TYPE_BYTES) {
        WriteString(writer, absl::Base64Escape(value));
      } else if (!WriteString(writer, value)) {
        writer.Null();  // not UTF-8: unreachable for configs parsed from text
      }
      break;
    }
    case FieldDescriptor::CPPTYPE_MESSAGE:
      WriteMessage(
          rep ? r->GetRepeatedMessage(message, field, index) : r->GetMessage(message, field),
          writer);
      break;
  }
}

// A map's key as JSON object key text.
std::string MapKey(const Message& entry, const FieldDescriptor* key) {
  const Reflection* r = entry.GetReflection();
  switch (key->cpp_type()) {
    case FieldDescriptor::CPPTYPE_STRING:
      return r->GetString(entry, key);
    case FieldDescriptor::CPPTYPE_INT32:
      return absl::StrCat(r->GetInt32(entry, key));
    case FieldDescriptor::CPPTYPE_INT64:
      return absl::StrCat(r->GetInt64(entry, key));
    case FieldDescriptor::CPPTYPE_UINT32:
      return absl::StrCat(r->GetUInt32(entry, key));
    case FieldDescriptor::CPPTYPE_UINT64:
      return absl::StrCat(r->GetUInt64(entry, key));
    case FieldDescriptor::CPPTYPE_BOOL:
      return r->GetBool(entry, key) ? "true" : "false";
    default:
      return "";
  }
}

// Maps print as objects, sorted by key so the output is deterministic.
void WriteMap(const Message& message, const FieldDescriptor* field, JsonWriter& writer) {
  const Reflection* r = message.GetReflection();
  const FieldDescriptor* key = field->message_type()->map_key();
  const FieldDescriptor* value = field->message_type()->map_value();
  std::vector<std::pair<std::string, const Message*>> entries;
  for (int i = 0; i < r->FieldSize(message, field); ++i) {
    const Message& entry = r->GetRepeatedMessage(message, field, i);
    entries.emplace_back(MapKey(entry, key), &entry);
  }
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  writer.StartObject();
  for (const auto& [name, entry] : entries) {
    WriteKey(writer, name);
    WriteValue(*entry, value, -1, writer);
  }
  writer.EndObject();
}

void WriteField(const Message& message, const FieldDescriptor* field, JsonWriter& writer) {
  const Reflection* r = message.GetReflection();
  WriteKey(writer, field->name());
  if (field->is_map()) {
    WriteMap(message, field, writer);
  } else if (field->is_repeated()) {
    writer.StartArray();
    for (int i = 0; i < r->FieldSize(message, field); ++i) WriteValue(message, field, i, writer);
    writer.EndArray();
  } else {
    WriteValue(message, field, -1, writer);
  }
}

void WriteMessage(const Message& message, JsonWriter& writer) {
  const google::protobuf::Descriptor* descriptor = message.GetDescriptor();
  const Reflection* r = message.GetReflection();
  writer.StartObject();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* field = descriptor->field(i);
    // Like protobuf's always_print_primitive_fields: singular messages and
    // oneof members only when set, everything else always.
    const bool presence_only =
        !field->is_repeated() && (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE ||
                                  field->containing_oneof() != nullptr);
    if (presence_only && !r->HasField(message, field)) continue;
    WriteField(message, field, writer);
  }
  writer.EndObject();
}

}  // namespace

std::string ModelConfigToJson(const google::protobuf::Message& config) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  WriteMessage(config, writer);
  return TakeString(buffer);
}

}  // namespace inferd::core
