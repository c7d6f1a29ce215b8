// SPDX-License-Identifier: Apache-2.0
#include "frontends/grpc/grpc_frontend.h"

#include <chrono>

#include "absl/memory/memory.h"
#include "absl/strings/str_cat.h"
#include "frontends/grpc/health_service.h"
#include "frontends/grpc/inference_service.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"

namespace inferd::frontends::grpc {
namespace {

// Calls still running after this are cancelled (their reactors still finish).
constexpr std::chrono::seconds kShutdownGrace{5};

absl::Status CheckOptions(const GrpcOptions& options) {
  if (options.host.empty()) return absl::InvalidArgumentError("grpc host is empty");
  if (options.port < 0 || options.port > 65535) {
    return absl::InvalidArgumentError(absl::StrCat("grpc port ", options.port, " is out of range"));
  }
  if (options.max_message_bytes <= 0 || options.max_concurrent_streams <= 0) {
    return absl::InvalidArgumentError("grpc message and stream limits must be positive");
  }
  return absl::OkStatus();
}

// "host:port", bracketing a bare IPv6 address.
std::string Address(const GrpcOptions& options) {
  const bool bare_ipv6 = options.host.find(':') != std::string::npos && options.host.front() != '[';
  return bare_ipv6 ? absl::StrCat("[", options.host, "]:", options.port)
                   : absl::StrCat(options.host, ":", options.port);
}

}  // namespace

GrpcFrontend::GrpcFrontend(Server& server)
    : inference_(std::make_unique<InferenceService>(server)),
      health_(std::make_unique<HealthService>(server)) {}

absl::StatusOr<std::unique_ptr<GrpcFrontend>> GrpcFrontend::Create(Server& server,
                                                                   GrpcOptions options) {
  if (absl::Status status = CheckOptions(options); !status.ok()) return status;
  auto frontend = absl::WrapUnique(new GrpcFrontend(server));
  const std::string address = Address(options);

  ::grpc::ServerBuilder builder;
  builder.AddListeningPort(address, ::grpc::InsecureServerCredentials(), &frontend->port_);
  builder.SetMaxReceiveMessageSize(options.max_message_bytes);
  builder.SetMaxSendMessageSize(options.max_message_bytes);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, options.max_concurrent_streams);
  // Without this, Linux lets a second server bind the same port silently.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.RegisterService(frontend->inference_.get());
  builder.RegisterService(frontend->health_.get());
  frontend->grpc_server_ = builder.BuildAndStart();
  if (frontend->grpc_server_ == nullptr || frontend->port_ == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen for grpc on ", address));
  }
  return frontend;
}

GrpcFrontend::~GrpcFrontend() { Stop(); }

int GrpcFrontend::port() const { return port_; }

void GrpcFrontend::Stop() {
  std::call_once(stop_once_, [this] {
    if (grpc_server_ == nullptr) return;
    // Open streams end cleanly once answered, rather than being cancelled
    // when the grace below runs out.
    inference_->EndStreams();
    // Returns once every call has finished: in-flight inferences are answered
    // by the server's completion callbacks, which the server always calls.
    grpc_server_->Shutdown(std::chrono::system_clock::now() + kShutdownGrace);
    grpc_server_->Wait();
  });
}

}  // namespace inferd::frontends::grpc
