// SPDX-License-Identifier: Apache-2.0
// ModelManager, part 3: shutdown — every version out of service, a bounded
// wait for their requests, then the queued ones answered.
#include "base/logging.h"
#include "lifecycle/model_manager.h"

namespace inferd::lifecycle {

void ModelManager::UnloadAll(std::chrono::milliseconds drain, const absl::Status& expired) {
  if (stopping_.exchange(true)) return;
  {
    base::MutexLock lock(&poll_thread_mu_);
    poll_stop_ = true;
  }
  if (poll_thread_.joinable()) poll_thread_.join();
  std::vector<Record*> records;
  {
    std::lock_guard<std::mutex> lock(records_mu_);
    for (auto& [name, record] : records_) records.push_back(record.get());
  }
  const auto deadline = drain == std::chrono::milliseconds::max()
                            ? std::chrono::steady_clock::time_point::max()
                            : std::chrono::steady_clock::now() + drain;
  // Take everything out of service without waiting (a transition in
  // progress finishes first: its op_mu). A transition that is itself
  // waiting for requests (resource-preserving) is unblocked at the deadline.
  for (Record* record : records) {
    std::unique_lock<base::TimedMutex> lock(record->op_mu, std::defer_lock);
    if (!lock.try_lock_until(deadline)) {
      FailRetiring(expired);
      lock.lock();
    }
    std::vector<int64_t> versions;
    for (const auto& [v, s] : record->serving) versions.push_back(v);
    record->wanted = false;
    record->loading.clear();
    Retire(*record, versions);
  }
  bool drained = false;
  {
    base::MutexLock lock(&publish_mu_);
    const auto left = deadline - std::chrono::steady_clock::now();
    drained = publish_mu_.AwaitWithTimeout(
        [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(publish_mu_) { return retiring_.empty(); },
        deadline == std::chrono::steady_clock::time_point::max()
            ? std::chrono::steady_clock::duration(std::chrono::hours(24 * 365))
            : std::max(left, std::chrono::steady_clock::duration::zero()));
  }
  if (!drained) {
    FailRetiring(expired);
    base::MutexLock lock(&publish_mu_);
    publish_mu_.Await([this]()
                          ABSL_EXCLUSIVE_LOCKS_REQUIRED(publish_mu_) { return retiring_.empty(); });
  }
}

void ModelManager::FailRetiring(const absl::Status& status) {
  std::vector<std::shared_ptr<ModelVersion>> left;
  {
    base::MutexLock lock(&publish_mu_);
    for (const auto& [id, entry] : retiring_) {
      if (auto version = entry.weak.lock()) left.push_back(std::move(version));
    }
  }
  INFERD_LOG_WARN("drain time is up; answering the requests still queued in {} model version(s)",
                  left.size());
  // Outside the lock: completions run request callbacks, and dropping the
  // last pin hands a version to the unloader.
  for (auto& version : left) version->FailQueued(status);
}

}  // namespace inferd::lifecycle
