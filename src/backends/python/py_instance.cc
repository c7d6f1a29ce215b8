// SPDX-License-Identifier: Apache-2.0
#include "py_instance.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "py_log.h"

namespace inferd::python {
namespace {

using backend_util::RequestBatch;
using backend_util::WithContext;
using Clock = std::chrono::steady_clock;

// A worker that keeps failing to start is retried at most this often, so a
// broken model.py cannot turn every request into a process spawn.
constexpr auto kRestartInterval = std::chrono::seconds(1);
// How long finalize() may run when an instance is deleted.
constexpr auto kFinalizeTimeout = std::chrono::seconds(30);

std::optional<Clock::time_point> DeadlineAfter(std::chrono::milliseconds timeout) {
  if (timeout.count() <= 0) return std::nullopt;
  return Clock::now() + timeout;
}

// Keeps whatever a response output points into (a region block, or the
// received payload for inline outputs) alive until the server releases it.
struct Keepalive {
  std::shared_ptr<const void> held;
  static void Release(void* context) { delete static_cast<Keepalive*>(context); }
};

// One input of one request, as the server lent it.
struct InputView {
  const char* name = nullptr;
  INFERD_DataType datatype = INFERD_TYPE_INVALID;
  const int64_t* shape = nullptr;
  size_t shape_count = 0;
  const void* data = nullptr;
  size_t byte_size = 0;
  std::optional<uint64_t> offset;  // placed in the region
};

}  // namespace

std::string PyInstance::Describe() const {
  return "python model '" + model_.name + "' instance " + std::to_string(index_);
}

BlsContext PyInstance::MakeBlsContext(std::shared_ptr<RegionBlock> output_range,
                                      const INFERD_Request* parent, std::string unavailable) {
  BlsContext context;
  context.api = model_.api;
  context.channel = &worker_->channel();
  context.mailbox = mailbox_;
  context.region = region_sent_ ? region_ : nullptr;
  context.output_range = std::move(output_range);
  context.parent = parent;
  if (unavailable.empty() && model_.server == nullptr) {
    unavailable = "this server does not take BLS requests from Python models";
  }
  if (unavailable.empty() && mailbox_ == nullptr) unavailable = mailbox_error_;
  if (unavailable.empty()) context.server = model_.server;
  context.unavailable = std::move(unavailable);
  return context;
}

StatusOr<WorkerChannel::Message> PyInstance::Await(BlsExchange& bls,
                                                   WorkerChannel::Deadline deadline,
                                                   bool* timed_out) {
  *timed_out = false;
  WorkerChannel& channel = worker_->channel();
  for (;;) {
    // The execute timeout bounds the whole exchange, BLS calls included;
    // a BLS timeout only wakes us to answer that call.
    WorkerChannel::Deadline wait = deadline;
    if (std::optional<Clock::time_point> expiry = bls.NextExpiry();
        expiry && (!wait || *expiry < *wait)) {
      wait = expiry;
    }
    StatusOr<WorkerChannel::Received> received = channel.ReceiveOrWake(wait, bls.wake_fd());
    if (!received.ok()) return received.status();
    switch (received->event) {
      case WorkerChannel::Event::kWoken:
        INFERD_BACKEND_RETURN_IF_ERROR(bls.Deliver());
        break;
      case WorkerChannel::Event::kTimedOut:
        if (deadline && Clock::now() >= *deadline) {
          *timed_out = true;
          return Status(INFERD_ERROR_UNAVAILABLE, "the Python worker did not answer in time");
        }
        INFERD_BACKEND_RETURN_IF_ERROR(bls.ExpireDue());
        break;
      case WorkerChannel::Event::kMessage:
        if (received->message.type != MessageType::kBlsRequest) {
          return std::move(received->message);
        }
        uses_bls_ = true;
        INFERD_BACKEND_RETURN_IF_ERROR(bls.OnRequest(std::move(received->message.payload)));
        break;
    }
  }
}

Status PyInstance::StartResponses() {
  const ShmMode mode = region_failed_ ? ShmMode::kNone : model_.params.shm_mode;
  StatusOr<std::unique_ptr<ResponseRouter>> router = ResponseRouter::Create(
      *model_.api, model_.decoupled, Describe(), mode, model_.response_pool_bytes,
      model_.name + "-" + std::to_string(index_));
  if (!router.ok()) return router.status();
  router_ = std::move(*router);
  router_->SetWorkerDescription("the worker (pid " + std::to_string(worker_->pid()) + ")");
  WorkerChannel& channel = worker_->channel();
  INFERD_BACKEND_RETURN_IF_ERROR(
      channel.Send(MessageType::kResponseSocket, std::span<const iovec>(), router_->worker_fd()));
  router_->CloseWorkerEnd();
  if (const std::shared_ptr<ShmRegion>& pool = router_->pool()) {
    uint64_t size = pool->size();
    const iovec payload{&size, sizeof(size)};
    INFERD_BACKEND_RETURN_IF_ERROR(
        channel.Send(MessageType::kResponsePool, std::span<const iovec>(&payload, 1), pool->fd()));
  }
  // Every model may ask is_cancelled() and answer through a sender.
  router_->Start();
  return Status();
}

PyInstance::~PyInstance() {
  if (worker_ == nullptr) return;
  if (worker_->Running() &&
      worker_->channel().Send(MessageType::kFinalize, std::span<const uint8_t>()).ok()) {
    // The models a BLS call would reach may be unloading too.
    BlsExchange bls(MakeBlsContext(nullptr, nullptr, "BLS requests are not served in finalize()"));
    bool timed_out = false;
    (void)Await(bls, Clock::now() + kFinalizeTimeout, &timed_out);
    worker_->WaitOrKill(2000);
  }
  worker_.reset();
}

Status PyInstance::SendRegion() {
  uint64_t size = region_->size();
  const iovec payload{&size, sizeof(size)};
  INFERD_BACKEND_RETURN_IF_ERROR(worker_->channel().Send(
      MessageType::kRegion, std::span<const iovec>(&payload, 1), region_->fd()));
  region_sent_ = true;
  return Status();
}

Status PyInstance::Start() {
  last_start_attempt_ = Clock::now();
  last_start_error_ = StartWorker();
  return last_start_error_;
}

Status PyInstance::StartWorker() {
  // The model and instance on the command line, so that ps tells workers
  // apart (the worker also names its thread after them: inferd_python_worker.py).
  WorkerCommand command = model_.command;
  command.arguments.insert(command.arguments.end(),
                           {"--model", model_.name, "--version", std::to_string(model_.version),
                            "--instance", std::to_string(index_)});
  StatusOr<std::unique_ptr<WorkerProcess>> started = WorkerProcess::Start(command);
  if (!started.ok()) return started.status();
  worker_ = std::move(*started);
  if (region_ == nullptr && !region_failed_ && model_.params.shm_mode != ShmMode::kNone) {
    StatusOr<std::shared_ptr<ShmRegion>> region =
        ShmRegion::Create(model_.params.shm_mode, model_.initial_region_bytes,
                          model_.name + "-" + std::to_string(index_));
    if (region.ok()) {
      region_ = std::move(*region);
    } else {
      region_failed_ = true;
      LogWarning(Describe() + ": no shared memory (" + region.status().message() +
                 "); tensors are copied through the worker's socket instead");
    }
  }
  region_sent_ = false;
  Status status = region_ != nullptr ? SendRegion() : Status();
  if (status.ok()) status = StartResponses();
  if (status.ok()) {
    const std::string init = InitMessageJson(model_, index_);
    status = worker_->channel().Send(
        MessageType::kInit,
        std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(init.data()), init.size()));
  }
  if (mailbox_ == nullptr && mailbox_error_.empty()) {
    StatusOr<std::shared_ptr<BlsMailbox>> mailbox = BlsMailbox::Create(*model_.api);
    if (mailbox.ok()) {
      mailbox_ = std::move(*mailbox);
    } else {
      mailbox_error_ = "BLS is unavailable: " + mailbox.status().message();
      LogWarning(Describe() + ": " + mailbox_error_);
    }
  }
  // initialize() may make BLS calls too (to models that are loaded by then).
  BlsExchange bls(MakeBlsContext(nullptr, nullptr));
  bool timed_out = false;
  StatusOr<WorkerChannel::Message> answer =
      status.ok() ? Await(bls, DeadlineAfter(model_.params.initialize_timeout), &timed_out)
                  : StatusOr<WorkerChannel::Message>(status);
  if (answer.ok() && answer->type == MessageType::kReady) return Status();

