// SPDX-License-Identifier: Apache-2.0
#include "frontends/tfserving/signature.h"

#include "frontends/tfserving/model_target.h"
#include "frontends/tfserving/tensor_proto_codec.h"

namespace inferd::frontends::tfserving {
namespace {

void FillTensorInfo(const TensorMetadata& tensor, tensorflow::TensorInfo& info) {
  info.set_name(tensor.name);
  info.set_dtype(ToTfDataType(tensor.datatype));
  auto* shape = info.mutable_tensor_shape();
  for (int64_t dim : tensor.shape) shape->add_dim()->set_size(dim);
}

}  // namespace

void BuildSignatureDef(const ModelMetadata& metadata, tensorflow::SignatureDef& signature) {
  for (const TensorMetadata& input : metadata.inputs) {
    FillTensorInfo(input, (*signature.mutable_inputs())[input.name]);
  }
  for (const TensorMetadata& output : metadata.outputs) {
    FillTensorInfo(output, (*signature.mutable_outputs())[output.name]);
  }
  signature.set_method_name(kPredictMethod);
}

}  // namespace inferd::frontends::tfserving
