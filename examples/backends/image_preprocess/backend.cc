// SPDX-License-Identifier: Apache-2.0
// image_preprocess: an inferd backend that turns encoded images into the
// normalized float tensor a vision model takes. It is an example of the
// backend ABI (include/inferd/backend.h, docs/backends.md), built out of tree
// against the installed inferd package.
//
// Model contract (checked when the model loads):
//   input  0: TYPE_STRING (BYTES) dims [1]: one JPEG or PNG file per batch row
//   output 0: TYPE_FP32 dims [3, H, W]: CHW, (pixel / 255 - mean) / std
// Config `parameters` (all optional): height (48), width (192), mean and std
// (one value for all channels or three comma-separated ones; 0.5 and 0.5),
// color_order ("RGB" or "BGR"; RGB).
//
// BYTES rather than UINT8 [-1] because a batch holds images of different
// encoded sizes: a BYTES element carries its own length, while requests of a
// UINT8 [-1] input would only batch together when their byte counts agree.
//
// Calling another model (ABI 1.3, next_model.h): with the parameters
// next_model (a model name) and next_model_input (its input that takes the
// tensor), and optionally next_model_version (-1: the newest), the tensor is
// sent to that model and its outputs are returned. The config then lists
// the outputs to return from it under their names in that model, and may
// also list an output named like next_model_input, TYPE_FP32 [3, H, W]: the
// tensor itself, returned as well. A client asks for any of them; the next
// model is called only when the client wants one of its outputs. The tensor
// goes with this model's batch dimension, so a batching model calls a
// batching one.
#include "inferd/backend.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "decode.h"
#include "next_model.h"
#include "preprocess.h"
#include "shared_release.h"

struct INFERD_BackendModel {
  const INFERD_ServerApi* api = nullptr;
  std::string name;
  std::string input_name;
  // The output that is the tensor itself; empty when the config offers
  // only outputs of the next model.
  std::string tensor_output;
  bool batching = false;
  image_preprocess::PreprocessOptions options;
  image_preprocess::NextModel next;  // next.name empty: none
  INFERD_Server* server = nullptr;   // for calls to next_model (ABI 1.3)
};

// The instance holds no state of its own: decoding is done on the calling
// thread, so instances only add parallelism.
struct INFERD_BackendInstance {
  const INFERD_BackendModel* model = nullptr;
};

namespace {

using image_preprocess::NextModel;
using image_preprocess::PreprocessOptions;
using image_preprocess::SharedRelease;

// A failure on its way to an INFERD_Error, made only at the ABI boundary so
// that none is created and then dropped: servers older than ABI 1.3 have no
// ErrorDelete, and this backend runs on them when it calls no other model.
struct Failure {
  INFERD_ErrorCode code = INFERD_ERROR_INTERNAL;
  std::string message;
};

bool ParseFloat(const std::string& text, float* value) {
  if (text.empty()) return false;
  char* end = nullptr;
  *value = std::strtof(text.c_str(), &end);
  return end != nullptr && *end == '\0';
}

// "0.5" or "0.485,0.456,0.406"
bool ParseTriple(const std::string& text, std::array<float, 3>* values) {
  std::vector<std::string> parts;
  size_t begin = 0;
  while (true) {
    const size_t comma = text.find(',', begin);
    std::string part = text.substr(begin, comma == std::string::npos ? comma : comma - begin);
    part.erase(0, part.find_first_not_of(' '));
    part.erase(part.find_last_not_of(' ') + 1);
    parts.push_back(part);
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  if (parts.size() != 1 && parts.size() != 3) return false;
  for (size_t c = 0; c < 3; ++c) {
    if (!ParseFloat(parts[parts.size() == 1 ? 0 : c], &(*values)[c])) return false;
  }
  return true;
}

bool ParseSide(const std::string& text, int* value) {
  char* end = nullptr;
  const long parsed = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || parsed < 1 || parsed > image_preprocess::kMaxSide) {
    return false;
  }
  *value = static_cast<int>(parsed);
  return true;
}

// A version number (>= 1) or -1 for the newest.
bool ParseVersion(const std::string& text, int64_t* value) {
  char* end = nullptr;
  const long long parsed = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || (parsed < 1 && parsed != -1)) return false;
  *value = parsed;
  return true;
}

