// SPDX-License-Identifier: Apache-2.0
#include "core/tensor.h"

namespace inferd::core {

Buffer Buffer::Copy(std::string_view bytes) { return Own(std::string(bytes)); }

Buffer Buffer::Own(std::string bytes) {
  auto owned = std::make_shared<const std::string>(std::move(bytes));
  return Buffer{owned->data(), owned->size(), owned};
}

}  // namespace inferd::core
