// SPDX-License-Identifier: Apache-2.0
#include "echo/http_echo.h"

#include <chrono>
#include <optional>
#include <string_view>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "boost/asio/ip/address.hpp"
#include "boost/beast/core.hpp"
#include "boost/beast/http.hpp"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "simdjson.h"

namespace inferd::bench {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

constexpr uint64_t kMaxBodyBytes = 64u << 20;
constexpr size_t kMaxJsonDepth = 64;
// Beast reads at most the buffer's free capacity (512 bytes when left alone): a
// 110 KB body would take 200+ reads. inferd's session reads 16 KiB at a time.
constexpr size_t kReadChunk = 64 * 1024;

struct HttpEchoState {
  ModelSpec model;
  std::string server_metadata;
  std::string model_metadata;
  std::string model_config;
  simdjson::ondemand::parser json;  // one io thread: one parser is enough
};

namespace {

struct InferCall {
  std::string id;
  int64_t batch = 1;
};

// Reads `id` and the first input's leading dim (the batch) from the JSON header.
bool ParseInferHeader(HttpEchoState& state, std::string_view header, InferCall& call) {
  simdjson::padded_string padded(header);
  simdjson::ondemand::document doc;
  simdjson::ondemand::object root;
  if (state.json.iterate(padded).get(doc) || doc.get_object().get(root)) return false;
  for (auto field : root) {
    std::string_view key;
    if (field.unescaped_key().get(key)) return false;
    if (key == "id") {
      std::string_view id;
      if (field.value().get_string().get(id)) return false;
      call.id = std::string(id);
    } else if (key == "inputs" && state.model.max_batch_size > 0) {
      simdjson::ondemand::array inputs;
      if (field.value().get_array().get(inputs)) return false;
      for (auto input : inputs) {
        simdjson::ondemand::array shape;
        if (input.find_field_unordered("shape").get_array().get(shape)) return false;
        for (auto dim : shape) {
          if (dim.get_int64().get(call.batch)) return false;
          break;
        }
        break;
      }
    }
  }
  return call.batch > 0;
}

Response Reply(const Request& request, http::status status, std::string body,
               std::string_view content_type = "application/json") {
  Response response{status, request.version()};
  response.keep_alive(request.keep_alive());
  if (!body.empty()) {
    response.set(http::field::content_type,
                 beast::string_view(content_type.data(), content_type.size()));
  }
  response.body() = std::move(body);
  response.prepare_payload();
  return response;
}

Response Error(const Request& request, http::status status, std::string_view message) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartObject();
  writer.Key("error");
  writer.String(message.data(), static_cast<rapidjson::SizeType>(message.size()));
  writer.EndObject();
  return Reply(request, status, buffer.GetString());
}

Response Infer(HttpEchoState& state, const Request& request) {
  const std::string& body = request.body();
  size_t header_bytes = body.size();
  if (auto it = request.find("Inference-Header-Content-Length"); it != request.end()) {
    const std::string_view value(it->value().data(), it->value().size());
    if (!absl::SimpleAtoi(absl::string_view(value.data(), value.size()), &header_bytes) ||
        header_bytes > body.size()) {
      return Error(request, http::status::bad_request, "bad Inference-Header-Content-Length");
    }
  }
  InferCall call;
  if (!ParseInferHeader(state, std::string_view(body.data(), header_bytes), call)) {
    return Error(request, http::status::bad_request, "cannot parse the infer request");
  }
  size_t blob_bytes = 0;
  std::string json = InferResponseJson(state.model, call.id, call.batch, blob_bytes);
  const size_t json_bytes = json.size();
  json.append(blob_bytes, '\0');
  Response response = Reply(request, http::status::ok, std::move(json), "application/octet-stream");
  response.set("Inference-Header-Content-Length", std::to_string(json_bytes));
  return response;
}

// /v2/models/{M}[/versions/{V}][/config|/ready|/infer]
Response ModelRoute(HttpEchoState& state, const Request& request, std::string_view rest) {
  const size_t slash = rest.find('/');
  const std::string_view name = rest.substr(0, slash);
  rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  if (name != state.model.name) {
    return Error(request, http::status::not_found,
                 absl::StrCat("unknown model '", std::string(name), "'"));
  }
  if (absl::StartsWith(absl::string_view(rest.data(), rest.size()), "/versions/")) {
    rest.remove_prefix(10);
    rest = rest.substr(std::min(rest.find('/'), rest.size()));
  }
  const bool get = request.method() == http::verb::get;
  if (rest.empty() && get) return Reply(request, http::status::ok, state.model_metadata);
  if (rest == "/config" && get) return Reply(request, http::status::ok, state.model_config);
  if (rest == "/ready" && get) return Reply(request, http::status::ok, "");
  if (rest == "/infer" && request.method() == http::verb::post) return Infer(state, request);
  return Error(request, http::status::not_found, "Not Found");
}

Response Handle(HttpEchoState& state, const Request& request) {
  std::string_view target(request.target().data(), request.target().size());
  target = target.substr(0, target.find('?'));
  const bool get = request.method() == http::verb::get;
  if (target == "/v2" && get) return Reply(request, http::status::ok, state.server_metadata);
  if ((target == "/v2/health/live" || target == "/v2/health/ready") && get) {
    return Reply(request, http::status::ok, "");
  }
  constexpr std::string_view kModels = "/v2/models/";
  if (target.substr(0, kModels.size()) == kModels) {
    return ModelRoute(state, request, target.substr(kModels.size()));
  }
  return Error(request, http::status::not_found, "Not Found");
}

// One keep-alive connection: read a request, answer it, repeat. Nothing on the
// I/O thread ever blocks: the answer goes out with async_write (a client that
// stops reading only parks its own session, and loses it after kWriteTimeout),
// and every way a request can go wrong ends the connection, with an error reply
// when the request was unreadable, so that a client never waits for an answer
// that will not come. Bytes read past one request (a pipelined next one) stay in
// buffer_ and are parsed before the socket is read again.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, std::shared_ptr<HttpEchoState> state)
      : stream_(std::move(socket)), state_(std::move(state)) {
    buffer_.reserve(kReadChunk);
  }

