// SPDX-License-Identifier: Apache-2.0
// Server API metadata structs -> gRPC response messages (server and model
// metadata, repository index). No I/O.
#pragma once

#include <vector>

#include "grpc_service.pb.h"
#include "server/server.h"

namespace inferd::frontends::grpc {

void EncodeServerMetadata(const ServerMetadata& metadata,
                          inference::ServerMetadataResponse& message);
// Datatypes are protocol names ("FP32", "BYTES"); shapes keep their -1s.
void EncodeModelMetadata(const ModelMetadata& metadata, inference::ModelMetadataResponse& message);
void EncodeRepositoryIndex(const std::vector<ModelIndexEntry>& entries,
                           inference::RepositoryIndexResponse& message);

}  // namespace inferd::frontends::grpc
