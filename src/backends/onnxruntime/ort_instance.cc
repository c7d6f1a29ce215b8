// SPDX-License-Identifier: Apache-2.0
#include "ort_instance.h"

#include <string>
#include <vector>

#include "ort_errors.h"
#include "ort_input_builder.h"
#include "ort_output_writer.h"
#include "ort_request_batch.h"

namespace inferd::ort {

OrtInstance::OrtInstance(const OrtModel& model, Ort::Session session)
    : model_(model),
      session_(std::move(session)),
      cpu_(Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault)) {}

StatusOr<std::unique_ptr<OrtInstance>> OrtInstance::Create(const OrtModel& model, uint32_t index) {
  // Errors already name the model; the index adds nothing the server lacks.
  (void)index;
  StatusOr<Ort::Session> session = model.CreateSession();
  if (!session.ok()) return session.status();
  return std::unique_ptr<OrtInstance>(new OrtInstance(model, std::move(*session)));
}

void OrtInstance::Execute(INFERD_Request** requests, size_t count) noexcept {
  RequestBatch batch(model_.api(), requests, count);
  Status status = CatchAll([&] { return Run(batch); });
  // Success completes with no error; a failure fails whatever is still open,
  // including requests that already received some outputs.
  batch.CompleteRemaining(WithContext(status, "model '" + model_.name() + "'"));
}

Status OrtInstance::Run(RequestBatch& batch) {
  if (batch.size() == 0) return Status();
  BatchInputs inputs;
  INFERD_ORT_RETURN_IF_ERROR(BuildInputs(model_, batch, cpu_, inputs));
  const RequestedOutputs requested = CollectRequestedOutputs(batch);
  if (requested.names.empty()) return Status();

  std::vector<const char*> output_names;
  for (const std::string& name : requested.names) output_names.push_back(name.c_str());
  const uint64_t compute_start = batch.Now();
  std::vector<Ort::Value> results =
      session_.Run(Ort::RunOptions{nullptr}, inputs.names.data(), inputs.values.data(),
                   inputs.values.size(), output_names.data(), output_names.size());
  batch.ReportComputeTimes(compute_start, batch.Now());
  for (size_t j = 0; j < results.size() && j < requested.names.size(); ++j) {
    const std::string& name = requested.names[j];
    INFERD_ORT_RETURN_IF_ERROR(WriteOutput(
        batch, inputs.batch_sizes,
        OutputToWrite{name, model_.FindOutput(name), std::move(results[j]), requested.wanted[j]}));
  }
  return Status();
}

}  // namespace inferd::ort
