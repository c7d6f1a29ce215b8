// SPDX-License-Identifier: Apache-2.0
#include "backends/abi/backend_request.h"

#include "absl/strings/str_cat.h"
#include "base/clock.h"
#include "base/logging.h"
#include "core/bytes_encoding.h"
#include "core/json_writer.h"

namespace inferd::backends {

const OutputSpec* ModelIO::FindOutput(std::string_view name) const {
  for (const auto& output : outputs) {
    if (output.name == name) return &output;
  }
  return nullptr;
}

}  // namespace inferd::backends

using inferd::backends::ExecutionRecord;
using inferd::backends::ModelIO;
using inferd::backends::OutputSpec;
using inferd::core::Buffer;
using inferd::core::DataType;
using inferd::core::Shape;

INFERD_Request::INFERD_Request(std::unique_ptr<inferd::core::InferRequest> request,
                               inferd::core::InferCallback on_complete,
                               std::shared_ptr<const ModelIO> io,
                               std::vector<std::string> output_names, int64_t batch_size,
                               std::shared_ptr<const void> pin)
    : request_(std::move(request)),
      on_complete_(std::move(on_complete)),
      io_(std::move(io)),
      output_names_(std::move(output_names)),
      batch_size_(batch_size),
      pin_(std::move(pin)),
      outputs_(output_names_.size()) {
  times_.arrival = inferd::base::Clock::Real().NowNanos();
  if (io_->stats) io_->stats->AddInFlight(1);
}

INFERD_Request::~INFERD_Request() {
  if (!completed_) {
    INFERD_LOG_ERROR("request for model '{}' was dropped without an answer", io_->model_name);
    Complete(absl::InternalError(
        absl::StrCat("model '", io_->model_name, "' did not produce a response for this request")));
  }
}

Shape INFERD_Request::ClientShape(const OutputSpec& spec, Shape shape) const {
  if (!spec.has_reshape) return shape;
  if (spec.scalar_reshape && model_shapes_) {
    // One element per row, in the model's own (rank-0) shape, whichever view
    // the backend answered in.
    return io_->max_batch_size > 0 ? Shape{batch_size_} : Shape{};
  }
  // The backend produced the reshape shape; the client is promised `dims`.
  Shape client;
  if (io_->max_batch_size > 0) client.push_back(batch_size_);
  int64_t known = 1;
  int wildcard = -1;
  for (size_t i = 0; i < spec.dims.size(); ++i) {
    client.push_back(spec.dims[i]);
    if (spec.dims[i] == -1) {
      wildcard = static_cast<int>(client.size() - 1);
    } else {
      known *= spec.dims[i];
    }
  }
  if (wildcard >= 0) {
    int64_t total = 1;
    for (int64_t d : shape) total *= d;
    const int64_t batch = io_->max_batch_size > 0 ? batch_size_ : 1;
    client[wildcard] = (known * batch) > 0 ? total / (known * batch) : 0;
  }
  return client;
}

absl::Status INFERD_Request::CheckOutputSize(const OutputSpec& spec, const Shape& shape,
                                             const Buffer& data) const {
  auto count = inferd::core::ElementCount(shape);
  if (!count.ok()) return count.status();
  if (spec.datatype == DataType::kBytes) {
    auto elements = inferd::core::CountBytesElements(data.view());
    if (!elements.ok() || *elements != *count) {
      return absl::InternalError(absl::StrCat("backend output '", spec.name,
                                              "' is not a valid BYTES tensor of shape ",
                                              inferd::core::ShapeToString(shape)));
    }
    return absl::OkStatus();
  }
  const size_t expected =
      static_cast<size_t>(*count) * inferd::core::DataTypeByteSize(spec.datatype);
  if (expected != data.size) {
    return absl::InternalError(absl::StrCat("backend output '", spec.name, "' has ", data.size,
                                            " bytes; shape ", inferd::core::ShapeToString(shape),
                                            " needs ", expected));
  }
  return absl::OkStatus();
}

absl::Status INFERD_Request::AddOutput(std::string_view name, INFERD_DataType datatype,
                                       const int64_t* shape, size_t shape_count, Buffer data) {
  const OutputSpec* spec = io_->FindOutput(name);
  if (spec == nullptr) {
    return absl::InternalError(
        absl::StrCat("backend produced unknown output '", std::string(name), "'"));
  }
  size_t index = 0;
  while (index < output_names_.size() && output_names_[index] != name) ++index;
  if (index == output_names_.size()) {
    return absl::InternalError(
        absl::StrCat("backend produced output '", std::string(name), "' which was not requested"));
  }
  if (static_cast<int32_t>(datatype) != static_cast<int32_t>(spec->datatype)) {
    return absl::InternalError(absl::StrCat(
        "backend output '", std::string(name), "' has datatype ",
        std::string(inferd::core::DataTypeProtocolName(static_cast<DataType>(datatype))),
        "; the config says ", std::string(inferd::core::DataTypeProtocolName(spec->datatype))));
  }
  Shape backend_shape(shape, shape + shape_count);
  auto status = CheckOutputSize(*spec, backend_shape, data);
  if (!status.ok()) return status;
  outputs_[index] =
      inferd::core::Tensor{std::string(name), spec->datatype,
                           ClientShape(*spec, std::move(backend_shape)), std::move(data)};
  return absl::OkStatus();
}