  Status failure;
  if (answer.ok() && answer->type == MessageType::kError) {
    ErrorMessage error = DecodeError(answer->payload);
    failure = Status(INFERD_ERROR_UNAVAILABLE, error.message);
  } else if (answer.ok()) {
    failure = Status::Internal("the Python worker answered INIT with message type " +
                               std::to_string(static_cast<int>(answer->type)));
  } else if (timed_out) {
    failure = Status(INFERD_ERROR_UNAVAILABLE,
                     "initialize() did not finish within initialize_timeout_seconds (" +
                         std::to_string(model_.params.initialize_timeout.count() / 1000.0) +
                         " s); the worker was killed");
  } else {
    worker_->WaitOrKill(1000);
    failure = Status(INFERD_ERROR_UNAVAILABLE,
                     "the Python worker (" + model_.command.interpreter + ", pid " +
                         std::to_string(worker_->pid()) + ") " + worker_->ExitDescription() +
                         " before initialize() finished; its output is in the server's log");
  }
  worker_->Kill();
  worker_.reset();
  return failure;
}

Status PyInstance::EnsureWorker() {
  if (worker_ != nullptr && worker_->Running()) return Status();
  if (worker_ != nullptr) {
    LogWarning(Describe() + ": the worker (pid " + std::to_string(worker_->pid()) + ") " +
               worker_->ExitDescription() + " while idle; starting a new one");
    worker_.reset();
  }
  if (!last_start_error_.ok() && Clock::now() - last_start_attempt_ < kRestartInterval) {
    return WithContext(last_start_error_, "the worker could not be restarted");
  }
  Status status = Start();
  if (!status.ok()) {
    LogWarning(Describe() + ": starting a new worker failed: " + status.message());
    return WithContext(status, "the worker could not be restarted");
  }
  LogInfo(Describe() + ": started a new worker (pid " + std::to_string(worker_->pid()) + ")");
  return Status();
}

