// SPDX-License-Identifier: Apache-2.0
// GrpcFrontend in process: a real Server over the fake (echo) backend and a
// gRPC C++ client on loopback. Covers binding, every implemented RPC's
// success and error status, the health service, and stopping.
#include "frontends/grpc/grpc_frontend.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "grpc_service.grpc.pb.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "gtest/gtest.h"
#include "health.grpc.pb.h"
#include "testing/fake_model.h"
#include "testing/temp_dir.h"

namespace inferd::frontends::grpc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Code = ::grpc::StatusCode;

constexpr char kEcho[] = R"pb(
  max_batch_size: 8 input
  [ {
    name: "INPUT0"
    data_type: TYPE_INT32
    dims: [ 4 ]
  }
    , {
      name: "INPUT1"
      data_type: TYPE_STRING
      dims: [ -1 ]
    }] output
  [ {
    name: "OUTPUT0"
    data_type: TYPE_INT32
    dims: [ 4 ]
  }
    , {
      name: "OUTPUT1"
      data_type: TYPE_STRING
      dims: [ -1 ]
    }])pb";

std::string Int32Bytes(std::vector<int32_t> values) {
  std::string bytes(values.size() * 4, '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

class GrpcFrontendTest : public ::testing::Test {
 protected:
  void SetUp() override { Start(/*with_broken_model=*/false); }

  void Start(bool with_broken_model) {
    testing::WriteFakeModel(repo_.path(),
                            {"echo", testing::FakeConfig(kEcho),
                             "input INPUT0 INT32 -1 4\ninput INPUT1 BYTES -1 -1\n"
                             "output OUTPUT0 INT32 -1 4\noutput OUTPUT1 BYTES -1 -1\n"});
    if (with_broken_model) {
      testing::WriteFakeModel(repo_.path(), {"broken", testing::FakeConfig(), "fail_load\n"});
    }
    ServerOptions options;
    options.model_repositories = {repo_.path()};
    options.backend_directory = testing::FakeBackendDirectory();
    options.cpu_cores = 2;
    auto server = Server::Create(options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
    auto frontend = GrpcFrontend::Create(*server_, GrpcOptions{.host = "127.0.0.1", .port = 0});
    ASSERT_TRUE(frontend.ok()) << frontend.status();
    frontend_ = std::move(*frontend);
    channel_ = ::grpc::CreateChannel(Target(), ::grpc::InsecureChannelCredentials());
    stub_ = inference::GRPCInferenceService::NewStub(channel_);
  }

  std::string Target() const { return "127.0.0.1:" + std::to_string(frontend_->port()); }

  inference::ModelInferRequest EchoRequest() const {
    inference::ModelInferRequest request;
    request.set_model_name("echo");
    request.set_id("r1");
    auto* a = request.add_inputs();
    a->set_name("INPUT0");
    a->set_datatype("INT32");
    a->add_shape(1);
    a->add_shape(4);
    auto* s = request.add_inputs();
    s->set_name("INPUT1");
    s->set_datatype("BYTES");
    s->add_shape(1);
    s->add_shape(2);
    request.add_raw_input_contents(Int32Bytes({1, 2, 3, 4}));
    request.add_raw_input_contents(std::string("\x02\0\0\0hi\0\0\0\0", 10));
    return request;
  }

  ::grpc::Status Infer(const inference::ModelInferRequest& request,
                       inference::ModelInferResponse* response) {
    ::grpc::ClientContext context;
    return stub_->ModelInfer(&context, request, response);
  }

  testing::TempDir repo_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<GrpcFrontend> frontend_;
  std::shared_ptr<::grpc::Channel> channel_;
  std::unique_ptr<inference::GRPCInferenceService::Stub> stub_;
};

TEST_F(GrpcFrontendTest, BindsAFreePortAndRefusesATakenOne) {
  EXPECT_GT(frontend_->port(), 0);
  auto second =
      GrpcFrontend::Create(*server_, GrpcOptions{.host = "127.0.0.1", .port = frontend_->port()});
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(GrpcFrontend::Create(*server_, GrpcOptions{.port = 70000}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(GrpcFrontend::Create(*server_, GrpcOptions{.port = 0, .max_message_bytes = 0})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(GrpcFrontendTest, HealthAndMetadata) {
  ::grpc::ClientContext c1, c2, c3, c4;
  inference::ServerLiveResponse live;
  ASSERT_TRUE(stub_->ServerLive(&c1, {}, &live).ok());
  EXPECT_TRUE(live.live());
  inference::ServerReadyResponse ready;
  ASSERT_TRUE(stub_->ServerReady(&c2, {}, &ready).ok());
  EXPECT_TRUE(ready.ready());
  inference::ServerMetadataResponse server_metadata;
  ASSERT_TRUE(stub_->ServerMetadata(&c3, {}, &server_metadata).ok());
  EXPECT_EQ(server_metadata.name(), "inferd");

  inference::ModelMetadataRequest request;
  request.set_name("echo");
  inference::ModelMetadataResponse metadata;
  ASSERT_TRUE(stub_->ModelMetadata(&c4, request, &metadata).ok());
  EXPECT_THAT(metadata.versions(), ElementsAre("1"));
  ASSERT_EQ(metadata.inputs_size(), 2);
  EXPECT_EQ(metadata.inputs(1).datatype(), "BYTES");
  EXPECT_THAT(metadata.inputs(0).shape(), ElementsAre(-1, 4));
}

TEST_F(GrpcFrontendTest, ModelReadyConfigAndIndex) {
  ::grpc::ClientContext c1, c2, c3, c4;
  inference::ModelReadyRequest ready_request;
  ready_request.set_name("echo");
  inference::ModelReadyResponse ready;
  ASSERT_TRUE(stub_->ModelReady(&c1, ready_request, &ready).ok());
  EXPECT_TRUE(ready.ready());
  ready_request.set_name("nope");
  EXPECT_EQ(stub_->ModelReady(&c2, ready_request, &ready).error_code(), Code::NOT_FOUND);

  inference::ModelConfigRequest config_request;
  config_request.set_name("echo");
  inference::ModelConfigResponse config;
  ASSERT_TRUE(stub_->ModelConfig(&c3, config_request, &config).ok());
  EXPECT_EQ(config.config().max_batch_size(), 8);
  EXPECT_EQ(config.config().input(1).data_type(), inference::TYPE_STRING);

  inference::RepositoryIndexResponse index;
  ASSERT_TRUE(stub_->RepositoryIndex(&c4, {}, &index).ok());
  ASSERT_EQ(index.models_size(), 1);
  EXPECT_EQ(index.models(0).name(), "echo");
  EXPECT_EQ(index.models(0).version(), "1");
  EXPECT_EQ(index.models(0).state(), "READY");
}

TEST_F(GrpcFrontendTest, InferRoundTrip) {
  inference::ModelInferRequest request = EchoRequest();
  request.add_outputs()->set_name("OUTPUT1");
  request.add_outputs()->set_name("OUTPUT0");
  inference::ModelInferResponse response;
  ::grpc::Status status = Infer(request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(response.id(), "r1");
  EXPECT_EQ(response.model_name(), "echo");
  EXPECT_EQ(response.model_version(), "1");
  ASSERT_EQ(response.outputs_size(), 2);
  ASSERT_EQ(response.raw_output_contents_size(), 2);
  EXPECT_EQ(response.outputs(0).name(), "OUTPUT1");
  EXPECT_EQ(response.outputs(0).datatype(), "BYTES");
  EXPECT_EQ(response.raw_output_contents(0), std::string("\x02\0\0\0hi\0\0\0\0", 10));
  EXPECT_THAT(response.outputs(1).shape(), ElementsAre(1, 4));
  EXPECT_EQ(response.raw_output_contents(1), Int32Bytes({1, 2, 3, 4}));
}

TEST_F(GrpcFrontendTest, InferErrorsCarryTheirCodes) {
  inference::ModelInferResponse response;
  auto unknown = EchoRequest();
  unknown.set_model_name("nope");
  EXPECT_EQ(Infer(unknown, &response).error_code(), Code::NOT_FOUND);
  auto short_data = EchoRequest();
  short_data.set_raw_input_contents(0, Int32Bytes({1, 2, 3}));
  ::grpc::Status status = Infer(short_data, &response);
  EXPECT_EQ(status.error_code(), Code::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("INPUT0"));
  auto wrong_type = EchoRequest();
  wrong_type.mutable_inputs(0)->set_datatype("INT64");
  wrong_type.set_raw_input_contents(0, std::string(32, '\0'));
  EXPECT_EQ(Infer(wrong_type, &response).error_code(), Code::INVALID_ARGUMENT);
  auto unknown_output = EchoRequest();
  unknown_output.add_outputs()->set_name("OUTPUT7");
  EXPECT_EQ(Infer(unknown_output, &response).error_code(), Code::INVALID_ARGUMENT);
}

TEST_F(GrpcFrontendTest, ModelStatisticsCountsRequestsAndNamesUnknownModels) {
  inference::ModelInferResponse response;
  ASSERT_TRUE(Infer(EchoRequest(), &response).ok());
  ASSERT_TRUE(Infer(EchoRequest(), &response).ok());
  auto wrong_type = EchoRequest();
  wrong_type.mutable_inputs(0)->set_datatype("INT64");
  wrong_type.set_raw_input_contents(0, std::string(32, '\0'));
  ASSERT_FALSE(Infer(wrong_type, &response).ok());  // refused by validation: a failure

  for (const std::string& version : {std::string(), std::string("1")}) {
    ::grpc::ClientContext context;
    inference::ModelStatisticsRequest request;
    request.set_name("echo");
    request.set_version(version);
    inference::ModelStatisticsResponse statistics;
    ASSERT_TRUE(stub_->ModelStatistics(&context, request, &statistics).ok());
    ASSERT_EQ(statistics.model_stats_size(), 1);
    const inference::ModelStatistics& echo = statistics.model_stats(0);
    EXPECT_EQ(echo.name(), "echo");
    EXPECT_EQ(echo.version(), "1");
    EXPECT_EQ(echo.inference_count(), 2u);
    EXPECT_EQ(echo.inference_stats().success().count(), 2u);
    EXPECT_EQ(echo.inference_stats().queue().count(), 2u);
    EXPECT_EQ(echo.inference_stats().fail().count(), 1u);
    EXPECT_GT(echo.last_inference(), 0u);
  }

  ::grpc::ClientContext all_context;
  inference::ModelStatisticsResponse all;
  ASSERT_TRUE(stub_->ModelStatistics(&all_context, {}, &all).ok());
  ASSERT_EQ(all.model_stats_size(), 1);
  EXPECT_EQ(all.model_stats(0).name(), "echo");

  ::grpc::ClientContext unknown_context;
  inference::ModelStatisticsRequest unknown;
  unknown.set_name("nope");
  inference::ModelStatisticsResponse ignored;
  ::grpc::Status status = stub_->ModelStatistics(&unknown_context, unknown, &ignored);
  EXPECT_EQ(status.error_code(), Code::NOT_FOUND);
  EXPECT_THAT(status.error_message(), HasSubstr("nope"));
  ::grpc::ClientContext version_context;
  unknown.set_name("echo");
  unknown.set_version("9");
  EXPECT_EQ(stub_->ModelStatistics(&version_context, unknown, &ignored).error_code(),
            Code::NOT_FOUND);
}

TEST_F(GrpcFrontendTest, LaterRpcsAreUnimplementedWithAMessage) {
  ::grpc::ClientContext context;
  inference::LogSettingsRequest request;
  inference::LogSettingsResponse response;
  ::grpc::Status status = stub_->LogSettings(&context, request, &response);
  EXPECT_EQ(status.error_code(), Code::UNIMPLEMENTED);
  EXPECT_THAT(status.error_message(), HasSubstr("LogSettings"));
}

// ModelStreamInfer (docs/api.md, "Streaming"): answers in request order,
// errors on the stream, OK after the client half-closes.
TEST_F(GrpcFrontendTest, StreamAnswersEachRequestAndEndsAfterHalfClose) {
  ::grpc::ClientContext context;
  auto stream = stub_->ModelStreamInfer(&context);
  inference::ModelInferRequest request = EchoRequest();
  for (const char* id : {"one", "two"}) {
    request.set_id(id);
    ASSERT_TRUE(stream->Write(request));
  }
  inference::ModelInferRequest unknown = EchoRequest();
  unknown.set_model_name("nope");
  unknown.set_id("bad");
  ASSERT_TRUE(stream->Write(unknown));
  ASSERT_TRUE(stream->WritesDone());
  std::vector<inference::ModelStreamInferResponse> replies;
  inference::ModelStreamInferResponse reply;
  while (stream->Read(&reply)) replies.push_back(reply);
  EXPECT_TRUE(stream->Finish().ok());
  ASSERT_EQ(replies.size(), 3u);
  EXPECT_EQ(replies[0].infer_response().id(), "one");
  EXPECT_EQ(replies[1].infer_response().id(), "two");
  EXPECT_EQ(replies[0].error_message(), "");
  EXPECT_EQ(replies[0].infer_response().raw_output_contents(0), Int32Bytes({1, 2, 3, 4}));
  EXPECT_TRUE(replies[0].infer_response().parameters().at("triton_final_response").bool_param());
  EXPECT_EQ(replies[2].infer_response().id(), "bad");
  EXPECT_THAT(replies[2].error_message(), HasSubstr("nope"));
}

TEST_F(GrpcFrontendTest, StopEndsAnOpenStreamWithOk) {
  ::grpc::ClientContext context;
  auto stream = stub_->ModelStreamInfer(&context);
  ASSERT_TRUE(stream->Write(EchoRequest()));
  inference::ModelStreamInferResponse reply;
  ASSERT_TRUE(stream->Read(&reply));  // answered; the stream stays open
  frontend_->Stop();
  EXPECT_FALSE(stream->Read(&reply));
  EXPECT_TRUE(stream->Finish().ok());
}

TEST_F(GrpcFrontendTest, RepositoryModelControlChecksTheRequest) {
  inference::RepositoryModelLoadResponse loaded;
  inference::RepositoryModelUnloadResponse unloaded;

  ::grpc::ClientContext c1;
  inference::RepositoryModelLoadRequest named;
  named.set_repository_name("myrepo");
  named.set_model_name("echo");
  ::grpc::Status status = stub_->RepositoryModelLoad(&c1, named, &loaded);
  EXPECT_EQ(status.error_code(), Code::UNIMPLEMENTED);
  EXPECT_THAT(status.error_message(), HasSubstr("myrepo"));

  ::grpc::ClientContext c2;
  inference::RepositoryModelLoadRequest wrong_type;
  wrong_type.set_model_name("echo");
  (*wrong_type.mutable_parameters())["config"].set_bytes_param("{}");
  status = stub_->RepositoryModelLoad(&c2, wrong_type, &loaded);
  EXPECT_EQ(status.error_code(), Code::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("config"));

  ::grpc::ClientContext c3;
  inference::RepositoryModelUnloadRequest unload;
  unload.set_model_name("echo");
  (*unload.mutable_parameters())["unload_dependents"].set_string_param("yes");
  status = stub_->RepositoryModelUnload(&c3, unload, &unloaded);
  EXPECT_EQ(status.error_code(), Code::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("unload_dependents"));
}

// The default model control mode (none) refuses explicit control; the answer
// comes from the Server's callback.
TEST_F(GrpcFrontendTest, RepositoryModelControlNeedsExplicitMode) {
  ::grpc::ClientContext c1, c2;
  inference::RepositoryModelLoadRequest load;
  load.set_model_name("echo");
  inference::RepositoryModelLoadResponse loaded;
  EXPECT_EQ(stub_->RepositoryModelLoad(&c1, load, &loaded).error_code(), Code::FAILED_PRECONDITION);
  inference::RepositoryModelUnloadRequest unload;
  unload.set_model_name("echo");
  inference::RepositoryModelUnloadResponse unloaded;
  EXPECT_EQ(stub_->RepositoryModelUnload(&c2, unload, &unloaded).error_code(),
            Code::FAILED_PRECONDITION);
  // Still serving.
  ::grpc::ClientContext c3;
  inference::ModelReadyRequest ready;
  ready.set_name("echo");
  inference::ModelReadyResponse is_ready;
  ASSERT_TRUE(stub_->ModelReady(&c3, ready, &is_ready).ok());
  EXPECT_TRUE(is_ready.ready());
}

TEST_F(GrpcFrontendTest, HealthCheckFollowsServerReadiness) {
  auto health = ::grpc::health::v1::Health::NewStub(channel_);
  ::grpc::ClientContext c1;
  ::grpc::health::v1::HealthCheckResponse response;
  ASSERT_TRUE(health->Check(&c1, {}, &response).ok());
  EXPECT_EQ(response.status(), ::grpc::health::v1::HealthCheckResponse::SERVING);

  frontend_.reset();
  server_.reset();
  Start(/*with_broken_model=*/true);
  health = ::grpc::health::v1::Health::NewStub(channel_);
  ::grpc::ClientContext c2;
  ASSERT_TRUE(health->Check(&c2, {}, &response).ok());
  EXPECT_EQ(response.status(), ::grpc::health::v1::HealthCheckResponse::NOT_SERVING);
}

TEST_F(GrpcFrontendTest, StopIsIdempotentAndRefusesLaterCalls) {
  frontend_->Stop();
  frontend_->Stop();
  ::grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  inference::ServerLiveResponse live;
  EXPECT_EQ(stub_->ServerLive(&context, {}, &live).error_code(), Code::UNAVAILABLE);
}

}  // namespace
}  // namespace inferd::frontends::grpc
