#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make bench-lifecycle`: the model lifecycle under load, in ONE run (docs/benchmarks.md
# explains the method and the columns). bench/lifecycle_bench.py does the measuring:
#
#   1. Swap p99. inferd (core 0) serves a copy of examples/models/ocr_cls (version 1) in a
#      temporary repository; 4 closed-loop gRPC clients (core 1) load it. Phase A: the
#      steady state. Phase B: the same load while the version is replaced 10 times (copy
#      to a staging folder, mv into <model>/<v>; explicit mode: POST .../load). p99 of the
#      requests in flight during the swap windows (folder created → old version unloaded)
#      over the steady p99; errors; versions that answered. Explicit mode BENCH_REPEATS
#      times, poll mode (--repository-poll-secs 1) BENCH_LIFECYCLE_POLL_REPEATS times.
#   2. Folder → serving: per swap, mv → load call answered (explicit) or → the server
#      logs the version ready (poll), and → the first response that carries it. The
#      model's own load time next to it: idle load calls, and ONNX Runtime creating the
#      same sessions in-process (bench/ort_inprocess, core 0).
#   3. Start-up: spawn → GET /v2/health/ready = 200 (polled every 5 ms), with
#      examples/models and with an empty repository, BENCH_LIFECYCLE_STARTUP_REPEATS
#      times; overhead = that − the server's "start-up models loaded in N ms".
# Prints markdown tables and writes them to bench/results/<date>-lifecycle.md.
#
# Environment (all optional; the common ones are in bench/lib.sh):
#   BENCH_LIFECYCLE_MODEL=examples/models/ocr_cls  BENCH_LIFECYCLE_CONCURRENCY=4
#   BENCH_LIFECYCLE_STEADY_S=5  BENCH_LIFECYCLE_SWAPS=10  BENCH_LIFECYCLE_POLL_REPEATS=$BENCH_REPEATS
#   BENCH_LIFECYCLE_STARTUP_REPEATS=5  BENCH_LIFECYCLE_MODES="explicit poll"
#   BENCH_LIFECYCLE_LOAD_NICE=N   an experiment, not inferd as shipped: renice inferd's
#                                 model loading threads (inferd-load) to N during the swaps
#   BENCH_LIFECYCLE_RECORDS=1     also keep every request of every swap run (CSV) in
#                                 bench/results/<date>-lifecycle/
set -euo pipefail
BENCH_NEEDS=""  # ort_inprocess is optional here: without it the in-process row is left out
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MODEL_DIR=${BENCH_LIFECYCLE_MODEL:-examples/models/ocr_cls}
CONCURRENCY=${BENCH_LIFECYCLE_CONCURRENCY:-4}
STEADY_S=${BENCH_LIFECYCLE_STEADY_S:-5}
SWAPS=${BENCH_LIFECYCLE_SWAPS:-10}
POLL_REPEATS=${BENCH_LIFECYCLE_POLL_REPEATS:-$REPEATS}
STARTUP_REPEATS=${BENCH_LIFECYCLE_STARTUP_REPEATS:-5}
MODES=${BENCH_LIFECYCLE_MODES:-explicit poll}
LOAD_NICE=${BENCH_LIFECYCLE_LOAD_NICE:-}
STAMP=$(date -u +%Y-%m-%d-%H%M%S)
if [ -n "${BENCH_LIFECYCLE_RECORDS:-}" ]; then mkdir -p "bench/results/$STAMP-lifecycle"; fi
[ -x "$INFERD_BINARY" ] || die "$INFERD_BINARY not found: build it first (make build)"
[ -x "$PY" ] || die "$PY not found: run 'make setup'"
[ -f "$MODEL_DIR/1/model.onnx" ] || die "$MODEL_DIR/1/model.onnx not found: run 'make setup'"
command -v taskset >/dev/null || die "taskset not found (util-linux)"

RESULTS="$WORK/results"
mkdir -p "$RESULTS"
DRIVER=(timeout -k 5 "$RUN_TIMEOUT_S" taskset -c "$CLIENT_CORE" "$PY" bench/lifecycle_bench.py)
COMMON=(--inferd "$INFERD_BINARY" --backend-directory "$INFERD_BACKEND_DIR"
  --server-core "$SERVER_CORE" --client-core "$CLIENT_CORE")

# The python driver is a child of this shell: lib.sh's cleanup stops it (SIGTERM), and
# it stops its inferd.
driver() {
  "${DRIVER[@]}" "$@" &
  PIDS+=($!)
  wait $! || stalled $? "$RUN_TIMEOUT_S" "lifecycle_bench.py $1"
}

