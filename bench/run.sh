#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make bench`: inferd side by side with its two references, in ONE run
# (docs/benchmarks.md explains the method and the columns):
#   inferd      build/bin/inferd serving examples/models
#   bare        bench/echo_server: the same protocol and payload, answered at once
#   in-process  bench/ort_inprocess: the same ONNX file through ONNX Runtime's C++ API
# for each model x protocol (HTTP, gRPC) x concurrency (1, 8), repeated; servers and
# the in-process reference pinned to one core, perf_analyzer to the other.
# Prints a markdown table and writes it to bench/results/<date>.md.
#
# Environment (all optional):
#   INFERD_BINARY        inferd to measure (default build/bin/inferd); when missing the
#                        inferd columns stay empty and the references still run
#   INFERD_BACKEND_DIR   its backends (default <binary dir>/../lib/backends)
#   INFERD_BENCH_BIN     echo_server + ort_inprocess (default <binary dir>/bench)
#   BENCH_MODELS="simple ocr_cls"  BENCH_PROTOCOLS="http grpc"  BENCH_CONCURRENCY="1 8"
#   BENCH_REPEATS=3  BENCH_INTERVAL_MS=1500  BENCH_SERVER_CORE=0  BENCH_CLIENT_CORE=1
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

INFERD_BINARY=${INFERD_BINARY:-build/bin/inferd}
BIN_DIR=$(dirname "$INFERD_BINARY")
INFERD_BACKEND_DIR=${INFERD_BACKEND_DIR:-$BIN_DIR/../lib/backends}
INFERD_BENCH_BIN=${INFERD_BENCH_BIN:-$BIN_DIR/bench}
MODELS=${BENCH_MODELS:-simple ocr_cls}
PROTOCOLS=${BENCH_PROTOCOLS:-http grpc}
CONCURRENCY=${BENCH_CONCURRENCY:-1 8}
REPEATS=${BENCH_REPEATS:-3}
INTERVAL_MS=${BENCH_INTERVAL_MS:-1500}
# The in-process window lasts as long as perf_analyzer's three windows.
INPROCESS_S=$(awk "BEGIN { print ${BENCH_INTERVAL_MS:-1500} * 3 / 1000 }")
SERVER_CORE=${BENCH_SERVER_CORE:-0}
CLIENT_CORE=${BENCH_CLIENT_CORE:-1}
PA=.venv/bin/perf_analyzer
PY=.venv/bin/python
REPORT="$PY bench/report.py"
REPOSITORY=examples/models