bool ReadParameters(const INFERD_ModelSpec& spec, PreprocessOptions* options, NextModel* next,
                    Failure* failure) {
  for (size_t i = 0; i < spec.parameter_count; ++i) {
    const std::string key = spec.parameters[i].key;
    const std::string value = spec.parameters[i].value;
    bool ok = true;
    if (key == "height") {
      ok = ParseSide(value, &options->height);
    } else if (key == "width") {
      ok = ParseSide(value, &options->width);
    } else if (key == "mean") {
      ok = ParseTriple(value, &options->mean);
    } else if (key == "std") {
      ok = ParseTriple(value, &options->std);
      for (float s : options->std) ok = ok && s != 0.0f;
    } else if (key == "color_order") {
      ok = value == "RGB" || value == "BGR";
      options->bgr = value == "BGR";
    } else if (key == "next_model") {
      next->name = value;
    } else if (key == "next_model_input") {
      ok = !value.empty();
      next->input = value;
    } else if (key == "next_model_version") {
      ok = ParseVersion(value, &next->version);
    }  // other keys belong to someone else (e.g. the server) and are ignored
    if (!ok) {
      *failure = {INFERD_ERROR_INVALID_ARG,
                  "image_preprocess: invalid parameter " + key + ": '" + value + "'"};
      return false;
    }
  }
  return true;
}

bool CheckDims(const INFERD_TensorSpec& tensor, const std::vector<int64_t>& want) {
  if (tensor.dims_count != want.size()) return false;
  for (size_t i = 0; i < want.size(); ++i) {
    if (tensor.dims[i] != want[i] && tensor.dims[i] != -1) return false;
  }
  return true;
}

std::string DimsText(const std::vector<int64_t>& dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + "]";
}

bool IsTensorOutput(const INFERD_TensorSpec& output, const std::vector<int64_t>& dims) {
  return output.datatype == INFERD_TYPE_FP32 && CheckDims(output, dims) &&
         output.reshape_dims == nullptr;
}

// With next_model: an output named like next_model_input is the tensor,
// every other one comes from the next model (which the server checks when
// the outputs are added: this model cannot see the other's config).
bool CheckNextModelOutputs(const INFERD_ModelSpec& spec, const std::vector<int64_t>& tensor_dims,
                           INFERD_BackendModel* model, Failure* failure) {
  const NextModel& next = model->next;
  size_t forwarded = 0;
  for (size_t i = 0; i < spec.output_count; ++i) {
    const INFERD_TensorSpec& output = spec.outputs[i];
    if (next.input != output.name) {
      ++forwarded;
      continue;
    }
    if (!IsTensorOutput(output, tensor_dims)) {
      *failure = {INFERD_ERROR_INVALID_ARG,
                  "image_preprocess: output " + next.input +
                      " (named like next_model_input: the tensor itself) needs TYPE_FP32 with "
                      "dims " +
                      DimsText(tensor_dims)};
      return false;
    }
    model->tensor_output = output.name;
  }
  if (forwarded == 0) {
    *failure = {INFERD_ERROR_INVALID_ARG, "image_preprocess: next_model is " + next.name +
                                              " but no output comes from it: list the outputs of " +
                                              next.name + " to return, under their names there"};
    return false;
  }
  return true;
}