START=$(date +%s)
# --- 1 + 2: swaps -------------------------------------------------------------------
for mode in $MODES; do
  repeats=$REPEATS
  [ "$mode" = poll ] && repeats=$POLL_REPEATS
  for r in $(seq 1 "$repeats"); do
    log "repeat $r/$repeats: $mode mode, $SWAPS swaps under concurrency $CONCURRENCY"
    extra=()
    [ -n "$LOAD_NICE" ] && extra+=(--load-nice "$LOAD_NICE")
    [ -n "${BENCH_LIFECYCLE_RECORDS:-}" ] && extra+=(--records "bench/results/$STAMP-lifecycle/swap_${mode}_$r.csv")
    driver swap "${extra[@]}" "${COMMON[@]}" --mode "$mode" --model-dir "$MODEL_DIR" \
      --concurrency "$CONCURRENCY" --steady-s "$STEADY_S" --swaps "$SWAPS" --poll-secs 1 \
      --work "$WORK/swap_${mode}_$r" --out "$RESULTS/swap_${mode}_$r.json" \
      || log "warning: the $mode run $r failed (its row is missing)"
  done
done

# The model's own load time: ONNX Runtime creating the same sessions in-process, one per
# instance inferd runs (the ONNX Runtime backend's default: 2), one after the other, plus
# one before them: the first session of a process also initialises ONNX Runtime, which a
# swap in a running inferd does not pay.
if [ -x "$INFERD_BENCH_BIN/ort_inprocess" ]; then
  model=$(basename "$MODEL_DIR")
  shape=$($REPORT describe "$model" - | sed -n 's/^ort_args=//p')
  instances=$($REPORT describe "$model" - | sed -n 's/^instances=//p')
  for r in $(seq 1 "$REPEATS"); do
    # shellcheck disable=SC2086  # ort_args is a list of flags
    bounded "$STEP_TIMEOUT_S" "ort_inprocess (load time)" \
      taskset -c "$SERVER_CORE" "$INFERD_BENCH_BIN/ort_inprocess" --model "$MODEL_DIR/1/model.onnx" \
      $shape --workers $(( ${instances:-2} + 1 )) --intra-op-threads 1 --warmup-s 0 --duration-s 0.1 \
      >"$RESULTS/ort_load_$r.json" 2>"$WORK/ort.log" \
      || { log "ort_inprocess failed:"; tail -3 "$WORK/ort.log" >&2; rm -f "$RESULTS/ort_load_$r.json"; }
  done
else
  log "warning: $INFERD_BENCH_BIN/ort_inprocess not found: no in-process load time"
fi

# --- 3: start-up ------------------------------------------------------------------------
mkdir -p "$WORK/empty"
for name in 1-examples 2-empty; do
  if [ $name = 1-examples ]; then
    repo=examples/models label="examples/models ($(find examples/models -mindepth 1 -maxdepth 1 -type d | wc -l) models)"
  else
    repo=$WORK/empty label="empty"
  fi
  log "start-up, $label repository, $STARTUP_REPEATS times"
  driver startup "${COMMON[@]}" --repository "$repo" --label "$label" --repeats "$STARTUP_REPEATS" \
    --work "$WORK/startup_$name" --out "$RESULTS/startup_$name.json" \
    || log "warning: the start-up runs ($label) failed"
done
log "measured in $(( $(date +%s) - START )) s, ${SECONDS} s in all"

# --- report ----------------------------------------------------------------------------
OUT="bench/results/$STAMP-lifecycle.md"
mapfile -t META < <(commit_and_machine)
$PY bench/lifecycle_bench.py summarize "$RESULTS" --out "$OUT" --meta \
  "${META[@]}" \
  "command=\`make bench-lifecycle\` (bench/lifecycle.sh; BENCH_REPEATS=$REPEATS BENCH_LIFECYCLE_POLL_REPEATS=$POLL_REPEATS BENCH_LIFECYCLE_STEADY_S=$STEADY_S BENCH_LIFECYCLE_SWAPS=$SWAPS BENCH_LIFECYCLE_CONCURRENCY=$CONCURRENCY BENCH_LIFECYCLE_STARTUP_REPEATS=$STARTUP_REPEATS)" \
  "inferd=$INFERD_BINARY ($(build_type)), --cpu-cores 1 --log-level info${LOAD_NICE:+; EXPERIMENT: its inferd-load threads reniced to $LOAD_NICE}; swaps: a copy of $MODEL_DIR (auto-completed config: 2 CPU instances, dynamic_batching), default availability_preserving transitions; poll mode with --repository-poll-secs 1" \
  "pinning=inferd and ort_inprocess on core $SERVER_CORE (taskset -c $SERVER_CORE); the python driver (load, swaps, readiness polling) on core $CLIENT_CORE" \
  "client=bench/lifecycle_bench.py: $CONCURRENCY threads, one tritonclient gRPC channel each, closed loop, one fixed [1,3,48,192] FP32 input (seed 42); 1 s warm-up, ${STEADY_S} s steady state, then $SWAPS swaps 0.5 s apart"
log "written to $OUT"
