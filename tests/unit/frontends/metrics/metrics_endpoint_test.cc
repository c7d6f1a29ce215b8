// SPDX-License-Identifier: Apache-2.0
// GET /metrics over an in-process Server (fake backend): counters after
// real requests, 404/405, and the endpoint served on the HTTP frontend's
// I/O threads as a side endpoint, over a socket.
#include "frontends/metrics/metrics_endpoint.h"

#include <memory>
#include <string>

#include "boost/asio/connect.hpp"
#include "boost/asio/io_context.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/beast/core/flat_buffer.hpp"
#include "boost/beast/http/read.hpp"
#include "boost/beast/http/string_body.hpp"
#include "boost/beast/http/write.hpp"
#include "exposition_parser.h"
#include "frontends/http/http_frontend.h"
#include "frontends/metrics/text_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/fake_model.h"
#include "testing/infer_helpers.h"
#include "testing/temp_dir.h"

namespace inferd::frontends::metrics {
namespace {

namespace beast = boost::beast;
namespace net = boost::asio;
using ::testing::HasSubstr;

constexpr char kSingleIO[] = R"pb(
  input
  [ {
    name: "INPUT0"
    data_type: TYPE_INT32
    dims: [ 4 ]
  }] output
  [ {
    name: "OUTPUT0"
    data_type: TYPE_INT32
    dims: [ 4 ]
  }])pb";

class MetricsEndpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    using inferd::testing::FakeConfig;
    inferd::testing::WriteFakeModel(repo_.path(), {"plain", FakeConfig(kSingleIO)});
    inferd::testing::WriteFakeModel(repo_.path(),
                                    {"failing", FakeConfig(kSingleIO), "fail_execute\n"});
    ServerOptions options;
    options.model_repositories = {repo_.path()};
    options.backend_directory = inferd::testing::FakeBackendDirectory();
    options.cpu_cores = 2;
    auto server = Server::Create(options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
  }

  absl::Status Infer(const std::string& model) {
    auto request = std::make_unique<core::InferRequest>();
    request->model_name = model;
    request->inputs.push_back(inferd::testing::MakeTensor<int32_t>(
        "INPUT0", core::DataType::kInt32, {4}, std::vector<int32_t>{1, 2, 3, 4}));
    inferd::testing::CallbackResult result;
    server_->InferAsync(std::move(request), result.Callback());
    return result.Wait().status();
  }

  std::vector<testing::ParsedFamily> Scrape() {
    http::HttpReply reply = HandleMetricsRequest(*server_, MetricsOptions{}, "GET", "/metrics");
    EXPECT_EQ(reply.status, 200);
    EXPECT_EQ(reply.content_type, kTextFormatContentType);
    auto families = testing::ParseExposition(reply.body);
    EXPECT_TRUE(families.ok()) << families.status() << "\n" << reply.body;
    return families.ok() ? *families : std::vector<testing::ParsedFamily>{};
  }

  inferd::testing::TempDir repo_;
  std::unique_ptr<Server> server_;
};

TEST_F(MetricsEndpointTest, CountsRequests) {
  const std::map<std::string, std::string> plain = {{"model", "plain"}, {"version", "1"}};
  EXPECT_EQ(testing::Value(Scrape(), "inferd_inference_request_success_total", plain), 0);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(Infer("plain").ok());
  EXPECT_FALSE(Infer("failing").ok());
  const auto families = Scrape();
  EXPECT_EQ(testing::Value(families, "inferd_inference_request_success_total", plain), 3);
  EXPECT_EQ(testing::Value(families, "inferd_inference_request_duration_seconds_count", plain), 3);
  EXPECT_EQ(testing::Value(families, "nv_inference_request_success", plain), 3);
  EXPECT_EQ(testing::Value(families, "inferd_inference_request_failure_total",
                           {{"model", "failing"}, {"reason", "BACKEND"}}),
            1);
  EXPECT_EQ(testing::Value(families, "inferd_inference_pending_requests", plain), 0);
  EXPECT_GT(testing::Value(families, "process_resident_memory_bytes", {}), 0);
}

