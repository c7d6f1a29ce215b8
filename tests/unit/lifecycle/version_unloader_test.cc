// SPDX-License-Identifier: Apache-2.0
// VersionUnloader: the last pin only queues its version; the unloader's own
// thread stops and deletes it and then reports it released, so a pin may be
// dropped anywhere, even on the version's own instance thread.
#include "lifecycle/version_unloader.h"

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "base/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace inferd::lifecycle {
namespace {

using ::testing::ElementsAre;

constexpr auto kLimit = std::chrono::seconds(10);  // against a hang only

// What happened to one version's scheduler, shared with the test.
struct Probe {
  base::Mutex mu;
  bool gate_open ABSL_GUARDED_BY(mu) = true;  // Stop() waits until open
  bool stop_entered ABSL_GUARDED_BY(mu) = false;
  bool stopped ABSL_GUARDED_BY(mu) = false;
  bool deleted ABSL_GUARDED_BY(mu) = false;
  bool stopped_before_delete ABSL_GUARDED_BY(mu) = false;
  std::thread::id deleted_on ABSL_GUARDED_BY(mu);

  void OpenGate() {
    base::MutexLock lock(&mu);
    gate_open = true;
  }
  bool AwaitStopEntered() {
    base::MutexLock lock(&mu);
    return mu.AwaitWithTimeout([this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { return stop_entered; },
                               kLimit);
  }
  bool IsDeleted() {
    base::MutexLock lock(&mu);
    return deleted;
  }
  std::thread::id DeletedOn() {
    base::MutexLock lock(&mu);
    return deleted_on;
  }
};

class ProbeScheduler : public scheduling::Scheduler {
 public:
  explicit ProbeScheduler(std::shared_ptr<Probe> probe) : probe_(std::move(probe)) {}
  ~ProbeScheduler() override {
    base::MutexLock lock(&probe_->mu);
    probe_->stopped_before_delete = probe_->stopped;
    probe_->deleted = true;
    probe_->deleted_on = std::this_thread::get_id();
  }
  void Submit(std::unique_ptr<INFERD_Request> request) override {
    request->Complete(absl::UnimplementedError("probe"));
  }
  void Stop() override {
    base::MutexLock lock(&probe_->mu);
    probe_->stop_entered = true;
    probe_->mu.Await([this]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return probe_->gate_open; });
    probe_->stopped = true;
  }
  void FailQueued(const absl::Status&) override {}

 protected:
  const std::shared_ptr<Probe> probe_;
};

// A scheduler with an "instance thread" that runs posted tasks; Stop()
// joins it, which would deadlock (or throw) if it ran on that very thread.
class ThreadedScheduler final : public ProbeScheduler {
 public:
  explicit ThreadedScheduler(std::shared_ptr<Probe> probe)
      : ProbeScheduler(std::move(probe)), thread_([this] { Run(); }) {}
  ~ThreadedScheduler() override { Join(); }
  void Stop() override {
    Join();
    ProbeScheduler::Stop();
  }
  void Post(std::function<void()> task) {
    base::MutexLock lock(&mu_);
    tasks_.push_back(std::move(task));
  }
  std::thread::id instance_thread() const { return thread_.get_id(); }

