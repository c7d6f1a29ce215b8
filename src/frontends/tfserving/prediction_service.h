// SPDX-License-Identifier: Apache-2.0
// tensorflow.serving.PredictionService (Predict, GetModelMetadata) and
// tensorflow.serving.ModelService (GetModelStatus) on gRPC's callback API,
// over inferd::Server alone. Predict never blocks a gRPC thread: the call is
// finished from the server's completion callback.
#pragma once

#include "server/server.h"
#include "tensorflow_serving/apis/model_service.grpc.pb.h"
#include "tensorflow_serving/apis/prediction_service.grpc.pb.h"

namespace inferd::frontends::tfserving {

// Thread-safe. `server` must outlive this; this must outlive the grpc::Server
// it is registered with.
class PredictionService final : public tensorflow::serving::PredictionService::CallbackService {
 public:
  explicit PredictionService(Server& server) : server_(server) {}

  ::grpc::ServerUnaryReactor* Predict(::grpc::CallbackServerContext* context,
                                      const tensorflow::serving::PredictRequest* request,
                                      tensorflow::serving::PredictResponse* response) override;
  // The "signature_def" field: one signature, "serving_default".
  ::grpc::ServerUnaryReactor* GetModelMetadata(
      ::grpc::CallbackServerContext* context,
      const tensorflow::serving::GetModelMetadataRequest* request,
      tensorflow::serving::GetModelMetadataResponse* response) override;

 private:
  Server& server_;
};

// Thread-safe. `server` must outlive this.
class ModelStatusService final : public tensorflow::serving::ModelService::CallbackService {
 public:
  explicit ModelStatusService(const Server& server) : server_(server) {}

  ::grpc::ServerUnaryReactor* GetModelStatus(
      ::grpc::CallbackServerContext* context,
      const tensorflow::serving::GetModelStatusRequest* request,
      tensorflow::serving::GetModelStatusResponse* response) override;

 private:
  const Server& server_;
};

}  // namespace inferd::frontends::tfserving
