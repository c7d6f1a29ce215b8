// SPDX-License-Identifier: Apache-2.0
#include "exposition_parser.h"

#include <cmath>
#include <cstdlib>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "frontends/metrics/text_format.h"

namespace inferd::frontends::metrics::testing {
namespace {

class LineReader {
 public:
  LineReader(std::string_view line, size_t number) : line_(line), number_(number) {}

  absl::Status Error(std::string_view why) const {
    return absl::InvalidArgumentError(
        absl::StrCat("line ", number_, ": ", std::string(why), ": ", std::string(line_)));
  }
  bool AtEnd() const { return pos_ >= line_.size(); }
  char Peek() const { return AtEnd() ? '\0' : line_[pos_]; }
  bool Consume(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  std::string_view Name(bool colon) {
    const size_t start = pos_;
    while (!AtEnd()) {
      const char c = line_[pos_];
      const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
                      (colon && c == ':') || (pos_ > start && c >= '0' && c <= '9');
      if (!ok) break;
      ++pos_;
    }
    return line_.substr(start, pos_ - start);
  }
  // A quoted label value with \\, \" and \n escapes; false on anything else.
  bool QuotedValue(std::string* out) {
    if (!Consume('"')) return false;
    while (!AtEnd()) {
      const char c = line_[pos_++];
      if (c == '"') return true;
      if (c == '\n') return false;
      if (c != '\\') {
        *out += c;
        continue;
      }
      if (AtEnd()) return false;
      const char escaped = line_[pos_++];
      if (escaped == '\\') {
        *out += '\\';
      } else if (escaped == '"') {
        *out += '"';
      } else if (escaped == 'n') {
        *out += '\n';
      } else {
        return false;
      }
    }
    return false;
  }
  std::string_view Rest() const { return line_.substr(pos_); }

 private:
  std::string_view line_;
  size_t number_;
  size_t pos_ = 0;
};

bool ParseFloat(std::string_view text, double* value) {
  if (text == "+Inf") {
    *value = INFINITY;
    return true;
  }
  if (text == "-Inf") {
    *value = -INFINITY;
    return true;
  }
  if (text == "NaN") {
    *value = NAN;
    return true;
  }
  const std::string copy(text);
  char* end = nullptr;
  *value = std::strtod(copy.c_str(), &end);
  return !copy.empty() && end == copy.c_str() + copy.size() &&
         copy.find_first_of("xXpP") == std::string::npos;  // no hex floats
}

std::string UnescapeHelp(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && (text[i + 1] == '\\' || text[i + 1] == 'n')) {
      out += text[i + 1] == 'n' ? '\n' : '\\';
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

// Whether `sample` belongs to `family` (histograms: the three suffixes).
bool BelongsTo(const ParsedFamily& family, std::string_view sample) {
  if (family.type != "histogram") return sample == family.name;
  for (std::string_view suffix : {"_bucket", "_sum", "_count"}) {
    if (sample == absl::StrCat(family.name, std::string(suffix))) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<std::vector<ParsedFamily>> ParseExposition(std::string_view text) {
  if (!text.empty() && text.back() != '\n') {
    return absl::InvalidArgumentError("the exposition must end with a newline");
  }
  std::vector<ParsedFamily> families;
  std::set<std::string> seen;
  size_t number = 0;
  for (absl::string_view raw : absl::StrSplit(absl::string_view(text.data(), text.size()), '\n')) {
    ++number;
    const std::string_view line(raw.data(), raw.size());
    if (line.empty()) continue;
    LineReader reader(line, number);
    if (line.front() == '#') {
      const std::vector<std::string> parts = absl::StrSplit(raw, absl::MaxSplits(' ', 3));
      if (parts.size() < 3 || (parts[1] != "HELP" && parts[1] != "TYPE")) continue;  // comment
      if (!IsValidMetricName(parts[2])) return reader.Error("bad metric name");
      const std::string value = parts.size() > 3 ? parts[3] : "";
      if (parts[1] == "HELP") {
        if (!seen.insert(parts[2]).second) return reader.Error("family seen twice");
        families.push_back({parts[2], UnescapeHelp(value), "untyped", {}});
        continue;
      }
      if (families.empty() || families.back().name != parts[2]) {
        return reader.Error("TYPE without its HELP");
      }
      if (value != "counter" && value != "gauge" && value != "histogram") {
        return reader.Error("bad type");
      }
      families.back().type = value;
      continue;
    }
    ParsedSample sample;
    sample.name = std::string(reader.Name(/*colon=*/true));
    if (sample.name.empty()) return reader.Error("bad sample name");
    if (reader.Consume('{')) {
      while (!reader.Consume('}')) {
        const std::string label(reader.Name(/*colon=*/false));
        std::string value;
        if (label.empty() || !reader.Consume('=') || !reader.QuotedValue(&value)) {
          return reader.Error("bad label");
        }
        if (!sample.labels.emplace(label, value).second) return reader.Error("duplicate label");
        if (!reader.Consume(',') && reader.Peek() != '}') return reader.Error("bad label list");
      }
    }
    if (!reader.Consume(' ')) return reader.Error("no space before the value");
    if (!ParseFloat(reader.Rest(), &sample.value)) return reader.Error("bad value");
    if (families.empty() || !BelongsTo(families.back(), sample.name)) {
      return reader.Error("sample outside its family");
    }
    families.back().samples.push_back(std::move(sample));
  }
  return families;
}

const ParsedFamily* FindFamily(const std::vector<ParsedFamily>& families, std::string_view name) {
  for (const ParsedFamily& family : families) {
    if (family.name == name) return &family;
  }
  return nullptr;
}

double Value(const std::vector<ParsedFamily>& families, std::string_view name,
             const std::map<std::string, std::string>& labels) {
  for (const ParsedFamily& family : families) {
    for (const ParsedSample& sample : family.samples) {
      if (sample.name != name) continue;
      bool match = true;
      for (const auto& [key, value] : labels) {
        auto it = sample.labels.find(key);
        match = match && it != sample.labels.end() && it->second == value;
      }
      if (match) return sample.value;
    }
  }
  return NAN;
}

}  // namespace inferd::frontends::metrics::testing
