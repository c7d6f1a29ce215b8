// SPDX-License-Identifier: Apache-2.0
// A writer of the Prometheus text exposition format 0.0.4: # HELP and # TYPE
// lines, samples with escaped label values, and histograms as cumulative
// _bucket{le=...} series with _sum and _count. No I/O; unit-tested alone.
// (Debian 12 packages no C++ Prometheus client, and this is all we need.)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace inferd::frontends::metrics {

inline constexpr std::string_view kTextFormatContentType =
    "text/plain; version=0.0.4; charset=utf-8";

enum class MetricType { kCounter, kGauge, kHistogram };

// Label names and values, in the order they are written.
using Labels = std::vector<std::pair<std::string, std::string>>;

// A histogram in the exposition's units.
struct HistogramData {
  std::vector<double> upper_bounds;  // ascending; +Inf is implicit
  // Cumulative: observations <= upper_bounds[i]; one more for +Inf (== count).
  std::vector<uint64_t> cumulative_counts;
  double sum = 0;
  uint64_t count = 0;
};

// A number as Prometheus reads it back to the same double: integers without
// a fraction ("3"), NaN / +Inf / -Inf spelled as Prometheus does, other
// values in their shortest round-trip form ("0.0005", "1.5e-07").
std::string FormatValue(double value);
// Escapes backslash, double quote and newline; replaces bytes that are not
// UTF-8 with U+FFFD (Prometheus refuses a scrape with invalid UTF-8).
std::string EscapeLabelValue(std::string_view value);
// Escapes backslash and newline (HELP text).
std::string EscapeHelp(std::string_view help);
// Whether `name` is a valid metric name ([a-zA-Z_:][a-zA-Z0-9_:]*); label
// names are the same without ':'.
bool IsValidMetricName(std::string_view name);
bool IsValidLabelName(std::string_view name);

// Builds one exposition. Families are written in the order begun; every
// sample belongs to the family begun last. Names are the caller's constants:
// an invalid one is a bug, caught by the unit tests that parse the output.
class TextFormatWriter {
 public:
  // Writes # HELP and # TYPE for `name`.
  void BeginFamily(std::string_view name, std::string_view help, MetricType type);
  // A counter or gauge sample of the current family.
  void Sample(const Labels& labels, double value);
  void Sample(const Labels& labels, uint64_t value);
  void Sample(const Labels& labels, int64_t value);
  // A histogram series of the current family: one _bucket per bound plus
  // le="+Inf", then _sum and _count.
  void Histogram(const Labels& labels, const HistogramData& data);

  const std::string& text() const { return out_; }

 private:
  // name+suffix{labels[,le="..."]} value\n
  void WriteSample(std::string_view suffix, const Labels& labels, std::string_view le,
                   std::string_view value);

  std::string out_;
  std::string family_;
};

}  // namespace inferd::frontends::metrics
