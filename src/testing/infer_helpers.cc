// SPDX-License-Identifier: Apache-2.0
#include "testing/infer_helpers.h"

namespace inferd::testing {

std::string EncodeBytes(const std::vector<std::string>& elements) {
  std::string out;
  for (const auto& element : elements) {
    const uint32_t length = static_cast<uint32_t>(element.size());
    char prefix[4];
    std::memcpy(prefix, &length, 4);  // little-endian hosts only, like the server
    out.append(prefix, 4);
    out += element;
  }
  return out;
}

std::vector<std::string> DecodeBytes(std::string_view data) {
  std::vector<std::string> elements;
  size_t offset = 0;
  while (data.size() - offset >= 4) {
    uint32_t length = 0;
    std::memcpy(&length, data.data() + offset, 4);
    offset += 4;
    if (data.size() - offset < length) break;
    elements.emplace_back(data.substr(offset, length));
    offset += length;
  }
  return elements;
}

core::Tensor MakeBytesTensor(std::string name, core::Shape shape,
                             const std::vector<std::string>& elements) {
  return core::Tensor{std::move(name), core::DataType::kBytes, std::move(shape),
                      core::Buffer::Own(EncodeBytes(elements))};
}

core::InferCallback CallbackResult::Callback() {
  return [this](absl::StatusOr<core::InferResponse> result) {
    bool first = false;
    {
      absl::MutexLock lock(&mu_);
      first = ++calls_ == 1;
      if (first) result_ = std::move(result);
    }
    if (first) done_.Notify();
  };
}

const absl::StatusOr<core::InferResponse>& CallbackResult::Wait() {
  done_.WaitForNotification();
  return result_;
}

int CallbackResult::calls() const {
  absl::MutexLock lock(&mu_);
  return calls_;
}

}  // namespace inferd::testing
