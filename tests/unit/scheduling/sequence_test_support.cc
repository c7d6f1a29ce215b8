// SPDX-License-Identifier: Apache-2.0
#include "sequence_test_support.h"

#include <cstring>

namespace inferd::scheduling::testing {
namespace {

const core::Tensor* FindInput(const INFERD_Request& request, std::string_view name) {
  for (const auto& t : request.request().inputs) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

template <typename T>
std::optional<T> First(const INFERD_Request& request, std::string_view name) {
  const core::Tensor* t = FindInput(request, name);
  if (t == nullptr || t->data.size < sizeof(T)) return std::nullopt;
  T value;
  std::memcpy(&value, t->data.data, sizeof(T));
  return value;
}

core::Buffer Int32(int32_t value) {
  return core::Buffer::Copy(std::string_view(reinterpret_cast<const char*>(&value), 4));
}

}  // namespace

void SequenceLog::Record(int instance, std::vector<SeenRow> rows) {
  base::MutexLock lock(&mu_);
  batches_.emplace_back(instance, std::move(rows));
}

void SequenceLog::AwaitBatches(size_t count) {
  base::MutexLock lock(&mu_);
  mu_.Await([this, count]()
                ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return batches_.size() >= count; });
}

std::vector<std::pair<int, std::vector<SeenRow>>> SequenceLog::batches() const {
  base::MutexLock lock(&mu_);
  return batches_;
}

std::vector<SeenRow> SequenceLog::RowsOf(const std::string& id) const {
  base::MutexLock lock(&mu_);
  std::vector<SeenRow> rows;
  for (const auto& [instance, batch] : batches_) {
    for (const auto& row : batch) {
      if (row.id == id) rows.push_back(row);
    }
  }
  return rows;
}

void SequenceGate::Close() {
  base::MutexLock lock(&mu_);
  open_ = false;
}

void SequenceGate::Open() {
  base::MutexLock lock(&mu_);
  open_ = true;
}

void SequenceGate::Pass() {
  base::MutexLock lock(&mu_);
  mu_.Await([this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return open_; });
}

void AccumulatorInstance::Execute(std::vector<std::unique_ptr<INFERD_Request>> requests) {
  std::vector<SeenRow> rows;
  for (const auto& request : requests) {
    SeenRow row;
    row.id = request->request().id;
    row.x = First<int32_t>(*request, "x").value_or(0);
    row.start = First<int32_t>(*request, "START");
    row.end = First<int32_t>(*request, "END");
    row.ready = First<int32_t>(*request, "READY");
    row.corrid = First<uint64_t>(*request, "CORRID");
    row.state = First<int32_t>(*request, "S_IN");
    if (const core::Tensor* start = FindInput(*request, "START")) row.start_shape = start->shape;
    rows.push_back(row);
  }
  log_.Record(index_, rows);
  gate_.Pass();
  for (size_t i = 0; i < requests.size(); ++i) {
    auto& request = requests[i];
    const int32_t y = rows[i].x + rows[i].state.value_or(0);
    absl::Status status;
    const int64_t shape[2] = {1, 1};
    const size_t rank = request->io().max_batch_size > 0 ? 2 : 1;
    for (const auto& name : request->output_names()) {
      if (!status.ok()) break;
      status = request->AddOutput(name, INFERD_TYPE_INT32, rank == 2 ? shape : shape + 1, rank,
                                  Int32(y));
    }
    INFERD_Request* raw = request.release();
    if (status.ok() && raw->io().decoupled) status = raw->SendResponse(absl::OkStatus(), false);
    raw->Complete(status);
    delete raw;
  }
}

std::vector<std::unique_ptr<backends::BackendInstance>> MakeAccumulators(int count,
                                                                         SequenceLog& log,
                                                                         SequenceGate& gate) {
  std::vector<std::unique_ptr<backends::BackendInstance>> out;
  for (int i = 0; i < count; ++i)
    out.push_back(std::make_unique<AccumulatorInstance>(i, log, gate));
  return out;
}

SequenceConfig AccumulatorConfig(int max_batch_size, bool with_state) {
  SequenceConfig config;
  config.model_name = "m";
  config.max_batch_size = max_batch_size;
  for (auto [name, kind] :
       {std::pair{"START", ControlKind::kStart}, std::pair{"END", ControlKind::kEnd},
        std::pair{"READY", ControlKind::kReady}}) {
    config.controls.push_back(SequenceControl{name, kind, core::DataType::kInt32,
                                              ControlValueBytes(core::DataType::kInt32, 0),
                                              ControlValueBytes(core::DataType::kInt32, 1)});
  }
  config.controls.push_back(
      SequenceControl{"CORRID", ControlKind::kCorrId, core::DataType::kUint64, "", ""});
  if (with_state) {
    SequenceStateSpec state;
    state.input_name = "S_IN";
    state.output_name = "S_OUT";
    state.datatype = core::DataType::kInt32;
    state.dims = {1};
    state.initial_shape = {1};
    state.initial_data = Int32(0);
    config.states.push_back(std::move(state));
  }
  return config;
}

std::shared_ptr<const backends::ModelIO> AccumulatorIO(int max_batch_size,
                                                       std::shared_ptr<core::ModelStats> stats,
                                                       bool decoupled) {
  auto io = std::make_shared<backends::ModelIO>();
  io->decoupled = decoupled;
  io->model_name = "m";
  io->model_version = 1;
  io->max_batch_size = max_batch_size;
  io->outputs.push_back(backends::OutputSpec{"y", core::DataType::kInt32, {1}, false, false});
  io->outputs.push_back(backends::OutputSpec{"S_OUT", core::DataType::kInt32, {1}, false, false});
  io->stats = std::move(stats);
  return io;
}

void SequenceAnswers::Record(const std::string& id, absl::StatusOr<core::InferResponse> response) {
  One one;
  one.id = id;
  one.status = response.status();
  if (response.ok()) {
    for (const auto& output : response->outputs) {
      one.outputs.push_back(output.name);
      if (output.name == "y" && output.data.size >= 4) {
        int32_t y;
        std::memcpy(&y, output.data.data, 4);
        one.y = y;
      }
    }
  }
  base::MutexLock lock(&mu_);
  answers_.push_back(std::move(one));
}

void SequenceAnswers::AwaitCount(size_t count) {
  base::MutexLock lock(&mu_);
  mu_.Await([this, count]()
                ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return answers_.size() >= count; });
}

