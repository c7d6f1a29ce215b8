// SPDX-License-Identifier: Apache-2.0
#include "frontends/http/compression.h"

#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace inferd::frontends::http {
namespace {

constexpr int kGzipWindowBits = 15 + 16;  // +16: gzip header and trailer
constexpr int kZlibWindowBits = 15;
constexpr size_t kChunk = 256 * 1024;

int WindowBits(ContentCoding coding) {
  return coding == ContentCoding::kGzip ? kGzipWindowBits : kZlibWindowBits;
}

// Parses the weight of one Accept-Encoding item ("gzip;q=0.5"); 1 when absent,
// -1 when malformed.
double ParseWeight(absl::string_view params) {
  for (absl::string_view param : absl::StrSplit(params, ';')) {
    param = absl::StripAsciiWhitespace(param);
    if (!absl::ConsumePrefix(&param, "q=") && !absl::ConsumePrefix(&param, "Q=")) continue;
    double weight = 0;
    const std::string text(param);
    char* end = nullptr;
    weight = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0' || weight < 0 || weight > 1) return -1;
    return weight;
  }
  return 1;
}

std::optional<ContentCoding> CodingFromName(absl::string_view name) {
  if (absl::EqualsIgnoreCase(name, "identity")) return ContentCoding::kIdentity;
  if (absl::EqualsIgnoreCase(name, "gzip")) return ContentCoding::kGzip;
  if (absl::EqualsIgnoreCase(name, "deflate")) return ContentCoding::kDeflate;
  return std::nullopt;
}

}  // namespace

std::optional<ContentCoding> ParseContentEncoding(std::string_view header) {
  const absl::string_view value =
      absl::StripAsciiWhitespace(absl::string_view(header.data(), header.size()));
  if (value.empty()) return ContentCoding::kIdentity;
  return CodingFromName(value);
}

ContentCoding ChooseResponseCoding(std::string_view accept_encoding) {
  ContentCoding best = ContentCoding::kIdentity;
  double best_weight = 0;
  const absl::string_view header(accept_encoding.data(), accept_encoding.size());
  for (absl::string_view item : absl::StrSplit(header, ',')) {
    item = absl::StripAsciiWhitespace(item);
    const size_t semicolon = item.find(';');
    const absl::string_view name = absl::StripAsciiWhitespace(item.substr(0, semicolon));
    const double weight =
        semicolon == absl::string_view::npos ? 1.0 : ParseWeight(item.substr(semicolon + 1));
    const auto coding = CodingFromName(name);
    if (!coding || weight <= 0) continue;
    if (weight > best_weight) {
      best = *coding;
      best_weight = weight;
    }
  }
  return best;
}

std::string_view ContentCodingName(ContentCoding coding) {
  switch (coding) {
    case ContentCoding::kGzip:
      return "gzip";
    case ContentCoding::kDeflate:
      return "deflate";
    case ContentCoding::kIdentity:
      break;
  }
  return "identity";
}

absl::StatusOr<std::string> Decompress(std::string_view data, ContentCoding coding,
                                       size_t max_output) {
  if (coding == ContentCoding::kIdentity) {
    if (data.size() > max_output) {
      return absl::InvalidArgumentError(
          absl::StrCat("request body exceeds the limit of ", max_output, " bytes"));
    }
    return std::string(data);
  }
  const std::string name(ContentCodingName(coding));
  z_stream stream{};
  if (inflateInit2(&stream, WindowBits(coding)) != Z_OK) {
    return absl::InternalError("cannot initialise zlib");
  }
  std::string out;
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  int rc = Z_OK;
  absl::Status status;
  while (true) {
    if (out.size() >= max_output + 1) {
      status = absl::InvalidArgumentError(
          absl::StrCat("decompressed request body exceeds the limit of ", max_output, " bytes"));
      break;
    }
    const size_t old_size = out.size();
    const size_t room = std::min(kChunk, max_output + 1 - old_size);
    out.resize(old_size + room);
    stream.next_out = reinterpret_cast<Bytef*>(out.data() + old_size);
    stream.avail_out = static_cast<uInt>(room);
    rc = inflate(&stream, Z_NO_FLUSH);
    out.resize(old_size + room - stream.avail_out);
    if (rc == Z_STREAM_END) {
      // gzip allows several members back to back; anything else after the
      // end of the stream is garbage.
      if (stream.avail_in == 0) break;
      if (coding != ContentCoding::kGzip || inflateReset(&stream) != Z_OK) {
        status = absl::InvalidArgumentError(
            absl::StrCat("unexpected data after the end of the ", name, " request body"));
        break;
      }
      continue;
    }
    if (rc == Z_BUF_ERROR && stream.avail_in == 0) {
      status = absl::InvalidArgumentError(absl::StrCat("truncated ", name, " request body"));
      break;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      status = absl::InvalidArgumentError(absl::StrCat(
          "malformed ", name, " request body: ", stream.msg ? stream.msg : "corrupt data"));
      break;
    }
  }
  inflateEnd(&stream);
  if (!status.ok()) return status;
  if (out.size() > max_output) {
    return absl::InvalidArgumentError(
        absl::StrCat("decompressed request body exceeds the limit of ", max_output, " bytes"));
  }
  return out;
}

absl::StatusOr<std::string> Compress(absl::Span<const std::string_view> pieces,
                                     ContentCoding coding) {
  size_t total = 0;
  for (std::string_view piece : pieces) total += piece.size();
  if (coding == ContentCoding::kIdentity) {
    std::string out;
    out.reserve(total);
    for (std::string_view piece : pieces) out.append(piece);
    return out;
  }
  z_stream stream{};
  if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, WindowBits(coding), 8,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    return absl::InternalError("cannot initialise zlib");
  }
  std::string out;
  out.resize(deflateBound(&stream, total) + 64);
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  int rc = Z_OK;
  for (size_t i = 0; i < pieces.size() && rc == Z_OK; ++i) {
    if (pieces[i].empty()) continue;  // deflate() reports Z_BUF_ERROR for no input
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(pieces[i].data()));
    stream.avail_in = static_cast<uInt>(pieces[i].size());
    rc = deflate(&stream, Z_NO_FLUSH);
  }
  if (rc == Z_OK) rc = deflate(&stream, Z_FINISH);
  const size_t written = out.size() - stream.avail_out;
  deflateEnd(&stream);
  if (rc != Z_STREAM_END) return absl::InternalError("response compression failed");
  out.resize(written);
  return out;
}

}  // namespace inferd::frontends::http
