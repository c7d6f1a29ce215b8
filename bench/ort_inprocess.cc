// SPDX-License-Identifier: Apache-2.0
// ort_inprocess: the compute limit. Loads an ONNX model with ONNX Runtime's C++ API
// and calls it in-process from N worker threads, each with its own session (as
// inferd runs one session per instance), for a fixed window after a warm-up.
// Prints throughput (calls/s and rows/s), p50/p99 latency per call and the time each
// session took to create (session_ms, the model's own load time; the first one also
// initialises ONNX Runtime in the process) as one JSON object.
//
//   ort_inprocess --model examples/models/ocr_cls/1/model.onnx --shape x:1,3,48,192 --workers 2
//   ort_inprocess --model examples/models/ocr_cls/1/model.onnx --shape x:-1,3,48,192 --batch 32
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "onnxruntime_cxx_api.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Flags {
  std::string model;
  int workers = 1;
  int64_t batch = 1;
  std::vector<std::string> shapes;  // NAME:D1,D2,... (full shape, batch included)
  double warmup_s = 1.0;
  double duration_s = 3.0;
  int intra_op_threads = 1;
  uint32_t seed = 42;
};

struct InputData {
  std::string name;
  ONNXTensorElementDataType type;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
};

size_t ElementSize(ONNXTensorElementDataType type) {
  switch (type) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8:
      return 1;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16:
      return 2;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT:
      return 4;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE:
      return 8;
    default:
      return 0;  // strings and the rest: not supported here
  }
}

// Random values a model will accept: [0, 1) for floats, 0..99 for integers,
// random bits for 16-bit floats and 0/1 for bools.
void FillRandom(InputData& input, std::mt19937& rng) {
  const size_t count = input.bytes.size() / ElementSize(input.type);
  std::uniform_real_distribution<float> real(0.0f, 1.0f);
  std::uniform_int_distribution<int> integer(0, 99);
  for (size_t i = 0; i < count; ++i) {
    uint8_t* at = input.bytes.data() + i * ElementSize(input.type);
    if (input.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) {
      const float value = real(rng);
      std::memcpy(at, &value, sizeof value);
    } else if (input.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE) {
      const double value = real(rng);
      std::memcpy(at, &value, sizeof value);
    } else if (input.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32) {
      const int32_t value = integer(rng);
      std::memcpy(at, &value, sizeof value);
    } else if (input.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64) {
      const int64_t value = integer(rng);
      std::memcpy(at, &value, sizeof value);
    } else if (input.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL) {
      *at = static_cast<uint8_t>(integer(rng) & 1);
    } else {
      for (size_t b = 0; b < ElementSize(input.type); ++b) at[b] = static_cast<uint8_t>(rng());
    }
  }
}

std::map<std::string, std::vector<int64_t>> ParseShapes(const std::vector<std::string>& flags) {
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const std::string& flag : flags) {
    const size_t colon = flag.rfind(':');
    if (colon == std::string::npos) throw std::runtime_error("--shape wants NAME:D1,D2,...");
    std::vector<int64_t>& dims = shapes[flag.substr(0, colon)];
    std::string rest = flag.substr(colon + 1);
    for (size_t start = 0; start <= rest.size();) {
      const size_t comma = std::min(rest.find(',', start), rest.size());
      dims.push_back(std::stoll(rest.substr(start, comma - start)));
      start = comma + 1;
    }
  }
  return shapes;
}

// The model's inputs with concrete shapes: --shape when given, else the model's
// dims with a variable leading dim taken as --batch.
std::vector<InputData> MakeInputs(Ort::Session& session, const Flags& flags) {
  const auto shapes = ParseShapes(flags.shapes);
  std::mt19937 rng(flags.seed);
  Ort::AllocatorWithDefaultOptions allocator;
  std::vector<InputData> inputs;
  for (size_t i = 0; i < session.GetInputCount(); ++i) {
    InputData input;
    input.name = session.GetInputNameAllocated(i, allocator).get();
    const Ort::TypeInfo type_info = session.GetInputTypeInfo(i);  // owns what `info` views
    auto info = type_info.GetTensorTypeAndShapeInfo();
    input.type = info.GetElementType();
    input.shape = info.GetShape();
    if (auto it = shapes.find(input.name); it != shapes.end()) input.shape = it->second;
    if (!input.shape.empty() && input.shape[0] < 0) input.shape[0] = flags.batch;
    size_t elements = 1;
    for (int64_t dim : input.shape) {
      if (dim < 0)
        throw std::runtime_error("input '" + input.name + "' has a variable dim: give --shape");
      elements *= static_cast<size_t>(dim);
    }
    if (ElementSize(input.type) == 0) {
      throw std::runtime_error("input '" + input.name + "' has an unsupported type");
    }
    input.bytes.resize(elements * ElementSize(input.type));
    FillRandom(input, rng);
    inputs.push_back(std::move(input));
  }
  return inputs;
}

// The same session options as inferd's ONNX Runtime backend (ort_session_config.cc).
Ort::SessionOptions MakeSessionOptions(const Flags& flags) {
  Ort::SessionOptions options;
  options.SetIntraOpNumThreads(flags.intra_op_threads);
  options.SetInterOpNumThreads(1);
  options.SetExecutionMode(ORT_SEQUENTIAL);
  options.SetGraphOptimizationLevel(GraphOptimizationLevel::ORT_ENABLE_ALL);
  options.AddConfigEntry("session.intra_op.allow_spinning", "0");
  options.AddConfigEntry("session.inter_op.allow_spinning", "0");
  return options;
}

