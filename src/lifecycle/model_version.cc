// SPDX-License-Identifier: Apache-2.0
#include "lifecycle/model_version.h"

#include <atomic>

namespace inferd::lifecycle {
namespace {

std::atomic<uint64_t> next_load_generation{1};

}  // namespace

std::shared_ptr<const backends::ModelIO> MakeModelIO(const inference::ModelConfig& config,
                                                     int64_t version,
                                                     std::shared_ptr<core::ModelStats> stats) {
  auto io = std::make_shared<backends::ModelIO>();
  io->stats = std::move(stats);
  io->model_name = config.name();
  io->model_version = version;
  io->max_batch_size = config.max_batch_size();
  io->decoupled = config.model_transaction_policy().decoupled();
  for (const auto& out : config.output()) {
    io->outputs.push_back(
        backends::OutputSpec{out.name(), static_cast<core::DataType>(out.data_type()),
                             core::Shape(out.dims().begin(), out.dims().end()), out.has_reshape(),
                             out.has_reshape() && out.reshape().shape_size() == 0});
  }
  // An implicit state's output that the config does not list as an output:
  // the backend produces it for the sequence batcher, never for the client.
  for (const auto& state : config.sequence_batching().state()) {
    if (io->FindOutput(state.output_name()) != nullptr) continue;
    io->outputs.push_back(
        backends::OutputSpec{state.output_name(), static_cast<core::DataType>(state.data_type()),
                             core::Shape(state.dims().begin(), state.dims().end()), false, false});
  }
  return io;
}

ModelVersion::ModelVersion(std::shared_ptr<const inference::ModelConfig> config, int64_t version,
                           std::unique_ptr<backends::BackendModel> backend_model,
                           std::unique_ptr<scheduling::Scheduler> scheduler,
                           std::shared_ptr<core::ModelStats> stats,
                           std::shared_ptr<const core::ClassLabels> labels)
    : config_(std::move(config)),
      version_(version),
      load_generation_(next_load_generation.fetch_add(1, std::memory_order_relaxed)),
      io_(MakeModelIO(*config_, version, std::move(stats))),
      labels_(labels ? std::move(labels) : std::make_shared<const core::ClassLabels>()),
      backend_model_(std::move(backend_model)),
      scheduler_(std::move(scheduler)) {}

ModelVersion::~ModelVersion() {
  scheduler_->Stop();
  scheduler_.reset();
}

}  // namespace inferd::lifecycle
