#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make bench-batching` (also part of `make bench`): dynamic batching against the
# compute limit, in ONE run (docs/benchmarks.md explains the method and the columns).
#
# bench/batching_models.py writes a repository with two variants of each model
# (PaddleOCR's ocr_cls and our MLP), one CPU instance each:
#   <model>_direct   no dynamic_batching: every request runs alone
#   <model>_batched  dynamic_batching, max_batch_size 32, max_queue_delay D
# One inferd serves them all, pinned to one core. For each repeat x model x
# concurrency x variant, perf_analyzer (gRPC, closed loop, batch 1) measures
# throughput, p50 and p99, and the model's statistics (GET /v2/models/M/stats) are
# read before and after, so batch_stats gives the batches the server formed. Right
# after, in the same repeat, bench/ort_inprocess runs the same ONNX file in-process
# (same core, intra-op 1) at the mean formed batch size, at batch 1 and at the full
# batch. Prints markdown tables and writes them to bench/results/<date>-batching.md.
#
# Environment (all optional; the common ones are in bench/lib.sh):
#   BENCH_BATCH_MODELS="ocr_cls mlp"  BENCH_BATCH_CONCURRENCY="1 4 16 32 64"
#   BENCH_MAX_BATCH=32  BENCH_DELAY_OCR_CLS_US=2000  BENCH_DELAY_MLP_US=500
#   BENCH_INPROCESS_S=3 (in-process window; 0.5 s warm-up before it)
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MODELS=${BENCH_BATCH_MODELS:-ocr_cls mlp}
CONCURRENCY=${BENCH_BATCH_CONCURRENCY:-1 4 16 32 64}
MAX_BATCH=${BENCH_MAX_BATCH:-32}
DELAY_OCR_CLS_US=${BENCH_DELAY_OCR_CLS_US:-2000}
DELAY_MLP_US=${BENCH_DELAY_MLP_US:-500}
INPROCESS_S=${BENCH_INPROCESS_S:-3}
[ -x "$INFERD_BINARY" ] || die "$INFERD_BINARY not found: build it first (make build)"

RESULTS="$WORK/results"
mkdir -p "$RESULTS"

# --- the repository: NAME BASE MAX_BATCH DELAY_US ONNX ORT_SHAPE per variant -------------
REPOSITORY="$WORK/models"
declare -A ONNX ORT_SHAPE
$PY bench/batching_models.py --output "$REPOSITORY" --models "$MODELS" --max-batch "$MAX_BATCH" \
  --delay-ocr-cls-us "$DELAY_OCR_CLS_US" --delay-mlp-us "$DELAY_MLP_US" >"$RESULTS/variants.txt" \
  || die "bench/batching_models.py failed"
while read -r name base max delay onnx shape; do
  ONNX[$base]=$onnx
  ORT_SHAPE[$base]=$shape
  case $name in
    *_batched) detail="dynamic_batching, max_queue_delay $delay µs" ;;
    *) detail="no dynamic_batching" ;;
  esac
  log "$name: max_batch_size $max, $detail"
done <"$RESULTS/variants.txt"

start_inferd "$REPOSITORY"
URL="http://127.0.0.1:$INFERD_HTTP_PORT"
for base in $MODELS; do
  for variant in direct batched; do
    curl -sf -o /dev/null "$URL/v2/models/${base}_$variant/ready" || die "inferd does not serve ${base}_$variant"
  done
done
HAVE_STATS=1
if ! curl -sf -o /dev/null "$URL/v2/models/${MODELS%% *}_batched/stats"; then
  log "warning: GET /v2/models/M/stats does not answer: formed batch sizes unknown"
  HAVE_STATS=0
fi

# pa MODEL C INTERVAL_MS OUT.csv: one perf_analyzer run (3 windows), gRPC.
# -s 1000: accept the first 3 windows whatever their spread (the repeats show it).
pa() {
  local model=$1 c=$2 interval=$3 out=$4
  if ! bounded "$STEP_TIMEOUT_S" "perf_analyzer ($model c=$c)" \
      taskset -c "$CLIENT_CORE" "$PA" -i grpc -u "127.0.0.1:$INFERD_GRPC_PORT" -m "$model" \
      --concurrency-range "$c" --measurement-interval "$interval" -s 1000 -r 10 --percentile 99 \
      -f "$out" >"$out.log" 2>&1; then
    log "perf_analyzer failed ($model c=$c):"
    tail -5 "$out.log" >&2
    rm -f "$out"
  fi
}

