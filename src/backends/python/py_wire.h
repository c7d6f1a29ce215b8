// SPDX-License-Identifier: Apache-2.0
// The building blocks of the worker protocol's codecs (python/PROTOCOL.md),
// shared by py_protocol.cc, py_bls_protocol.cc and py_response_protocol.cc:
// little-endian writers, a bounds-checked reader, the tensor descriptor.
// Internal to the codec files.
#pragma once

#include <bit>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "py_protocol.h"

namespace inferd::python::wire {

// Little-endian on every platform inferd builds for (x86-64, aarch64); the
// static_assert keeps a big-endian port from silently breaking the wire.
static_assert(std::endian::native == std::endian::little, "the worker protocol is little-endian");

template <typename T>
inline void Put(std::vector<uint8_t>& out, T value) {
  static_assert(std::is_trivially_copyable_v<T>);
  const size_t at = out.size();
  out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &value, sizeof(T));
}

inline void PutBytes(std::vector<uint8_t>& out, const void* data, size_t size) {
  if (size == 0) return;
  const auto* bytes = static_cast<const uint8_t*>(data);
  out.insert(out.end(), bytes, bytes + size);
}

inline void PutStr16(std::vector<uint8_t>& out, std::string_view text) {
  Put<uint16_t>(out, static_cast<uint16_t>(text.size()));
  PutBytes(out, text.data(), text.size());
}

inline void PutTensor(std::vector<uint8_t>& out, const WireTensor& tensor) {
  PutStr16(out, tensor.name);
  Put<uint8_t>(out, static_cast<uint8_t>(tensor.datatype));
  Put<uint8_t>(out, static_cast<uint8_t>(tensor.dims.size()));
  for (int64_t dim : tensor.dims) Put<int64_t>(out, dim);
  Put<uint8_t>(out, static_cast<uint8_t>(tensor.location));
  Put<uint64_t>(out, tensor.byte_size);
  if (tensor.location == Location::kRegion) {
    Put<uint64_t>(out, tensor.offset);
  } else {
    PutBytes(out, tensor.data, tensor.byte_size);
  }
}

// Reads a payload front to back; every read is bounds-checked and the first
// failure sticks (later reads return zeros), so decoders check ok() once per
// item rather than after every field.
class Reader {
 public:
  explicit Reader(std::span<const uint8_t> in) : in_(in) {}

  template <typename T>
  T Get() {
    T value{};
    if (!Need(sizeof(T))) return value;
    std::memcpy(&value, in_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return value;
  }
  const uint8_t* Bytes(uint64_t size) {
    if (!Need(size)) return nullptr;
    const uint8_t* data = in_.data() + at_;
    at_ += size;
    return data;
  }
  std::string_view Str16() { return Str(Get<uint16_t>()); }
  std::string_view Str32() { return Str(Get<uint32_t>()); }

  bool ok() const { return ok_; }
  bool at_end() const { return at_ == in_.size(); }
  size_t remaining() const { return in_.size() - at_; }

 private:
  bool Need(uint64_t size) {
    if (!ok_ || size > in_.size() - at_) ok_ = false;
    return ok_;
  }
  std::string_view Str(uint64_t size) {
    const uint8_t* data = Bytes(size);
    return data == nullptr ? std::string_view()
                           : std::string_view(reinterpret_cast<const char*>(data), size);
  }

  std::span<const uint8_t> in_;
  size_t at_ = 0;
  bool ok_ = true;
};

// Bytes from the peer become enum values only when they name one: an
// out-of-range value in an enum object is undefined behaviour.
inline INFERD_DataType ToDataType(uint8_t value) {
  return value <= INFERD_TYPE_BF16 ? static_cast<INFERD_DataType>(value) : INFERD_TYPE_INVALID;
}
inline INFERD_ErrorCode ToErrorCode(uint8_t value) {
  return value <= INFERD_ERROR_DEADLINE_EXCEEDED ? static_cast<INFERD_ErrorCode>(value)
                                                 : INFERD_ERROR_UNKNOWN;
}

inline Status Malformed(const std::string& what) {
  return Status::Internal("malformed message from the Python worker: " + what);
}

// Decodes one tensor; its dims go to a new entry of `dims_storage`.
inline Status GetTensor(Reader& reader, std::vector<std::vector<int64_t>>& dims_storage,
                        WireTensor& tensor) {
  tensor.name = reader.Str16();
  tensor.datatype = ToDataType(reader.Get<uint8_t>());
  const uint8_t ndim = reader.Get<uint8_t>();
  std::vector<int64_t>& dims = dims_storage.emplace_back();
  for (uint8_t i = 0; i < ndim && reader.ok(); ++i) dims.push_back(reader.Get<int64_t>());
  const uint8_t location = reader.Get<uint8_t>();
  tensor.byte_size = reader.Get<uint64_t>();
  if (!reader.ok()) return Malformed("a tensor is cut short");
  if (location == static_cast<uint8_t>(Location::kRegion)) {
    tensor.location = Location::kRegion;
    tensor.offset = reader.Get<uint64_t>();
  } else if (location == static_cast<uint8_t>(Location::kInline)) {
    tensor.location = Location::kInline;
    tensor.data = reader.Bytes(tensor.byte_size);
  } else {
    return Malformed("tensor '" + std::string(tensor.name) + "' has location " +
                     std::to_string(location));
  }
  if (!reader.ok()) return Malformed("tensor '" + std::string(tensor.name) + "' is cut short");
  return Status();
}

// Counts come from the peer: a count larger than the bytes left could hold
// is malformed before anything is reserved for it.
inline Status CheckCount(const Reader& reader, uint64_t count, size_t min_item_bytes,
                         const char* what) {
  if (!reader.ok() || count > reader.remaining() / min_item_bytes) {
    return Malformed(std::string("bad ") + what + " count");
  }
  return Status();
}

// str16 + datatype + ndim + location + byte_size: the smallest tensor.
constexpr size_t kMinTensorBytes = 2 + 1 + 1 + 1 + 8;

}  // namespace inferd::python::wire