std::string PyInstance::AbandonWorker(const Status& cause, bool timed_out) {
  const std::string pid = std::to_string(worker_->pid());
  std::string why;
  if (timed_out) {
    why = "execute() did not return within execute_timeout_seconds (" +
          std::to_string(model_.params.execute_timeout.count() / 1000.0) + " s); the worker (pid " +
          pid + ") was killed";
    worker_->Kill();
  } else {
    // Closed socket or a malformed message: give an exiting worker a moment
    // to be reaped so that the error can say how it ended.
    worker_->WaitOrKill(200);
    why = "the worker (pid " + pid + ") " + worker_->ExitDescription() +
          (cause.message().find("closed") != std::string::npos ? "" : " (" + cause.message() + ")");
  }
  worker_.reset();
  // The new worker gets the region again; nothing of the dead one's
  // allocations survives (the batch frees them).
  region_sent_ = false;
  LogWarning(Describe() + ": " + why + "; its requests failed, a new worker is starting");
  return why + " while executing this request; a new worker is starting";
}

bool PyInstance::GrowRegion(uint64_t needed) {
  if (model_.params.shm_mode == ShmMode::kNone || region_failed_) return false;
  const uint64_t current = region_ != nullptr ? region_->size() : 0;
  uint64_t size = std::max(current * 2, AlignUp(needed) * 2);
  size = std::min(size, model_.params.max_region_bytes);
  if (size <= current || size < needed) return false;
  // A size the system refused once is not asked for again: every batch
  // would otherwise pay a failing memfd/mmap and log it.
  if (refused_region_bytes_ != 0 && size >= refused_region_bytes_) return false;
  StatusOr<std::shared_ptr<ShmRegion>> region =
      ShmRegion::Create(model_.params.shm_mode, size, model_.name + "-" + std::to_string(index_));
  if (!region.ok()) {
    refused_region_bytes_ = size;
    LogWarning(Describe() + ": cannot grow the shared memory region to " + std::to_string(size) +
               " bytes (" + region.status().message() + "); larger tensors are copied inline");
    return false;
  }
  // Blocks still being sent keep the old region alive until released.
  region_ = std::move(*region);
  region_sent_ = false;
  return true;
}

