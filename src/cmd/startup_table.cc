// SPDX-License-Identifier: Apache-2.0
#include "cmd/startup_table.h"

#include <algorithm>
#include <string>

#include "base/logging.h"

namespace inferd::cmd {

void LogStartupTable(const Server& server) {
  const auto entries = server.RepositoryIndex(/*ready_only=*/false);
  size_t name_width = 5;
  for (const auto& e : entries) name_width = std::max(name_width, e.name.size());
  INFERD_LOG_INFO("{:<{}}  {:<7}  {:<11}  {}", "Model", name_width, "Version", "Status", "Reason");
  for (const auto& e : entries) {
    INFERD_LOG_INFO("{:<{}}  {:<7}  {:<11}  {}", e.name, name_width,
                    e.version.empty() ? "-" : e.version, e.state.empty() ? "-" : e.state,
                    e.state.empty() ? "not loaded" : e.reason);
  }
  // Explicit mode may start with nothing loaded on purpose.
  if (std::none_of(entries.begin(), entries.end(), [](const auto& e) { return !e.state.empty(); }))
    INFERD_LOG_WARN("no model is loaded (none found, or none asked for)");
}

void LogEndpointTable(const std::vector<Endpoint>& endpoints) {
  size_t name_width = 8;
  for (const auto& e : endpoints) name_width = std::max(name_width, e.name.size());
  INFERD_LOG_INFO("{:<{}}  {}", "Endpoint", name_width, "Address");
  for (const auto& e : endpoints) INFERD_LOG_INFO("{:<{}}  {}", e.name, name_width, e.address);
}

}  // namespace inferd::cmd
