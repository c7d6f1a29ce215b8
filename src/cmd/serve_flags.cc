// SPDX-License-Identifier: Apache-2.0
// inferd's own flags of `inferd serve`, each onto the option it sets.
#include "cmd/flags.h"

namespace inferd::cmd {

namespace metrics = frontends::metrics;

namespace {

void AddLifecycleFlags(CLI::App& serve, Flags& flags) {
  serve
      .add_option("--model-control-mode", flags.model_control_mode,
                  "none: load every model at start-up; poll: also apply repository changes; "
                  "explicit: load only --load-model and what the load API asks for")
      ->transform(CLI::IsMember({"none", "poll", "explicit"}, CLI::ignore_case))
      ->capture_default_str();
  serve.add_option("--load-model", flags.server.startup_models,
                   "Explicit mode: a model to load at start-up (repeat; * loads all)");
  serve
      .add_option("--repository-poll-secs", flags.server.repository_poll_secs,
                  "Poll mode: seconds between two repository scans; a change is applied once "
                  "the folder is unchanged across two scans")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  serve
      .add_option("--model-load-thread-count", flags.server.model_load_threads,
                  "Threads that load and warm up models (0: min(4, cores))")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  serve
      .add_option("--version-transition-policy", flags.version_transition_policy,
                  "How a new version replaces the old one: availability_preserving (load the "
                  "new one first) or resource_preserving (unload the old one first)")
      ->check(CLI::IsMember({"availability_preserving", "resource_preserving"}))
      ->capture_default_str();
  serve
      .add_option("--strict-readiness", flags.server.strict_readiness,
                  "Ready only when every model that should be loaded is ready")
      ->expected(0, 1)
      ->default_str("true");
  serve
      .add_option("--shutdown-grace-secs", flags.shutdown_grace_secs,
                  "On SIGTERM: keep serving this long with readiness false, so load balancers "
                  "stop sending, before no longer accepting requests")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  serve
      .add_option("--exit-timeout-secs", flags.exit_timeout_secs,
                  "On SIGTERM, after the grace period: time to finish accepted requests before "
                  "those still queued are answered with an error")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
}

void AddMetricsFlags(CLI::App& serve, MetricsFlags& flags) {
  // Booleans with an optional value: --allow-metrics, --allow-metrics=false
  // and Triton's spelling --allow-metrics false all work.
  serve.add_option("--allow-metrics", flags.allow, "Serve Prometheus metrics on GET /metrics")
      ->expected(0, 1)
      ->default_str("true");
  serve.add_option("--metrics-port", flags.port, "Prometheus metrics port (0 picks a free one)")
      ->capture_default_str();
  serve.add_option("--metrics-address", flags.address,
                   "Address the metrics endpoint listens on (default: --host)");
  serve
      .add_option("--metrics-duration-buckets", flags.duration_buckets,
                  "Bucket bounds of the duration histograms: seconds, comma-separated, ascending")
      ->capture_default_str();
  serve
      .add_option("--metrics-batch-size-buckets", flags.batch_size_buckets,
                  "Bucket bounds of the batch size histogram: integers, comma-separated, ascending")
      ->capture_default_str();
  serve
      .add_option("--metrics-triton-names", flags.options.triton_names,
                  "Also export Triton's nv_inference_* metric names for the same data")
      ->expected(0, 1)
      ->default_str("true");
}

void AddCacheFlags(CLI::App& serve, Flags& flags) {
  serve.add_option("--cache-config", flags.cache_config,
                   "Response cache: local,size=<bytes> (Triton's syntax); models opt in with "
                   "response_cache { enable: true }");
  serve
      .add_option("--response-cache-byte-size", flags.response_cache_byte_size,
                  "Triton's older spelling of --cache-config local,size=<bytes>")
      ->check(CLI::NonNegativeNumber);
}

}  // namespace

void AddServeFlags(CLI::App& serve, Flags& flags) {
  serve
      .add_option("--model-repository,--model-store", flags.server.model_repositories,
                  "Model repository folder or s3:// URL (repeat for several); --model-store is "
                  "Triton's other name for it")
      ->required();
  serve.add_option(
      "--backend-directory", flags.server.backend_directory,
      "Folder with <backend>/libinferd_<backend>.so (default: ../lib/backends beside the binary)");
  serve.add_option("--host", flags.http.host, "Address the HTTP and gRPC endpoints listen on")
      ->capture_default_str();
  serve.add_option("--http-port", flags.http.port, "HTTP/REST port (0 picks a free one)")
      ->capture_default_str();
  serve.add_option("--grpc-port", flags.grpc.port, "gRPC port (0 picks a free one)")
      ->capture_default_str();
  serve
      .add_option("--http-threads,--http-thread-count", flags.http.threads,
                  "HTTP I/O threads (--http-thread-count: Triton's name)")
      ->capture_default_str();
  serve
      .add_option("--http-max-body-bytes", flags.http.max_body_bytes,
                  "Largest HTTP request body accepted (after decompression)")
      ->capture_default_str();
  serve
      .add_option("--http-max-json-input-bytes", flags.http.max_json_input_bytes,
                  "Largest total tensor data decoded from JSON in one request")
      ->capture_default_str();
  serve
      .add_option("--grpc-max-message-bytes", flags.grpc.max_message_bytes,
                  "Largest gRPC message sent or received")
      ->capture_default_str();
  serve
      .add_option("--grpc-max-concurrent-streams", flags.grpc.max_concurrent_streams,
                  "HTTP/2 streams one gRPC connection may open at once")
      ->capture_default_str();
  serve
      .add_option("--cpu-cores", flags.server.cpu_cores,
                  "Cores the default thread counts are sized for (0: all available)")
      ->capture_default_str();
  serve
      .add_option("--inline-execution-max-us", flags.server.inline_execution_max_us,
                  "Run a request to an idle unbatched model on the frontend's thread when its "
                  "recent executions took at most this many microseconds (0: never)")
      ->capture_default_str();
  serve.add_flag("--disable-auto-complete-config", flags.disable_auto_complete,
                 "Require a complete config.pbtxt; never derive one from the model file");
  serve.add_option("--log-level", flags.log_level, "trace, debug, info, warn, error or off")
      ->capture_default_str();
  AddMetricsFlags(serve, flags.metrics);
  AddLifecycleFlags(serve, flags);
  AddCacheFlags(serve, flags);
  AddTfsFlags(serve, flags.tfs);
  AddObjectStoreFlags(serve, flags.server.repository_sources);
}

}  // namespace inferd::cmd
