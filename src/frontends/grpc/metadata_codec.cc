// SPDX-License-Identifier: Apache-2.0
#include "frontends/grpc/metadata_codec.h"

#include <string>

namespace inferd::frontends::grpc {
namespace {

void EncodeTensors(
    const std::vector<TensorMetadata>& tensors,
    google::protobuf::RepeatedPtrField<inference::ModelMetadataResponse::TensorMetadata>& out) {
  out.Reserve(static_cast<int>(tensors.size()));
  for (const TensorMetadata& tensor : tensors) {
    auto* entry = out.Add();
    entry->set_name(tensor.name);
    entry->set_datatype(std::string(core::DataTypeProtocolName(tensor.datatype)));
    entry->mutable_shape()->Add(tensor.shape.begin(), tensor.shape.end());
  }
}

}  // namespace

void EncodeServerMetadata(const ServerMetadata& metadata,
                          inference::ServerMetadataResponse& message) {
  message.set_name(metadata.name);
  message.set_version(metadata.version);
  for (const std::string& extension : metadata.extensions) message.add_extensions(extension);
}

void EncodeModelMetadata(const ModelMetadata& metadata, inference::ModelMetadataResponse& message) {
  message.set_name(metadata.name);
  for (const std::string& version : metadata.versions) message.add_versions(version);
  message.set_platform(metadata.platform);
  EncodeTensors(metadata.inputs, *message.mutable_inputs());
  EncodeTensors(metadata.outputs, *message.mutable_outputs());
}

void EncodeRepositoryIndex(const std::vector<ModelIndexEntry>& entries,
                           inference::RepositoryIndexResponse& message) {
  message.mutable_models()->Reserve(static_cast<int>(entries.size()));
  for (const ModelIndexEntry& entry : entries) {
    auto* model = message.add_models();
    model->set_name(entry.name);
    model->set_version(entry.version);
    model->set_state(entry.state);
    model->set_reason(entry.reason);
  }
}

}  // namespace inferd::frontends::grpc
