// SPDX-License-Identifier: Apache-2.0
#include "core/status_mapping.h"

#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace inferd::core {

int HttpStatusCode(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return 200;
    case absl::StatusCode::kNotFound:
      return 404;
    case absl::StatusCode::kUnavailable:
      return 503;
    case absl::StatusCode::kInternal:
    case absl::StatusCode::kDataLoss:
      return 500;
    case absl::StatusCode::kUnimplemented:
      return 501;
    case absl::StatusCode::kDeadlineExceeded:
      return 504;  // a request that outlived its deadline in the queue
    default:
      return 400;
  }
}

std::string ErrorJson(std::string_view message) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartObject();
  writer.Key("error");
  writer.String(message.data(), static_cast<rapidjson::SizeType>(message.size()));
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

int GrpcStatusCode(const absl::Status& status) { return static_cast<int>(status.code()); }

absl::Status StatusFromBackendError(INFERD_ErrorCode code, std::string message) {
  switch (code) {
    case INFERD_ERROR_NOT_FOUND:
      return absl::NotFoundError(message);
    case INFERD_ERROR_INVALID_ARG:
      return absl::InvalidArgumentError(message);
    case INFERD_ERROR_UNAVAILABLE:
      return absl::UnavailableError(message);
    case INFERD_ERROR_UNSUPPORTED:
      return absl::UnimplementedError(message);
    case INFERD_ERROR_ALREADY_EXISTS:
      return absl::AlreadyExistsError(message);
    case INFERD_ERROR_CANCELLED:
      return absl::CancelledError(message);
    case INFERD_ERROR_DEADLINE_EXCEEDED:
      return absl::DeadlineExceededError(message);
    case INFERD_ERROR_UNKNOWN:
      return absl::UnknownError(message);
    case INFERD_ERROR_INTERNAL:
    default:
      return absl::InternalError(message);
  }
}

INFERD_ErrorCode BackendErrorCode(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kNotFound:
      return INFERD_ERROR_NOT_FOUND;
    case absl::StatusCode::kInvalidArgument:
      return INFERD_ERROR_INVALID_ARG;
    case absl::StatusCode::kUnavailable:
      return INFERD_ERROR_UNAVAILABLE;
    case absl::StatusCode::kUnimplemented:
      return INFERD_ERROR_UNSUPPORTED;
    case absl::StatusCode::kAlreadyExists:
      return INFERD_ERROR_ALREADY_EXISTS;
    case absl::StatusCode::kCancelled:
      return INFERD_ERROR_CANCELLED;
    case absl::StatusCode::kDeadlineExceeded:
      return INFERD_ERROR_DEADLINE_EXCEEDED;
    case absl::StatusCode::kUnknown:
      return INFERD_ERROR_UNKNOWN;
    default:
      return INFERD_ERROR_INTERNAL;
  }
}

}  // namespace inferd::core
