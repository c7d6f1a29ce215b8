// SPDX-License-Identifier: Apache-2.0
// scheduler_bench: the scheduling layer alone, what it costs per request to go
// from Submit to an instance's Execute (issue 3: goal <= 2 us per request).
//
// A DynamicBatcher (or, for comparison, the DirectScheduler) over ONE
// instance that does no work: in "dispatch" mode its Execute only parks the
// batch (answered after the clock stops), so the timed path is exactly
// Submit -> queue -> batch forming -> instance hand-off -> Execute; in
// "complete" mode it answers every request at once, adding what completion
// costs (statistics, the callback, freeing the request). Requests carry one
// INT32 [1,4] input and record into a ModelStats as in the server; the
// batcher shares a real SharedTimer and the real clock, as in the server.
//
//   scheduler_bench                                  # Google Benchmark, all cases
//   scheduler_bench --benchmark_filter=Flood
//   valgrind --tool=callgrind --instr-atstart=no scheduler_bench --callgrind=batcher:20000
//       # instruction count of Submit -> Execute for 20000 requests (Ir / 20000 = per request)
//
// Counters per case: cpu_ns/req = process CPU time (every thread: submitter,
// instance, timer) / requests; real_ns/req = wall time / requests;
// submit_ns/req = wall time the submitting thread spent in Submit() / requests.
#include <time.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "backends/abi/backend_model.h"
#include "backends/abi/backend_request.h"
#include "base/clock.h"
#include "benchmark/benchmark.h"
#include "core/model_stats.h"
#include "scheduling/direct_scheduler.h"
#include "scheduling/dynamic_batcher.h"
#include "scheduling/shared_timer.h"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else  // no valgrind headers: --callgrind still runs, counting nothing
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#define RUNNING_ON_VALGRIND 0
#endif

namespace inferd::bench {
namespace {

using Clock = base::Clock;

// Counts arrivals (dispatched or answered requests) and parks dispatched
// batches until the benchmark answers them outside the timed region.
class Sink {
 public:
  void Expect(int64_t count) {
    absl::MutexLock lock(&mu_);
    remaining_.store(count, std::memory_order_relaxed);
    done_ = false;
  }
  void Arrived(int64_t count) {
    if (remaining_.fetch_sub(count, std::memory_order_acq_rel) == count) {
      absl::MutexLock lock(&mu_);
      done_ = true;
    }
  }
  void Await() {
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(&done_));
  }
  void Park(std::vector<std::unique_ptr<INFERD_Request>>& batch) {
    absl::MutexLock lock(&park_mu_);
    for (auto& request : batch) parked_.push_back(std::move(request));
  }
  std::vector<std::unique_ptr<INFERD_Request>> TakeParked() {
    absl::MutexLock lock(&park_mu_);
    return std::move(parked_);
  }

 private:
  std::atomic<int64_t> remaining_{0};
  absl::Mutex mu_;
  bool done_ ABSL_GUARDED_BY(mu_) = false;
  absl::Mutex park_mu_;
  std::vector<std::unique_ptr<INFERD_Request>> parked_ ABSL_GUARDED_BY(park_mu_);
};

enum class Mode { kDispatch, kComplete };

// An instance without a backend (BackendInstance's test-double constructor).
class NullInstance final : public backends::BackendInstance {
 public:
  NullInstance(Mode mode, Sink& sink) : mode_(mode), sink_(sink) {}
  void Execute(std::vector<std::unique_ptr<INFERD_Request>> requests) override {
    if (mode_ == Mode::kComplete) {
      for (auto& request : requests) request->Complete(absl::OkStatus());  // the callback counts it
      return;
    }
    const auto count = static_cast<int64_t>(requests.size());
    sink_.Park(requests);
    sink_.Arrived(count);
  }

 private:
  const Mode mode_;
  Sink& sink_;
};

// One model's scheduler with one NullInstance, its timer and statistics.
class Fixture {
 public:
  // max_batch 0: the DirectScheduler; otherwise a DynamicBatcher as the server
  // configures it (preferred batch size = max_batch_size, see NormalizeModelConfig).
  Fixture(int max_batch, int delay_us, Mode mode) : mode_(mode) {
    std::vector<std::unique_ptr<backends::BackendInstance>> instances;
    instances.push_back(std::make_unique<NullInstance>(mode, sink_));
    auto io = std::make_shared<backends::ModelIO>();
    io->model_name = "bench";
    io->model_version = 1;
    io->max_batch_size = max_batch;
    io->stats = std::make_shared<core::ModelStats>();
    io_ = io;
    if (max_batch == 0) {
      scheduler_ = std::make_unique<scheduling::DirectScheduler>("bench", std::move(instances));
      return;
    }
    scheduling::BatchingConfig config;
    config.model_name = "bench";
    config.max_batch_size = max_batch;
    config.preferred_batch_sizes = {max_batch};
    config.max_queue_delay_micros = static_cast<uint64_t>(delay_us);
    scheduler_ = std::make_unique<scheduling::DynamicBatcher>(config, std::move(instances),
                                                              Clock::Real(), timer_);
  }
  ~Fixture() { scheduler_->Stop(); }

  std::vector<std::unique_ptr<INFERD_Request>> MakeRequests(int count) {
    std::vector<std::unique_ptr<INFERD_Request>> requests;
    requests.reserve(count);
    for (int i = 0; i < count; ++i) {
      auto request = std::make_unique<core::InferRequest>();
      request->model_name = "bench";
      core::Tensor x;
      x.name = "x";
      x.datatype = core::DataType::kInt32;
      x.shape = {1, 4};
      request->inputs.push_back(std::move(x));
      core::InferCallback callback = [sink = &sink_](absl::StatusOr<core::InferResponse>) {
        sink->Arrived(1);
      };
      if (mode_ == Mode::kDispatch) callback = [](absl::StatusOr<core::InferResponse>) {};
      requests.push_back(std::make_unique<INFERD_Request>(
          std::move(request), std::move(callback), io_, std::vector<std::string>{}, 1, nullptr));
    }
    return requests;
  }

