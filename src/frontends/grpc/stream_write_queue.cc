// SPDX-License-Identifier: Apache-2.0
#include "frontends/grpc/stream_write_queue.h"

#include <utility>

namespace inferd::frontends::grpc {

uint64_t StreamWriteQueue::ReserveOrdered() { return next_place_++; }

void StreamWriteQueue::FillOrdered(uint64_t place, std::optional<Message> message) {
  if (place < next_release_ || place >= next_place_) return;  // cleared, or never reserved
  if (message) queued_bytes_ += message->ByteSizeLong();
  waiting_.insert_or_assign(place, std::move(message));
  Release();
}

void StreamWriteQueue::Release() {
  for (auto it = waiting_.begin(); it != waiting_.end() && it->first == next_release_;
       it = waiting_.erase(it)) {
    if (it->second) writable_.push_back(std::move(*it->second));
    ++next_release_;
  }
}

void StreamWriteQueue::Push(Message message) {
  queued_bytes_ += message.ByteSizeLong();
  writable_.push_back(std::move(message));
}

std::optional<StreamWriteQueue::Message> StreamWriteQueue::Next() {
  if (writable_.empty()) return std::nullopt;
  Message message = std::move(writable_.front());
  writable_.pop_front();
  const size_t size = message.ByteSizeLong();
  queued_bytes_ = size > queued_bytes_ ? 0 : queued_bytes_ - size;
  return message;
}

void StreamWriteQueue::Clear() {
  writable_.clear();
  waiting_.clear();
  next_release_ = next_place_;
  queued_bytes_ = 0;
}

}  // namespace inferd::frontends::grpc
