// SPDX-License-Identifier: Apache-2.0
// S3's XML answers that the store reads: a ListObjectsV2 page and an error
// body. Parsed with expat (docs/dependencies.md says why).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "repository/object_store.h"

namespace inferd::repository {

struct ListObjectsPage {
  std::vector<ObjectInfo> objects;  // keys as S3 gives them (with the prefix)
  bool truncated = false;
  std::string next_continuation_token;
};

// InvalidArgument for XML that does not parse or is not a
// ListBucketResult, or a truncated page without a continuation token.
absl::StatusOr<ListObjectsPage> ParseListObjectsV2(std::string_view xml);

struct S3ErrorBody {
  std::string code;  // "NoSuchBucket", "InvalidAccessKeyId", ...
  std::string message;
};
// nullopt when `xml` is not an S3 <Error> document.
std::optional<S3ErrorBody> ParseS3Error(std::string_view xml);

}  // namespace inferd::repository