Status PyInstance::RunBatch(RequestBatch& batch, std::vector<std::shared_ptr<OpenRequest>>& opens) {
  const INFERD_ServerApi& api = batch.api();
  const size_t count = batch.size();
  std::vector<std::vector<InputView>> inputs(count);
  std::vector<std::vector<std::string_view>> requested(count);
  uint64_t input_bytes = 0;
  for (size_t i = 0; i < count; ++i) {
    const size_t input_count = api.RequestInputCount(batch.request(i));
    inputs[i].resize(input_count);
    for (size_t j = 0; j < input_count; ++j) {
      InputView& view = inputs[i][j];
      api.RequestInput(batch.request(i), j, &view.name, &view.datatype, &view.shape,
                       &view.shape_count, &view.data, &view.byte_size);
      input_bytes += AlignUp(view.byte_size);
    }
    const size_t output_count = api.RequestOutputCount(batch.request(i));
    for (size_t j = 0; j < output_count; ++j) {
      requested[i].push_back(api.RequestOutputName(batch.request(i), j));
    }
  }

  // Inputs into the region (the one copy on the way in); a batch larger
  // than the free space grows the region first, and what still does not
  // fit travels inline.
  if (region_ != nullptr && input_bytes > region_->FreeBytes() / 2) {
    GrowRegion(region_->size() - region_->FreeBytes() + 2 * input_bytes);
  }
  std::shared_ptr<ShmRegion> region = region_;
  std::vector<std::pair<uint64_t, uint64_t>> input_blocks;
  struct FreeOnExit {
    std::shared_ptr<ShmRegion>& region;
    std::vector<std::pair<uint64_t, uint64_t>>& blocks;
    ~FreeOnExit() {
      if (region == nullptr) return;
      for (auto [offset, size] : blocks) region->Free(offset, size);
    }
  } free_on_exit{region, input_blocks};
  // The output range is freed by its last owner: this function, the
  // responses sending outputs from it, or a BLS target still reading an
  // input the worker placed in it.
  std::shared_ptr<RegionBlock> output_range;
  if (region != nullptr) {
    for (auto& request_inputs : inputs) {
      for (InputView& view : request_inputs) {
        if (view.byte_size == 0) continue;
        view.offset = region->Allocate(view.byte_size);
        if (!view.offset) continue;
        input_blocks.emplace_back(*view.offset, view.byte_size);
        std::memcpy(region->base() + *view.offset, view.data, view.byte_size);
      }
    }
    if (std::optional<ShmRegion::Range> range = region->ReserveLargest(uses_bls_ ? 2 : 1)) {
      output_range = std::make_shared<RegionBlock>(region, range->offset, range->size);
    }
  }
  if (region != nullptr && !region_sent_) INFERD_BACKEND_RETURN_IF_ERROR(SendRegion());

  ExecuteEncoder encoder(static_cast<uint32_t>(count), output_range ? output_range->offset() : 0,
                         output_range ? output_range->size() : 0);
  const uint64_t first_id = next_request_id_;
  next_request_id_ += count;
  for (size_t i = 0; i < count; ++i) {
    encoder.BeginRequest(first_id + i, static_cast<uint32_t>(inputs[i].size()));
    for (const InputView& view : inputs[i]) {
      WireTensor tensor;
      tensor.name = view.name;
      tensor.datatype = view.datatype;
      tensor.dims = std::span<const int64_t>(view.shape, view.shape_count);
      tensor.byte_size = view.byte_size;
      if (view.offset) {
        tensor.location = Location::kRegion;
        tensor.offset = *view.offset;
      } else {
        tensor.location = Location::kInline;
        tensor.data = static_cast<const uint8_t*>(view.data);
      }
      encoder.AddInput(tensor);
    }
    encoder.SetRequestedOutputs(requested[i]);
    WireCorrelationId correlation;
    const char* text_id = nullptr;
    if (api.RequestCorrelationId != nullptr) {
      api.RequestCorrelationId(batch.request(i), &correlation.numeric, &text_id);
    }
    if (text_id != nullptr) correlation.text = text_id;
    const char* parameters = api.RequestParametersJson != nullptr
                                 ? api.RequestParametersJson(batch.request(i))
                                 : nullptr;
    encoder.SetContext(parameters != nullptr ? parameters : "{}", correlation);
  }

  const uint64_t compute_start = batch.Now();
  // From here on a response sender may answer any of them, on the router's
  // thread, even before the RESULT.
  for (size_t i = 0; i < count; ++i) {
    opens.push_back(router_->Register(first_id + i, batch.request(i), compute_start));
    batch.HandOver(i);
  }
  // BLS calls of this batch are children of its first request: one of the
  // batch's clients giving up ends them (with several requests, a call
  // cannot say which one it serves).
  BlsExchange bls(MakeBlsContext(output_range, batch.request(0)));
  bool timed_out = false;
  Status sent = worker_->channel().Send(MessageType::kExecute, encoder.payload());
  StatusOr<WorkerChannel::Message> answer =
      sent.ok() ? Await(bls, DeadlineAfter(model_.params.execute_timeout), &timed_out)
                : StatusOr<WorkerChannel::Message>(sent);
  if (!answer.ok()) return Status::Internal(AbandonWorker(answer.status(), timed_out));
  const uint64_t compute_end = batch.Now();

  if (answer->type == MessageType::kError) {
    ErrorMessage error = DecodeError(answer->payload);
    return Status(error.code, error.message);
  }
  if (answer->type != MessageType::kResult) {
    return Status::Internal(
        AbandonWorker(Status::Internal("unexpected message type " +
                                       std::to_string(static_cast<int>(answer->type))),
                      false));
  }
  auto payload = std::make_shared<std::vector<uint8_t>>(std::move(answer->payload));
  StatusOr<ResultMessage> result = DecodeResult(*payload);
  const uint64_t range_size = output_range ? output_range->size() : 0;
  if (result.ok() && result->responses.size() != count) {
    result = Status::Internal(
        "malformed message from the Python worker: " + std::to_string(result->responses.size()) +
        " responses for " + std::to_string(count) + " requests");
  }
  if (result.ok() && result->output_bytes_used > range_size) {
    result = Status::Internal("malformed message from the Python worker: it used " +
                              std::to_string(result->output_bytes_used) + " bytes of a " +
                              std::to_string(range_size) + "-byte output range");
  }
  if (!result.ok()) return Status::Internal(AbandonWorker(result.status(), false));

  // The used part of the output range now belongs to the responses; the
  // rest is free again.
  // (BLS inputs are in the used part too: the worker bump-allocates both.)
  const uint64_t used = AlignUp(std::max(result->output_bytes_used, bls.input_high_mark()));
  const uint64_t used_begin = output_range ? output_range->offset() : 0;
  std::shared_ptr<RegionBlock> block = std::move(output_range);
  if (block != nullptr) block->Shrink(used);
  uint64_t inline_output_bytes = 0;
  for (size_t i = 0; i < count; ++i) {
    const WireResponse& response = result->responses[i];
    if (response.pending) {
      router_->Leave(*opens[i], compute_end);
      continue;
    }
    router_->CompleteFromResult(*opens[i], compute_end, [&](INFERD_Request* request) {
      if (response.has_error) {
        return api.ErrorNew(response.error_code, std::string(response.error_message).c_str());
      }
      for (const WireTensor& output : response.outputs) {
        const void* data = output.data;
        std::shared_ptr<const void> held = payload;
        if (output.location == Location::kRegion) {
          if (block == nullptr || output.offset < used_begin || output.byte_size > used ||
              output.offset - used_begin > used - output.byte_size) {
            return api.ErrorNew(INFERD_ERROR_INTERNAL,
                                "the Python worker placed an output outside its range");
          }
          data = region->base() + output.offset;
          held = block;
        } else {
          inline_output_bytes += output.byte_size;
        }
        const std::string name(output.name);
        INFERD_Error* error = api.ResponseAddOutput(
            request, name.c_str(), output.datatype, output.dims.data(), output.dims.size(), data,
            output.byte_size, &Keepalive::Release, new Keepalive{std::move(held)});
        if (error != nullptr) return error;
      }
      return static_cast<INFERD_Error*>(nullptr);
    });
  }
  // Outputs that did not fit: make room for the next batch like this one.
  if ((inline_output_bytes > 0 || bls.inline_bytes() > 0) && region != nullptr) {
    GrowRegion(region->size() + 2 * (inline_output_bytes + input_bytes + bls.inline_bytes()));
  }
  return Status();
}

