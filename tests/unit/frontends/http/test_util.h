// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the HTTP codec tests.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"

namespace inferd::frontends::http::testing {

// Little-endian bytes of `values`.
template <typename T>
std::string Bytes(const std::vector<T>& values) {
  std::string out(values.size() * sizeof(T), '\0');
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

MATCHER_P(StatusIs, code, "") { return arg.code() == code; }

MATCHER_P2(StatusIs, code, substring, "") {
  return arg.code() == code &&
         std::string(arg.message()).find(std::string(substring)) != std::string::npos;
}

}  // namespace inferd::frontends::http::testing
