// SPDX-License-Identifier: Apache-2.0
#include "py_bls.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace inferd::python {
namespace {

// Keeps what a BLS input points into (the received payload, or the output
// range of the region) alive until the server releases the input.
struct InputKeepalive {
  std::shared_ptr<const void> held;
  static void Release(void* context) { delete static_cast<InputKeepalive*>(context); }
};

// The completion context of one call.
struct Ticket {
  std::shared_ptr<BlsMailbox> mailbox;
  uint64_t epoch = 0;
  uint64_t id = 0;
};

void OnComplete(void* context, INFERD_InferResponse* response, INFERD_Error* error) {
  std::unique_ptr<Ticket> ticket(static_cast<Ticket*>(context));
  ticket->mailbox->Post(ticket->epoch,
                        BlsMailbox::Completion{ticket->id, response, error, kFlagFinal});
}

// A decoupled call: once per response, the ticket lives until the last.
void OnResponse(void* context, INFERD_InferResponse* response, INFERD_Error* error,
                uint32_t flags) {
  auto* ticket = static_cast<Ticket*>(context);
  const bool final = (flags & INFERD_RESPONSE_FLAG_FINAL) != 0;
  ticket->mailbox->Post(ticket->epoch, BlsMailbox::Completion{ticket->id, response, error,
                                                              final ? kFlagFinal : uint8_t{0}});
  if (final) delete ticket;
}

// Triton's words for exec() on a decoupled model: the server refuses it as
// it refuses a unary client call (UNSUPPORTED, "... is decoupled ...").
bool IsDecoupledRefusal(const INFERD_ServerApi& api, INFERD_Error* error) {
  return api.ErrorCode(error) == INFERD_ERROR_UNSUPPORTED &&
         std::string_view(api.ErrorMessage(error)).find("is decoupled") != std::string_view::npos;
}

std::string Seconds(uint64_t microseconds) {
  std::string text = std::to_string(static_cast<double>(microseconds) / 1e6);
  while (text.size() > 1 && text.back() == '0') text.pop_back();
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text + " s";
}

Status Malformed(const std::string& what) {
  return Status::Internal("malformed message from the Python worker: " + what);
}

}  // namespace

// ---- BlsMailbox ------------------------------------------------------------------

StatusOr<std::shared_ptr<BlsMailbox>> BlsMailbox::Create(const INFERD_ServerApi& api) {
  const int fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (fd < 0) {
    return Status(INFERD_ERROR_UNAVAILABLE,
                  std::string("eventfd for BLS completions: ") + std::strerror(errno));
  }
  return std::shared_ptr<BlsMailbox>(new BlsMailbox(api, fd));
}

BlsMailbox::~BlsMailbox() {
  for (Completion& completion : queue_) Free(completion);
  ::close(fd_);
}

uint64_t BlsMailbox::Open() {
  std::lock_guard<std::mutex> lock(mu_);
  open_ = true;
  return ++epoch_;
}

void BlsMailbox::Close() {
  std::vector<Completion> dropped;
  {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = false;
    dropped.swap(queue_);
    Reset();
  }
  for (Completion& completion : dropped) Free(completion);
}

void BlsMailbox::Post(uint64_t epoch, Completion completion) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (open_ && epoch == epoch_) {
      if (!signalled_) {
        const uint64_t one = 1;
        (void)!::write(fd_, &one, sizeof(one));
        signalled_ = true;
      }
      queue_.push_back(completion);
      return;
    }
  }
  // Its exchange is over (answered, failed, or the worker died): nobody
  // waits for it any more.
  Free(completion);
}

std::vector<BlsMailbox::Completion> BlsMailbox::Take() {
  std::vector<Completion> taken;
  std::lock_guard<std::mutex> lock(mu_);
  taken.swap(queue_);
  Reset();
  return taken;
}

void BlsMailbox::Reset() {
  // Only when written: an exchange without BLS calls costs no syscall.
  if (!signalled_) return;
  uint64_t count = 0;
  (void)!::read(fd_, &count, sizeof(count));
  signalled_ = false;
}

void BlsMailbox::Free(Completion& completion) const {
  if (completion.response != nullptr) api_.InferResponseDelete(completion.response);
  if (completion.error != nullptr) api_.ErrorDelete(completion.error);
  completion.response = nullptr;
  completion.error = nullptr;
}

// ---- BlsExchange -----------------------------------------------------------------

BlsExchange::BlsExchange(BlsContext context) : context_(std::move(context)) {
  if (context_.mailbox != nullptr) epoch_ = context_.mailbox->Open();
}

BlsExchange::~BlsExchange() {
  if (context_.mailbox != nullptr) context_.mailbox->Close();
  // The worker's views of BLS outputs end with the exchange (PROTOCOL.md).
  for (auto [offset, size] : output_blocks_) context_.region->Free(offset, size);
}

