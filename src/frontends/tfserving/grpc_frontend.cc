// SPDX-License-Identifier: Apache-2.0
#include "frontends/tfserving/grpc_frontend.h"

#include <chrono>

#include "absl/memory/memory.h"
#include "absl/strings/str_cat.h"
#include "frontends/tfserving/prediction_service.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"

namespace inferd::frontends::tfserving {
namespace {

constexpr std::chrono::seconds kShutdownGrace{5};

std::string Address(const TfsGrpcOptions& options) {
  const bool bare_ipv6 = options.host.find(':') != std::string::npos && options.host.front() != '[';
  return bare_ipv6 ? absl::StrCat("[", options.host, "]:", options.port)
                   : absl::StrCat(options.host, ":", options.port);
}

}  // namespace

TfsGrpcFrontend::TfsGrpcFrontend(Server& server)
    : prediction_(std::make_unique<PredictionService>(server)),
      model_status_(std::make_unique<ModelStatusService>(server)) {}

absl::StatusOr<std::unique_ptr<TfsGrpcFrontend>> TfsGrpcFrontend::Create(Server& server,
                                                                         TfsGrpcOptions options) {
  if (options.host.empty()) return absl::InvalidArgumentError("tfs grpc host is empty");
  if (options.port < 0 || options.port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("tfs grpc port ", options.port, " is out of range"));
  }
  if (options.max_message_bytes <= 0 || options.max_concurrent_streams <= 0) {
    return absl::InvalidArgumentError("tfs grpc message and stream limits must be positive");
  }
  auto frontend = absl::WrapUnique(new TfsGrpcFrontend(server));
  const std::string address = Address(options);
  ::grpc::ServerBuilder builder;
  builder.AddListeningPort(address, ::grpc::InsecureServerCredentials(), &frontend->port_);
  builder.SetMaxReceiveMessageSize(options.max_message_bytes);
  builder.SetMaxSendMessageSize(options.max_message_bytes);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, options.max_concurrent_streams);
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.RegisterService(frontend->prediction_.get());
  builder.RegisterService(frontend->model_status_.get());
  frontend->grpc_server_ = builder.BuildAndStart();
  if (frontend->grpc_server_ == nullptr || frontend->port_ == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen for TF Serving gRPC on ", address));
  }
  return frontend;
}

TfsGrpcFrontend::~TfsGrpcFrontend() { Stop(); }

void TfsGrpcFrontend::Stop() {
  std::call_once(stop_once_, [this] {
    if (grpc_server_ == nullptr) return;
    // Every Predict in flight is answered by the server's completion
    // callback, which the server always calls.
    grpc_server_->Shutdown(std::chrono::system_clock::now() + kShutdownGrace);
    grpc_server_->Wait();
  });
}

}  // namespace inferd::frontends::tfserving
