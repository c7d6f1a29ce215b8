// SPDX-License-Identifier: Apache-2.0
// The one model the echo server pretends to serve (name, tensors, max_batch_size),
// parsed from the command line, and the KServe v2 documents describing it: JSON
// for HTTP, protobuf for gRPC. Nothing here knows about sockets.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "grpc_service.pb.h"
#include "model_config.pb.h"

namespace inferd::bench {

struct TensorSpec {
  std::string name;
  std::string datatype;       // protocol spelling: "INT32", "FP32", "BYTES", ...
  std::vector<int64_t> dims;  // without the batch dimension; -1 = variable
};

struct ModelSpec {
  std::string name;
  std::string platform = "onnxruntime_onnx";
  std::string version = "1";
  int max_batch_size = 0;
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
};

// "NAME:DATATYPE:D1,D2,..." (dims may be empty: "NAME:FP32:").
absl::StatusOr<TensorSpec> ParseTensorSpec(std::string_view flag);

// Shape of an output in a response to a request of `batch` rows: the batch
// dimension first when the model batches, and every variable dim taken as 1.
std::vector<int64_t> OutputShape(const ModelSpec& model, const TensorSpec& output, int64_t batch);

// Bytes of a zero-filled output of that shape (BYTES: 4-byte zero lengths).
size_t OutputByteSize(const TensorSpec& output, const std::vector<int64_t>& shape);

// HTTP bodies. The server metadata leaves out `statistics`, so perf_analyzer
// asks for no statistics between windows.
std::string ServerMetadataJson();
std::string ModelMetadataJson(const ModelSpec& model);
std::string ModelConfigJson(const ModelSpec& model);
// The JSON header of a binary infer response; `id` is echoed when non-empty.
std::string InferResponseJson(const ModelSpec& model, std::string_view id, int64_t batch,
                              size_t& blob_bytes);

// gRPC messages.
void FillServerMetadata(inference::ServerMetadataResponse& response);
void FillModelMetadata(const ModelSpec& model, inference::ModelMetadataResponse& response);
inference::ModelConfig ModelConfigProto(const ModelSpec& model);
void FillInferResponse(const ModelSpec& model, const std::string& id, int64_t batch,
                       inference::ModelInferResponse& response);

}  // namespace inferd::bench
