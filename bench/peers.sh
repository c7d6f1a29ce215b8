#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make bench-peers` (also part of `make bench`): inferd beside Triton 2.51, in ONE run,
# the same model files on both (docs/benchmarks.md, "inferd beside Triton", explains the
# method and the columns).
#
# Triton is the tritonserver of PyPI's nvidia-pytriton 0.7.0 wheel: the setup step below
# downloads it into .deps/pytriton (pip download, once), unpacks it, copies its Python
# 3.11 stub into backends/python/ and installs onnxruntime (the release inferd's ONNX
# Runtime backend uses, scripts/fetch_onnxruntime.sh) for Debian's python3.11 into
# .deps/pytriton/site. Triton's stub embeds Debian's libpython3.11 in isolated mode
# (PYTHONPATH is ignored), so onnxruntime is linked into backends/python/, which is on
# its sys.path; inferd's workers (Debian's python3 too) get the same folder on PYTHONPATH.
#
# bench/peers.py models writes the repositories:
#   shared/  py_identity  model.py returning INPUT0 (FP32 [16], max_batch_size 8)
#            py_ocr_cls   model.py running examples/models/ocr_cls/1/model.onnx through
#                         onnxruntime (intra-op 1), dynamic batching, max_batch_size 16
#   native/  ort_ocr_cls  the same model.onnx on inferd's ONNX Runtime backend, dynamic
#                         batching, max_batch_size 16 (inferd only: the wheel has no
#                         onnxruntime backend, so Triton's row is py_ocr_cls)
# one CPU instance each. Both servers pinned to core 0 (taskset), perf_analyzer on core 1.
#   1. Start-up: each server started BENCH_PEERS_STARTUPS times on shared/: seconds to
#      GET /v2/health/ready = 200, then RSS and PSS summed over its process tree.
#   2. Load: both servers up; per repeat, row, protocol (HTTP, gRPC) and concurrency
#      (1, 16), perf_analyzer on inferd then on Triton (3 windows of BENCH_INTERVAL_MS).
#   3. The process trees' memory after the load; the tables (ratios per repeat).
# Prints markdown and writes it to bench/results/<date>-peers.md.
#
# Environment (all optional; the common ones are in bench/lib.sh):
#   BENCH_PEERS_ROWS="py_identity py_ocr_cls ort_ocr_cls"  BENCH_PROTOCOLS="http grpc"
#   BENCH_PEERS_CONCURRENCY="1 16"  BENCH_PEERS_STARTUPS=3
#   BENCH_SYSTEM_PYTHON=/usr/bin/python3 (runs the Python models on both servers)
set -euo pipefail
BENCH_NEEDS="perf_analyzer"
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ROWS=${BENCH_PEERS_ROWS:-py_identity py_ocr_cls ort_ocr_cls}
PROTOCOLS=${BENCH_PROTOCOLS:-http grpc}
CONCURRENCY=${BENCH_PEERS_CONCURRENCY:-1 16}
STARTUPS=${BENCH_PEERS_STARTUPS:-3}
SYSTEM_PYTHON=${BENCH_SYSTEM_PYTHON:-/usr/bin/python3}
PYTRITON_VERSION=0.7.0
ORT_VERSION=$(sed -n 's/^ORT_VERSION=//p' scripts/fetch_onnxruntime.sh)
DEPS=.deps/pytriton
TRITON=$DEPS/unpacked/pytriton/tritonserver
SITE=$ROOT/$DEPS/site
OCR_ONNX=examples/models/ocr_cls/1/model.onnx
OCR_SHAPE="--shape x:3,48,192"  # what PaddleOCR feeds its direction classifier
[ -x "$INFERD_BINARY" ] || die "$INFERD_BINARY not found: build it first (make build)"
[ -x "$SYSTEM_PYTHON" ] || die "$SYSTEM_PYTHON not found (Debian's python3, with python3-numpy)"
[ -f "$OCR_ONNX" ] || die "$OCR_ONNX not found: run 'make setup' (scripts/fetch_models.sh)"
[ -n "$ORT_VERSION" ] || die "no ORT_VERSION in scripts/fetch_onnxruntime.sh"

