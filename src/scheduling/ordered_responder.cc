// SPDX-License-Identifier: Apache-2.0
#include "scheduling/ordered_responder.h"

#include <vector>

namespace inferd::scheduling {

core::InferCallback OrderedResponder::Wrap(core::InferCallback callback) {
  uint64_t ticket;
  {
    base::MutexLock lock(&mu_);
    ticket = next_ticket_++;
    waiting_[ticket].callback = std::move(callback);
  }
  return [self = shared_from_this(), ticket](absl::StatusOr<core::InferResponse> result) {
    self->Arrive(ticket, std::move(result));
  };
}

void OrderedResponder::Arrive(uint64_t ticket, absl::StatusOr<core::InferResponse> result) {
  mu_.Lock();
  waiting_[ticket].result = std::move(result);
  if (releasing_) {  // the releasing thread will pick it up
    mu_.Unlock();
    return;
  }
  releasing_ = true;
  for (;;) {
    std::vector<Finished> ready;
    for (auto it = waiting_.find(next_release_); it != waiting_.end() && it->second.result;
         it = waiting_.find(next_release_)) {
      ready.push_back(std::move(it->second));
      waiting_.erase(it);
      ++next_release_;
    }
    if (ready.empty()) break;
    mu_.Unlock();
    for (auto& finished : ready) finished.callback(std::move(*finished.result));
    mu_.Lock();
  }
  releasing_ = false;
  mu_.Unlock();
}

}  // namespace inferd::scheduling
