// SPDX-License-Identifier: Apache-2.0
// Prints a protobuf message (an inference::ModelConfig) as Triton's config
// JSON: proto field names, every primitive and repeated field even at its
// default, enums by name, int64/uint64 as JSON numbers (Triton's fix-up of the
// protobuf printer's strings), maps as objects; unset message fields and
// oneof members are left out. Written with protobuf reflection.
#pragma once

#include <string>

namespace google::protobuf {
class Message;
}

namespace inferd::core {

std::string ModelConfigToJson(const google::protobuf::Message& config);

}  // namespace inferd::core
