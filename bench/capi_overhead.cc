// SPDX-License-Identifier: Apache-2.0
// capi_overhead: what the embedding C API (include/inferd/inferd.h) costs per
// request at batch 1, against ONNX Runtime's C API called directly on the
// same ONNX model, in one process run. Both sides run the model with one
// intra-op thread; each request is issued, waited for and its output read
// before the next (one request in flight), in alternating rounds so that
// both see the same machine state. Prints one JSON object: per side the
// median over rounds of the mean and of the p50/p99 µs per request, and the
// difference and ratio of the means (the C API's overhead).
//
//   capi_overhead --repository R --model identity_fp32 --onnx R/identity_fp32/1/model.onnx
//                 --elements 16 [--rounds 5] [--requests 2000]
// bench/capi_overhead.sh makes the identity model and runs it pinned to one core.
#include <inferd/inferd.h>
#include <onnxruntime_c_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "capi_overhead: %s\n", what.c_str());
  std::exit(1);
}

void CheckInferd(INFERD_Error* error, const char* what) {
  if (error == nullptr) return;
  std::string message = std::string(what) + ": " + INFERD_ErrorGetMessage(error);
  INFERD_ErrorDelete(error);
  Die(message);
}

const OrtApi* ort = nullptr;

void CheckOrt(OrtStatus* status, const char* what) {
  if (status == nullptr) return;
  std::string message = std::string(what) + ": " + ort->GetErrorMessage(status);
  ort->ReleaseStatus(status);
  Die(message);
}

struct Flags {
  std::string repository, model, onnx;
  int64_t elements = 16;
  int rounds = 5;
  int requests = 2000;
};

Flags ParseFlags(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--repository")
      flags.repository = value;
    else if (key == "--model")
      flags.model = value;
    else if (key == "--onnx")
      flags.onnx = value;
    else if (key == "--elements")
      flags.elements = std::atoll(value.c_str());
    else if (key == "--rounds")
      flags.rounds = std::atoi(value.c_str());
    else if (key == "--requests")
      flags.requests = std::atoi(value.c_str());
    else
      Die("unknown flag " + key);
  }
  if (flags.repository.empty() || flags.model.empty() || flags.onnx.empty()) {
    Die("usage: capi_overhead --repository R --model M --onnx FILE [--elements N] [--rounds K] "
        "[--requests N]");
  }
  return flags;
}

// One round: the mean, p50 and p99 in µs of `requests` calls of `call`.
struct Round {
  double mean_us, p50_us, p99_us;
};

template <typename Call>
Round Measure(int requests, Call&& call) {
  std::vector<double> us(static_cast<size_t>(requests));
  const auto start = Clock::now();
  for (double& sample : us) {
    const auto t0 = Clock::now();
    call();
    sample = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
  }
  const double total = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
  std::sort(us.begin(), us.end());
  return {total / requests, us[us.size() / 2], us[us.size() * 99 / 100]};
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// ONNX Runtime alone: one session, one intra-op thread, the input lent to
// an OrtValue and the output read, per request (what the backend does).
class DirectOrt {
 public:
  DirectOrt(const std::string& onnx, const std::vector<float>& input)
      : input_(input), shape_{static_cast<int64_t>(input.size())} {
    CheckOrt(ort->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "capi_overhead", &env_), "CreateEnv");
    OrtSessionOptions* options = nullptr;
    CheckOrt(ort->CreateSessionOptions(&options), "CreateSessionOptions");
    CheckOrt(ort->SetIntraOpNumThreads(options, 1), "SetIntraOpNumThreads");
    CheckOrt(ort->SetInterOpNumThreads(options, 1), "SetInterOpNumThreads");
    CheckOrt(ort->CreateSession(env_, onnx.c_str(), options, &session_), "CreateSession");
    ort->ReleaseSessionOptions(options);
    CheckOrt(ort->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &memory_),
             "CreateCpuMemoryInfo");
  }
  ~DirectOrt() {
    ort->ReleaseMemoryInfo(memory_);
    ort->ReleaseSession(session_);
    ort->ReleaseEnv(env_);
  }

  float Run() {
    OrtValue* in = nullptr;
    CheckOrt(ort->CreateTensorWithDataAsOrtValue(memory_, const_cast<float*>(input_.data()),
                                                 input_.size() * sizeof(float), shape_, 1,
                                                 ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &in),
             "CreateTensorWithDataAsOrtValue");
    const char* input_names[] = {"INPUT0"};
    const char* output_names[] = {"OUTPUT0"};
    OrtValue* out = nullptr;
    CheckOrt(ort->Run(session_, nullptr, input_names, &in, 1, output_names, 1, &out), "Run");
    float* data = nullptr;
    CheckOrt(ort->GetTensorMutableData(out, reinterpret_cast<void**>(&data)),
             "GetTensorMutableData");
    const float last = data[input_.size() - 1];
    ort->ReleaseValue(out);
    ort->ReleaseValue(in);
    return last;
  }

 private:
  const std::vector<float>& input_;
  int64_t shape_[1];
  OrtEnv* env_ = nullptr;
  OrtSession* session_ = nullptr;
  OrtMemoryInfo* memory_ = nullptr;
};

