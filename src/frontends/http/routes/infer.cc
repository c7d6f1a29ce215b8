// SPDX-License-Identifier: Apache-2.0
// POST .../infer: decompress, decode (JSON + binary, or raw binary), run
// through Server::InferAsync, then encode and compress the response on the
// connection's executor.
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "frontends/http/compression.h"
#include "frontends/http/infer_request_codec.h"
#include "frontends/http/infer_response_codec.h"
#include "frontends/http/raw_binary_request.h"
#include "frontends/http/routes/routes.h"
#include "frontends/http/string_view_util.h"
#include "model_config.pb.h"

namespace inferd::frontends::http {
namespace {

namespace http = boost::beast::http;

constexpr char kHeaderLength[] = "Inference-Header-Content-Length";

std::string_view Header(const http::request_header<>& header, http::field field) {
  const auto it = header.find(field);
  return it == header.end() ? std::string_view()
                            : std::string_view(it->value().data(), it->value().size());
}

absl::StatusOr<DecodedInferRequest> DecodeRaw(const ServingContext& context,
                                              const RouteMatch& route,
                                              std::shared_ptr<const std::string> body) {
  INFERD_ASSIGN_OR_RETURN(ModelMetadata metadata,
                          context.server.GetModelMetadata(route.model, route.version));
  INFERD_ASSIGN_OR_RETURN(auto config, context.server.GetModelConfig(route.model, route.version));
  return DecodeRawBinaryRequest(std::move(body), metadata, config->max_batch_size() > 0);
}

absl::StatusOr<DecodedInferRequest> Decode(const ServingContext& context,
                                           const IncomingRequest& request) {
  const auto coding = ParseContentEncoding(Header(request.header, http::field::content_encoding));
  if (!coding) {
    return absl::UnimplementedError(
        absl::StrCat("unsupported Content-Encoding '",
                     AsAbsl(Header(request.header, http::field::content_encoding)),
                     "'; use gzip, deflate or identity"));
  }
  std::shared_ptr<const std::string> body = request.body;
  if (*coding != ContentCoding::kIdentity) {
    INFERD_ASSIGN_OR_RETURN(std::string plain,
                            Decompress(*body, *coding, context.options.max_body_bytes));
    body = std::make_shared<const std::string>(std::move(plain));
  }
  std::optional<size_t> json_length;
  const auto it = request.header.find(kHeaderLength);
  if (it != request.header.end()) {
    const std::string_view value(it->value().data(), it->value().size());
    INFERD_ASSIGN_OR_RETURN(json_length, ParseInferenceHeaderLength(value, body->size()));
  }
  if (json_length == 0) return DecodeRaw(context, request.route, std::move(body));
  InferDecodeOptions options;
  options.max_json_input_bytes = context.options.max_json_input_bytes;
  options.shared_memory = &context.server.shared_memory();
  options.model_name = request.route.model;
  return DecodeInferRequest(std::move(body), json_length, options);
}

HttpReply BuildReply(const absl::StatusOr<core::InferResponse>& result, const OutputFormat& format,
                     ContentCoding coding) {
  if (!result.ok()) {
    // Triton's words for a decoupled model, which only generate_stream serves.
    if (absl::IsUnimplemented(result.status()) &&
        result.status().GetPayload(core::kDecoupledRefusalPayload)) {
      return ErrorReply(501,
                        "HTTP end point doesn't support models with decoupled transaction "
                        "policy");
    }
    return ErrorReply(result.status());
  }
  absl::StatusOr<HttpReply> reply = EncodeInferResponse(*result, format);
  if (!reply.ok()) return ErrorReply(reply.status());
  if (coding == ContentCoding::kIdentity) return *std::move(reply);
  std::vector<std::string_view> pieces{reply->body};
  for (const core::Buffer& buffer : reply->tail) pieces.push_back(buffer.view());
  absl::StatusOr<std::string> compressed = Compress(pieces, coding);
  if (!compressed.ok()) return *std::move(reply);  // as Triton: send it uncompressed
  reply->body = *std::move(compressed);
  reply->tail.clear();
  reply->headers.emplace_back("Content-Encoding", std::string(ContentCodingName(coding)));
  return *std::move(reply);
}

}  // namespace

void HandleInfer(const std::shared_ptr<ServingContext>& context, IncomingRequest request,
                 Responder responder) {
  absl::StatusOr<DecodedInferRequest> decoded = Decode(*context, request);
  if (!decoded.ok()) {
    HttpReply reply = ErrorReply(decoded.status());
    if (reply.status == 501) reply.headers.emplace_back("Accept-Encoding", "gzip, deflate");
    responder.Send(std::move(reply));
    return;
  }
  decoded->request->model_name = request.route.model;
  decoded->request->model_version = request.route.version;
  const ContentCoding coding =
      ChooseResponseCoding(Header(request.header, http::field::accept_encoding));
  if (!context->tracker.BeginCall()) {
    responder.Send(ErrorReply(absl::UnavailableError("the HTTP endpoint is shutting down")));
    return;
  }
  // A client that disconnects while its request is queued takes it out of
  // the queue (it is answered CANCELLED, to nobody).
  decoded->request->cancellation = std::make_shared<core::CancellationToken>();
  // A short execution may run on this I/O thread; the reply is then posted
  // to the connection and written when this handler returns.
  decoded->request->may_run_on_caller_thread = true;
  responder.WatchDisconnect(decoded->request->cancellation);
  context->server.InferAsync(std::move(decoded->request),
                             [context, responder, format = std::move(decoded->format),
                              coding](absl::StatusOr<core::InferResponse> result) {
                               // On a backend thread: hand the result over, encode it on the I/O
                               // side.
                               responder.SendLater([result = std::move(result), format, coding] {
                                 return BuildReply(result, format, coding);
                               });
                               context->tracker.EndCall();
                             });
}

}  // namespace inferd::frontends::http