bool CreateModel(const INFERD_ServerApi* api, const INFERD_ModelSpec* spec,
                 std::unique_ptr<INFERD_BackendModel>* out, Failure* failure) {
  // A server of another major is refused by the server itself; members of
  // minor 0 are always there, and newer ones are checked before their use.
  if (api->version_major != INFERD_BACKEND_API_VERSION_MAJOR) {
    *failure = {INFERD_ERROR_UNSUPPORTED, "image_preprocess: incompatible inferd server"};
    return false;
  }
  auto model = std::make_unique<INFERD_BackendModel>();
  model->api = api;
  model->name = spec->name;
  model->batching = spec->max_batch_size > 0;
  if (!ReadParameters(*spec, &model->options, &model->next, failure)) return false;
  const std::vector<int64_t> input_dims = {1};
  const std::vector<int64_t> output_dims = {3, model->options.height, model->options.width};
  if (spec->input_count != 1 || spec->inputs[0].datatype != INFERD_TYPE_BYTES ||
      !CheckDims(spec->inputs[0], input_dims) || spec->inputs[0].reshape_dims != nullptr) {
    *failure = {INFERD_ERROR_INVALID_ARG,
                "image_preprocess: the model needs exactly one input of TYPE_STRING with dims "
                "[1] (one encoded image per batch row)"};
    return false;
  }
  model->input_name = spec->inputs[0].name;
  if (model->next.name.empty()) {
    if (!model->next.input.empty()) {
      *failure = {INFERD_ERROR_INVALID_ARG,
                  "image_preprocess: next_model_input is set but next_model is not"};
      return false;
    }
    if (spec->output_count != 1 || !IsTensorOutput(spec->outputs[0], output_dims)) {
      *failure = {INFERD_ERROR_INVALID_ARG,
                  "image_preprocess: the model needs exactly one output of TYPE_FP32 with dims " +
                      DimsText(output_dims) + " (parameters height and width)"};
      return false;
    }
    model->tensor_output = spec->outputs[0].name;
    *out = std::move(model);
    return true;
  }
  // Calling another model needs ABI 1.3; say so plainly on an older server
  // rather than calling a function pointer past the end of its table.
  if (!image_preprocess::CanCallModels(*api, *spec)) {
    *failure = {INFERD_ERROR_UNSUPPORTED,
                "image_preprocess: parameter next_model needs an inferd server with backend ABI "
                "1.3 or newer (calls to other models); this server has ABI " +
                    std::to_string(api->version_major) + "." + std::to_string(api->version_minor)};
    return false;
  }
  if (model->next.input.empty()) {
    *failure = {INFERD_ERROR_INVALID_ARG,
                "image_preprocess: next_model needs next_model_input, the input of " +
                    model->next.name + " that takes the tensor"};
    return false;
  }
  if (!CheckNextModelOutputs(*spec, output_dims, model.get(), failure)) return false;
  model->server = spec->server;
  *out = std::move(model);
  return true;
}

// Splits a BYTES tensor (per element: uint32 little-endian length, bytes).
bool SplitBytes(const uint8_t* data, size_t size, size_t count,
                std::vector<std::pair<const uint8_t*, size_t>>* elements) {
  size_t offset = 0;
  for (size_t i = 0; i < count; ++i) {
    if (size - offset < 4) return false;
    uint32_t length = 0;
    for (int b = 0; b < 4; ++b) length |= static_cast<uint32_t>(data[offset + b]) << (8 * b);
    offset += 4;
    if (size - offset < length) return false;
    elements->emplace_back(data + offset, length);
    offset += length;
  }
  return offset == size;
}

// The preprocessed tensor of one request (malloc'd), shared by the client's
// response and the request to the next model.
class SharedBuffer final : public SharedRelease {
 public:
  explicit SharedBuffer(float* data) : data_(data) {}
  float* data() const { return data_; }

 private:
  ~SharedBuffer() override { std::free(data_); }
  float* data_;
};

enum class Outcome {
  kFailed,     // `failure` or `*server_error` says why; the request is ours to complete
  kDone,       // the outputs are added; the request is ours to complete
  kHandedOff,  // sent to the next model, which completes the request
};

