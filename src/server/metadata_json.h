// SPDX-License-Identifier: Apache-2.0
// The JSON of server metadata, model metadata (tensor shapes with the
// leading -1 batch dimension the Server reports) and the repository index,
// as the HTTP endpoints answer them; the C API (src/capi) hands out the same
// text. No I/O.
#pragma once

#include <string>
#include <vector>

#include "server/server.h"

namespace inferd {

// {"name","version","extensions":[...]}
std::string ServerMetadataJson(const ServerMetadata& metadata);
// {"name","versions":[str],"platform","inputs":[T],"outputs":[T]}
std::string ModelMetadataJson(const ModelMetadata& metadata);
// [{"name","version","state","reason"}]
std::string RepositoryIndexJson(const std::vector<ModelIndexEntry>& entries);

}  // namespace inferd
