// SPDX-License-Identifier: Apache-2.0
#include "core/status_mapping.h"

#include <string>

#include "gtest/gtest.h"

namespace inferd::core {
namespace {

TEST(StatusMappingTest, HttpStatusCodes) {
  EXPECT_EQ(HttpStatusCode(absl::OkStatus()), 200);
  EXPECT_EQ(HttpStatusCode(absl::NotFoundError("m")), 404);
  EXPECT_EQ(HttpStatusCode(absl::UnavailableError("m")), 503);
  EXPECT_EQ(HttpStatusCode(absl::InternalError("m")), 500);
  EXPECT_EQ(HttpStatusCode(absl::DataLossError("m")), 500);
  EXPECT_EQ(HttpStatusCode(absl::UnimplementedError("m")), 501);
  EXPECT_EQ(HttpStatusCode(absl::InvalidArgumentError("m")), 400);
  EXPECT_EQ(HttpStatusCode(absl::FailedPreconditionError("m")), 400);
  EXPECT_EQ(HttpStatusCode(absl::AlreadyExistsError("m")), 400);
  EXPECT_EQ(HttpStatusCode(absl::UnknownError("m")), 400);
}

TEST(StatusMappingTest, GrpcCodesAreAbslCodes) {
  EXPECT_EQ(GrpcStatusCode(absl::OkStatus()), 0);
  EXPECT_EQ(GrpcStatusCode(absl::InvalidArgumentError("m")), 3);
  EXPECT_EQ(GrpcStatusCode(absl::NotFoundError("m")), 5);
  EXPECT_EQ(GrpcStatusCode(absl::UnavailableError("m")), 14);
  EXPECT_EQ(GrpcStatusCode(absl::InternalError("m")), 13);
}

TEST(StatusMappingTest, ErrorJson) {
  EXPECT_EQ(ErrorJson("model 'm' not found"), R"({"error":"model 'm' not found"})");
  EXPECT_EQ(ErrorJson(""), R"({"error":""})");
}

TEST(StatusMappingTest, ErrorJsonEscapes) {
  EXPECT_EQ(ErrorJson("a\"b\\c\nd"), R"({"error":"a\"b\\c\nd"})");
  EXPECT_EQ(ErrorJson(std::string("x\x01y", 3)), R"({"error":"x\u0001y"})");
  // An embedded NUL must not cut the message short.
  EXPECT_EQ(ErrorJson(std::string("a\0b", 3)), R"({"error":"a\u0000b"})");
}

TEST(StatusMappingTest, BackendErrorCodesRoundTrip) {
  const std::pair<INFERD_ErrorCode, absl::StatusCode> kPairs[] = {
      {INFERD_ERROR_UNKNOWN, absl::StatusCode::kUnknown},
      {INFERD_ERROR_INTERNAL, absl::StatusCode::kInternal},
      {INFERD_ERROR_NOT_FOUND, absl::StatusCode::kNotFound},
      {INFERD_ERROR_INVALID_ARG, absl::StatusCode::kInvalidArgument},
      {INFERD_ERROR_UNAVAILABLE, absl::StatusCode::kUnavailable},
      {INFERD_ERROR_UNSUPPORTED, absl::StatusCode::kUnimplemented},
      {INFERD_ERROR_ALREADY_EXISTS, absl::StatusCode::kAlreadyExists},
      {INFERD_ERROR_CANCELLED, absl::StatusCode::kCancelled},
      {INFERD_ERROR_DEADLINE_EXCEEDED, absl::StatusCode::kDeadlineExceeded},
  };
  for (const auto& [backend, code] : kPairs) {
    const absl::Status status = StatusFromBackendError(backend, "why");
    EXPECT_EQ(status.code(), code) << backend;
    EXPECT_EQ(status.message(), "why");
    EXPECT_EQ(BackendErrorCode(code), backend) << backend;
  }
}

TEST(StatusMappingTest, UnmappedCodesBecomeInternal) {
  EXPECT_EQ(StatusFromBackendError(static_cast<INFERD_ErrorCode>(42), "m").code(),
            absl::StatusCode::kInternal);
  EXPECT_EQ(BackendErrorCode(absl::StatusCode::kFailedPrecondition), INFERD_ERROR_INTERNAL);
}

}  // namespace
}  // namespace inferd::core
