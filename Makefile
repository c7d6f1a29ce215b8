# SPDX-License-Identifier: Apache-2.0
# inferd's front door. Every target installs what it needs first (`setup` is quick
# once done), so on a fresh Debian 12 machine `make serve` and `make test` just work.
#
#   make setup             Debian packages, ONNX Runtime, .venv, example models, test data
#   make setup-serving     only what `make serve` needs (scripts/setup.sh serving)
#   make build             release build: build/bin/inferd
#   make serve             build the server and its backends only (no tests), then serve
#                          examples/models on ports 8000 (HTTP), 8001 (gRPC), 8002 (metrics)
#   make install           install the release build under PREFIX (default /usr/local; DESTDIR
#                          is honoured): bin/inferd, bin/tritonserver (a symlink: Triton's
#                          command line), lib/backends/, lib/libinferd.so (the embedding
#                          C API), include/inferd/, lib/pkgconfig/inferd.pc, lib/cmake/inferd/
#   make test              unit + integration tests, release and ASan+UBSan builds
#   make test-unit         C++ unit tests (ctest) of the release build
#   make test-integration  pytest against build/bin/inferd
#   make test-python       the Python backend's worker package (python/) on its own
#   make test-embed        the in-process Python API (python/inferd_embed) installed into .venv,
#                          and embedding from an installed prefix (tests/embed)
#   make asan              ASan+UBSan build (build/asan) with its unit and integration tests
#   make tsan              ThreadSanitizer build (build/tsan) of the concurrent code's unit tests
#   make bench             all the benchmarks below, one after the other
#   make bench-transport   inferd vs bare round trip vs in-process (bench/run.sh)
#   make bench-batching    dynamic batching vs in-process (bench/batching.sh)
#   make bench-lifecycle   p99 during version swaps, folder → serving, start-up (bench/lifecycle.sh)
#   make bench-backends    Python and LibTorch backends' cost per request vs in-process and
#                          vs an ONNX Identity model (bench/backends.sh)
#   make bench-pipelines   ensembles vs client orchestration, a BLS call vs a client call, the
#                          OCR pipeline vs the same work in one process (bench/pipelines.sh)
#   make bench-streaming   gRPC streams vs unary calls, decoupled responses, the Silero VAD
#                          streams' real-time factor and sequence batching vs in-process
#                          (bench/streaming.sh)
#   make bench-zero-copy   64 KiB-64 MiB tensors via system shared memory vs HTTP binary vs gRPC,
#                          beside a memcpy of the same bytes (bench/zero_copy.sh); the embedding
#                          C API's cost per request vs ONNX Runtime's C API (bench/capi_overhead.sh)
#   make bench-scheduler   the scheduler alone (Google Benchmark: scheduler_bench)
#   make bench-peers       inferd beside Triton 2.51 (PyPI's nvidia-pytriton wheel, fetched into
#                          .deps/pytriton on first use): the same Python models, inferd's ONNX
#                          Runtime backend vs Triton's Python + onnxruntime, start-up and RSS
#                          (bench/peers.sh)
#   make image             the OCI image inferd:<version> with buildah (deploy/image/build.sh):
#                          Debian 12 slim, ONNX Runtime + Python backends, non-root
#   make image-libtorch    the same with the LibTorch backend: inferd:<version>-libtorch
#   make test-deploy       the image, the Helm chart and the KServe manifests (tests/deploy)
#   make format            clang-format the C++ sources in place
#   make clean             remove build outputs (keeps .deps and .venv)

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := build

VENV := .venv
# ccache hits across checkouts in different folders (CI clones elsewhere).
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1
PYTEST := $(VENV)/bin/pytest
# Upper bound per integration test, so that a hang cannot eat CI's time;
# a test may set its own with @pytest.mark.timeout.
PYTEST_TIMEOUT ?= 300
PYTEST_ARGS ?=
SANITIZER_ENV := ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

FORMAT_DIRS := $(wildcard src include tests/unit bench examples)
CLANG_FORMAT_STYLE := $(if $(wildcard .clang-format),file,{BasedOnStyle: Google, ColumnLimit: 100})

.PHONY: setup setup-serving build build-serving serve install test test-unit test-python test-embed embed-install \
        test-integration asan asan-build \
        asan-test-unit asan-test-integration bench bench-transport bench-batching \
        image image-libtorch test-deploy \
        bench-lifecycle bench-backends bench-pipelines bench-streaming bench-zero-copy bench-cache bench-scheduler bench-peers tsan tsan-build format clean

setup:
	@scripts/setup.sh

setup-serving:
	@scripts/setup.sh serving

build: setup
	cmake --preset release
	cmake --build --preset release

# Only what serving needs (the `serving` target: server and backends), not the
# test binaries; `make build` and `make test` build everything.
build-serving: setup-serving
	cmake --preset release
	cmake --build --preset release --target serving

# Python models run on the first python3 with numpy (Debian's, with python3-numpy
# from setup, when PATH's first lacks it) unless INFERD_PYTHON names another.
serve: build-serving
	build/bin/inferd serve --model-repository examples/models

