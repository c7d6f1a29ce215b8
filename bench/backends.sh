#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make bench-backends`: what the Python and the LibTorch backends add per request, in
# ONE run (docs/benchmarks.md, "Backend overhead: Python and LibTorch", explains the
# method and the columns). bench/backend_overhead.py does the measuring:
#
#   1. One inferd (core 0, --cpu-cores 1, INFERD_PYTHON=$BENCH_SYSTEM_PYTHON) serves three
#      tiny models, FP32 [1,16] in and out, max_batch_size 0, one instance each:
#        py_identity    model.py (backend "python") returning INPUT0 as OUTPUT0
#        pt_identity    TorchScript (made now by the system python's torch 1.13),
#                       forward returns x.clone(), platform pytorch_libtorch
#        onnx_identity  one ONNX Identity node (onnx.helper): the transport reference
#      tritonclient (core 1), closed loop, concurrency 1, gRPC and HTTP: BENCH_REQUESTS
#      requests per model, protocol and repeat, the models interleaved in chunks of
#      BENCH_CHUNK; p50 and p99.
#   2. In the same repeat, on core 0: model.py's execute() called directly by the system
#      python (PYTHONPATH=python/), the TorchScript module called by its torch, and (when
#      built) bench/ort_inprocess on the ONNX Identity model: median per call.
#   3. Per protocol: inferd p50/p99, in-process, overhead (inferd − in-process), backend
#      overhead (inferd − onnx_identity through inferd), ratios; median (min–max) over
#      the repeats. Markdown to stdout and to bench/results/<date>-backends.md.
# A model whose backend or interpreter is missing is skipped with a note.
#
# Environment (all optional; the common ones are in bench/lib.sh):
#   BENCH_REQUESTS=3000  BENCH_WARMUP=300  BENCH_CHUNK=100  BENCH_PROTOCOLS="grpc http"
#   BENCH_INPROCESS_CALLS=20000  BENCH_SYSTEM_PYTHON=/usr/bin/python3
set -euo pipefail
BENCH_NEEDS=""  # neither perf_analyzer nor echo_server; ort_inprocess is optional
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

REQUESTS=${BENCH_REQUESTS:-3000}
WARMUP=${BENCH_WARMUP:-300}
CHUNK=${BENCH_CHUNK:-100}
PROTOCOLS=${BENCH_PROTOCOLS:-grpc http}
INPROCESS_CALLS=${BENCH_INPROCESS_CALLS:-20000}
SYSTEM_PYTHON=${BENCH_SYSTEM_PYTHON:-/usr/bin/python3}
[ -x "$INFERD_BINARY" ] || die "$INFERD_BINARY not found: build it first (make build)"
[ -x "$PY" ] || die "$PY not found: run 'make setup'"
command -v taskset >/dev/null || die "taskset not found (util-linux)"
[ -x "$SYSTEM_PYTHON" ] || log "warning: $SYSTEM_PYTHON not found: py_identity and pt_identity are skipped"

RESULTS="$WORK/results"
mkdir -p "$RESULTS"
extra=()
if [ -x "$INFERD_BENCH_BIN/ort_inprocess" ]; then
  extra+=(--ort-inprocess "$INFERD_BENCH_BIN/ort_inprocess")
else
  log "warning: $INFERD_BENCH_BIN/ort_inprocess not found: no in-process row for onnx_identity"
fi

# The python driver is a child of this shell: lib.sh's cleanup stops it (SIGTERM), and
# it stops its inferd.
START=$(date +%s)
timeout -k 5 "$RUN_TIMEOUT_S" taskset -c "$CLIENT_CORE" "$PY" bench/backend_overhead.py run --inferd "$INFERD_BINARY" \
  --backend-directory "$INFERD_BACKEND_DIR" --server-core "$SERVER_CORE" --client-core "$CLIENT_CORE" \
  --system-python "$SYSTEM_PYTHON" --protocols "$PROTOCOLS" --requests "$REQUESTS" \
  --warmup "$WARMUP" --chunk "$CHUNK" --repeats "$REPEATS" --inprocess-calls "$INPROCESS_CALLS" \
  "${extra[@]}" --work "$WORK/run" --out-dir "$RESULTS" &
PIDS+=($!)
wait $! || stalled $? "$RUN_TIMEOUT_S" backend_overhead.py || log "warning: the driver failed; the report holds the repeats that finished"
log "measured in $(( $(date +%s) - START )) s"

# --- report ----------------------------------------------------------------------------
OUT="bench/results/$(date -u +%Y-%m-%d-%H%M%S)-backends.md"
mapfile -t META < <(commit_and_machine)
torch_version=$("$SYSTEM_PYTHON" -c 'import torch; print(torch.__version__)' 2>/dev/null || echo none)
numpy_version=$("$SYSTEM_PYTHON" -c 'import numpy; print(numpy.__version__)' 2>/dev/null || echo none)
$PY bench/backend_overhead.py summarize "$RESULTS" --out "$OUT" --meta \
  "${META[@]}" \
  "command=\`make bench-backends\` (bench/backends.sh; BENCH_REPEATS=$REPEATS BENCH_REQUESTS=$REQUESTS BENCH_WARMUP=$WARMUP BENCH_CHUNK=$CHUNK BENCH_PROTOCOLS=\"$PROTOCOLS\" BENCH_INPROCESS_CALLS=$INPROCESS_CALLS)" \
  "inferd=$INFERD_BINARY ($(build_type)), --cpu-cores 1 --log-level info, INFERD_PYTHON=$SYSTEM_PYTHON; each model one CPU instance, max_batch_size 0, FP32 [1,16]" \
  "pinning=inferd (and its Python worker) and the in-process references on core $SERVER_CORE (taskset -c $SERVER_CORE); the python client on core $CLIENT_CORE" \
  "client=bench/backend_overhead.py: tritonclient $($PY -c 'import importlib.metadata as m; print(m.version("tritonclient"))' 2>/dev/null || echo '?'), one client per model and protocol, concurrency 1, closed loop, one fixed input (seed 42); gRPC raw contents, HTTP binary tensors; $WARMUP warm-up requests per model and protocol; chunks of $CHUNK requests, the models' order rotating" \
  "in-process=$SYSTEM_PYTHON (numpy $numpy_version, torch $torch_version), OMP_NUM_THREADS=1: $INPROCESS_CALLS timed calls after 2000 untimed; ort_inprocess: 0.5 s warm-up, 1 s window"
log "written to $OUT"