  void Read() {
    parser_.emplace();
    parser_->body_limit(kMaxBodyBytes);
    stream_.expires_never();  // an idle keep-alive connection may wait for its next request
    http::async_read(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code error, size_t) { self->OnRead(error); });
  }

 private:
  void OnRead(beast::error_code error) {
    if (error == http::error::body_limit) {
      Refuse(http::status::payload_too_large, "request body too large");
      return;
    }
    if (error == http::error::end_of_stream || error == asio::error::eof ||
        error == asio::error::connection_reset || error == asio::error::operation_aborted ||
        error == http::error::partial_message) {
      Close();  // the client went away (or shut down its half) mid-request or between requests
      return;
    }
    if (error) {
      Refuse(http::status::bad_request, "malformed HTTP request");
      return;
    }
    const Request& request = parser_->get();
    Write(Handle(*state_, request), !request.keep_alive());
  }

  // Answers a request it could not read and closes: the parser's state is unknown.
  void Refuse(http::status status, std::string_view message) {
    Request request;  // HTTP/1.1 with no keep-alive: the error ends the connection
    request.version(11);
    request.keep_alive(false);
    Write(Error(request, status, message), true);
  }

  void Write(Response response, bool close) {
    response_ = std::move(response);
    if (close) response_.keep_alive(false);
    stream_.expires_after(kWriteTimeout);
    http::async_write(stream_, response_,
                      [self = shared_from_this(), close](beast::error_code error, size_t) {
                        if (error || close || self->response_.need_eof()) {
                          self->Close();
                          return;
                        }
                        self->Read();
                      });
  }

  void Close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.socket().close(ignored);
  }

  // A reply this small leaves at once unless the client stopped reading.
  static constexpr std::chrono::seconds kWriteTimeout{30};

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  Response response_;  // the reply being written: async_write needs it until it completes
  std::shared_ptr<HttpEchoState> state_;
};

}  // namespace

HttpEcho::HttpEcho(asio::io_context& io, std::shared_ptr<HttpEchoState> state)
    : acceptor_(io), state_(std::move(state)) {}

HttpEcho::~HttpEcho() { Stop(); }

absl::StatusOr<std::unique_ptr<HttpEcho>> HttpEcho::Create(asio::io_context& io, ModelSpec model,
                                                           const std::string& host, int port) {
  auto state = std::make_shared<HttpEchoState>();
  state->server_metadata = ServerMetadataJson();
  state->model_metadata = ModelMetadataJson(model);
  state->model_config = ModelConfigJson(model);
  state->model = std::move(model);
  if (state->json.allocate(1 << 16, kMaxJsonDepth)) {
    return absl::ResourceExhaustedError("cannot allocate the json parser");
  }
  std::unique_ptr<HttpEcho> echo(new HttpEcho(io, std::move(state)));
  beast::error_code error;
  const auto address = asio::ip::make_address(host, error);
  if (error) return absl::InvalidArgumentError(absl::StrCat("bad host '", host, "'"));
  const tcp::endpoint endpoint(address, static_cast<uint16_t>(port));
  echo->acceptor_.open(endpoint.protocol(), error);
  if (!error) echo->acceptor_.set_option(asio::socket_base::reuse_address(true), error);
  if (!error) echo->acceptor_.bind(endpoint, error);
  if (!error) echo->acceptor_.listen(asio::socket_base::max_listen_connections, error);
  if (error) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen for http on ", host, ":", port, ": ", error.message()));
  }
  echo->port_ = echo->acceptor_.local_endpoint().port();
  echo->Accept();
  return echo;
}

void HttpEcho::Accept() {
  acceptor_.async_accept([this](beast::error_code error, tcp::socket socket) {
    if (error) return;  // closed by Stop()
    socket.set_option(tcp::no_delay(true), error);
    std::make_shared<Session>(std::move(socket), state_)->Read();
    Accept();
  });
}

void HttpEcho::Stop() {
  beast::error_code error;
  acceptor_.close(error);
}

}  // namespace inferd::bench