std::optional<absl::Status> SequenceAnswers::StatusOf(const std::string& id) const {
  base::MutexLock lock(&mu_);
  for (const auto& one : answers_) {
    if (one.id == id) return one.status;
  }
  return std::nullopt;
}

std::optional<int32_t> SequenceAnswers::YOf(const std::string& id) const {
  base::MutexLock lock(&mu_);
  for (const auto& one : answers_) {
    if (one.id == id) return one.y;
  }
  return std::nullopt;
}

std::vector<std::string> SequenceAnswers::OutputsOf(const std::string& id) const {
  base::MutexLock lock(&mu_);
  for (const auto& one : answers_) {
    if (one.id == id) return one.outputs;
  }
  return {};
}

void SequenceAnswers::RecordPartial(const std::string& id, const core::InferResponse& response) {
  for (const auto& output : response.outputs) {
    if (output.name != "y" || output.data.size < 4) continue;
    int32_t y;
    std::memcpy(&y, output.data.data, 4);
    base::MutexLock lock(&mu_);
    partial_.emplace_back(id, y);
  }
}

std::vector<int32_t> SequenceAnswers::PartialYsOf(const std::string& id) const {
  base::MutexLock lock(&mu_);
  std::vector<int32_t> ys;
  for (const auto& [who, y] : partial_) {
    if (who == id) ys.push_back(y);
  }
  return ys;
}

size_t SequenceAnswers::count() const {
  base::MutexLock lock(&mu_);
  return answers_.size();
}

size_t SequenceAnswers::CountOf(const std::string& id) const {
  base::MutexLock lock(&mu_);
  size_t n = 0;
  for (const auto& one : answers_) n += one.id == id ? 1 : 0;
  return n;
}

std::unique_ptr<INFERD_Request> MakeSequenceRequest(const SequenceRequestSpec& spec,
                                                    SequenceAnswers& answers,
                                                    std::shared_ptr<const backends::ModelIO> io,
                                                    std::vector<std::string> outputs) {
  auto request = std::make_unique<core::InferRequest>();
  request->model_name = "m";
  request->id = spec.id;
  core::Tensor x{"x", core::DataType::kInt32, {}, Int32(spec.x)};
  if (io->max_batch_size > 0) x.shape.push_back(spec.rows);
  x.shape.push_back(1);
  request->inputs.push_back(std::move(x));
  request->parameters["sequence_id"] = spec.sequence_id;
  request->parameters["sequence_start"] = spec.start;
  request->parameters["sequence_end"] = spec.end;
  request->cancellation = spec.cancellation;
  request->deadline_nanos = spec.deadline_nanos;
  if (io->decoupled) {
    request->on_partial_response = [&answers,
                                    id = spec.id](absl::StatusOr<core::InferResponse> response) {
      if (response.ok()) answers.RecordPartial(id, *response);
    };
  }
  auto result = std::make_unique<INFERD_Request>(
      std::move(request),
      [&answers, id = spec.id](absl::StatusOr<core::InferResponse> response) {
        answers.Record(id, std::move(response));
      },
      std::move(io), std::move(outputs), spec.rows, nullptr);
  result->SetScheduling(0, spec.timeout_micros);
  return result;
}

}  // namespace inferd::scheduling::testing
