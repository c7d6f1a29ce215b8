// SPDX-License-Identifier: Apache-2.0
#include "repository/version_labels.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace inferd::repository {
namespace {

bool IsLabel(absl::string_view label) {
  if (label.empty() || !absl::ascii_isalpha(static_cast<unsigned char>(label.front()))) {
    return false;
  }
  for (char c : label) {
    const auto u = static_cast<unsigned char>(c);
    if (!absl::ascii_isalnum(u) && c != '_' && c != '-' && c != '.') return false;
  }
  return true;
}

absl::Status Invalid(absl::string_view entry, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("parameter '", kVersionLabelsParameter,
                                                 "': entry '", entry, "' ", why,
                                                 " (expected \"label:version,...\")"));
}

}  // namespace

absl::StatusOr<VersionLabels> ParseVersionLabels(std::string_view in) {
  // Debian's Abseil has its own string_view.
  const absl::string_view text(in.data(), in.size());
  VersionLabels labels;
  if (absl::StripAsciiWhitespace(text).empty()) return labels;
  for (absl::string_view entry : absl::StrSplit(text, ',')) {
    entry = absl::StripAsciiWhitespace(entry);
    const size_t colon = entry.find(':');
    if (colon == std::string_view::npos) return Invalid(entry, "has no ':'");
    const absl::string_view label = absl::StripAsciiWhitespace(entry.substr(0, colon));
    const absl::string_view number = absl::StripAsciiWhitespace(entry.substr(colon + 1));
    if (!IsLabel(label)) {
      return Invalid(entry,
                     "has a bad label: a label starts with a letter and holds letters, "
                     "digits, '_', '-' or '.'");
    }
    int64_t version = 0;
    if (!absl::SimpleAtoi(number, &version) || version <= 0) {
      return Invalid(entry, "has a bad version: it must be a positive integer");
    }
    if (!labels.emplace(std::string(label), version).second) {
      return Invalid(entry, "repeats a label");
    }
  }
  return labels;
}

absl::StatusOr<VersionLabels> VersionLabelsOf(const inference::ModelConfig& config) {
  const auto it = config.parameters().find(kVersionLabelsParameter);
  if (it == config.parameters().end()) return VersionLabels();
  return ParseVersionLabels(it->second.string_value());
}

}  // namespace inferd::repository
