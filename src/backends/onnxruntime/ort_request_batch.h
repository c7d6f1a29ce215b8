// SPDX-License-Identifier: Apache-2.0
// The shared request batch (src/backends/common) under this backend's names.
#pragma once

#include "request_batch.h"

namespace inferd::ort {
using backend_util::CollectRequestedOutputs;
using backend_util::RequestBatch;
using backend_util::RequestedOutputs;
}  // namespace inferd::ort