log() { printf '[bench] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

[ -x "$PA" ] || die "$PA not found: run 'make setup'"
for tool in echo_server ort_inprocess; do
  [ -x "$INFERD_BENCH_BIN/$tool" ] || die "$INFERD_BENCH_BIN/$tool not found: build with INFERD_BUILD_BENCH=ON"
done
if [ "$(nproc)" -lt 2 ]; then
  log "warning: one core only: client and server share it"
  CLIENT_CORE=$SERVER_CORE
fi
HAVE_INFERD=1
if [ ! -x "$INFERD_BINARY" ]; then
  log "warning: $INFERD_BINARY not found: measuring the references only"
  HAVE_INFERD=0
fi

WORK=$(mktemp -d /tmp/inferd-bench.XXXXXX)
PIDS=()
# Stops what we started: SIGTERM, then SIGKILL whatever still runs 15 s later
# (a server that hangs on shutdown must not hang the benchmark).
cleanup() {
  local pid i
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do
    for i in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
      log "warning: pid $pid did not stop within 15 s of SIGTERM; killing it"
      grep -h -i "warn" "$WORK"/*.log 2>/dev/null | tail -2 >&2 || true
      kill -9 "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$WORK"
}
trap cleanup EXIT

# wait_ready PID HTTP_PORT LOG: until GET /v2/health/ready answers 200 (120 s at most).
wait_ready() {
  local pid=$1 port=$2 logfile=$3 i
  for i in $(seq 1 240); do
    if ! kill -0 "$pid" 2>/dev/null; then
      tail -20 "$logfile" >&2
      die "server (pid $pid) exited before it was ready"
    fi
    curl -sf -o /dev/null "http://127.0.0.1:$port/v2/health/ready" && return 0
    sleep 0.5
  done
  die "server (pid $pid) not ready after 120 s"
}

# --- inferd ----------------------------------------------------------------------
declare -A HTTP_PORT GRPC_PORT
if [ $HAVE_INFERD -eq 1 ]; then
  read -r "HTTP_PORT[inferd]" "GRPC_PORT[inferd]" < <($REPORT free-ports 2)
  # --cpu-cores 1: it runs on one core, so each ORT session gets intra-op 1 thread.
  taskset -c "$SERVER_CORE" "$INFERD_BINARY" serve --model-repository "$REPOSITORY" \
    --backend-directory "$INFERD_BACKEND_DIR" --host 127.0.0.1 --cpu-cores 1 \
    --http-port "${HTTP_PORT[inferd]}" --grpc-port "${GRPC_PORT[inferd]}" --log-level warn \
    >"$WORK/inferd.log" 2>&1 &
  PIDS+=($!)
  wait_ready $! "${HTTP_PORT[inferd]}" "$WORK/inferd.log"
  log "inferd ready on HTTP ${HTTP_PORT[inferd]}, gRPC ${GRPC_PORT[inferd]}"
fi

# --- per model: its description, and an echo server pretending to be it -----------
declare -A PA_ARGS ORT_ARGS INSTANCES
for model in $MODELS; do
  config=-
  if [ $HAVE_INFERD -eq 1 ]; then
    config="$WORK/$model.config.json"
    curl -sf "http://127.0.0.1:${HTTP_PORT[inferd]}/v2/models/$model/config" -o "$config" \
      || die "inferd does not serve '$model'"
  fi
  while IFS='=' read -r key value; do
    case $key in
      echo_args) echo_args=$value ;;
      pa_args) PA_ARGS[$model]=$value ;;
      ort_args) ORT_ARGS[$model]=$value ;;
      instances) INSTANCES[$model]=$value ;;
    esac
  done < <($REPORT describe "$model" "$config")
  read -r "HTTP_PORT[bare_$model]" "GRPC_PORT[bare_$model]" < <($REPORT free-ports 2)
  # shellcheck disable=SC2086  # echo_args is a list of words without spaces
  taskset -c "$SERVER_CORE" "$INFERD_BENCH_BIN/echo_server" $echo_args --host 127.0.0.1 \
    --http-port "${HTTP_PORT[bare_$model]}" --grpc-port "${GRPC_PORT[bare_$model]}" \
    >"$WORK/echo_$model.log" 2>&1 &
  PIDS+=($!)
  wait_ready $! "${HTTP_PORT[bare_$model]}" "$WORK/echo_$model.log"
  log "$model: echo_server $echo_args; perf_analyzer ${PA_ARGS[$model]:-(no extra args)};" \
      "${INSTANCES[$model]} instance(s)"
done

# pa MODEL PROTOCOL C TARGET INTERVAL_MS OUT.csv: one perf_analyzer run (3 windows).
# -s 1000: accept the first 3 windows whatever their spread (the repeats show it).
pa() {
  local model=$1 protocol=$2 c=$3 target=$4 interval=$5 out=$6 port server
  server=$target; [ "$target" = bare ] && server=bare_$model
  if [ "$protocol" = http ]; then port=${HTTP_PORT[$server]}; else port=${GRPC_PORT[$server]}; fi
  # shellcheck disable=SC2086
  if ! taskset -c "$CLIENT_CORE" "$PA" -i "$protocol" -u "127.0.0.1:$port" -m "$model" \
      ${PA_ARGS[$model]} --concurrency-range "$c" --measurement-interval "$interval" \
      -s 1000 -r 10 --percentile 99 -f "$out" >"$out.log" 2>&1; then
    log "perf_analyzer failed ($model $protocol c=$c $target):"
    tail -5 "$out.log" >&2
    rm -f "$out"
  fi
}

targets() { if [ $HAVE_INFERD -eq 1 ]; then echo inferd bare; else echo bare; fi; }

# --- warm-up: one short run per server and protocol, discarded -----------------------
log "warming up"
for model in $MODELS; do
  for protocol in $PROTOCOLS; do
    for target in $(targets); do
      pa "$model" "$protocol" 8 "$target" 500 "$WORK/warmup.csv"
    done
  done
done

# --- measurement: each repeat runs every condition, inferd and bare back to back -----
RESULTS="$WORK/results"
mkdir -p "$RESULTS"
START=$(date +%s)
for r in $(seq 1 "$REPEATS"); do
  for model in $MODELS; do
    for protocol in $PROTOCOLS; do
      for c in $CONCURRENCY; do
        log "repeat $r/$REPEATS: $model $protocol concurrency $c"
        for target in $(targets); do
          pa "$model" "$protocol" "$c" "$target" "$INTERVAL_MS" \
            "$RESULTS/pa_${model}_${protocol}_c${c}_${target}_r$r.csv"
        done
      done
    done
    for c in $CONCURRENCY; do
      # One worker (and session) per concurrent request, up to the served instance count.
      instances=${INSTANCES[$model]}
      workers=$(( c < instances ? c : instances ))
      log "repeat $r/$REPEATS: $model in-process, $workers worker(s)"
      # shellcheck disable=SC2086
      taskset -c "$SERVER_CORE" "$INFERD_BENCH_BIN/ort_inprocess" \
        --model "$REPOSITORY/$model/1/model.onnx" ${ORT_ARGS[$model]} --workers "$workers" \
        --intra-op-threads 1 --warmup-s 1 --duration-s "$INPROCESS_S" \
        >"$RESULTS/ort_${model}_c${c}_r$r.json" 2>"$WORK/ort.log" \
        || { log "ort_inprocess failed ($model c=$c):"; tail -5 "$WORK/ort.log" >&2; }
    done
  done
done
log "measured in $(( $(date +%s) - START )) s, ${SECONDS} s in all"

# --- report ----------------------------------------------------------------------------
DATE=$(date -u +%Y-%m-%dT%H:%M:%SZ)
COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain 2>/dev/null | head -1)" ]; then COMMIT="$COMMIT (+ uncommitted changes)"; fi
CPU=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
BUILD_TYPE=$(grep -s '^CMAKE_BUILD_TYPE:' "$BIN_DIR/../CMakeCache.txt" | cut -d= -f2 || true)
OUT="bench/results/$(date -u +%Y-%m-%d-%H%M%S).md"
$REPORT summarize "$RESULTS" --out "$OUT" --meta \
  "date=$DATE" \
  "command=\`make bench\` (bench/run.sh; BENCH_REPEATS=$REPEATS BENCH_INTERVAL_MS=$INTERVAL_MS)" \
  "commit=$COMMIT" \
  "machine=$(nproc) cores, $CPU; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" \
  "inferd=$([ $HAVE_INFERD -eq 1 ] && echo "$INFERD_BINARY (${BUILD_TYPE:-unknown build type}), --cpu-cores 1, --http-threads 1" || echo "not measured")" \
  "pinning=servers (inferd, echo_server) and ort_inprocess on core $SERVER_CORE (taskset -c $SERVER_CORE); perf_analyzer on core $CLIENT_CORE" \
  "client=perf_analyzer $($PA --version 2>&1 | grep -o '[0-9][0-9.]*' | head -1), closed loop, 3 windows of $INTERVAL_MS ms per run, p50/p99 over those windows, binary tensors, random inputs, batch 1" \
  "in-process=ort_inprocess: intra-op 1, inter-op 1, sequential, ORT_ENABLE_ALL, no spinning; min(concurrency, instance count) workers, one session each; 1 s warm-up, $INPROCESS_S s window"
log "written to $OUT"