// The same model served by an embedded inferd (ONNX Runtime backend, one
// instance), through INFERD_ServerInfer.
class EmbeddedInferd {
 public:
  EmbeddedInferd(const Flags& flags, const std::vector<float>& input)
      : model_(flags.model), input_(input) {
    INFERD_ServerOptions* options = nullptr;
    CheckInferd(INFERD_ServerOptionsNew(&options), "options");
    CheckInferd(INFERD_ServerOptionsAddModelRepository(options, flags.repository.c_str()),
                "repository");
    CheckInferd(INFERD_ServerOptionsSetCpuCores(options, 1), "cores");
    CheckInferd(INFERD_ServerOptionsSetLogLevel(options, "warn"), "log level");
    CheckInferd(INFERD_ServerNew(&server_, options), "INFERD_ServerNew");
    INFERD_ServerOptionsDelete(options);
    int ready = 0;
    CheckInferd(INFERD_ServerModelIsReady(server_, model_.c_str(), -1, &ready), "ready");
    if (!ready) Die("model '" + model_ + "' is not ready");
  }
  ~EmbeddedInferd() { INFERD_ServerDelete(server_); }

  float Run() {
    INFERD_InferRequest* request = nullptr;
    CheckInferd(INFERD_InferRequestNew(&request, model_.c_str(), -1), "request");
    const int64_t shape[1] = {static_cast<int64_t>(input_.size())};
    CheckInferd(
        INFERD_InferRequestAddInput(request, "INPUT0", INFERD_TYPE_FP32, shape, 1, input_.data(),
                                    input_.size() * sizeof(float), nullptr, nullptr),
        "input");
    INFERD_InferResponse* response = nullptr;
    CheckInferd(INFERD_ServerInfer(server_, request, &response), "INFERD_ServerInfer");
    const void* data = nullptr;
    CheckInferd(
        INFERD_InferResponseOutput(response, 0, nullptr, nullptr, nullptr, nullptr, &data, nullptr),
        "output");
    const float last = static_cast<const float*>(data)[input_.size() - 1];
    INFERD_InferResponseDelete(response);
    return last;
  }

 private:
  std::string model_;
  const std::vector<float>& input_;
  INFERD_EmbeddedServer* server_ = nullptr;
};

void PrintSide(const char* name, const std::vector<Round>& rounds, bool comma) {
  std::vector<double> mean, p50, p99;
  for (const Round& r : rounds) {
    mean.push_back(r.mean_us);
    p50.push_back(r.p50_us);
    p99.push_back(r.p99_us);
  }
  std::printf("  \"%s\": {\"mean_us\": %.2f, \"p50_us\": %.2f, \"p99_us\": %.2f}%s\n", name,
              Median(mean), Median(p50), Median(p99), comma ? "," : "");
}

}  // namespace

int main(int argc, char** argv) {
  const Flags flags = ParseFlags(argc, argv);
  ort = OrtGetApiBase()->GetApi(ORT_API_VERSION);
  if (ort == nullptr)
    Die("this ONNX Runtime does not offer API version " + std::to_string(ORT_API_VERSION));
  std::vector<float> input(static_cast<size_t>(flags.elements));
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(i) + 0.5f;
  const float expected = input.back();

  DirectOrt direct(flags.onnx, input);
  EmbeddedInferd embedded(flags, input);
  // Warm-up: both paths' first calls allocate (arenas, thread wake-up).
  for (int i = 0; i < 200; ++i) {
    if (direct.Run() != expected || embedded.Run() != expected) Die("wrong output");
  }
  std::vector<Round> direct_rounds, embedded_rounds;
  for (int round = 0; round < flags.rounds; ++round) {
    direct_rounds.push_back(Measure(flags.requests, [&] { direct.Run(); }));
    embedded_rounds.push_back(Measure(flags.requests, [&] { embedded.Run(); }));
  }
  std::vector<double> direct_means, embedded_means;
  for (const Round& r : direct_rounds) direct_means.push_back(r.mean_us);
  for (const Round& r : embedded_rounds) embedded_means.push_back(r.mean_us);
  const double d = Median(direct_means), e = Median(embedded_means);
  std::printf("{\n  \"elements\": %lld, \"rounds\": %d, \"requests_per_round\": %d,\n",
              static_cast<long long>(flags.elements), flags.rounds, flags.requests);
  PrintSide("ort_c_api", direct_rounds, true);
  PrintSide("inferd_c_api", embedded_rounds, true);
  std::printf("  \"overhead_us\": %.2f, \"ratio\": %.2f\n}\n", e - d, e / d);
  return 0;
}