  // Submits every request and waits until all reached the instance (dispatch)
  // or were answered (complete). Returns the ns spent inside Submit().
  int64_t Run(std::vector<std::unique_ptr<INFERD_Request>>& requests) {
    sink_.Expect(static_cast<int64_t>(requests.size()));
    const int64_t start = Clock::Real().NowNanos();
    for (auto& request : requests) scheduler_->Submit(std::move(request));
    const int64_t submitted = Clock::Real().NowNanos();
    sink_.Await();
    return submitted - start;
  }

  // Answers the parked requests (dispatch mode), outside the timed region.
  void AnswerParked() {
    for (auto& request : sink_.TakeParked()) request->Complete(absl::OkStatus());
  }

 private:
  const Mode mode_;
  Sink sink_;
  scheduling::SharedTimer timer_;
  std::shared_ptr<const backends::ModelIO> io_;
  std::unique_ptr<scheduling::Scheduler> scheduler_;
};

int64_t ProcessCpuNanos() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// Submits `per_iteration` requests back to back per iteration.
// Args: max_batch (0 = DirectScheduler), max_queue_delay_us, mode (0 dispatch, 1 complete),
// requests per iteration.
void BM_Scheduler(benchmark::State& state) {
  const int max_batch = static_cast<int>(state.range(0));
  const Mode mode = state.range(2) == 0 ? Mode::kDispatch : Mode::kComplete;
  const int per_iteration = static_cast<int>(state.range(3));
  Fixture fixture(max_batch, static_cast<int>(state.range(1)), mode);
  int64_t cpu = 0, real = 0, submit = 0, requests_done = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto requests = fixture.MakeRequests(per_iteration);
    state.ResumeTiming();
    const int64_t cpu_start = ProcessCpuNanos();
    const int64_t real_start = Clock::Real().NowNanos();
    submit += fixture.Run(requests);
    real += Clock::Real().NowNanos() - real_start;
    cpu += ProcessCpuNanos() - cpu_start;
    requests_done += per_iteration;
    state.PauseTiming();
    fixture.AnswerParked();
    requests.clear();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(requests_done);
  const auto per_request = [&](int64_t nanos) {
    return benchmark::Counter(static_cast<double>(nanos) / static_cast<double>(requests_done));
  };
  state.counters["cpu_ns/req"] = per_request(cpu);
  state.counters["real_ns/req"] = per_request(real);
  state.counters["submit_ns/req"] = per_request(submit);
}

void FloodArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"max_batch", "delay_us", "complete", "requests"});
  for (int complete : {0, 1}) {
    b->Args({0, 0, complete, 1024});     // DirectScheduler
    b->Args({1, 0, complete, 1024});     // batcher, batches of one
    b->Args({32, 0, complete, 1024});    // batcher, max_batch_size 32, no delay
    b->Args({32, 100, complete, 1024});  // the same with max_queue_delay 100 us
  }
}
BENCHMARK(BM_Scheduler)->Name("Flood")->Apply(FloodArgs)->UseRealTime()->MeasureProcessCPUTime();

// One request at a time: Submit, then wait for it (an idle instance each
// time), i.e. the latency of the hand-off to the instance thread and back.
void OneAtATimeArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"max_batch", "delay_us", "complete", "requests"});
  b->Args({0, 0, 1, 1});
  b->Args({32, 0, 1, 1});
}
BENCHMARK(BM_Scheduler)
    ->Name("OneAtATime")
    ->Apply(OneAtATimeArgs)
    ->UseRealTime()
    ->MeasureProcessCPUTime();

// --callgrind=batcher|direct:N: one run of N requests in dispatch mode with
// callgrind's instrumentation on only around it.
int RunForCallgrind(const std::string& spec) {
  const size_t colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  const int count = colon == std::string::npos ? 10000 : std::atoi(spec.c_str() + colon + 1);
  if ((kind != "batcher" && kind != "direct") || count <= 0) {
    std::fprintf(stderr, "scheduler_bench: --callgrind wants batcher|direct[:N]\n");
    return 2;
  }
  Fixture fixture(kind == "batcher" ? 32 : 0, 0, Mode::kDispatch);
  auto warmup = fixture.MakeRequests(1000);
  fixture.Run(warmup);
  fixture.AnswerParked();
  auto requests = fixture.MakeRequests(count);
  CALLGRIND_ZERO_STATS;
  CALLGRIND_START_INSTRUMENTATION;
  fixture.Run(requests);
  CALLGRIND_STOP_INSTRUMENTATION;
  fixture.AnswerParked();
  std::printf(
      "scheduler_bench: %s, %d requests (Submit -> Execute); callgrind's Ir / %d = per request%s\n",
      kind.c_str(), count, count,
      RUNNING_ON_VALGRIND ? "" : " (not under valgrind: nothing counted)");
  return 0;
}

}  // namespace
}  // namespace inferd::bench

int main(int argc, char** argv) {
  constexpr const char kCallgrind[] = "--callgrind=";
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], kCallgrind, sizeof kCallgrind - 1) == 0) {
      return inferd::bench::RunForCallgrind(argv[i] + sizeof kCallgrind - 1);
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
