// SPDX-License-Identifier: Apache-2.0
#include "shape_util.h"

#include <algorithm>
#include <string>

namespace inferd::ort {
namespace {

size_t CountVariable(std::span<const int64_t> dims) {
  return static_cast<size_t>(std::count(dims.begin(), dims.end(), int64_t{-1}));
}

// Fills the -1s of `target` with the dims of `actual` found where
// `actual_pattern` has -1, in order.
Dims FillInOrder(std::span<const int64_t> target, std::span<const int64_t> actual_pattern,
                 std::span<const int64_t> actual) {
  Dims out(target.begin(), target.end());
  size_t next = 0;
  for (int64_t& dim : out) {
    if (dim != -1) continue;
    while (actual_pattern[next] != -1) ++next;
    dim = actual[next++];
  }
  return out;
}

}  // namespace

StatusOr<Dims> ResolveDims(std::span<const int64_t> target, std::span<const int64_t> actual_pattern,
                           std::span<const int64_t> actual, std::string_view tensor) {
  std::optional<int64_t> want = ElementCount(actual);
  auto mismatch = [&] {
    return Status::InvalidArg("tensor '" + std::string(tensor) + "': shape " +
                              DimsToString(actual) + " cannot be reshaped to " +
                              DimsToString(target));
  };
  if (!want) return mismatch();
  const size_t variable = CountVariable(target);
  Dims out(target.begin(), target.end());
  if (variable > 0 && actual_pattern.size() == actual.size() &&
      CountVariable(actual_pattern) == variable) {
    out = FillInOrder(target, actual_pattern, actual);
  } else if (variable == 1) {
    auto known = std::find(out.begin(), out.end(), int64_t{-1});
    *known = 1;
    std::optional<int64_t> rest = ElementCount(out);
    if (!rest || *rest == 0 || *want % *rest != 0) return mismatch();
    *known = *want / *rest;
  } else if (variable > 1) {
    return mismatch();
  }
  std::optional<int64_t> got = ElementCount(out);
  if (!got || *got != *want) return mismatch();
  return out;
}

}  // namespace inferd::ort
