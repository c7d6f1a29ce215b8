// SPDX-License-Identifier: Apache-2.0
#include "scheduling/ensemble_scheduler.h"

#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/clock.h"
#include "base/mutex.h"

namespace inferd::scheduling {
namespace {

// One ensemble request in flight. Shared by the callbacks of its steps; the
// last one to finish (or the first to fail) answers the request.
class EnsembleRun : public std::enable_shared_from_this<EnsembleRun> {
 public:
  EnsembleRun(std::shared_ptr<const EnsembleGraph> graph, core::InferenceSubmitter* submitter,
              std::unique_ptr<INFERD_Request> request, std::vector<bool> needed)
      : graph_(std::move(graph)),
        submitter_(submitter),
        request_(std::move(request)),
        id_(request_->request().id),
        parameters_(request_->request().parameters),
        cancellation_(request_->request().cancellation),
        deadline_nanos_(request_->request().deadline_nanos),
        needed_(std::move(needed)),
        tensors_(graph_->tensor_names.size()),
        available_(graph_->tensor_names.size(), false),
        waiting_(graph_->steps.size(), 0) {}

  void Start() {
    const int64_t now = base::Clock::Real().NowNanos();
    request_->MarkQueued(now);
    request_->BeginExecution(
        std::make_shared<backends::ExecutionRecord>(now, request_->batch_size(), 1));
    start_nanos_ = now;
    std::vector<int> ready;
    {
      base::MutexLock lock(&mu_);
      for (const auto& input : request_->request().inputs) {
        const int t = graph_->FindTensor(input.name);
        if (t >= 0) tensors_[t] = input;
      }
      // The ensemble's inputs exist from the start, given or (optional) not.
      for (int t : graph_->inputs) available_[t] = true;
      for (size_t s = 0; s < graph_->steps.size(); ++s) {
        if (!needed_[s]) continue;
        ++steps_left_;
        for (const auto& in : graph_->steps[s].inputs) {
          if (!available_[in.tensor]) ++waiting_[s];
        }
        if (waiting_[s] == 0) ready.push_back(static_cast<int>(s));
      }
      if (steps_left_ == 0) done_ = true;  // validation makes this impossible
    }
    if (ready.empty()) {
      Finish(absl::OkStatus());
      return;
    }
    for (int s : ready) Launch(s);
  }

 private:
  void Launch(int s) {
    const EnsembleStep& step = graph_->steps[s];
    if (cancellation_ != nullptr && cancellation_->IsCancelled()) {
      Fail(s, absl::CancelledError("the request was cancelled before this step started"), "");
      return;
    }
    if (deadline_nanos_ > 0 && base::Clock::Real().NowNanos() >= deadline_nanos_) {
      Fail(s, absl::DeadlineExceededError("the request's deadline passed before this step started"),
           "");
      return;
    }
    auto request = std::make_unique<core::InferRequest>();
    request->model_name = step.model_name;
    request->model_version = step.model_version;
    request->id = id_;
    // Sequence ids and flags, priority and timeout reach the steps as Triton's do.
    request->parameters = parameters_;
    request->cancellation = cancellation_;
    request->deadline_nanos = deadline_nanos_;
    request->requested_outputs = step.output_names;
    {
      base::MutexLock lock(&mu_);
      if (done_) return;  // another branch failed meanwhile
      request->inputs.reserve(step.inputs.size());
      for (const auto& in : step.inputs) {
        if (!tensors_[in.tensor]) continue;          // an optional ensemble input not given
        core::Tensor tensor = *tensors_[in.tensor];  // shares the bytes
        tensor.name = in.model_tensor;
        request->inputs.push_back(std::move(tensor));
      }
    }
    submitter_->SubmitInternal(
        std::move(request), [self = shared_from_this(), s](absl::StatusOr<core::InferResponse> r) {
          self->OnStepDone(s, std::move(r));
        });
  }

