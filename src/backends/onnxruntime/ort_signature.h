// SPDX-License-Identifier: Apache-2.0
// Reading a model's inputs and outputs from an ORT session: reporting them to
// the server (INFERD_BackendDescribeModel) and checking a config against them.
#pragma once

#include <onnxruntime_cxx_api.h>

#include "inferd/backend.h"
#include "status.h"

namespace inferd::ort {

class OrtModel;

// Opens spec.model_path with light options and reports every input and
// output; symbolic or unknown dims are -1. INVALID_ARG naming the tensor when
// one is not a tensor or has a type inferd cannot carry. May throw.
Status DescribeModel(const INFERD_ServerApi& api, const INFERD_ModelSpec& spec,
                     INFERD_Signature* signature);

// INVALID_ARG when a configured input or output is missing from `session` or
// has another data type. May throw Ort::Exception.
Status CheckConfigAgainstSession(const OrtModel& model, const Ort::Session& session);

}  // namespace inferd::ort
