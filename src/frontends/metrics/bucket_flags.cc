// SPDX-License-Identifier: Apache-2.0
#include "frontends/metrics/bucket_flags.h"

#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "frontends/metrics/text_format.h"

namespace inferd::frontends::metrics {
namespace {

// Largest bound: 100 years, far below where nanoseconds overflow uint64.
constexpr double kMaxNanos = 100 * 365.25 * 86400 * 1e9;

std::vector<std::string> Items(std::string_view text) {
  std::vector<std::string> items;
  for (absl::string_view item : absl::StrSplit(absl::string_view(text.data(), text.size()), ',')) {
    items.emplace_back(absl::StripAsciiWhitespace(item));
  }
  return items;
}

absl::Status Invalid(std::string_view what, std::string_view text, std::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("invalid ", std::string(what), " buckets '",
                                                 std::string(text), "': ", std::string(why)));
}

absl::Status CheckAscending(const std::vector<uint64_t>& bounds, std::string_view what,
                            std::string_view text) {
  for (size_t i = 1; i < bounds.size(); ++i) {
    if (bounds[i] <= bounds[i - 1]) {
      return Invalid(what, text, "bounds must be strictly ascending");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<uint64_t>> ParseDurationBuckets(std::string_view text) {
  constexpr std::string_view kWhat = "duration";
  std::vector<uint64_t> bounds;
  for (const std::string& item : Items(text)) {
    double seconds = 0;
    // SimpleAtod also takes "inf" and "nan"; both are refused below.
    if (item.empty() || !absl::SimpleAtod(item, &seconds) || !std::isfinite(seconds)) {
      return Invalid(kWhat, text, absl::StrCat("'", item, "' is not a number of seconds"));
    }
    const double nanos = std::round(seconds * 1e9);
    if (nanos < 1 || nanos > kMaxNanos) {
      return Invalid(kWhat, text, absl::StrCat("'", item, "' is not between 1 ns and 100 years"));
    }
    bounds.push_back(static_cast<uint64_t>(nanos));
  }
  if (absl::Status status = CheckAscending(bounds, kWhat, text); !status.ok()) return status;
  return bounds;
}

absl::StatusOr<std::vector<uint64_t>> ParseBatchSizeBuckets(std::string_view text) {
  constexpr std::string_view kWhat = "batch size";
  std::vector<uint64_t> bounds;
  for (const std::string& item : Items(text)) {
    uint64_t size = 0;
    if (item.empty() || item[0] == '-' || item[0] == '+' || !absl::SimpleAtoi(item, &size) ||
        size == 0) {
      return Invalid(kWhat, text, absl::StrCat("'", item, "' is not a positive integer"));
    }
    bounds.push_back(size);
  }
  if (absl::Status status = CheckAscending(bounds, kWhat, text); !status.ok()) return status;
  return bounds;
}

std::string FormatDurationBuckets(const std::vector<uint64_t>& bounds_ns) {
  return absl::StrJoin(bounds_ns, ",", [](std::string* out, uint64_t ns) {
    out->append(FormatValue(static_cast<double>(ns) / 1e9));
  });
}

std::string FormatBatchSizeBuckets(const std::vector<uint64_t>& bounds) {
  return absl::StrJoin(bounds, ",");
}

}  // namespace inferd::frontends::metrics