Status BlsExchange::OnRequest(std::vector<uint8_t> payload) {
  // Inline inputs point into the payload: it lives as long as they do.
  auto owned = std::make_shared<std::vector<uint8_t>>(std::move(payload));
  StatusOr<BlsRequestMessage> message = DecodeBlsRequest(*owned);
  if (!message.ok()) return message.status();
  if (calls_.contains(message->id)) {
    return Malformed("BLS call id " + std::to_string(message->id) + " is already outstanding");
  }
  const RegionBlock* range = context_.output_range.get();
  for (const WireTensor& input : message->inputs) {
    if (input.location != Location::kRegion) {
      inline_bytes_ += input.byte_size;
      continue;
    }
    // BLS inputs in the region lie in this EXECUTE's output range, nowhere
    // else: the server lends that memory to the target without a copy.
    if (range == nullptr || input.offset < range->offset() || input.byte_size > range->size() ||
        input.offset - range->offset() > range->size() - input.byte_size) {
      return Malformed("BLS input '" + std::string(input.name) +
                       "' lies outside the EXECUTE's output range");
    }
    high_mark_ = std::max(high_mark_, input.offset - range->offset() + input.byte_size);
  }
  if (context_.server == nullptr || context_.mailbox == nullptr) {
    return SendError(message->id, INFERD_ERROR_UNAVAILABLE, context_.unavailable);
  }
  return Submit(*message, owned);
}

Status BlsExchange::Submit(const BlsRequestMessage& message,
                           const std::shared_ptr<const void>& payload) {
  const INFERD_ServerApi& api = *context_.api;
  const std::string model(message.model_name);
  INFERD_InferRequest* request = api.InferRequestNew(
      context_.server, model.c_str(), message.model_version > 0 ? message.model_version : -1);
  std::string name;
  for (const WireTensor& input : message.inputs) {
    const void* data = input.data;
    std::shared_ptr<const void> held = payload;
    if (input.location == Location::kRegion) {
      data = context_.region->base() + input.offset;
      held = context_.output_range;
    }
    name.assign(input.name);
    INFERD_Error* error = api.InferRequestAddInput(
        request, name.c_str(), input.datatype, input.dims.data(), input.dims.size(), data,
        input.byte_size, &InputKeepalive::Release, new InputKeepalive{std::move(held)});
    if (error != nullptr) {
      api.InferRequestDelete(request);
      const INFERD_ErrorCode code = api.ErrorCode(error);
      const std::string text = api.ErrorMessage(error);
      api.ErrorDelete(error);
      return SendError(message.id, code, text);
    }
  }
  for (std::string_view output : message.requested_outputs) {
    name.assign(output);
    api.InferRequestAddRequestedOutput(request, name.c_str());
  }
  std::string value;
  for (const WireParameter& parameter : message.parameters) {
    name.assign(parameter.key);
    switch (parameter.kind) {
      case WireParameter::Kind::kBool:
        api.InferRequestSetBoolParameter(request, name.c_str(), parameter.bool_value ? 1 : 0);
        break;
      case WireParameter::Kind::kInt:
        api.InferRequestSetIntParameter(request, name.c_str(), parameter.int_value);
        break;
      case WireParameter::Kind::kString:
        value.assign(parameter.string_value);
        api.InferRequestSetStringParameter(request, name.c_str(), value.c_str());
        break;
    }
  }
  // A child of the request being executed: a client that gives up, or a
  // deadline that passes, ends the BLS call too.
  if (context_.parent != nullptr) api.InferRequestSetParent(request, context_.parent);
  if (message.decoupled && api.ServerInferAsyncDecoupled == nullptr) {
    api.InferRequestDelete(request);
    return SendError(message.id, INFERD_ERROR_UNSUPPORTED,
                     "this server cannot call decoupled models (exec(decoupled=True))");
  }
  Call call;
  call.model = model;
  call.timeout_us = message.timeout_us;
  call.decoupled = message.decoupled;
  if (message.timeout_us > 0) {
    api.InferRequestSetTimeout(request, message.timeout_us);
    call.expiry = Clock::now() + std::chrono::microseconds(message.timeout_us);
  }
  // Registered first: the completion may run before ServerInferAsync
  // returns (it is only queued then, and delivered by Deliver()).
  calls_.emplace(message.id, std::move(call));
  if (message.decoupled) {
    api.ServerInferAsyncDecoupled(request, &OnResponse,
                                  new Ticket{context_.mailbox, epoch_, message.id});
  } else {
    api.ServerInferAsync(request, &OnComplete, new Ticket{context_.mailbox, epoch_, message.id});
  }
  return Status();
}

