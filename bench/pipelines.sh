#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make bench-pipelines`: what pipelines cost when inferd runs them, in ONE run
# (docs/benchmarks.md, "make bench-pipelines", explains the method and the columns).
# bench/pipelines.py does the measuring:
#
#   (a) Ensembles. One inferd (core 0, --cpu-cores 1) serves the example `simple` model
#       and chains of N = 1, 2, 4 `simple` steps (ens1, ens2, ens4). Python clients
#       (tritonclient, core 1, closed loop, concurrency 1 and 8, gRPC and HTTP) call an
#       ensemble once, simple once, or simple N times one after another, each call
#       sending the previous call's outputs. Per step: (ensemble p50 − direct p50) ÷
#       (N − 1), simple's own server time per step (GET /v2/models/stats), and the
#       orchestration per step = the ensemble's server time − its N steps' server time,
#       ÷ N; ensemble ÷ client-orchestrated latency and throughput.
#   (b) BLS. The same server runs one model.py twice: bls_simple (calls simple through
#       pb_utils.InferenceRequest(...).exec()) and py_pass (the same code, no exec():
#       returns its inputs). bls_simple once against py_pass then simple from the client.
#   (c) OCR. A second inferd serves examples/models; the `ocr` ensemble gets the images
#       of tests/integration/ocr_images.py (gRPC, concurrency 1 and 8), then
#       bench/ocr_inprocess.py does the same work in one process on core 0.
# A part whose models are missing or do not load is skipped with a note. Markdown to
# stdout and to bench/results/<date>-pipelines.md.
#
# Environment (all optional; the common ones are in bench/lib.sh):
#   BENCH_PIPELINE_PARTS="ensemble bls ocr"  BENCH_PROTOCOLS="grpc http"  BENCH_CONCURRENCY="1 8"
#   BENCH_PIPELINE_WINDOW_S=0.5  BENCH_PIPELINE_ROUNDS=4 (windows per target, interleaved)
#   BENCH_PIPELINE_WARMUP_S=0.5
#   BENCH_OCR_PROTOCOLS=grpc  BENCH_OCR_WINDOW_S=8  BENCH_OCR_WARMUP_S=3
#   BENCH_SYSTEM_PYTHON=/usr/bin/python3   the Python workers' interpreter
set -euo pipefail
BENCH_NEEDS=""  # neither perf_analyzer nor the bench/ C++ tools
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PARTS=${BENCH_PIPELINE_PARTS:-ensemble bls ocr}
PROTOCOLS=${BENCH_PROTOCOLS:-grpc http}
CONCURRENCY=${BENCH_CONCURRENCY:-1 8}
WINDOW_S=${BENCH_PIPELINE_WINDOW_S:-0.5}
ROUNDS=${BENCH_PIPELINE_ROUNDS:-4}
WARMUP_S=${BENCH_PIPELINE_WARMUP_S:-0.5}
OCR_PROTOCOLS=${BENCH_OCR_PROTOCOLS:-grpc}
OCR_WINDOW_S=${BENCH_OCR_WINDOW_S:-8}
OCR_WARMUP_S=${BENCH_OCR_WARMUP_S:-3}
SYSTEM_PYTHON=${BENCH_SYSTEM_PYTHON:-$INFERD_PYTHON}
[ -x "$INFERD_BINARY" ] || die "$INFERD_BINARY not found: build it first (make build)"
[ -x "$PY" ] || die "$PY not found: run 'make setup'"
command -v taskset >/dev/null || die "taskset not found (util-linux)"

RESULTS="$WORK/results"
mkdir -p "$RESULTS"
# The python driver is a child of this shell: lib.sh's cleanup stops it (SIGTERM), and
# it stops its inferd and its client processes.
START=$(date +%s)
timeout -k 5 "$RUN_TIMEOUT_S" taskset -c "$CLIENT_CORE" "$PY" bench/pipelines.py run --inferd "$INFERD_BINARY" \
  --backend-directory "$INFERD_BACKEND_DIR" --server-core "$SERVER_CORE" --client-core "$CLIENT_CORE" \
  --system-python "$SYSTEM_PYTHON" --parts "$PARTS" --protocols "$PROTOCOLS" \
  --concurrency "$CONCURRENCY" --window-s "$WINDOW_S" --rounds "$ROUNDS" --warmup-s "$WARMUP_S" \
  --ocr-protocols "$OCR_PROTOCOLS" --ocr-window-s "$OCR_WINDOW_S" --ocr-warmup-s "$OCR_WARMUP_S" \
  --repeats "$REPEATS" --work "$WORK/run" --out-dir "$RESULTS" &
PIDS+=($!)
wait $! || stalled $? "$RUN_TIMEOUT_S" pipelines.py || log "warning: the driver failed; the report holds the repeats that finished"
log "measured in $(( $(date +%s) - START )) s"

# --- report ----------------------------------------------------------------------------
OUT="bench/results/$(date -u +%Y-%m-%d-%H%M%S)-pipelines.md"
mapfile -t META < <(commit_and_machine)
$PY bench/pipelines.py summarize "$RESULTS" --out "$OUT" --meta \
  "${META[@]}" \
  "command=\`make bench-pipelines\` (bench/pipelines.sh; BENCH_REPEATS=$REPEATS BENCH_PIPELINE_PARTS=\"$PARTS\" BENCH_PROTOCOLS=\"$PROTOCOLS\" BENCH_CONCURRENCY=\"$CONCURRENCY\" BENCH_PIPELINE_WINDOW_S=$WINDOW_S BENCH_PIPELINE_ROUNDS=$ROUNDS BENCH_PIPELINE_WARMUP_S=$WARMUP_S BENCH_OCR_PROTOCOLS=\"$OCR_PROTOCOLS\" BENCH_OCR_WINDOW_S=$OCR_WINDOW_S BENCH_OCR_WARMUP_S=$OCR_WARMUP_S)" \
  "inferd=$INFERD_BINARY ($(build_type)), --cpu-cores 1 --log-level info, INFERD_PYTHON=$SYSTEM_PYTHON; simple and the Python models one CPU instance each, no dynamic batching; the OCR models as configured in examples/models" \
  "pinning=inferd (with its Python workers) and bench/ocr_inprocess.py on core $SERVER_CORE (taskset -c $SERVER_CORE); the client processes on core $CLIENT_CORE" \
  "client=bench/pipelines.py: tritonclient $($PY -c 'import importlib.metadata as m; print(m.version("tritonclient"))' 2>/dev/null || echo '?'), C processes (C = concurrency), each one request in flight, closed loop, its own connection; gRPC raw contents, HTTP binary tensors; INT32 [1,16] inputs (seed 42); per repeat, protocol and concurrency $ROUNDS windows of ${WINDOW_S} s per target, the targets' order rotating from window to window (OCR: one window of ${OCR_WINDOW_S} s, requests started in it counted to their end); warm-up ${WARMUP_S} s per target (OCR ${OCR_WARMUP_S} s) at the highest concurrency" \
  "in-process=bench/ocr_inprocess.py ($PY, onnxruntime $($PY -c 'import onnxruntime; print(onnxruntime.__version__)' 2>/dev/null || echo '?'), one intra-op thread per session), C threads sharing three sessions, ${OCR_WINDOW_S} s per concurrency after one warm-up pass"
log "written to $OUT"
