// SPDX-License-Identifier: Apache-2.0
#include "lifecycle/warmup.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "backends/abi/backend_request.h"
#include "base/file_system.h"
#include "base/logging.h"
#include "base/mutex.h"
#include "base/status_macros.h"
#include "core/bytes_encoding.h"
#include "core/infer_request.h"
#include "core/shape.h"
#include "lifecycle/model_version.h"
#include "scheduling/sequence_config.h"
#include "scheduling/sequence_controls.h"
#include "scheduling/sequence_state.h"

namespace inferd::lifecycle {
namespace {

// Fixed, so that a warm-up feeds the same bytes every time it runs.
constexpr std::mt19937::result_type kRandomSeed = 5489u;

absl::Status SampleError(const inference::ModelWarmup& sample, absl::string_view what,
                         absl::StatusCode code = absl::StatusCode::kInvalidArgument) {
  return absl::Status(code, absl::StrCat("warm-up sample '", sample.name(), "': ", what));
}

std::string TypeName(int type) {
  return std::string(core::DataTypeProtocolName(static_cast<core::DataType>(type)));
}

// The file must stay inside <model>/warmup/: a config can come from a load
// request, and warm-up must not read the rest of the disk.
bool IsInsideFolder(const std::string& file) {
  if (file.empty() || file.front() == '/') return false;
  for (absl::string_view part : absl::StrSplit(file, '/')) {
    if (part == "..") return false;
  }
  return true;
}

// The bytes of one row (one batch entry) of `input`, shaped `dims`.
absl::StatusOr<std::string> OneRow(const inference::ModelWarmup& sample,
                                   const std::string& input_name,
                                   const inference::ModelWarmup::Input& input,
                                   const core::Shape& dims, const std::string& model_dir) {
  const auto type = static_cast<core::DataType>(input.data_type());
  INFERD_ASSIGN_OR_RETURN(const int64_t count, core::ElementCount(dims));
  const bool is_bytes = type == core::DataType::kBytes;
  const size_t element_size = core::DataTypeByteSize(type);
  std::string row;
  switch (input.input_data_type_case()) {
    case inference::ModelWarmup::Input::kZeroData:
    case inference::ModelWarmup::Input::kRandomData:
      if (is_bytes) {
        // Empty elements: a 4-byte zero length each, as a request carries them.
        row.reserve(static_cast<size_t>(count) * 4);
        for (int64_t i = 0; i < count; ++i) core::AppendBytesElement("", row);
        return row;
      }
      row.assign(static_cast<size_t>(count) * element_size, '\0');
      if (input.input_data_type_case() == inference::ModelWarmup::Input::kRandomData) {
        std::mt19937 random(kRandomSeed);
        for (size_t offset = 0; offset < row.size(); offset += sizeof(uint32_t)) {
          const uint32_t value = static_cast<uint32_t>(random());
          std::memcpy(row.data() + offset, &value, std::min(sizeof(value), row.size() - offset));
        }
      }
      return row;
    case inference::ModelWarmup::Input::kInputDataFile:
      break;
    case inference::ModelWarmup::Input::INPUT_DATA_TYPE_NOT_SET:
      return SampleError(sample, absl::StrCat("input '", input_name,
                                              "' has no data (zero_data, random_data or "
                                              "input_data_file)"));
  }
  if (!IsInsideFolder(input.input_data_file())) {
    return SampleError(sample,
                       absl::StrCat("input '", input_name, "' file '", input.input_data_file(),
                                    "' must be a relative path inside warmup/"));
  }
  const std::string path =
      base::JoinPath(base::JoinPath(model_dir, "warmup"), input.input_data_file());
  auto contents = base::ReadFile(path);
  if (!contents.ok()) {
    return SampleError(sample,
                       absl::StrCat("input '", input_name, "': ", contents.status().message()),
                       contents.status().code());
  }
  row = *std::move(contents);
  if (is_bytes) {
    auto elements = core::CountBytesElements(row);
    if (!elements.ok()) {
      return SampleError(sample,
                         absl::StrCat("input '", input_name, "' file '", path,
                                      "' is not a BYTES sequence: ", elements.status().message()));
    }
    if (*elements != count) {
      return SampleError(sample, absl::StrCat("input '", input_name, "' file '", path, "' holds ",
                                              *elements, " BYTES elements; one row of shape ",
                                              core::ShapeToString(dims), " needs ", count));
    }
    return row;
  }
  const size_t expected = static_cast<size_t>(count) * element_size;
  if (row.size() != expected) {
    return SampleError(sample, absl::StrCat("input '", input_name, "' file '", path, "' has ",
                                            row.size(), " bytes; one row of shape ",
                                            core::ShapeToString(dims), " needs ", expected));
  }
  return row;
}

// The shape the backend gets for `shape` (batch dimension included when
// batching): reshape.shape with its k-th -1 taken from the k-th -1 of dims,
// as the request validator does for a real request.
core::Shape Reshaped(const inference::ModelInput& input, const core::Shape& shape, bool batching) {
  if (!input.has_reshape()) return shape;
  core::Shape out;
  const size_t first = batching ? 1 : 0;
  if (batching) out.push_back(shape[0]);
  std::vector<int64_t> wildcard_values;
  for (int i = 0; i < input.dims_size(); ++i) {
    if (input.dims(i) == -1) wildcard_values.push_back(shape[first + static_cast<size_t>(i)]);
  }
  size_t next = 0;
  for (int64_t d : input.reshape().shape()) {
    out.push_back(d == -1 && next < wildcard_values.size() ? wildcard_values[next++] : d);
  }
  return out;
}

// The input tensors of one run of `sample` (checked against `config`).
absl::StatusOr<std::vector<core::Tensor>> SampleInputs(const inference::ModelConfig& config,
                                                       const inference::ModelWarmup& sample,
                                                       const std::string& model_dir) {
  const bool batching = config.max_batch_size() > 0;
  const int64_t batch_size = sample.batch_size();
  if (batching && batch_size > config.max_batch_size()) {
    return SampleError(sample, absl::StrCat("batch_size ", batch_size, " exceeds max_batch_size ",
                                            config.max_batch_size()));
  }
  if (!batching && batch_size != 1) {
    return SampleError(
        sample, absl::StrCat("batch_size ", batch_size, " must be 1 for a model without batching"));
  }
  for (const auto& entry : sample.inputs()) {
    const std::string& name = entry.first;
    const bool known =
        std::any_of(config.input().begin(), config.input().end(),
                    [&](const inference::ModelInput& i) { return i.name() == name; });
    if (!known) {
      return SampleError(sample,
                         absl::StrCat("has data for input '", name, "', which the model lacks"));
    }
  }
  std::vector<core::Tensor> tensors;
  // In the order of the config (a protobuf map has none).
  for (const auto& model_input : config.input()) {
    auto it = sample.inputs().find(model_input.name());
    if (it == sample.inputs().end()) {
      if (model_input.optional()) continue;
      return SampleError(sample, absl::StrCat("has no data for input '", model_input.name(), "'"));
    }
    const auto& input = it->second;
    if (input.data_type() != model_input.data_type()) {
      return SampleError(sample, absl::StrCat("input '", model_input.name(), "' has data_type ",
                                              TypeName(input.data_type()), "; the model expects ",
                                              TypeName(model_input.data_type())));
    }
    const core::Shape dims(input.dims().begin(), input.dims().end());
    const core::Shape pattern(model_input.dims().begin(), model_input.dims().end());
    const bool negative = std::any_of(dims.begin(), dims.end(), [](int64_t d) { return d < 0; });
    if (negative || !core::ShapeMatches(dims, pattern)) {
      return SampleError(sample, absl::StrCat("input '", model_input.name(), "' has dims ",
                                              core::ShapeToString(dims), "; the model expects ",
                                              core::ShapeToString(pattern)));
    }
    INFERD_ASSIGN_OR_RETURN(std::string row,
                            OneRow(sample, model_input.name(), input, dims, model_dir));
    std::string data;
    data.reserve(row.size() * static_cast<size_t>(batch_size));
    for (int64_t i = 0; i < batch_size; ++i) data += row;
    core::Shape shape;
    if (batching) shape.push_back(batch_size);
    shape.insert(shape.end(), dims.begin(), dims.end());
    tensors.push_back(
        core::Tensor{model_input.name(), static_cast<core::DataType>(model_input.data_type()),
                     Reshaped(model_input, shape, batching), core::Buffer::Own(std::move(data))});
  }
  return tensors;
}

// `tensor` (one row, [1, ...]) repeated `rows` times along the batch
// dimension.
core::Tensor Rows(const core::Tensor& tensor, int64_t rows) {
  if (rows == 1 || tensor.shape.empty()) return tensor;
  core::Tensor out = tensor;
  out.shape[0] = rows;
  std::string bytes;
  bytes.reserve(tensor.data.size * static_cast<size_t>(rows));
  for (int64_t i = 0; i < rows; ++i) bytes.append(tensor.data.view());
  out.data = core::Buffer::Own(std::move(bytes));
  return out;
}

// A sequence model's backend expects the tensors the sequence batcher adds
// (docs/configuration.md, "Sequence batching"), which warm-up bypasses:
// each sample runs as a one-request sequence (START, END and READY true,
// CORRID 1 or "1", the initial state), every row alike. Adds the inputs to
// `inputs` and the state outputs to `output_names`.
absl::Status AddSequenceTensors(const inference::ModelConfig& config, const std::string& model_dir,
                                int64_t rows, std::vector<core::Tensor>& inputs,
                                std::vector<std::string>& output_names) {
  if (!config.has_sequence_batching()) return absl::OkStatus();
  INFERD_ASSIGN_OR_RETURN(const scheduling::SequenceConfig sequence,
                          scheduling::SequenceConfigFrom(config, model_dir));
  const scheduling::SequenceControl* corrid =
      sequence.FindControl(scheduling::ControlKind::kCorrId);
  const scheduling::SequenceId id = corrid != nullptr && corrid->datatype == core::DataType::kBytes
                                        ? scheduling::SequenceId(std::string("1"))
                                        : scheduling::SequenceId(uint64_t{1});
  core::InferRequest added;
  scheduling::ControlTensors(sequence).Add(id, /*start=*/true, /*end=*/true, /*ready=*/true, added);
  scheduling::SequenceStates(sequence.states, config.max_batch_size() > 0).AddInputs(added);
  const bool batching = config.max_batch_size() > 0;
  for (const auto& tensor : added.inputs) inputs.push_back(batching ? Rows(tensor, rows) : tensor);
  for (const auto& state : sequence.states) {
    if (std::find(output_names.begin(), output_names.end(), state.output_name) ==
        output_names.end()) {
      output_names.push_back(state.output_name);
    }
  }
  return absl::OkStatus();
}

// Runs one request on `instance` and waits for its answer.
absl::Status RunOnce(const inference::ModelConfig& config, int64_t version,
                     const std::shared_ptr<const backends::ModelIO>& io,
                     const std::vector<std::string>& output_names,
                     const std::vector<core::Tensor>& inputs, int64_t batch_size,
                     backends::BackendInstance& instance) {
  // Shared with the callback, which may still be returning on a backend
  // thread after this function has seen the notification.
  struct Result {
    base::Notification done;
    absl::Status status;
  };
  auto result = std::make_shared<Result>();
  auto request = std::make_unique<core::InferRequest>();
  request->model_name = config.name();
  request->model_version = absl::StrCat(version);
  request->inputs = inputs;  // copies views, not data
  std::vector<std::unique_ptr<INFERD_Request>> batch;
  batch.push_back(std::make_unique<INFERD_Request>(
      std::move(request),
      [result](absl::StatusOr<core::InferResponse> response) {
        result->status = response.status();
        result->done.Notify();
      },
      io, output_names, batch_size, /*pin=*/nullptr));
  instance.Execute(std::move(batch));
  result->done.WaitForNotification();
  return result->status;
}

}  // namespace

absl::Status WarmUpInstance(const inference::ModelConfig& config, const std::string& model_dir,
                            int64_t version, backends::BackendInstance& instance) {
  if (config.model_warmup().empty()) return absl::OkStatus();
  const auto io = MakeModelIO(config, version, /*stats=*/nullptr);
  std::vector<std::string> output_names;
  for (const auto& output : config.output()) output_names.push_back(output.name());
  for (const auto& sample : config.model_warmup()) {
    if (sample.batch_size() == 0) {
      INFERD_LOG_INFO("model '{}' version {}: warm-up sample '{}' has batch_size 0; skipped",
                      config.name(), version, sample.name());
      continue;
    }
    INFERD_ASSIGN_OR_RETURN(std::vector<core::Tensor> inputs,
                            SampleInputs(config, sample, model_dir));
    const int64_t rows = config.max_batch_size() > 0 ? sample.batch_size() : 1;
    std::vector<std::string> names = output_names;
    INFERD_RETURN_IF_ERROR(AddSequenceTensors(config, model_dir, rows, inputs, names));
    const uint32_t runs = std::max<uint32_t>(sample.count(), 1);
    for (uint32_t run = 0; run < runs; ++run) {
      const absl::Status status = RunOnce(config, version, io, names, inputs, rows, instance);
      if (!status.ok()) {
        return absl::Status(status.code(), absl::StrCat("warm-up sample '", sample.name(),
                                                        "' failed: ", status.message()));
      }
    }
    INFERD_LOG_DEBUG("model '{}' version {}: warm-up sample '{}' ran {} time(s)", config.name(),
                     version, sample.name(), runs);
  }
  return absl::OkStatus();
}

}  // namespace inferd::lifecycle
