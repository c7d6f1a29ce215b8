// SPDX-License-Identifier: Apache-2.0
// Debian's Abseil has its own absl::string_view (not std::string_view), so
// std::string_view must be converted explicitly before StrCat & co.
#pragma once

#include <string_view>

#include "absl/strings/string_view.h"

namespace inferd::frontends::http {

inline absl::string_view AsAbsl(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}
inline std::string_view AsStd(absl::string_view s) { return std::string_view(s.data(), s.size()); }

}  // namespace inferd::frontends::http