TEST_F(MetricsEndpointTest, OnlyGetMetrics) {
  EXPECT_EQ(HandleMetricsRequest(*server_, {}, "GET", "/metrics?name[]=x").status, 200);
  EXPECT_EQ(HandleMetricsRequest(*server_, {}, "GET", "/").status, 404);
  EXPECT_EQ(HandleMetricsRequest(*server_, {}, "GET", "/metrics/").status, 404);
  EXPECT_EQ(HandleMetricsRequest(*server_, {}, "GET", "/v2/health/live").status, 404);
  const http::HttpReply post = HandleMetricsRequest(*server_, {}, "POST", "/metrics");
  EXPECT_EQ(post.status, 405);
  EXPECT_THAT(post.headers,
              ::testing::Contains(std::make_pair(std::string("Allow"), std::string("GET"))));
  EXPECT_EQ(HandleMetricsRequest(*server_, {}, "HEAD", "/metrics").status, 405);
}

// A blocking HTTP/1.1 client on one kept-alive connection.
class Client {
 public:
  explicit Client(int port) : socket_(io_) {
    socket_.connect({net::ip::make_address("127.0.0.1"), static_cast<uint16_t>(port)});
  }
  beast::http::response<beast::http::string_body> Send(beast::http::verb verb,
                                                       const std::string& target) {
    beast::http::request<beast::http::string_body> request(verb, target, 11);
    request.set(beast::http::field::host, "127.0.0.1");
    request.prepare_payload();
    beast::http::write(socket_, request);
    beast::http::response<beast::http::string_body> response;
    beast::http::read(socket_, buffer_, response);
    return response;
  }

 private:
  net::io_context io_;
  net::ip::tcp::socket socket_;
  beast::flat_buffer buffer_;
};

TEST_F(MetricsEndpointTest, ServedOnTheHttpFrontendThreads) {
  http::HttpOptions options;
  options.host = "127.0.0.1";
  options.port = 0;
  std::vector<http::SideEndpoint> sides;
  sides.push_back(MetricsEndpoint(*server_, "127.0.0.1", 0, MetricsOptions{}));
  auto frontend = http::HttpFrontend::Create(*server_, options, std::move(sides));
  ASSERT_TRUE(frontend.ok()) << frontend.status();
  const int metrics_port = (*frontend)->side_port(0);
  ASSERT_GT(metrics_port, 0);
  EXPECT_NE(metrics_port, (*frontend)->port());

  Client client(metrics_port);
  auto ok = client.Send(beast::http::verb::get, "/metrics");
  EXPECT_EQ(ok.result_int(), 200);
  const auto content_type = ok[beast::http::field::content_type];
  EXPECT_EQ(std::string(content_type.data(), content_type.size()), kTextFormatContentType);
  EXPECT_THAT(ok.body(), HasSubstr("# TYPE inferd_inference_count_total counter\n"));
  // Same connection, kept alive.
  EXPECT_EQ(client.Send(beast::http::verb::post, "/metrics").result_int(), 405);
  EXPECT_EQ(client.Send(beast::http::verb::get, "/v2/health/live").result_int(), 404);
  // The KServe port does not serve /metrics, nor the metrics port KServe.
  EXPECT_EQ(Client((*frontend)->port()).Send(beast::http::verb::get, "/metrics").result_int(), 404);
  EXPECT_EQ(
      Client((*frontend)->port()).Send(beast::http::verb::get, "/v2/health/live").result_int(),
      200);
  // Stops with the connection still open.
  (*frontend)->Stop();
}

TEST_F(MetricsEndpointTest, PortInUseFailsCreate) {
  net::io_context io;
  net::ip::tcp::acceptor taken(io, {net::ip::make_address("127.0.0.1"), 0});
  http::HttpOptions options;
  options.host = "127.0.0.1";
  options.port = 0;
  std::vector<http::SideEndpoint> sides;
  sides.push_back(MetricsEndpoint(*server_, "127.0.0.1", taken.local_endpoint().port(), {}));
  auto frontend = http::HttpFrontend::Create(*server_, options, std::move(sides));
  ASSERT_FALSE(frontend.ok());
  EXPECT_THAT(std::string(frontend.status().message()), HasSubstr("metrics endpoint"));
}

}  // namespace
}  // namespace inferd::frontends::metrics