// Runs one request. On kFailed either `failure` is set or, when the server
// refused something, `*server_error` holds the server's error (ours to pass
// on).
Outcome RunRequest(const INFERD_BackendModel& model, INFERD_Request* request,
                   image_preprocess::CallInfo info, Failure* failure, INFERD_Error** server_error) {
  const INFERD_ServerApi* api = model.api;
  const uint8_t* data = nullptr;
  size_t byte_size = 0;
  const int64_t* shape = nullptr;
  size_t shape_count = 0;
  bool found = false;
  for (size_t i = 0, n = api->RequestInputCount(request); i < n && !found; ++i) {
    const char* name = nullptr;
    INFERD_DataType datatype = INFERD_TYPE_INVALID;
    const void* bytes = nullptr;
    api->RequestInput(request, i, &name, &datatype, &shape, &shape_count, &bytes, &byte_size);
    found = model.input_name == name;
    data = static_cast<const uint8_t*>(bytes);
  }
  if (!found) {  // the server validates requests against the config; be safe anyway
    *failure = {INFERD_ERROR_INVALID_ARG,
                "image_preprocess: input " + model.input_name + " is missing"};
    return Outcome::kFailed;
  }
  size_t images = 1;
  for (size_t i = 0; i < shape_count; ++i) images *= static_cast<size_t>(shape[i]);
  std::vector<std::pair<const uint8_t*, size_t>> encoded;
  if (!SplitBytes(data, byte_size, images, &encoded)) {
    *failure = {INFERD_ERROR_INVALID_ARG, "image_preprocess: malformed BYTES tensor"};
    return Outcome::kFailed;
  }
  // The outputs the client wants: the tensor, and those of the next model.
  bool want_tensor = false;
  std::vector<std::string> forwarded;
  for (size_t i = 0, n = api->RequestOutputCount(request); i < n; ++i) {
    const char* name = api->RequestOutputName(request, i);
    if (model.tensor_output == name) {
      want_tensor = true;
    } else {
      forwarded.emplace_back(name);  // only a next model's outputs pass the server's check
    }
  }
  if (!want_tensor && forwarded.empty()) return Outcome::kDone;  // nothing to compute

  const auto& options = model.options;
  const size_t per_image = 3 * static_cast<size_t>(options.height) * options.width;
  const size_t tensor_bytes = per_image * images * sizeof(float);
  float* out = static_cast<float*>(std::malloc(tensor_bytes));
  SharedBuffer* buffer = out == nullptr ? nullptr : new (std::nothrow) SharedBuffer(out);
  if (buffer == nullptr) {
    std::free(out);
    *failure = {INFERD_ERROR_INTERNAL, "image_preprocess: out of memory"};
    return Outcome::kFailed;
  }
  // Our own reference, dropped on return: the server holds its own.
  const std::unique_ptr<SharedRelease, image_preprocess::Unref> ours(buffer);
  image_preprocess::RgbImage image;
  std::string error;
  for (size_t i = 0; i < images; ++i) {
    if (!image_preprocess::DecodeImage(encoded[i].first, encoded[i].second, &image, &error)) {
      *failure = {INFERD_ERROR_INVALID_ARG,
                  "image_preprocess: image " + std::to_string(i) + " of the request: " + error};
      return Outcome::kFailed;
    }
    image_preprocess::ResizeNormalize(image, options, out + i * per_image);
  }
  std::vector<int64_t> out_shape;
  if (model.batching) out_shape.push_back(static_cast<int64_t>(images));
  out_shape.insert(out_shape.end(), {3, options.height, options.width});
  if (want_tensor) {
    // The server releases its reference once the response is sent, or
    // before ResponseAddOutput returns an error.
    buffer->Ref();
    *server_error = api->ResponseAddOutput(request, model.tensor_output.c_str(), INFERD_TYPE_FP32,
                                           out_shape.data(), out_shape.size(), out, tensor_bytes,
                                           &SharedRelease::Unref, buffer);
    if (*server_error != nullptr) return Outcome::kFailed;
  }
  if (forwarded.empty()) return Outcome::kDone;
  // The same memory, no copy, becomes the next model's input.
  const image_preprocess::TensorRef tensor{out, tensor_bytes, std::move(out_shape), buffer};
  return image_preprocess::InferNextModel(api, model.server, model.next, request, tensor, forwarded,
                                          std::move(info), server_error)
             ? Outcome::kHandedOff
             : Outcome::kFailed;
}

}  // namespace