# --- setup (idempotent: each step only when its result is missing) ---------------------
setup_triton() {
  mkdir -p "$DEPS"
  local wheel
  wheel=$(ls "$DEPS"/nvidia_pytriton-$PYTRITON_VERSION-*.whl 2>/dev/null | head -1 || true)
  if [ -z "$wheel" ]; then
    log "setup: pip download nvidia-pytriton==$PYTRITON_VERSION (Triton 2.51) into $DEPS"
    bounded "$RUN_TIMEOUT_S" "pip download" "$PY" -m pip download -q --disable-pip-version-check \
      --no-deps -d "$DEPS" "nvidia-pytriton==$PYTRITON_VERSION"
    wheel=$(ls "$DEPS"/nvidia_pytriton-$PYTRITON_VERSION-*.whl | head -1)
  fi
  $PY bench/peers.py unpack "$wheel" "$DEPS/unpacked"
  [ -x "$TRITON/bin/tritonserver" ] || die "no bin/tritonserver in $wheel"
  cp -u "$TRITON/python_backend_stubs/3.11/triton_python_backend_stub" "$TRITON/backends/python/"
  if [ ! -d "$SITE/onnxruntime" ] || [ ! -d "$SITE/onnxruntime-$ORT_VERSION.dist-info" ]; then
    log "setup: onnxruntime==$ORT_VERSION for $SYSTEM_PYTHON into $SITE"
    rm -rf "$SITE"
    bounded "$RUN_TIMEOUT_S" "pip install onnxruntime" "$PY" -m pip install -q \
      --disable-pip-version-check --no-deps --target "$SITE" "onnxruntime==$ORT_VERSION"
  fi
  ln -sfn "$SITE/onnxruntime" "$TRITON/backends/python/onnxruntime"
  PYTHONPATH=$SITE "$SYSTEM_PYTHON" -c 'import numpy, onnxruntime' \
    || die "$SYSTEM_PYTHON cannot import numpy and onnxruntime (from $SITE)"
}
setup_triton

REPO_SHARED="$WORK/shared"
REPO_NATIVE="$WORK/native"
$PY bench/peers.py models --shared "$REPO_SHARED" --native "$REPO_NATIVE" --onnx "$OCR_ONNX"
RESULTS="$WORK/results"
mkdir -p "$RESULTS"

# inferd_command HTTP GRPC METRICS REPOSITORY...: sets CMD (as lib.sh's start_inferd runs it).
inferd_command() {
  local http=$1 grpc=$2 metrics=$3 repo
  shift 3
  CMD=(env INFERD_PYTHON="$SYSTEM_PYTHON" PYTHONPATH="$SITE" taskset -c "$SERVER_CORE"
       "$INFERD_BINARY" serve --backend-directory "$INFERD_BACKEND_DIR" --host 127.0.0.1
       --cpu-cores 1 --http-port "$http" --grpc-port "$grpc" --metrics-port "$metrics"
       --log-level warn)
  for repo in "$@"; do CMD+=(--model-repository "$repo"); done
}

# triton_command HTTP GRPC METRICS: sets CMD; Triton's defaults otherwise, as a user runs it.
triton_command() {
  CMD=(taskset -c "$SERVER_CORE" "$TRITON/bin/tritonserver" --model-repository "$REPO_SHARED"
       --backend-directory "$ROOT/$TRITON/backends" --http-address 127.0.0.1
       --grpc-address 127.0.0.1 --http-port "$1" --grpc-port "$2" --metrics-port "$3"
       --allow-gpu-metrics false --log-verbose 0)
}

# --- 1. start-up time and memory, the same repository ----------------------------------
for r in $(seq 1 "$STARTUPS"); do
  for server in inferd triton; do
    log "start-up $r/$STARTUPS: $server"
    read -r http grpc metrics < <($REPORT free-ports 3)
    "${server}_command" "$http" "$grpc" "$metrics" "$REPO_SHARED"
    bounded "$STEP_TIMEOUT_S" "$server start-up" $PY bench/peers.py startup --port "$http" \
      --out "$RESULTS/startup_${server}_r$r.json" -- "${CMD[@]}" \
      || log "warning: $server start-up $r failed: $(tail -3 "$RESULTS/startup_${server}_r$r.json.log" 2>/dev/null)"
  done
done

# --- 2. both servers up, the load ------------------------------------------------------
declare -A HTTP_PORT GRPC_PORT SERVER_PID
for server in inferd triton; do
  read -r http grpc metrics < <($REPORT free-ports 3)
  "${server}_command" "$http" "$grpc" "$metrics" "$REPO_SHARED" "$REPO_NATIVE"
  "${CMD[@]}" >"$WORK/$server.log" 2>&1 &
  PIDS+=($!)
  SERVER_PID[$server]=$!
  HTTP_PORT[$server]=$http
  GRPC_PORT[$server]=$grpc
  wait_ready $! "$http" "$WORK/$server.log"
  log "$server ready on HTTP $http, gRPC $grpc"
