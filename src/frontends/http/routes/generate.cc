// SPDX-License-Identifier: Apache-2.0
// POST .../generate and .../generate_stream, Triton's generate extension
// (docs/api.md, "Generate"). The request is decoded against the model's
// inputs (generate_codec.h) and run through Server::InferAsync with
// on_partial_response set, so decoupled models are served:
// - generate answers one JSON object once the request is over. A model that
//   sent other than exactly one response gets Triton's error object, with
//   the status of its first response (200 when that one succeeded), as
//   Triton does;
// - generate_stream answers Server-Sent Events, `data: {...}` per response
//   and `data: {"error": ...}` per error, the status set by the first one;
//   a request that fails before any response is an ordinary JSON error.
// Responses are encoded on the connection's executor, never on a backend
// thread. A client that disconnects cancels the request.
#include <mutex>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_mapping.h"
#include "frontends/http/compression.h"
#include "frontends/http/generate_codec.h"
#include "frontends/http/routes/routes.h"
#include "frontends/http/string_view_util.h"

namespace inferd::frontends::http {
namespace {

namespace http = boost::beast::http;

using Result = absl::StatusOr<core::InferResponse>;

constexpr char kEventStream[] = "text/event-stream; charset=utf-8";

std::string_view Header(const http::request_header<>& header, http::field field) {
  const auto it = header.find(field);
  return it == header.end() ? std::string_view()
                            : std::string_view(it->value().data(), it->value().size());
}

absl::StatusOr<std::unique_ptr<core::InferRequest>> Decode(const ServingContext& context,
                                                           const IncomingRequest& request) {
  absl::StatusOr<ModelMetadata> metadata =
      context.server.GetModelMetadata(request.route.model, request.route.version);
  if (!metadata.ok()) return metadata.status();
  std::vector<GenerateInput> inputs;
  inputs.reserve(metadata->inputs.size());
  for (const TensorMetadata& input : metadata->inputs) {
    inputs.push_back(GenerateInput{input.name, input.datatype, input.shape});
  }
  const std::string_view encoding = Header(request.header, http::field::content_encoding);
  const auto coding = ParseContentEncoding(encoding);
  if (!coding) {
    return absl::UnimplementedError(absl::StrCat("unsupported Content-Encoding '", AsAbsl(encoding),
                                                 "'; use gzip, deflate or identity"));
  }
  if (*coding == ContentCoding::kIdentity) {
    return DecodeGenerateRequest(*request.body, inputs, context.options.max_json_input_bytes);
  }
  absl::StatusOr<std::string> plain =
      Decompress(*request.body, *coding, context.options.max_body_bytes);
  if (!plain.ok()) return plain.status();
  return DecodeGenerateRequest(*plain, inputs, context.options.max_json_input_bytes);
}

// A response or an error as one JSON object (an error is {"error": ...}).
std::string ToJson(const Result& result) {
  if (!result.ok()) {
    const absl::string_view message = result.status().message();
    return core::ErrorJson(std::string_view(message.data(), message.size()));
  }
  absl::StatusOr<std::string> json = EncodeGenerateResponse(*result);
  if (!json.ok()) {
    const absl::string_view message = json.status().message();
    return core::ErrorJson(std::string_view(message.data(), message.size()));
  }
  return *std::move(json);
}

// The HTTP status a response or error sets (the first one sets the reply's).
int StatusOf(const Result& result) {
  return result.ok() ? 200 : core::HttpStatusCode(result.status());
}

// /generate: every response is kept until the request is over.
class Collected {
 public:
  void Add(Result result) {
    std::lock_guard<std::mutex> lock(mu_);
    // The final flag alone is no response (Triton counts it neither).
    if (result.ok() && result->flags_only) {
      if (!first_status_) first_status_ = 200;
      return;
    }
    if (!first_status_) first_status_ = StatusOf(result);
    results_.push_back(std::move(result));
  }

  HttpReply Reply() {
    std::lock_guard<std::mutex> lock(mu_);
    if (results_.size() == 1) {
      const Result& only = results_.front();
      if (!only.ok()) return ErrorReply(only.status());
      absl::StatusOr<std::string> json = EncodeGenerateResponse(*only);
      if (!json.ok()) return ErrorReply(json.status());
      return JsonReply(200, *std::move(json));
    }
    return JsonReply(first_status_.value_or(200), core::ErrorJson(kGenerateNeedsOneResponse));
  }

 private:
  std::mutex mu_;
  std::vector<Result> results_;
  std::optional<int> first_status_;
};

// /generate_stream: opens the event stream on its first response.
class Streamed {
 public:
  explicit Streamed(Responder responder) : responder_(std::move(responder)) {}

  // On a server thread, one call at a time (the final one last); the lock
  // orders calls that come from different threads.
  void Add(Result result, bool final) {
    std::lock_guard<std::mutex> lock(mu_);
    const bool flags_only = result.ok() && result->flags_only;
    if (!opened_) {
      if (final && !result.ok()) {
        // Failed before any response: a plain JSON error, as for infer.
        responder_.Send(ErrorReply(result.status()));
        return;
      }
      if (final && flags_only) {
        // Not a single response: an empty event stream.
        Open(200);
        responder_.EndStream();
        return;
      }
      Open(StatusOf(result));
    }
    if (!flags_only) {
      auto shared = std::make_shared<Result>(std::move(result));
      responder_.StreamData([shared] { return SseEvent(ToJson(*shared)); });
    }
    if (final) responder_.EndStream();
  }

 private:
  void Open(int status) {
    HttpReply head;
    head.status = status;
    head.content_type = kEventStream;
    head.headers.emplace_back("Cache-Control", "no-cache");
    responder_.OpenStream(std::move(head));
    opened_ = true;
  }

  const Responder responder_;
  std::mutex mu_;
  bool opened_ = false;
};

}  // namespace

void HandleGenerate(const std::shared_ptr<ServingContext>& context, IncomingRequest request,
                    Responder responder, bool streaming) {
  absl::StatusOr<std::unique_ptr<core::InferRequest>> decoded = Decode(*context, request);
  if (!decoded.ok()) {
    HttpReply reply = ErrorReply(decoded.status());
    if (reply.status == 501) reply.headers.emplace_back("Accept-Encoding", "gzip, deflate");
    responder.Send(std::move(reply));
    return;
  }
  (*decoded)->model_name = request.route.model;
  (*decoded)->model_version = request.route.version;
  if (!context->tracker.BeginCall()) {
    responder.Send(ErrorReply(absl::UnavailableError("the HTTP endpoint is shutting down")));
    return;
  }
  // A client that disconnects cancels the request: queued, it never runs;
  // running, a backend that asks (RequestIsCancelled) stops early.
  (*decoded)->cancellation = std::make_shared<core::CancellationToken>();
  responder.WatchDisconnect((*decoded)->cancellation);
  if (streaming) {
    auto stream = std::make_shared<Streamed>(responder);
    (*decoded)->on_partial_response = [stream](Result result) {
      stream->Add(std::move(result), /*final=*/false);
    };
    context->server.InferAsync(*std::move(decoded), [context, stream](Result result) {
      stream->Add(std::move(result), /*final=*/true);
      context->tracker.EndCall();
    });
    return;
  }
  auto collected = std::make_shared<Collected>();
  (*decoded)->on_partial_response = [collected](Result result) {
    collected->Add(std::move(result));
  };
  context->server.InferAsync(*std::move(decoded), [context, responder, collected](Result result) {
    collected->Add(std::move(result));
    responder.SendLater([collected] { return collected->Reply(); });
    context->tracker.EndCall();
  });
}

}  // namespace inferd::frontends::http