Status BlsExchange::Deliver() {
  std::vector<BlsMailbox::Completion> completions = context_.mailbox->Take();
  Status status;
  for (BlsMailbox::Completion& completion : completions) {
    // A call answered already (its timeout passed) drops its late results;
    // so does everything after the worker's socket failed.
    auto it = calls_.find(completion.id);
    if (status.ok() && it != calls_.end()) {
      status = Answer(completion.id, it->second, completion);
      if ((completion.flags & kFlagFinal) != 0) calls_.erase(it);
    }
    context_.mailbox->Free(completion);
  }
  return status;
}

Status BlsExchange::ExpireDue() {
  const Clock::time_point now = Clock::now();
  for (auto it = calls_.begin(); it != calls_.end();) {
    if (!it->second.expiry || *it->second.expiry > now) {
      ++it;
      continue;
    }
    const std::string message = "BLS request to model '" + it->second.model +
                                "' timed out: no response within its timeout of " +
                                Seconds(it->second.timeout_us);
    const uint64_t id = it->first;
    it = calls_.erase(it);
    INFERD_BACKEND_RETURN_IF_ERROR(SendError(id, INFERD_ERROR_DEADLINE_EXCEEDED, message));
  }
  return Status();
}

std::optional<BlsExchange::Clock::time_point> BlsExchange::NextExpiry() const {
  std::optional<Clock::time_point> next;
  for (const auto& [id, call] : calls_) {
    if (call.expiry && (!next || *call.expiry < *next)) next = call.expiry;
  }
  return next;
}

Status BlsExchange::Answer(uint64_t id, const Call& call,
                           const BlsMailbox::Completion& completion) {
  const INFERD_ServerApi& api = *context_.api;
  INFERD_InferResponse* response = completion.response;
  INFERD_Error* error = completion.error;
  const uint8_t flags = completion.flags;
  if (error != nullptr) {
    if (!call.decoupled && IsDecoupledRefusal(api, error)) {
      // Triton's message, word for word (its own typos included).
      return SendError(id, INFERD_ERROR_INTERNAL,
                       "Model " + call.model +
                           " is using the decoupled. The current BLS request call doesn't "
                           "support models using the decoupled transaction policy. Please use "
                           "'decoupled=True' argument to the 'exec' or 'async_exec' calls for "
                           "decoupled models.'",
                       flags);
    }
    return SendError(id, api.ErrorCode(error), api.ErrorMessage(error), flags);
  }
  if (response == nullptr) {
    if (!call.decoupled || (flags & kFlagFinal) == 0) {
      return SendError(id, INFERD_ERROR_INTERNAL, "no response", flags);
    }
    BlsResponseEncoder encoder(id, flags);  // the final flag alone
    encoder.SetNone();
    const std::vector<iovec> parts = encoder.parts();
    return context_.channel->Send(MessageType::kBlsResponse, parts);
  }
  const size_t count = api.InferResponseOutputCount(response);
  BlsResponseEncoder encoder(id, flags);
  encoder.BeginOutputs(static_cast<uint32_t>(count));
  for (size_t i = 0; i < count; ++i) {
    WireTensor output;
    const char* name = nullptr;
    const int64_t* shape = nullptr;
    size_t shape_count = 0;
    const void* data = nullptr;
    size_t byte_size = 0;
    api.InferResponseOutput(response, i, &name, &output.datatype, &shape, &shape_count, &data,
                            &byte_size);
    output.name = name;
    output.dims = std::span<const int64_t>(shape, shape_count);
    output.byte_size = byte_size;
    output.data = static_cast<const uint8_t*>(data);
    output.location = Location::kInline;
    // The one copy of a BLS output: into a block the worker reads in place.
    // Without room it travels inline, straight from the response's buffer.
    if (byte_size > 0 && context_.region != nullptr) {
      if (std::optional<uint64_t> offset = context_.region->Allocate(byte_size)) {
        output_blocks_.emplace_back(*offset, byte_size);
        std::memcpy(context_.region->base() + *offset, data, byte_size);
        output.location = Location::kRegion;
        output.offset = *offset;
      }
    }
    if (output.location == Location::kInline) inline_bytes_ += byte_size;
    encoder.AddOutput(output);
  }
  const std::vector<iovec> parts = encoder.parts();
  return context_.channel->Send(MessageType::kBlsResponse, parts);
}

Status BlsExchange::SendError(uint64_t id, INFERD_ErrorCode code, std::string_view message,
                              uint8_t flags) {
  BlsResponseEncoder encoder(id, flags);
  encoder.SetError(code, message);
  const std::vector<iovec> parts = encoder.parts();
  return context_.channel->Send(MessageType::kBlsResponse, parts);
}

}  // namespace inferd::python