 private:
  void Join() {
    {
      base::MutexLock lock(&mu_);
      stop_ = true;
    }
    if (thread_.joinable()) thread_.join();
  }
  void Run() {
    for (;;) {
      std::function<void()> task;
      {
        base::MutexLock lock(&mu_);
        mu_.Await([this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stop_ || !tasks_.empty(); });
        if (tasks_.empty()) return;
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }

  base::Mutex mu_;
  std::deque<std::function<void()>> tasks_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

std::unique_ptr<ModelVersion> MakeVersion(std::unique_ptr<scheduling::Scheduler> scheduler,
                                          int64_t version) {
  auto config = std::make_shared<inference::ModelConfig>();
  config->set_name("m");
  return std::make_unique<ModelVersion>(std::move(config), version, nullptr, std::move(scheduler));
}

// Records on_released calls: the id, the thread, and whether the version
// with that id had been deleted by then.
class Released {
 public:
  explicit Released(std::map<uint64_t, std::shared_ptr<Probe>> probes)
      : probes_(std::move(probes)) {}
  std::function<void(uint64_t)> Callback() {
    return [this](uint64_t id) {
      const bool deleted = probes_.at(id)->IsDeleted();
      base::MutexLock lock(&mu_);
      ids_.push_back(id);
      threads_.push_back(std::this_thread::get_id());
      deleted_first_.push_back(deleted);
    };
  }
  bool AwaitCount(size_t n) {
    base::MutexLock lock(&mu_);
    return mu_.AwaitWithTimeout(
        [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return ids_.size() >= n; }, kLimit);
  }
  std::vector<uint64_t> ids() {
    base::MutexLock lock(&mu_);
    return ids_;
  }
  std::vector<std::thread::id> threads() {
    base::MutexLock lock(&mu_);
    return threads_;
  }
  std::vector<bool> deleted_first() {
    base::MutexLock lock(&mu_);
    return deleted_first_;
  }

 private:
  const std::map<uint64_t, std::shared_ptr<Probe>> probes_;
  base::Mutex mu_;
  std::vector<uint64_t> ids_ ABSL_GUARDED_BY(mu_);
  std::vector<std::thread::id> threads_ ABSL_GUARDED_BY(mu_);
  std::vector<bool> deleted_first_ ABSL_GUARDED_BY(mu_);
};

TEST(VersionUnloaderTest, StopsAndDeletesOnItsThreadThenReportsReleased) {
  auto probe = std::make_shared<Probe>();
  Released released({{7, probe}});
  VersionUnloader unloader(released.Callback());
  auto version = unloader.Adopt(MakeVersion(std::make_unique<ProbeScheduler>(probe), 1), 7);
  auto second_pin = version;
  version.reset();
  EXPECT_FALSE(probe->IsDeleted());  // a pin is left
  second_pin.reset();
  ASSERT_TRUE(released.AwaitCount(1));
  EXPECT_THAT(released.ids(), ElementsAre(7u));
  EXPECT_THAT(released.deleted_first(), ElementsAre(true));
  EXPECT_NE(probe->DeletedOn(), std::this_thread::get_id());
  EXPECT_EQ(released.threads()[0], probe->DeletedOn());
  base::MutexLock lock(&probe->mu);
  EXPECT_TRUE(probe->stopped_before_delete);
}

TEST(VersionUnloaderTest, TheLastPinOnlyQueuesTheVersion) {
  auto first = std::make_shared<Probe>();
  auto second = std::make_shared<Probe>();
  {
    base::MutexLock lock(&first->mu);
    first->gate_open = false;
  }
  Released released({{1, first}, {2, second}});
  VersionUnloader unloader(released.Callback());
  auto v1 = unloader.Adopt(MakeVersion(std::make_unique<ProbeScheduler>(first), 1), 1);
  auto v2 = unloader.Adopt(MakeVersion(std::make_unique<ProbeScheduler>(second), 2), 2);
  // Released on a helper thread, so that a deleter that unloaded inline
  // would fail the checks below instead of blocking the test at the gate.
  std::thread releasing([&v1] { v1.reset(); });
  ASSERT_TRUE(first->AwaitStopEntered());  // the unloader thread is busy with v1
  v2.reset();                              // returns at once: v2 waits in the queue
  EXPECT_FALSE(second->IsDeleted());
  EXPECT_TRUE(released.ids().empty());
  first->OpenGate();
  releasing.join();
  ASSERT_TRUE(released.AwaitCount(2));
  EXPECT_THAT(released.ids(), ElementsAre(1u, 2u));
  EXPECT_THAT(released.deleted_first(), ElementsAre(true, true));
  EXPECT_EQ(first->DeletedOn(), second->DeletedOn());
  EXPECT_NE(second->DeletedOn(), std::this_thread::get_id());
}

TEST(VersionUnloaderTest, LastPinDroppedOnTheVersionsOwnInstanceThreadDoesNotDeadlock) {
  auto probe = std::make_shared<Probe>();
  Released released({{5, probe}});
  VersionUnloader unloader(released.Callback());
  auto scheduler = std::make_unique<ThreadedScheduler>(probe);
  ThreadedScheduler* instance = scheduler.get();
  const std::thread::id instance_thread = instance->instance_thread();
  auto version = unloader.Adopt(MakeVersion(std::move(scheduler), 1), 5);
  // As a request callback running on the instance thread would: the last
  // pin goes away there, and unloading it must join that thread.
  instance->Post([pin = std::move(version)]() mutable { pin.reset(); });
  ASSERT_TRUE(released.AwaitCount(1)) << "unloading a version from its own thread hung";
  EXPECT_THAT(released.ids(), ElementsAre(5u));
  EXPECT_NE(probe->DeletedOn(), instance_thread);
  EXPECT_NE(probe->DeletedOn(), std::this_thread::get_id());
}

TEST(VersionUnloaderTest, DestructorUnloadsWhatIsQueued) {
  std::map<uint64_t, std::shared_ptr<Probe>> probes;
  for (uint64_t id : {1u, 2u, 3u}) probes[id] = std::make_shared<Probe>();
  {
    base::MutexLock lock(&probes[1]->mu);
    probes[1]->gate_open = false;
  }
  Released released(probes);
  auto unloader = std::make_unique<VersionUnloader>(released.Callback());
  std::vector<std::shared_ptr<ModelVersion>> versions;
  for (uint64_t id : {1u, 2u, 3u}) {
    versions.push_back(unloader->Adopt(
        MakeVersion(std::make_unique<ProbeScheduler>(probes[id]), static_cast<int64_t>(id)), id));
  }
  std::thread releasing([&versions] { versions[0].reset(); });
  ASSERT_TRUE(probes[1]->AwaitStopEntered());
  versions[1].reset();
  versions[2].reset();  // 2 and 3 wait in the queue behind 1
  EXPECT_FALSE(probes[2]->IsDeleted());
  EXPECT_FALSE(probes[3]->IsDeleted());
  std::thread destroying([&unloader] { unloader.reset(); });
  probes[1]->OpenGate();
  destroying.join();
  releasing.join();
  // The destructor returned only after every queued version was unloaded.
  for (uint64_t id : {1u, 2u, 3u}) EXPECT_TRUE(probes[id]->IsDeleted()) << id;
  EXPECT_THAT(released.ids(), ElementsAre(1u, 2u, 3u));
}

TEST(VersionUnloaderTest, PinOutlivingTheUnloaderIsUnloadedWhereItIsReleased) {
  auto probe = std::make_shared<Probe>();
  Released released({{9, probe}});
  auto unloader = std::make_unique<VersionUnloader>(released.Callback());
  auto version = unloader->Adopt(MakeVersion(std::make_unique<ProbeScheduler>(probe), 1), 9);
  unloader.reset();
  EXPECT_FALSE(probe->IsDeleted());
  version.reset();
  EXPECT_TRUE(probe->IsDeleted());
  EXPECT_EQ(probe->DeletedOn(), std::this_thread::get_id());
  EXPECT_TRUE(released.ids().empty());  // nobody waits for the id any more
  base::MutexLock lock(&probe->mu);
  EXPECT_TRUE(probe->stopped_before_delete);
}

}  // namespace
}  // namespace inferd::lifecycle
