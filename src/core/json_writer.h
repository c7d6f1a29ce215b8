// SPDX-License-Identifier: Apache-2.0
// The one RapidJSON writer configuration used for every JSON reply:
// non-finite numbers are written as NaN/Infinity, which Python's json accepts,
// and WriteString refuses text that is not UTF-8 before writing anything.
// RapidJSON is used only for writing; parsing goes through simdjson.
#pragma once

#include <string>
#include <string_view>

#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "simdjson.h"

namespace inferd::core {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer, rapidjson::UTF8<>, rapidjson::UTF8<>,
                                     rapidjson::CrtAllocator, rapidjson::kWriteNanAndInfFlag>;

// Writes nothing and returns false when `text` is not valid UTF-8.
inline bool WriteString(JsonWriter& writer, std::string_view text) {
  if (!simdjson::validate_utf8(text.data(), text.size())) return false;
  return writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

inline void WriteKey(JsonWriter& writer, std::string_view key) {
  writer.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
}

inline std::string TakeString(const rapidjson::StringBuffer& buffer) {
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace inferd::core
