// SPDX-License-Identifier: Apache-2.0
#include "frontends/grpc/infer_response_codec.h"

#include <string>

namespace inferd::frontends::grpc {

absl::Status EncodeInferResponse(const core::InferResponse& response,
                                 const SharedMemoryOutputs& shared_memory,
                                 inference::ModelInferResponse& message) {
  message.set_model_name(response.model_name);
  message.set_model_version(std::to_string(response.model_version));
  message.set_id(response.id);
  message.mutable_outputs()->Reserve(static_cast<int>(response.outputs.size()));
  message.mutable_raw_output_contents()->Reserve(static_cast<int>(response.outputs.size()));
  for (const core::Tensor& tensor : response.outputs) {
    auto* output = message.add_outputs();
    output->set_name(tensor.name);
    output->set_datatype(std::string(core::DataTypeProtocolName(tensor.datatype)));
    output->mutable_shape()->Add(tensor.shape.begin(), tensor.shape.end());
    std::string* raw = message.add_raw_output_contents();
    if (!shared_memory.empty()) {
      const auto region = shared_memory.find(tensor.name);
      if (region != shared_memory.end()) {
        if (absl::Status status = WriteSharedMemoryOutput(tensor, region->second); !status.ok()) {
          return status;
        }
        continue;  // the bytes are in the region; the entry stays empty
      }
    }
    // protobuf 3.21 bytes fields are std::string: one copy is unavoidable.
    raw->assign(tensor.data.data, tensor.data.size);
  }
  return absl::OkStatus();
}

void EncodeInferResponse(const core::InferResponse& response,
                         inference::ModelInferResponse& message) {
  (void)EncodeInferResponse(response, SharedMemoryOutputs{}, message);
}

}  // namespace inferd::frontends::grpc
