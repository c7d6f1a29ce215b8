// SPDX-License-Identifier: Apache-2.0
#include "echo/grpc_echo.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_builder.h"

namespace inferd::bench {

using ::grpc::CallbackServerContext;
using ::grpc::ServerUnaryReactor;
using ::grpc::Status;

class EchoService final : public inference::GRPCInferenceService::CallbackService {
 public:
  explicit EchoService(ModelSpec model)
      : model_(std::move(model)), config_(ModelConfigProto(model_)) {}

  ServerUnaryReactor* ServerLive(CallbackServerContext* context,
                                 const inference::ServerLiveRequest*,
                                 inference::ServerLiveResponse* response) override {
    response->set_live(true);
    return Done(context, Status::OK);
  }

  ServerUnaryReactor* ServerReady(CallbackServerContext* context,
                                  const inference::ServerReadyRequest*,
                                  inference::ServerReadyResponse* response) override {
    response->set_ready(true);
    return Done(context, Status::OK);
  }

  ServerUnaryReactor* ModelReady(CallbackServerContext* context,
                                 const inference::ModelReadyRequest* request,
                                 inference::ModelReadyResponse* response) override {
    if (Status status = CheckModel(request->name()); !status.ok()) return Done(context, status);
    response->set_ready(true);
    return Done(context, Status::OK);
  }

  ServerUnaryReactor* ServerMetadata(CallbackServerContext* context,
                                     const inference::ServerMetadataRequest*,
                                     inference::ServerMetadataResponse* response) override {
    FillServerMetadata(*response);
    return Done(context, Status::OK);
  }

  ServerUnaryReactor* ModelMetadata(CallbackServerContext* context,
                                    const inference::ModelMetadataRequest* request,
                                    inference::ModelMetadataResponse* response) override {
    if (Status status = CheckModel(request->name()); !status.ok()) return Done(context, status);
    FillModelMetadata(model_, *response);
    return Done(context, Status::OK);
  }

  ServerUnaryReactor* ModelConfig(CallbackServerContext* context,
                                  const inference::ModelConfigRequest* request,
                                  inference::ModelConfigResponse* response) override {
    if (Status status = CheckModel(request->name()); !status.ok()) return Done(context, status);
    *response->mutable_config() = config_;
    return Done(context, Status::OK);
  }

  ServerUnaryReactor* ModelInfer(CallbackServerContext* context,
                                 const inference::ModelInferRequest* request,
                                 inference::ModelInferResponse* response) override {
    if (Status status = CheckModel(request->model_name()); !status.ok()) {
      return Done(context, status);
    }
    int64_t batch = 1;
    if (model_.max_batch_size > 0 && request->inputs_size() > 0 &&
        request->inputs(0).shape_size() > 0) {
      batch = request->inputs(0).shape(0);
    }
    if (batch < 1) return Done(context, Status(::grpc::INVALID_ARGUMENT, "bad batch size"));
    FillInferResponse(model_, request->id(), batch, *response);
    return Done(context, Status::OK);
  }

 private:
  static ServerUnaryReactor* Done(CallbackServerContext* context, const Status& status) {
    ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(status);
    return reactor;
  }

  Status CheckModel(const std::string& name) const {
    if (name == model_.name) return Status::OK;
    return Status(::grpc::NOT_FOUND, absl::StrCat("unknown model '", name, "'"));
  }

  const ModelSpec model_;
  const inference::ModelConfig config_;
};

absl::StatusOr<std::unique_ptr<GrpcEcho>> GrpcEcho::Create(ModelSpec model, const std::string& host,
                                                           int port) {
  std::unique_ptr<GrpcEcho> echo(new GrpcEcho());
  echo->service_ = std::make_unique<EchoService>(std::move(model));
  const std::string address = absl::StrCat(host, ":", port);
  ::grpc::ServerBuilder builder;
  builder.AddListeningPort(address, ::grpc::InsecureServerCredentials(), &echo->port_);
  builder.SetMaxReceiveMessageSize(INT32_MAX);
  builder.SetMaxSendMessageSize(INT32_MAX);
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.RegisterService(echo->service_.get());
  echo->server_ = builder.BuildAndStart();
  if (echo->server_ == nullptr || echo->port_ == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen for grpc on ", address));
  }
  return echo;
}

GrpcEcho::~GrpcEcho() { Stop(); }

void GrpcEcho::Stop() {
  if (server_ == nullptr) return;
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  server_->Wait();
  server_.reset();
}

}  // namespace inferd::bench
