// SPDX-License-Identifier: Apache-2.0
// The histogram bucket flags (--metrics-duration-buckets in seconds,
// --metrics-batch-size-buckets): parsed and checked here so that cmd/ stays
// thin and the checks are unit-tested.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace inferd::frontends::metrics {

// "0.001,0.01,0.1" (seconds) -> bounds in nanoseconds. InvalidArgument
// unless every item is a finite number of at least 1 ns and the bounds are
// strictly ascending (after rounding to ns).
absl::StatusOr<std::vector<uint64_t>> ParseDurationBuckets(std::string_view text);
// "1,2,4,8" -> bounds. InvalidArgument unless positive integers, strictly
// ascending.
absl::StatusOr<std::vector<uint64_t>> ParseBatchSizeBuckets(std::string_view text);

// The inverse of the parsers, for flag defaults in --help.
std::string FormatDurationBuckets(const std::vector<uint64_t>& bounds_ns);
std::string FormatBatchSizeBuckets(const std::vector<uint64_t>& bounds);

}  // namespace inferd::frontends::metrics
