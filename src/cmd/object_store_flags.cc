// SPDX-License-Identifier: Apache-2.0
#include "cmd/object_store_flags.h"

namespace inferd::cmd {

void AddObjectStoreFlags(CLI::App& serve, repository::SourceOptions& options) {
  serve.add_option("--model-cache-dir", options.cache_directory,
                   "Where models from s3:// repositories are downloaded (each server makes its "
                   "own folder inside; default: $TMPDIR or /tmp, then /inferd-model-cache)");
  serve.add_option("--s3-endpoint", options.s3_endpoint,
                   "S3-compatible endpoint (http[s]://host[:port]) for s3://bucket/path "
                   "repositories (default: AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, else AWS)");
}

}  // namespace inferd::cmd