# The server, its backends, the backend ABI headers, the embedding library
# (libinferd.so, inferd.h, inferd.pc) and the CMake package that out-of-tree
# backends and embedders use (find_package(inferd)); see docs/backends.md and
# docs/embedding.md.
PREFIX ?= /usr/local
install: build
	DESTDIR="$(DESTDIR)" cmake --install build --prefix "$(PREFIX)"

test: test-unit test-python test-embed test-integration test-deploy asan tsan

test-unit: build
	ctest --preset release

# run_pytest BINARY [ENV...]: the integration suite against one inferd binary.
define run_pytest
	env $(2) INFERD_BINARY="$(CURDIR)/$(1)" $(PYTEST) -ra --timeout=$(PYTEST_TIMEOUT) \
	  $(PYTEST_ARGS) tests/integration
endef

# The worker side of the Python backend, without a server (tests/python).
test-python: setup
	$(PYTEST) -ra --timeout=$(PYTEST_TIMEOUT) $(PYTEST_ARGS) tests/python

# The `inferd` Python package (python/inferd_embed) against build/lib/libinferd.so,
# installed into .venv again only when its sources or the library changed (a
# second make reads the library's time after `build` made it), then tests/embed.
EMBED_STAMP := $(VENV)/.stamp-inferd-embed
EMBED_SOURCES := $(shell find python/inferd_embed -path python/inferd_embed/build -prune \
                   -o -type f ! -name '*.pyc' -print)

test-embed: build
	@$(MAKE) --no-print-directory embed-install
	$(PYTEST) -ra --timeout=$(PYTEST_TIMEOUT) $(PYTEST_ARGS) tests/embed

embed-install: $(EMBED_STAMP)

$(EMBED_STAMP): $(EMBED_SOURCES) build/lib/libinferd.so
	$(VENV)/bin/pip install -q --disable-pip-version-check --no-build-isolation --no-deps \
	  ./python/inferd_embed
	touch $@

test-integration: build
	$(call run_pytest,build/bin/inferd)

# The image holds the serving build only (docs/deployment.md); buildah and mmdebstrap come
# from the full setup. A rebuild with the package layer cached takes about 20 s.
image: setup
	cmake --preset release
	cmake --build --preset release --target serving
	deploy/image/build.sh

image-libtorch: build
	deploy/image/build.sh --libtorch

# The image's own tests need it built; the chart's and KServe's need only helm and
# kubeconform (scripts/fetch_deploy_tools.sh, from setup).
test-deploy: image
	$(PYTEST) -ra --timeout=$(PYTEST_TIMEOUT) $(PYTEST_ARGS) tests/deploy

asan: asan-test-unit asan-test-integration

asan-build: setup
	cmake --preset asan
	cmake --build --preset asan

asan-test-unit: asan-build
	ctest --preset asan

asan-test-integration: asan-build
	$(call run_pytest,build/asan/bin/inferd,$(SANITIZER_ENV))

# TSan covers the scheduler, the lifecycle, the statistics and what they share with the
# frontends (the tests labelled `tsan`). Only those targets are built: the
# rest of the tree runs under ASan, and ONNX Runtime is not instrumented.
TSAN_TARGETS := mutex_test thread_pool_test scheduling_test batcher_cancellation_test ensemble_test model_stats_test cancellation_test lifecycle_transitions_test python_protocol_test python_bls_test python_responses_test sequence_batcher_test shared_memory_registry_test response_cache_test inferd_fake

tsan: tsan-build
	ctest --preset tsan -L tsan

tsan-build: setup
	cmake --preset tsan
	cmake --build --preset tsan --target $(TSAN_TARGETS)

# The benchmarks run one after the other (never in parallel: they pin their processes
# to the same cores). scheduler_bench: median of 3 repetitions; docs/benchmarks.md has
# its callgrind mode.
SCHEDULER_BENCH := build/bin/bench/scheduler_bench --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true

bench: build
	bench/run.sh
	bench/batching.sh
	bench/lifecycle.sh
	bench/backends.sh
	bench/pipelines.sh
	bench/streaming.sh
	bench/zero_copy.sh
	bench/capi_overhead.sh
	bench/cache.sh
	$(SCHEDULER_BENCH)
	bench/peers.sh

bench-transport: build
	bench/run.sh

bench-batching: build
	bench/batching.sh

bench-lifecycle: build
	bench/lifecycle.sh

bench-backends: build
	bench/backends.sh

bench-pipelines: build
	bench/pipelines.sh

bench-streaming: build
	bench/streaming.sh

bench-zero-copy: build
	bench/zero_copy.sh
	bench/capi_overhead.sh

bench-cache: build
	bench/cache.sh

bench-scheduler: build
	$(SCHEDULER_BENCH)

bench-peers: build
	bench/peers.sh

format:
	@files=$$(find $(FORMAT_DIRS) -type f \( -name '*.h' -o -name '*.cc' -o -name '*.cpp' \)); \
	if [ -n "$$files" ]; then clang-format -i --style='$(CLANG_FORMAT_STYLE)' $$files; fi

clean:
	rm -rf build
