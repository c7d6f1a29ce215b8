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

Status WorkerChannel::ReadExactly(uint8_t* out, size_t size,
                                  std::optional<std::chrono::steady_clock::time_point> deadline,
                                  bool* timed_out) {
  size_t done = 0;
  while (done < size) {
    StatusOr<size_t> got = ReadSome(out + done, size - done, deadline, timed_out);
    if (!got.ok()) return got.status();
    done += *got;
  }
  return Status();
}

StatusOr<size_t> WorkerChannel::ReadSome(
    uint8_t* out, size_t capacity, std::optional<std::chrono::steady_clock::time_point> deadline,
    bool* timed_out) {
  for (;;) {
    int timeout_ms = -1;
    if (deadline) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(
          *deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        *timed_out = true;
        return Status(INFERD_ERROR_UNAVAILABLE, "the Python worker did not answer in time");
      }
      timeout_ms = static_cast<int>(std::min<int64_t>(left.count(), INT32_MAX));
    }
    pollfd waiting{fd_, POLLIN, 0};
    const int ready = ::poll(&waiting, 1, timeout_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      return SystemError("waiting for the Python worker failed");
    }
    if (ready == 0) continue;  // the deadline check above ends the wait
    const ssize_t got = ::recv(fd_, out, capacity, MSG_DONTWAIT);
    if (got == 0) return Status(INFERD_ERROR_UNAVAILABLE, "the Python worker closed its socket");
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      return SystemError("reading from the Python worker failed");
    }
    return static_cast<size_t>(got);
  }
}

StatusOr<WorkerChannel::Message> WorkerChannel::Receive(
    std::optional<std::chrono::steady_clock::time_point> deadline, bool* timed_out) {
  *timed_out = false;
  // One read usually brings the whole answer (one poll and one recv rather
  // than two of each). The worker sends exactly one message per message it
  // got, so bytes past this message would break the protocol.
  size_t have = 0;
  while (have < kHeaderSize) {
    StatusOr<size_t> got =
        ReadSome(first_read_.data() + have, first_read_.size() - have, deadline, timed_out);
    if (!got.ok()) return got.status();
    have += *got;
  }
  const Header header = DecodeHeader(first_read_.data());
  const size_t payload_bytes = have - kHeaderSize;
  if (payload_bytes > header.length) {
    return Status::Internal("malformed message from the Python worker: " +
                            std::to_string(payload_bytes - header.length) +
                            " bytes follow its answer");
  }
  Message message;
  message.type = header.type;
  message.payload.resize(header.length);
  if (payload_bytes > 0) {  // an empty vector's data() may be null
    std::memcpy(message.payload.data(), first_read_.data() + kHeaderSize, payload_bytes);
  }
  INFERD_BACKEND_RETURN_IF_ERROR(ReadExactly(message.payload.data() + payload_bytes,
                                             header.length - payload_bytes, deadline, timed_out));
  return message;
}

}  // namespace inferd::python
