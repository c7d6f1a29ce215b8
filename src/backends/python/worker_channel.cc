// SPDX-License-Identifier: Apache-2.0
#include "worker_channel.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <string>

namespace inferd::python {
namespace {

Status SystemError(const char* what) {
  return Status(INFERD_ERROR_UNAVAILABLE, std::string(what) + ": " + std::strerror(errno));
}

}  // namespace

WorkerChannel::~WorkerChannel() {
  if (fd_ >= 0) ::close(fd_);
}

Status WorkerChannel::Send(MessageType type, std::span<const iovec> parts, int pass_fd) {
  uint64_t length = 0;
  for (const iovec& part : parts) length += part.iov_len;
  if (length >= kMaxPayloadBytes) {
    return Status::InvalidArg("a message to the Python worker would be " + std::to_string(length) +
                              " bytes, over the 4 GiB limit");
  }
  uint8_t header[kHeaderSize];
  EncodeHeader(Header{static_cast<uint32_t>(length), type}, header);
  std::vector<iovec> iov;
  iov.reserve(parts.size() + 1);
  iov.push_back(iovec{header, kHeaderSize});
  for (const iovec& part : parts) {
    if (part.iov_len > 0) iov.push_back(part);
  }

  // The descriptor rides on the first sendmsg only (it attaches to the
  // header's first byte); a partial write continues without it.
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
  bool fd_pending = pass_fd >= 0;
  size_t first = 0;
  while (first < iov.size()) {
    msghdr message{};
    message.msg_iov = iov.data() + first;
    message.msg_iovlen = std::min<size_t>(iov.size() - first, IOV_MAX);
    if (fd_pending) {
      std::memset(control, 0, sizeof(control));
      message.msg_control = control;
      message.msg_controllen = sizeof(control);
      cmsghdr* cmsg = CMSG_FIRSTHDR(&message);
      cmsg->cmsg_level = SOL_SOCKET;
      cmsg->cmsg_type = SCM_RIGHTS;
      cmsg->cmsg_len = CMSG_LEN(sizeof(int));
      std::memcpy(CMSG_DATA(cmsg), &pass_fd, sizeof(int));
    }
    const ssize_t sent = ::sendmsg(fd_, &message, MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno == EINTR) continue;
      return SystemError("sending to the Python worker failed");
    }
    fd_pending = false;
    size_t left = static_cast<size_t>(sent);
    while (first < iov.size() && left >= iov[first].iov_len) left -= iov[first++].iov_len;
    if (left > 0) {
      iov[first].iov_base = static_cast<char*>(iov[first].iov_base) + left;
      iov[first].iov_len -= left;
    }
  }
  return Status();
}

Status WorkerChannel::Send(MessageType type, std::span<const uint8_t> payload) {
  const iovec part{const_cast<uint8_t*>(payload.data()), payload.size()};
  return Send(type, std::span<const iovec>(&part, 1));
}

bool WorkerChannel::TakeBuffered() {
  if (header_have_ < kHeaderSize) {
    const size_t count = std::min(kHeaderSize - header_have_, buffer_end_ - buffer_begin_);
    std::memcpy(header_.data() + header_have_, buffer_.data() + buffer_begin_, count);
    header_have_ += count;
    buffer_begin_ += count;
    if (header_have_ < kHeaderSize) return false;
    const Header header = DecodeHeader(header_.data());
    partial_.type = header.type;
    partial_.payload.resize(header.length);
    payload_have_ = 0;
  }
  const size_t count =
      std::min(partial_.payload.size() - payload_have_, buffer_end_ - buffer_begin_);
  if (count > 0) {
    std::memcpy(partial_.payload.data() + payload_have_, buffer_.data() + buffer_begin_, count);
    payload_have_ += count;
    buffer_begin_ += count;
  }
  return payload_have_ == partial_.payload.size();
}

StatusOr<WorkerChannel::Event> WorkerChannel::ReadSome(uint8_t* out, size_t capacity,
                                                       Deadline deadline, int wake_fd,
                                                       size_t* got) {
  *got = 0;
  for (;;) {
    int timeout_ms = -1;
    if (deadline) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(
          *deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return Event::kTimedOut;
      timeout_ms = static_cast<int>(std::min<int64_t>(left.count(), INT32_MAX));
    }
    pollfd waiting[2] = {{fd_, POLLIN, 0}, {wake_fd, POLLIN, 0}};
    const int ready = ::poll(waiting, wake_fd >= 0 ? 2 : 1, timeout_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      return SystemError("waiting for the Python worker failed");
    }
    if (ready == 0) continue;  // the deadline check above ends the wait
    // Completions first: the worker may be waiting for one of them.
    if (wake_fd >= 0 && (waiting[1].revents & POLLIN) != 0) return Event::kWoken;
    const ssize_t count = ::recv(fd_, out, capacity, MSG_DONTWAIT);
    if (count == 0) return Status(INFERD_ERROR_UNAVAILABLE, "the Python worker closed its socket");
    if (count < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      return SystemError("reading from the Python worker failed");
    }
    *got = static_cast<size_t>(count);
    return Event::kMessage;
  }
}

StatusOr<WorkerChannel::Received> WorkerChannel::ReceiveOrWake(Deadline deadline, int wake_fd) {
  for (;;) {
    if (TakeBuffered()) {
      Received received;
      received.message = std::move(partial_);
      partial_ = Message();
      header_have_ = 0;
      payload_have_ = 0;
      return received;
    }
    // The buffer is empty now. A large rest of a payload is read straight
    // into it (one copy from the kernel); anything else through the buffer,
    // which may then also hold the start of the next message.
    const size_t payload_left = partial_.payload.size() - payload_have_;
    const bool direct = header_have_ == kHeaderSize && payload_left >= buffer_.size();
    uint8_t* out = direct ? partial_.payload.data() + payload_have_ : buffer_.data();
    const size_t capacity = direct ? payload_left : buffer_.size();
    size_t got = 0;
    StatusOr<Event> event = ReadSome(out, capacity, deadline, wake_fd, &got);
    if (!event.ok()) return event.status();
    if (*event != Event::kMessage) {
      Received received;
      received.event = *event;
      return received;
    }
    if (direct) {
      payload_have_ += got;
    } else {
      buffer_begin_ = 0;
      buffer_end_ = got;
    }
  }
}

StatusOr<WorkerChannel::Message> WorkerChannel::Receive(Deadline deadline, bool* timed_out) {
  *timed_out = false;
  StatusOr<Received> received = ReceiveOrWake(deadline, -1);
  if (!received.ok()) return received.status();
  if (received->event == Event::kTimedOut) {
    *timed_out = true;
    return Status(INFERD_ERROR_UNAVAILABLE, "the Python worker did not answer in time");
  }
  return std::move(received->message);
}

}  // namespace inferd::python
