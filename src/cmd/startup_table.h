// SPDX-License-Identifier: Apache-2.0
// Logs the table of models, versions and states that a user reads first
// after start-up to see what is being served and what failed, and why,
// and the table of endpoints with their addresses.
#pragma once

#include <string>
#include <vector>

#include "server/server.h"

namespace inferd::cmd {

void LogStartupTable(const Server& server);

struct Endpoint {
  std::string name;     // "HTTP", "gRPC", "Metrics"
  std::string address;  // host:port, or a URL
};

// Logs where each endpoint listens (with the ports actually bound).
void LogEndpointTable(const std::vector<Endpoint>& endpoints);

}  // namespace inferd::cmd
