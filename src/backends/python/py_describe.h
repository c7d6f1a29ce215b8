// SPDX-License-Identifier: Apache-2.0
// INFERD_BackendDescribeModel for Python models: a short-lived worker runs
// TritonPythonModel.auto_complete_config on the config, and the inputs and
// outputs it declares become the model's signature.
#pragma once

#include "inferd/backend.h"
#include "py_protocol.h"

namespace inferd::python {

Status DescribePythonModel(const INFERD_ServerApi& api, const INFERD_ModelSpec& spec,
                           INFERD_Signature* signature);

}  // namespace inferd::python
