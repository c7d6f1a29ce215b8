// SPDX-License-Identifier: Apache-2.0
// A model's metadata as TF Serving's SignatureDef: the "serving_default"
// signature whose inputs and outputs are the model's, under their own names.
#pragma once

#include "server/server.h"
#include "tensorflow/core/protobuf/meta_graph.pb.h"

namespace inferd::frontends::tfserving {

void BuildSignatureDef(const ModelMetadata& metadata, tensorflow::SignatureDef& signature);

}  // namespace inferd::frontends::tfserving
