// SPDX-License-Identifier: Apache-2.0
// The flags of model repositories in object storage (--model-cache-dir,
// --s3-endpoint; docs/deployment.md, "Object storage"). Credentials and the
// region come from AWS's usual environment variables, not flags.
#pragma once

#include "CLI/CLI.hpp"
#include "repository/repository_source.h"

namespace inferd::cmd {

void AddObjectStoreFlags(CLI::App& serve, repository::SourceOptions& options);

}  // namespace inferd::cmd
