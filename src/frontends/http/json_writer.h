// SPDX-License-Identifier: Apache-2.0
// The HTTP frontend writes its JSON with core's writer configuration.
#pragma once

#include "core/json_writer.h"

namespace inferd::frontends::http {

using core::JsonWriter;
using core::TakeString;
using core::WriteKey;
using core::WriteString;

}  // namespace inferd::frontends::http
