// SPDX-License-Identifier: Apache-2.0
// Logs the table of models, versions and states that a user reads first
// after start-up to see what is being served and what failed, and why.
#pragma once

#include "server/server.h"

namespace inferd::cmd {

void LogStartupTable(const Server& server);

}  // namespace inferd::cmd
