// SPDX-License-Identifier: Apache-2.0
#include "core/bytes_encoding.h"

#include <cstring>

namespace inferd::core {

void AppendBytesElement(std::string_view element, std::string& out) {
  const auto length = static_cast<uint32_t>(element.size());
  const char prefix[4] = {static_cast<char>(length & 0xff), static_cast<char>((length >> 8) & 0xff),
                          static_cast<char>((length >> 16) & 0xff),
                          static_cast<char>((length >> 24) & 0xff)};
  out.append(prefix, 4);
  out.append(element);
}

namespace {

// Calls on_element(view) for each element; the one parser of the encoding.
template <typename OnElement>
absl::Status ForEachBytesElement(std::string_view encoded, OnElement on_element) {
  size_t offset = 0;
  while (offset < encoded.size()) {
    if (encoded.size() - offset < 4) {
      return absl::InvalidArgumentError("BYTES tensor data ends inside an element length");
    }
    const auto* p = reinterpret_cast<const unsigned char*>(encoded.data() + offset);
    const uint32_t length =
        uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
    offset += 4;
    if (encoded.size() - offset < length) {
      return absl::InvalidArgumentError("BYTES tensor element runs past the end of its data");
    }
    on_element(encoded.substr(offset, length));
    offset += length;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<std::string_view>> SplitBytesElements(std::string_view encoded) {
  std::vector<std::string_view> elements;
  auto status = ForEachBytesElement(encoded, [&](std::string_view e) { elements.push_back(e); });
  if (!status.ok()) return status;
  return elements;
}

absl::StatusOr<int64_t> CountBytesElements(std::string_view encoded) {
  int64_t count = 0;
  auto status = ForEachBytesElement(encoded, [&](std::string_view) { ++count; });
  if (!status.ok()) return status;
  return count;
}

}  // namespace inferd::core
