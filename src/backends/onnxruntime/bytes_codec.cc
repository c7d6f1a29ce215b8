// SPDX-License-Identifier: Apache-2.0
#include "bytes_codec.h"

namespace inferd::ort {
namespace {

uint32_t ReadLength(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

}  // namespace

Status ParseBytesTensor(const void* data, size_t byte_size, int64_t element_count,
                        std::string_view tensor, std::vector<std::string_view>& out) {
  const auto* p = static_cast<const unsigned char*>(data);
  size_t left = byte_size;
  for (int64_t i = 0; i < element_count; ++i) {
    if (left < 4) {
      return Status::InvalidArg("input '" + std::string(tensor) + "': BYTES element " +
                                std::to_string(i) + " has a truncated length prefix");
    }
    const uint32_t length = ReadLength(p);
    p += 4;
    left -= 4;
    if (length > left) {
      return Status::InvalidArg("input '" + std::string(tensor) + "': BYTES element " +
                                std::to_string(i) + " of length " + std::to_string(length) +
                                " runs past the end of the data");
    }
    out.emplace_back(reinterpret_cast<const char*>(p), length);
    p += length;
    left -= length;
  }
  if (left != 0) {
    return Status::InvalidArg("input '" + std::string(tensor) + "': " + std::to_string(left) +
                              " bytes left after " + std::to_string(element_count) +
                              " BYTES elements");
  }
  return Status();
}

void AppendBytesElement(std::string_view element, std::string& out) {
  const auto length = static_cast<uint32_t>(element.size());
  const char prefix[4] = {static_cast<char>(length & 0xff), static_cast<char>(length >> 8 & 0xff),
                          static_cast<char>(length >> 16 & 0xff),
                          static_cast<char>(length >> 24 & 0xff)};
  out.append(prefix, 4);
  out.append(element);
}

}  // namespace inferd::ort
