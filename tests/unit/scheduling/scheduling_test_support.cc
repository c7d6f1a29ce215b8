// SPDX-License-Identifier: Apache-2.0
#include "scheduling_test_support.h"

#include <algorithm>

namespace inferd::scheduling::testing {

void ExecutionLog::Started(int instance, std::vector<std::string> ids, int64_t rows) {
  base::MutexLock lock(&mu_);
  runs_.push_back(Run{instance, std::move(ids), rows});
  ++running_;
  max_running_ = std::max(max_running_, running_);
  if (++running_on_[instance] > 1) instance_overlapped_ = true;
}

void ExecutionLog::Finished(int instance) {
  base::MutexLock lock(&mu_);
  --running_;
  --running_on_[instance];
  ++finished_;
}

void ExecutionLog::AwaitStarted(size_t count) {
  base::MutexLock lock(&mu_);
  auto done = [this, count]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return runs_.size() >= count; };
  mu_.Await(done);
}

void ExecutionLog::AwaitFinished(size_t count) {
  base::MutexLock lock(&mu_);
  auto done = [this, count]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return finished_ >= count; };
  mu_.Await(done);
}

std::vector<ExecutionLog::Run> ExecutionLog::runs() const {
  base::MutexLock lock(&mu_);
  return runs_;
}

std::vector<std::string> ExecutionLog::ExecutedIds() const {
  base::MutexLock lock(&mu_);
  std::vector<std::string> ids;
  for (const auto& run : runs_) ids.insert(ids.end(), run.ids.begin(), run.ids.end());
  return ids;
}

int ExecutionLog::running() const {
  base::MutexLock lock(&mu_);
  return running_;
}

bool ExecutionLog::instance_overlapped() const {
  base::MutexLock lock(&mu_);
  return instance_overlapped_;
}

int ExecutionLog::max_running() const {
  base::MutexLock lock(&mu_);
  return max_running_;
}

void Gate::Close() {
  base::MutexLock lock(&mu_);
  open_ = false;
}

void Gate::Open() {
  base::MutexLock lock(&mu_);
  open_ = true;
}

void Gate::HoldOnly(std::string id) {
  base::MutexLock lock(&mu_);
  only_ = std::move(id);
}

void Gate::Wait(const std::vector<std::string>& ids) {
  base::MutexLock lock(&mu_);
  if (!only_.empty() && std::find(ids.begin(), ids.end(), only_) == ids.end()) return;
  mu_.Await([this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return open_; });
}

void RecordingInstance::Execute(std::vector<std::unique_ptr<INFERD_Request>> requests) {
  std::vector<std::string> ids;
  int64_t rows = 0;
  for (const auto& request : requests) {
    ids.push_back(request->request().id);
    rows += request->batch_size();
  }
  log_.Started(index_, ids, rows);
  gate_.Wait(ids);
  for (auto& request : requests) request->Complete(absl::OkStatus());
  log_.Finished(index_);
}

std::vector<std::unique_ptr<backends::BackendInstance>> MakeInstances(int count, ExecutionLog& log,
                                                                      Gate& gate) {
  std::vector<std::unique_ptr<backends::BackendInstance>> instances;
  for (int i = 0; i < count; ++i)
    instances.push_back(std::make_unique<RecordingInstance>(i, log, gate));
  return instances;
}

void FakeTimer::Schedule(TimerClient* client, int64_t at_nanos) {
  base::MutexLock lock(&mu_);
  for (auto& [c, at] : pending_) {
    if (c == client) {
      at = std::min(at, at_nanos);
      return;
    }
  }
  pending_.emplace_back(client, at_nanos);
}

void FakeTimer::Cancel(TimerClient* client) {
  base::MutexLock lock(&mu_);
  std::erase_if(pending_, [client](const auto& p) { return p.first == client; });
}

std::optional<int64_t> FakeTimer::ScheduledFor(TimerClient* client) const {
  base::MutexLock lock(&mu_);
  for (const auto& [c, at] : pending_) {
    if (c == client) return at;
  }
  return std::nullopt;
}

void Answers::Record(const std::string& id, absl::Status status) {
  base::MutexLock lock(&mu_);
  answers_.emplace_back(id, std::move(status));
}

void Answers::AwaitCount(size_t count) {
  base::MutexLock lock(&mu_);
  auto done = [this, count]()
                  ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return answers_.size() >= count; };
  mu_.Await(done);
}

std::optional<absl::Status> Answers::For(const std::string& id) const {
  base::MutexLock lock(&mu_);
  for (const auto& [i, status] : answers_) {
    if (i == id) return status;
  }
  return std::nullopt;
}

std::vector<std::string> Answers::Order() const {
  base::MutexLock lock(&mu_);
  std::vector<std::string> ids;
  for (const auto& [id, status] : answers_) ids.push_back(id);
  return ids;
}

size_t Answers::count() const {
  base::MutexLock lock(&mu_);
  return answers_.size();
}

BatchingConfig Batching(int max_batch_size, BatchingConfig config) {
  config.model_name = "m";
  config.max_batch_size = max_batch_size;
  return config;
}

std::shared_ptr<const backends::ModelIO> MakeIO(int max_batch_size,
                                                std::shared_ptr<core::ModelStats> stats) {
  auto io = std::make_shared<backends::ModelIO>();
  io->model_name = "m";
  io->model_version = 1;
  io->max_batch_size = max_batch_size;
  io->stats = std::move(stats);
  return io;
}

std::unique_ptr<INFERD_Request> MakeRequest(const RequestSpec& spec, Answers& answers,
                                            std::shared_ptr<const backends::ModelIO> io) {
  if (io == nullptr) io = MakeIO(64, nullptr);
  auto request = std::make_unique<core::InferRequest>();
  request->model_name = "m";
  request->id = spec.id;
  core::Tensor x;
  x.name = "x";
  x.datatype = core::DataType::kInt32;
  x.shape.push_back(spec.rows);
  x.shape.insert(x.shape.end(), spec.inner_shape.begin(), spec.inner_shape.end());
  request->inputs.push_back(std::move(x));
  request->cancellation = spec.cancellation;
  auto result = std::make_unique<INFERD_Request>(
      std::move(request),
      [&answers, id = spec.id](absl::StatusOr<core::InferResponse> response) {
        answers.Record(id, response.status());
      },
      std::move(io), std::vector<std::string>{}, spec.rows, nullptr);
  result->SetScheduling(spec.priority, spec.timeout_micros);
  return result;
}

}  // namespace inferd::scheduling::testing
