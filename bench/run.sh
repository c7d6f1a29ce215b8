#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make bench-transport` (also part of `make bench`): inferd side by side with its two
# references, in ONE run (docs/benchmarks.md explains the method and the columns):
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
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MODELS=${BENCH_MODELS:-simple ocr_cls}
PROTOCOLS=${BENCH_PROTOCOLS:-http grpc}
CONCURRENCY=${BENCH_CONCURRENCY:-1 8}
# The in-process window lasts as long as perf_analyzer's three windows.
INPROCESS_S=$(awk "BEGIN { print $INTERVAL_MS * 3 / 1000 }")
REPOSITORY=examples/models

HAVE_INFERD=1
if [ ! -x "$INFERD_BINARY" ]; then
  log "warning: $INFERD_BINARY not found: measuring the references only"
  HAVE_INFERD=0
fi

# --- inferd ----------------------------------------------------------------------
declare -A HTTP_PORT GRPC_PORT
if [ $HAVE_INFERD -eq 1 ]; then
  start_inferd "$REPOSITORY"
  HTTP_PORT[inferd]=$INFERD_HTTP_PORT
  GRPC_PORT[inferd]=$INFERD_GRPC_PORT
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
  if ! bounded "$STEP_TIMEOUT_S" "perf_analyzer ($model $protocol c=$c $target)" \
      taskset -c "$CLIENT_CORE" "$PA" -i "$protocol" -u "127.0.0.1:$port" -m "$model" \
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
      bounded "$STEP_TIMEOUT_S" "ort_inprocess ($model c=$c)" \
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
BUILD_TYPE=$(build_type)
OUT="bench/results/$(date -u +%Y-%m-%d-%H%M%S).md"
mapfile -t META < <(commit_and_machine)
$REPORT summarize "$RESULTS" --out "$OUT" --meta \
  "${META[@]}" \
  "command=\`make bench-transport\` (bench/run.sh; BENCH_REPEATS=$REPEATS BENCH_INTERVAL_MS=$INTERVAL_MS)" \
  "inferd=$([ $HAVE_INFERD -eq 1 ] && echo "$INFERD_BINARY (${BUILD_TYPE:-unknown build type}), --cpu-cores 1, --http-threads 1" || echo "not measured")" \
  "pinning=servers (inferd, echo_server) and ort_inprocess on core $SERVER_CORE (taskset -c $SERVER_CORE); perf_analyzer on core $CLIENT_CORE" \
  "client=perf_analyzer $($PA --version 2>&1 | grep -o '[0-9][0-9.]*' | head -1), closed loop, 3 windows of $INTERVAL_MS ms per run, p50/p99 over those windows, binary tensors, random inputs, batch 1" \
  "in-process=ort_inprocess: intra-op 1, inter-op 1, sequential, ORT_ENABLE_ALL, no spinning; min(concurrency, instance count) workers, one session each; 1 s warm-up, $INPROCESS_S s window"
log "written to $OUT"