  void OnStepDone(int s, absl::StatusOr<core::InferResponse> result) {
    if (!result.ok()) {
      auto version = result.status().GetPayload(core::kModelVersionPayload);
      Fail(s, result.status(), version ? std::string(*version) : std::string());
      return;
    }
    const EnsembleStep& step = graph_->steps[s];
    std::vector<int> ready;
    bool finished = false;
    {
      base::MutexLock lock(&mu_);
      if (done_) return;  // an earlier step failed; this result has no use
      for (auto& output : result->outputs) {
        for (const auto& out : step.outputs) {
          if (out.model_tensor != output.name) continue;
          output.name = graph_->tensor_names[out.tensor];
          tensors_[out.tensor] = std::move(output);
          break;
        }
      }
      for (const auto& out : step.outputs) {
        if (available_[out.tensor]) continue;
        available_[out.tensor] = true;
        for (int reader : graph_->consumers[out.tensor]) {
          if (needed_[reader] && --waiting_[reader] == 0) ready.push_back(reader);
        }
      }
      finished = --steps_left_ == 0;
      if (finished) done_ = true;
    }
    if (finished) {
      Finish(absl::OkStatus());
      return;
    }
    for (int next : ready) Launch(next);
  }

  // Fails the ensemble request once, naming the step, its model and version.
  void Fail(int s, const absl::Status& status, const std::string& version) {
    {
      base::MutexLock lock(&mu_);
      if (done_) return;
      done_ = true;
    }
    const EnsembleStep& step = graph_->steps[s];
    const std::string shown_version =
        !version.empty()
            ? version
            : (step.model_version.empty() ? std::string("newest ready") : step.model_version);
    Finish(absl::Status(
        status.code(),
        absl::StrCat("ensemble '", graph_->name, "' ", step.label, " failed: model '",
                     step.model_name, "' version ", shown_version, ": ", status.message())));
  }

  void Finish(absl::Status status) {
    request_->SetComputeTimes(start_nanos_, base::Clock::Real().NowNanos());
    if (status.ok()) {
      for (const auto& name : request_->output_names()) {
        const int t = graph_->FindTensor(name);
        if (t < 0 || !tensors_[t]) continue;  // Complete reports it missing
        const core::Tensor& tensor = *tensors_[t];
        status = request_->AddOutput(name, static_cast<INFERD_DataType>(tensor.datatype),
                                     tensor.shape.data(), tensor.shape.size(), tensor.data);
        if (!status.ok()) break;
      }
    }
    const core::FailureReason reason =
        absl::IsCancelled(status) ? core::FailureReason::kCanceled : core::FailureReason::kBackend;
    std::unique_ptr<INFERD_Request> request = std::move(request_);
    request->Complete(std::move(status), reason);
  }

  const std::shared_ptr<const EnsembleGraph> graph_;
  core::InferenceSubmitter* const submitter_;
  // Moved out by Finish (exactly once: whoever sets done_). Launch reads
  // only the copies below, which stay valid after that.
  std::unique_ptr<INFERD_Request> request_;
  const std::string id_;
  const core::Parameters parameters_;
  const std::shared_ptr<core::CancellationToken> cancellation_;
  const int64_t deadline_nanos_;
  const std::vector<bool> needed_;
  int64_t start_nanos_ = 0;

  base::Mutex mu_;
  std::vector<std::optional<core::Tensor>> tensors_ ABSL_GUARDED_BY(mu_);
  std::vector<bool> available_ ABSL_GUARDED_BY(mu_);
  std::vector<int> waiting_ ABSL_GUARDED_BY(mu_);
  int steps_left_ ABSL_GUARDED_BY(mu_) = 0;
  bool done_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace

EnsembleScheduler::EnsembleScheduler(std::shared_ptr<const EnsembleGraph> graph,
                                     core::InferenceSubmitter* submitter)
    : graph_(std::move(graph)),
      all_outputs_steps_(graph_->StepsFor(graph_->outputs)),
      submitter_(submitter) {}

void EnsembleScheduler::Submit(std::unique_ptr<INFERD_Request> request) {
  if (stopped_.load(std::memory_order_acquire)) {
    request->Complete(
        absl::UnavailableError(absl::StrCat("ensemble '", graph_->name, "' is being unloaded")),
        core::FailureReason::kOther);
    return;
  }
  if (submitter_ == nullptr) {
    request->Complete(absl::FailedPreconditionError("ensembles need a server to run in"));
    return;
  }
  std::vector<bool> needed = all_outputs_steps_;
  if (request->output_names().size() != graph_->outputs.size()) {
    // Only the steps that lead to the outputs asked for.
    std::vector<int> wanted;
    for (const auto& name : request->output_names()) wanted.push_back(graph_->FindTensor(name));
    needed = graph_->StepsFor(wanted);
  }
  auto run =
      std::make_shared<EnsembleRun>(graph_, submitter_, std::move(request), std::move(needed));
  run->Start();
}

void EnsembleScheduler::Stop() { stopped_.store(true, std::memory_order_release); }

}  // namespace inferd::scheduling
