// SPDX-License-Identifier: Apache-2.0
// Tensors as the server passes them around: metadata plus a view of bytes
// whose lifetime is shared with whoever owns them (a network buffer, a gRPC
// message, a backend's output allocation). Copying a Tensor never copies data.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "core/data_type.h"
#include "core/shape.h"

namespace inferd::core {

// A read-only view of `size` bytes at `data`, kept alive by `owner` (which may
// be null when the bytes are borrowed for a scope documented by the user).
struct Buffer {
  const char* data = nullptr;
  size_t size = 0;
  std::shared_ptr<const void> owner;

  std::string_view view() const { return {data, size}; }
  // A buffer that owns a copy of `bytes`.
  static Buffer Copy(std::string_view bytes);
  // A buffer that owns `bytes` (no copy).
  static Buffer Own(std::string bytes);
};

// Contiguous row-major tensor. BYTES tensors hold the length-prefixed
// encoding: per element a uint32 little-endian length, then the bytes.
struct Tensor {
  std::string name;
  DataType datatype = DataType::kInvalid;
  Shape shape;
  Buffer data;
};

}  // namespace inferd::core
