// SPDX-License-Identifier: Apache-2.0
#include "frontends/metrics/text_format.h"

#include <charconv>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace inferd::frontends::metrics {
namespace {

// Length of the valid UTF-8 sequence starting at text[i], or 0.
size_t Utf8SequenceLength(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  size_t length = 0;
  uint32_t min = 0;
  uint32_t code = 0;
  if ((lead & 0xE0) == 0xC0) {
    length = 2, min = 0x80, code = lead & 0x1F;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, min = 0x800, code = lead & 0x0F;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, min = 0x10000, code = lead & 0x07;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3F);
  }
  // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
  if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return length;
}

std::string_view TypeName(MetricType type) {
  switch (type) {
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kHistogram:
      break;
  }
  return "histogram";
}

bool IsNameChar(char c, bool first, bool colon) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') return true;
  if (colon && c == ':') return true;
  return !first && c >= '0' && c <= '9';
}

bool IsValidName(std::string_view name, bool colon) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    if (!IsNameChar(name[i], i == 0, colon)) return false;
  }
  return true;
}

}  // namespace

std::string FormatValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  if (value == std::trunc(value) && std::fabs(value) < 1e15) {
    return std::to_string(static_cast<int64_t>(value));  // also turns -0 into "0"
  }
  char buffer[64];
  // Plain decimals where they stay short (0.00025 rather than 2.5e-04),
  // exponents otherwise; both are the shortest form that reads back exactly.
  const std::chars_format format = std::fabs(value) >= 1e-6 && std::fabs(value) < 1e15
                                       ? std::chars_format::fixed
                                       : std::chars_format::scientific;
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value, format);
  return std::string(buffer, result.ptr);
}

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (size_t i = 0; i < value.size();) {
    const size_t length = Utf8SequenceLength(value, i);
    if (length == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      ++i;
      continue;
    }
    if (length > 1) {
      out.append(value.substr(i, length));
      i += length;
      continue;
    }
    const char c = value[i++];
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string EscapeHelp(std::string_view help) {
  std::string out;
  out.reserve(help.size());
  for (const char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

bool IsValidMetricName(std::string_view name) { return IsValidName(name, /*colon=*/true); }

bool IsValidLabelName(std::string_view name) { return IsValidName(name, /*colon=*/false); }

void TextFormatWriter::BeginFamily(std::string_view name, std::string_view help, MetricType type) {
  family_ = std::string(name);
  absl::StrAppend(&out_, "# HELP ", family_, " ", EscapeHelp(help), "\n");
  absl::StrAppend(&out_, "# TYPE ", family_, " ", std::string(TypeName(type)), "\n");
}

void TextFormatWriter::Sample(const Labels& labels, double value) {
  WriteSample("", labels, {}, FormatValue(value));
}

void TextFormatWriter::Sample(const Labels& labels, uint64_t value) {
  WriteSample("", labels, {}, std::to_string(value));
}

void TextFormatWriter::Sample(const Labels& labels, int64_t value) {
  WriteSample("", labels, {}, std::to_string(value));
}

void TextFormatWriter::Histogram(const Labels& labels, const HistogramData& data) {
  for (size_t i = 0; i < data.upper_bounds.size(); ++i) {
    const uint64_t count = i < data.cumulative_counts.size() ? data.cumulative_counts[i] : 0;
    WriteSample("_bucket", labels, FormatValue(data.upper_bounds[i]), std::to_string(count));
  }
  WriteSample("_bucket", labels, "+Inf", std::to_string(data.count));
  WriteSample("_sum", labels, {}, FormatValue(data.sum));
  WriteSample("_count", labels, {}, std::to_string(data.count));
}

void TextFormatWriter::WriteSample(std::string_view suffix, const Labels& labels,
                                   std::string_view le, std::string_view value) {
  out_ += family_;
  out_ += suffix;
  if (!labels.empty() || !le.empty()) {
    out_ += '{';
    bool first = true;
    for (const auto& [name, label_value] : labels) {
      if (!first) out_ += ',';
      first = false;
      absl::StrAppend(&out_, name, "=\"", EscapeLabelValue(label_value), "\"");
    }
    if (!le.empty()) {
      if (!first) out_ += ',';
      out_ += "le=\"";
      out_ += le;
      out_ += '"';
    }
    out_ += '}';
  }
  out_ += ' ';
  out_ += value;
  out_ += '\n';
}

}  // namespace inferd::frontends::metrics