# stats MODEL OUT.json: the model's statistics now (nothing when unavailable).
stats() {
  [ $HAVE_STATS -eq 1 ] || return 0
  curl -sf "$URL/v2/models/$1/stats" -o "$2" || { log "warning: stats of $1 unavailable"; rm -f "$2"; }
}

# inprocess BASE BATCH R: ort_inprocess at BATCH rows per call, once per repeat and size.
inprocess() {
  local base=$1 batch=$2 r=$3 out="$RESULTS/ort_${1}_b${2}_r$3.json"
  [ -e "$out" ] && return 0
  log "repeat $r/$REPEATS: $base in-process, batch $batch"
  bounded "$STEP_TIMEOUT_S" "ort_inprocess ($base batch $batch)" \
    taskset -c "$SERVER_CORE" "$INFERD_BENCH_BIN/ort_inprocess" --model "${ONNX[$base]}" \
    --shape "${ORT_SHAPE[$base]}" --batch "$batch" --workers 1 --intra-op-threads 1 \
    --warmup-s 0.5 --duration-s "$INPROCESS_S" >"$out" 2>"$WORK/ort.log" \
    || { log "ort_inprocess failed ($base batch $batch):"; tail -5 "$WORK/ort.log" >&2; rm -f "$out"; }
}

# --- warm-up: one short run per variant, discarded -----------------------------------
log "warming up"
for base in $MODELS; do
  for variant in direct batched; do pa "${base}_$variant" 16 500 "$WORK/warmup.csv"; done
done

# --- measurement -------------------------------------------------------------------------
START=$(date +%s)
for r in $(seq 1 "$REPEATS"); do
  for base in $MODELS; do
    inprocess "$base" 1 "$r"
    inprocess "$base" "$MAX_BATCH" "$r"
    for c in $CONCURRENCY; do
      for variant in direct batched; do
        model=${base}_$variant
        run="${model}_c${c}_r$r"
        log "repeat $r/$REPEATS: $model concurrency $c"
        stats "$model" "$RESULTS/stats_${run}_before.json"
        pa "$model" "$c" "$INTERVAL_MS" "$RESULTS/pa_$run.csv"
        stats "$model" "$RESULTS/stats_${run}_after.json"
      done
      # The batched variant's mean formed batch, measured in-process in this repeat.
      size=$($REPORT formed-batch "$RESULTS/stats_${base}_batched_c${c}_r${r}_before.json" \
        "$RESULTS/stats_${base}_batched_c${c}_r${r}_after.json" || true)
      if [ -n "$size" ]; then inprocess "$base" "$size" "$r"; fi
    done
  done
done
log "measured in $(( $(date +%s) - START )) s, ${SECONDS} s in all"

# --- report ----------------------------------------------------------------------------
OUT="bench/results/$(date -u +%Y-%m-%d-%H%M%S)-batching.md"
mapfile -t META < <(commit_and_machine)
$REPORT summarize-batching "$RESULTS" --out "$OUT" --meta \
  "${META[@]}" \
  "command=\`make bench-batching\` (bench/batching.sh; BENCH_REPEATS=$REPEATS BENCH_INTERVAL_MS=$INTERVAL_MS BENCH_INPROCESS_S=$INPROCESS_S)" \
  "inferd=$INFERD_BINARY ($(build_type)), --cpu-cores 1; each model one CPU instance, max_batch_size $MAX_BATCH; max_queue_delay: ocr_cls $DELAY_OCR_CLS_US µs, mlp $DELAY_MLP_US µs" \
  "pinning=inferd and ort_inprocess on core $SERVER_CORE (taskset -c $SERVER_CORE); perf_analyzer on core $CLIENT_CORE" \
  "client=perf_analyzer $($PA --version 2>&1 | grep -o '[0-9][0-9.]*' | head -1), gRPC, closed loop, 3 windows of $INTERVAL_MS ms per run, batch 1, random inputs" \
  "in-process=ort_inprocess: one session, intra-op 1, inter-op 1, sequential, ORT_ENABLE_ALL, no spinning; 0.5 s warm-up, $INPROCESS_S s window, rows per call = the batch size"
log "written to $OUT"