extern "C" {

INFERD_BACKEND_EXPORT uint32_t INFERD_BackendApiVersion(void) {
  return INFERD_BACKEND_API_VERSION_MAJOR << 16 | INFERD_BACKEND_API_VERSION_MINOR;
}

// INFERD_BackendDescribeModel is not exported: this backend has no model file
// to read, so its config.pbtxt must be complete.

INFERD_BACKEND_EXPORT INFERD_Error* INFERD_BackendModelCreate(const INFERD_ServerApi* api,
                                                              const INFERD_ModelSpec* spec,
                                                              INFERD_BackendModel** model) {
  Failure failure;
  try {
    std::unique_ptr<INFERD_BackendModel> created;
    if (CreateModel(api, spec, &created, &failure)) {
      *model = created.release();
      return nullptr;
    }
  } catch (const std::exception& e) {  // no exception may cross the C ABI
    failure = {INFERD_ERROR_INTERNAL, std::string("image_preprocess: ") + e.what()};
  }
  return api->ErrorNew(failure.code, failure.message.c_str());
}

INFERD_BACKEND_EXPORT void INFERD_BackendModelDelete(INFERD_BackendModel* model) { delete model; }

INFERD_BACKEND_EXPORT INFERD_Error* INFERD_BackendInstanceCreate(
    INFERD_BackendModel* model, uint32_t index, INFERD_BackendInstance** instance) {
  *instance = new (std::nothrow) INFERD_BackendInstance{model};
  if (*instance == nullptr) return model->api->ErrorNew(INFERD_ERROR_INTERNAL, "out of memory");
  return nullptr;
}

INFERD_BACKEND_EXPORT void INFERD_BackendInstanceDelete(INFERD_BackendInstance* instance) {
  delete instance;
}

INFERD_BACKEND_EXPORT void INFERD_BackendInstanceExecute(INFERD_BackendInstance* instance,
                                                         INFERD_Request** requests,
                                                         size_t request_count) {
  const INFERD_BackendModel& model = *instance->model;
  const INFERD_ServerApi* api = model.api;
  // RequestReportComputeTimes exists since ABI 1.1: check the server's table.
  const bool report_times =
      api->struct_size >= offsetof(INFERD_ServerApi, RequestReportComputeTimes) +
                              sizeof(api->RequestReportComputeTimes);
  // Requests are independent: one bad image fails only its own request.
  for (size_t r = 0; r < request_count; ++r) {
    INFERD_Request* request = requests[r];
    Failure failure;
    INFERD_Error* server_error = nullptr;
    Outcome outcome = Outcome::kFailed;
    const uint64_t start = report_times ? api->NowNanoseconds() : 0;
    try {
      outcome =
          RunRequest(model, request, {model.name, start, report_times}, &failure, &server_error);
    } catch (const std::exception& e) {
      failure = {INFERD_ERROR_INTERNAL, std::string("image_preprocess: ") + e.what()};
    }
    switch (outcome) {
      case Outcome::kHandedOff:
        // The next model's completion completes it, maybe after Execute
        // returned; this instance moves on without waiting.
        break;
      case Outcome::kDone:
        if (report_times) api->RequestReportComputeTimes(request, start, api->NowNanoseconds());
        api->RequestComplete(request, nullptr);
        break;
      case Outcome::kFailed:
        // Each request is completed exactly once, with a server error passed
        // on as it came or a new one.
        api->RequestComplete(request, server_error != nullptr
                                          ? server_error
                                          : api->ErrorNew(failure.code, failure.message.c_str()));
        break;
    }
  }
}

}  // extern "C"