struct WorkerResult {
  std::vector<double> latencies_us;  // requests started and finished inside the window
  std::string error;
};

void RunWorker(Ort::Session& session, const std::vector<InputData>& inputs,
               Clock::time_point window_start, Clock::time_point window_end, WorkerResult& result) {
  try {
    Ort::MemoryInfo memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
    std::vector<Ort::Value> values;
    std::vector<const char*> input_names;
    for (const InputData& input : inputs) {
      values.push_back(Ort::Value::CreateTensor(memory, const_cast<uint8_t*>(input.bytes.data()),
                                                input.bytes.size(), input.shape.data(),
                                                input.shape.size(), input.type));
      input_names.push_back(input.name.c_str());
    }
    Ort::AllocatorWithDefaultOptions allocator;
    std::vector<Ort::AllocatedStringPtr> output_storage;
    std::vector<const char*> output_names;
    for (size_t i = 0; i < session.GetOutputCount(); ++i) {
      output_storage.push_back(session.GetOutputNameAllocated(i, allocator));
      output_names.push_back(output_storage.back().get());
    }
    Ort::RunOptions run_options;
    for (;;) {
      const Clock::time_point start = Clock::now();
      if (start >= window_end) break;
      auto outputs = session.Run(run_options, input_names.data(), values.data(), values.size(),
                                 output_names.data(), output_names.size());
      const Clock::time_point end = Clock::now();
      if (start >= window_start && end <= window_end) {
        result.latencies_us.push_back(
            std::chrono::duration<double, std::micro>(end - start).count());
      }
    }
  } catch (const std::exception& e) {
    result.error = e.what();
  }
}

double Percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

int Run(const Flags& flags) {
  Ort::Env env(ORT_LOGGING_LEVEL_WARNING, "ort_inprocess");
  const Ort::SessionOptions options = MakeSessionOptions(flags);
  std::vector<std::unique_ptr<Ort::Session>> sessions;
  std::string session_ms;  // JSON list: how long each session took to create, in order
  for (int i = 0; i < flags.workers; ++i) {
    const Clock::time_point load_start = Clock::now();
    sessions.push_back(std::make_unique<Ort::Session>(env, flags.model.c_str(), options));
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - load_start).count();
    char text[32];
    std::snprintf(text, sizeof(text), "%s%.1f", i == 0 ? "" : ",", ms);
    session_ms += text;
  }
  const std::vector<InputData> inputs = MakeInputs(*sessions[0], flags);
  const auto to_duration = [](double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  };
  const Clock::time_point window_start = Clock::now() + to_duration(flags.warmup_s);
  const Clock::time_point window_end = window_start + to_duration(flags.duration_s);
  std::vector<WorkerResult> results(flags.workers);
  std::vector<std::thread> threads;
  for (int i = 0; i < flags.workers; ++i) {
    threads.emplace_back(RunWorker, std::ref(*sessions[i]), std::cref(inputs), window_start,
                         window_end, std::ref(results[i]));
  }
  for (std::thread& thread : threads) thread.join();
  std::vector<double> latencies;
  for (const WorkerResult& result : results) {
    if (!result.error.empty()) throw std::runtime_error(result.error);
    latencies.insert(latencies.end(), result.latencies_us.begin(), result.latencies_us.end());
  }
  std::sort(latencies.begin(), latencies.end());
  // Rows per call: the leading dim of the first input (1 for a non-batching model
  // whose first dim is fixed, as --shape or the model says).
  const int64_t rows = inputs.empty() || inputs[0].shape.empty() ? 1 : inputs[0].shape[0];
  double sum = 0;
  for (double latency : latencies) sum += latency;
  std::printf(
      "{\"model\":\"%s\",\"workers\":%d,\"intra_op_threads\":%d,\"batch\":%lld,\"window_s\":%.3f,"
      "\"count\":%zu,\"throughput\":%.2f,\"rows_per_s\":%.2f,\"p50_us\":%.1f,\"p99_us\":%.1f,"
      "\"mean_us\":%.1f,\"session_ms\":[%s]}\n",
      flags.model.c_str(), flags.workers, flags.intra_op_threads,
      static_cast<long long>(flags.batch), flags.duration_s, latencies.size(),
      static_cast<double>(latencies.size()) / flags.duration_s,
      static_cast<double>(latencies.size()) * static_cast<double>(rows) / flags.duration_s,
      Percentile(latencies, 50), Percentile(latencies, 99),
      latencies.empty() ? 0.0 : sum / static_cast<double>(latencies.size()), session_ms.c_str());
  return latencies.empty() ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ort_inprocess: an ONNX model called in-process through ONNX Runtime"};
  Flags flags;
  app.add_option("--model", flags.model, "Path of the .onnx file")->required();
  app.add_option("--workers", flags.workers, "Worker threads, one session each")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--batch,--batch-size", flags.batch,
                 "Size of a variable leading dim (-1 in --shape or in the model): rows per call")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--shape", flags.shapes,
                 "Full input shape NAME:D1,D2,... (a leading -1 takes --batch)");
  app.add_option("--warmup-s", flags.warmup_s, "Seconds run before the window")
      ->capture_default_str();
  app.add_option("--duration-s", flags.duration_s, "Measurement window in seconds")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--intra-op-threads", flags.intra_op_threads, "ONNX Runtime intra-op threads")
      ->capture_default_str();
  app.add_option("--seed", flags.seed, "Seed of the random inputs")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    return Run(flags);
  } catch (const std::exception& e) {  // Ort::Exception and our own
    std::cerr << "ort_inprocess: " << e.what() << "\n";
    return 1;
  }
}
