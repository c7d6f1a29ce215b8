// SPDX-License-Identifier: Apache-2.0
// A strict reader of the Prometheus text format 0.0.4 for the tests: it
// follows the grammar of Prometheus's own parser (escapes, name charsets,
// HELP/TYPE before samples, families contiguous), so that what the writer
// produces is checked by reading it back rather than by string matching.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace inferd::frontends::metrics::testing {

struct ParsedSample {
  std::string name;                           // with the _bucket/_sum/_count suffix
  std::map<std::string, std::string> labels;  // unescaped
  double value = 0;
};

struct ParsedFamily {
  std::string name;
  std::string help;  // unescaped
  std::string type;
  std::vector<ParsedSample> samples;
};

// InvalidArgument with the line number on any deviation from the format.
absl::StatusOr<std::vector<ParsedFamily>> ParseExposition(std::string_view text);

// The family called `name`, or null.
const ParsedFamily* FindFamily(const std::vector<ParsedFamily>& families, std::string_view name);
// The value of the sample `name` whose labels include all of `labels`;
// NaN when there is none.
double Value(const std::vector<ParsedFamily>& families, std::string_view name,
             const std::map<std::string, std::string>& labels);

}  // namespace inferd::frontends::metrics::testing