void PyInstance::Execute(INFERD_Request** requests, size_t count) {
  std::optional<RequestBatch> batch;
  try {
    batch.emplace(*model_.api, requests, count);
  } catch (...) {
    for (size_t i = 0; i < count; ++i) {
      model_.api->RequestComplete(requests[i],
                                  model_.api->ErrorNew(INFERD_ERROR_INTERNAL, "out of memory"));
    }
    return;
  }
  std::vector<std::shared_ptr<OpenRequest>> opens;
  // A failed batch fails its requests that no response sender completed.
  auto fail = [&](const Status& status) {
    for (const std::shared_ptr<OpenRequest>& open : opens) {
      router_->CompleteIfOpen(*open, model_.api->ErrorNew(status.code(), status.message().c_str()));
    }
    batch->CompleteRemaining(status);
  };
  try {
    Status status = EnsureWorker();
    if (status.ok()) status = RunBatch(*batch, opens);
    if (status.ok()) {
      batch->CompleteRemaining(status);
    } else {
      fail(WithContext(status, Describe()));
    }
    opens.clear();
    // Replace a worker lost in this batch now, not when the next one waits.
    if (worker_ == nullptr) (void)EnsureWorker();
  } catch (const std::exception& e) {
    fail(Status::Internal(Describe() + ": " + e.what()));
  }
}

}  // namespace inferd::python