void INFERD_Request::BeginExecution(std::shared_ptr<ExecutionRecord> record) {
  times_.exec_start = record->start;
  execution_ = std::move(record);
}

void INFERD_Request::SetUncounted() {
  if (!uncounted_ && io_->stats) io_->stats->AddInFlight(-1);
  uncounted_ = true;
}

void INFERD_Request::RecordStatistics(const absl::Status& status,
                                      inferd::core::FailureReason reason) {
  inferd::core::ModelStats* stats = io_->stats.get();
  times_.end = inferd::base::Clock::Real().NowNanos();
  if (stats != nullptr && !uncounted_) {
    if (status.ok()) {
      stats->RecordSuccess(times_, batch_size_);
    } else {
      stats->RecordFailure(reason, times_.end - times_.arrival);
    }
  }
  if (execution_ != nullptr && execution_->remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    // The last request of its batch: the batch's phases end with it.
    if (stats != nullptr) {
      const int64_t compute_start =
          times_.compute_start > 0 ? times_.compute_start : execution_->start;
      const int64_t compute_end = times_.compute_end > 0 ? times_.compute_end : times_.end;
      stats->RecordExecution(execution_->batch_size, compute_start - execution_->start,
                             compute_end - compute_start, times_.end - compute_end);
    }
  }
  execution_.reset();
  if (stats != nullptr && !uncounted_) stats->AddInFlight(-1);
}

absl::StatusOr<inferd::core::InferResponse> INFERD_Request::TakeResponse(bool require_all) {
  inferd::core::InferResponse response;
  response.model_name = io_->model_name;
  response.model_version = io_->model_version;
  response.id = request_->id;
  response.outputs.reserve(outputs_.size());
  for (size_t i = 0; i < outputs_.size(); ++i) {
    if (!outputs_[i]) {
      if (!require_all) continue;
      return absl::InternalError(absl::StrCat("model '", io_->model_name,
                                              "' did not produce output '", output_names_[i], "'"));
    }
    response.outputs.push_back(std::move(*outputs_[i]));
    outputs_[i].reset();
  }
  return response;
}

void INFERD_Request::Complete(absl::Status status, inferd::core::FailureReason reason) {
  if (completed_) return;
  completed_ = true;
  absl::StatusOr<inferd::core::InferResponse> response;
  if (!status.ok()) {
    response = std::move(status);
  } else {
    response = TakeResponse(/*require_all=*/!io_->decoupled);
    if (!response.ok()) reason = inferd::core::FailureReason::kBackend;
    // A decoupled model that ends without outputs sends the final flag alone.
    if (response.ok() && io_->decoupled && response->outputs.empty()) response->flags_only = true;
  }
  RecordStatistics(response.status(), reason);
  on_complete_(std::move(response));
}

absl::Status INFERD_Request::SendResponse(absl::Status error, bool final) {
  if (!io_->decoupled) {
    return absl::FailedPreconditionError(
        absl::StrCat("model '", io_->model_name,
                     "' is not decoupled: it answers each request once, with RequestComplete "
                     "(set model_transaction_policy { decoupled: true } to send several "
                     "responses)"));
  }
  if (completed_) {
    return absl::FailedPreconditionError(absl::StrCat(
        "model '", io_->model_name, "' already sent the final response of this request"));
  }
  if (final) {
    Complete(std::move(error));  // an error drops the outputs added so far
    return absl::OkStatus();
  }
  absl::StatusOr<inferd::core::InferResponse> response;
  if (error.ok()) {
    response = TakeResponse(/*require_all=*/false);
  } else {
    for (auto& output : outputs_) output.reset();
    response = std::move(error);
  }
  // Nobody takes intermediate responses (a warm-up request): dropped.
  if (request_->on_partial_response) request_->on_partial_response(std::move(response));
  return absl::OkStatus();
}

const std::string& INFERD_Request::ParametersJson() {
  if (parameters_json_) return *parameters_json_;
  rapidjson::StringBuffer buffer;
  inferd::core::JsonWriter writer(buffer);
  writer.StartObject();
  for (const auto& [key, value] : request_->parameters) {
    // Keys and strings that are not UTF-8 cannot be written as JSON: left out.
    if (!simdjson::validate_utf8(key.data(), key.size())) continue;
    if (const auto* text = std::get_if<std::string>(&value);
        text != nullptr && !simdjson::validate_utf8(text->data(), text->size())) {
      continue;
    }
    inferd::core::WriteKey(writer, key);
    std::visit(
        [&writer](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, bool>) {
            writer.Bool(v);
          } else if constexpr (std::is_same_v<T, int64_t>) {
            writer.Int64(v);
          } else if constexpr (std::is_same_v<T, uint64_t>) {
            writer.Uint64(v);
          } else if constexpr (std::is_same_v<T, double>) {
            writer.Double(v);
          } else {
            inferd::core::WriteString(writer, v);
          }
        },
        value);
  }
  writer.EndObject();
  parameters_json_ = inferd::core::TakeString(buffer);
  return *parameters_json_;
}
