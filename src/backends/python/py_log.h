// SPDX-License-Identifier: Apache-2.0
// The backend ABI has no logging call, so the Python backend writes its few
// log lines to stderr itself, in the server's (spdlog's default) format.
#pragma once

#include <string_view>

namespace inferd::python {

void LogWarning(std::string_view message);
void LogInfo(std::string_view message);

}  // namespace inferd::python