done

# model ROW SERVER: what SERVER serves for ROW.
model() { if [ "$1" = ort_ocr_cls ] && [ "$2" = triton ]; then echo py_ocr_cls; else echo "$1"; fi; }

# pa ROW PROTOCOL C SERVER INTERVAL_MS OUT.csv: one perf_analyzer run (3 windows).
# -s 1000: accept the first 3 windows whatever their spread (the repeats show it).
pa() {
  local row=$1 protocol=$2 c=$3 server=$4 interval=$5 out=$6 port extra=""
  if [ "$protocol" = http ]; then port=${HTTP_PORT[$server]}; else port=${GRPC_PORT[$server]}; fi
  case $row in *ocr_cls) extra=$OCR_SHAPE ;; esac
  # shellcheck disable=SC2086  # extra is a list of flags
  if ! bounded "$STEP_TIMEOUT_S" "perf_analyzer ($row $protocol c=$c $server)" \
      taskset -c "$CLIENT_CORE" "$PA" -i "$protocol" -u "127.0.0.1:$port" \
      -m "$(model "$row" "$server")" $extra --concurrency-range "$c" \
      --measurement-interval "$interval" -s 1000 -r 10 --percentile 99 -f "$out" \
      >"$out.log" 2>&1; then
    log "perf_analyzer failed ($row $protocol c=$c $server):"
    tail -5 "$out.log" >&2
    rm -f "$out"
  fi
}

log "warming up"
for row in $ROWS; do
  for protocol in $PROTOCOLS; do
    for server in inferd triton; do pa "$row" "$protocol" 16 "$server" 500 "$WORK/warmup.csv"; done
  done
done

START=$(date +%s)
for r in $(seq 1 "$REPEATS"); do
  for row in $ROWS; do
    for protocol in $PROTOCOLS; do
      for c in $CONCURRENCY; do
        log "repeat $r/$REPEATS: $row $protocol concurrency $c"
        for server in inferd triton; do
          pa "$row" "$protocol" "$c" "$server" "$INTERVAL_MS" \
            "$RESULTS/pa_${row}_${protocol}_c${c}_${server}_r$r.csv"
        done
      done
    done
  done
done
log "measured in $(( $(date +%s) - START )) s, ${SECONDS} s in all"

# --- 3. memory after the load, the report -----------------------------------------------
for server in inferd triton; do
  $PY bench/peers.py memory --pid "${SERVER_PID[$server]}" --out "$RESULTS/memory_$server.json"
done
OUT="bench/results/$(date -u +%Y-%m-%d-%H%M%S)-peers.md"
mapfile -t META < <(commit_and_machine)
$PY bench/peers.py summarize "$RESULTS" --out "$OUT" --meta \
  "${META[@]}" \
  "command=\`make bench-peers\` (bench/peers.sh; BENCH_REPEATS=$REPEATS BENCH_INTERVAL_MS=$INTERVAL_MS)" \
  "inferd=$INFERD_BINARY ($(build_type)), --cpu-cores 1, INFERD_PYTHON=$SYSTEM_PYTHON" \
  "triton=tritonserver 2.51.0 from nvidia-pytriton $PYTRITON_VERSION (PyPI), its python backend with the 3.11 stub on Debian's libpython3.11, default options" \
  "python=$SYSTEM_PYTHON ($("$SYSTEM_PYTHON" --version 2>&1)), numpy $("$SYSTEM_PYTHON" -c 'import numpy; print(numpy.__version__)'), onnxruntime $ORT_VERSION (PyPI, $DEPS/site) on both servers" \
  "pinning=both servers on core $SERVER_CORE (taskset -c $SERVER_CORE), perf_analyzer on core $CLIENT_CORE; one server under load at a time, the other idle" \
  "client=perf_analyzer $($PA --version 2>&1 | grep -o '[0-9][0-9.]*' | head -1), closed loop, 3 windows of $INTERVAL_MS ms per run, p50/p99 over those windows, binary tensors, random inputs, batch 1; OCR rows x [1,3,48,192]"
log "written to $OUT"
