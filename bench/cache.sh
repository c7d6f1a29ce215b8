#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make bench-cache` (also part of `make bench`): the response cache
# (docs/configuration.md, "Response cache") on the `simple` model, in ONE run:
#   bare     bench/echo_server answering the same protocol and payload at once
#   nocache  inferd, the model without response_cache
#   hit      inferd, response_cache on, one input: every request after the first a hit
#   mix90    inferd, response_cache on, 9 of 10 requests the hot input and the 10th a
#            new one; the cache (--cache-config local,size=$BENCH_CACHE_BYTES, about ten
#            entries) keeps the hot entry and has evicted each cold one before it comes
#            round again, so about 90 % hit (the measured rate is in the table, from
#            the statistics extension's cache_hit / cache_miss around each run)
#   cold     inferd, response_cache on, 1000 different inputs: every request misses
# for HTTP and gRPC at concurrency 1 and 16; servers on one core, perf_analyzer on
# the other. Prints a markdown table and writes it to bench/results/cache-<date>.md.
#
# Environment (all optional, besides bench/lib.sh's):
#   BENCH_PROTOCOLS="http grpc"  BENCH_CONCURRENCY="1 16"  BENCH_CACHE_BYTES=8192
#   BENCH_RUN_TIMEOUT_S=120      a perf_analyzer run still going then is stopped and reported
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PROTOCOLS=${BENCH_PROTOCOLS:-http grpc}
CONCURRENCY=${BENCH_CONCURRENCY:-1 16}
CACHE_BYTES=${BENCH_CACHE_BYTES:-8192}
RUN_TIMEOUT_S=${BENCH_RUN_TIMEOUT_S:-120}
CACHE_PY="$PY bench/cache.py"
[ -x "$INFERD_BINARY" ] || die "$INFERD_BINARY not found: run 'make build'"

# --- the repository: simple as it is, and the same file with response_cache on ---------
REPOSITORY="$WORK/models"
mkdir -p "$REPOSITORY/simple/1" "$REPOSITORY/simple_cached/1"
cp examples/models/simple/config.pbtxt "$REPOSITORY/simple/"
ln -s "$ROOT/examples/models/simple/1/model.onnx" "$REPOSITORY/simple/1/model.onnx"
sed 's/^name: "simple"/name: "simple_cached"/' examples/models/simple/config.pbtxt \
  >"$REPOSITORY/simple_cached/config.pbtxt"
printf '\nresponse_cache { enable: true }\n' >>"$REPOSITORY/simple_cached/config.pbtxt"
ln -s "$ROOT/examples/models/simple/1/model.onnx" "$REPOSITORY/simple_cached/1/model.onnx"
$CACHE_PY inputs "$WORK/inputs"

# --- servers -----------------------------------------------------------------------------
read -r INFERD_HTTP_PORT INFERD_GRPC_PORT INFERD_METRICS_PORT < <($REPORT free-ports 3)
taskset -c "$SERVER_CORE" "$INFERD_BINARY" serve --model-repository "$REPOSITORY" \
  --backend-directory "$INFERD_BACKEND_DIR" --host 127.0.0.1 --cpu-cores 1 \
  --http-port "$INFERD_HTTP_PORT" --grpc-port "$INFERD_GRPC_PORT" \
  --metrics-port "$INFERD_METRICS_PORT" --log-level warn \
  --cache-config "local,size=$CACHE_BYTES" >"$WORK/inferd.log" 2>&1 &
PIDS+=($!)
wait_ready $! "$INFERD_HTTP_PORT" "$WORK/inferd.log"
curl -sf "http://127.0.0.1:$INFERD_HTTP_PORT/v2/models/simple/config" -o "$WORK/simple.json"
echo_args=$($REPORT describe simple "$WORK/simple.json" | sed -n 's/^echo_args=//p')
read -r BARE_HTTP_PORT BARE_GRPC_PORT < <($REPORT free-ports 2)
# shellcheck disable=SC2086  # echo_args is a list of words without spaces
taskset -c "$SERVER_CORE" "$INFERD_BENCH_BIN/echo_server" $echo_args --host 127.0.0.1 \
  --http-port "$BARE_HTTP_PORT" --grpc-port "$BARE_GRPC_PORT" >"$WORK/echo.log" 2>&1 &
PIDS+=($!)
wait_ready $! "$BARE_HTTP_PORT" "$WORK/echo.log"
log "inferd on HTTP $INFERD_HTTP_PORT / gRPC $INFERD_GRPC_PORT (cache $CACHE_BYTES bytes);" \
    "echo_server on $BARE_HTTP_PORT / $BARE_GRPC_PORT"

# run CASE PROTOCOL C INTERVAL_MS OUT.csv: one perf_analyzer run (3 windows) of a case,
# with the cached model's statistics saved before and after it.
run() {
  local case=$1 protocol=$2 c=$3 interval=$4 out=$5 model=simple_cached data port
  case $case in
    bare) model=simple; data=random ;;
    nocache) model=simple; data="$WORK/inputs/hot.json" ;;
    hit) data="$WORK/inputs/hot.json" ;;
    *) data="$WORK/inputs/$case.json" ;;
  esac
  if [ "$case" = bare ]; then
    if [ "$protocol" = http ]; then port=$BARE_HTTP_PORT; else port=$BARE_GRPC_PORT; fi
  else
    if [ "$protocol" = http ]; then port=$INFERD_HTTP_PORT; else port=$INFERD_GRPC_PORT; fi
  fi
  local stats="http://127.0.0.1:$INFERD_HTTP_PORT/v2/models/simple_cached/stats"
  curl -sf "$stats" -o "${out%.csv}.before.json"
  if ! timeout "$RUN_TIMEOUT_S" taskset -c "$CLIENT_CORE" "$PA" -i "$protocol" \
      -u "127.0.0.1:$port" -m "$model" --input-data "$data" --concurrency-range "$c" \
      --measurement-interval "$interval" -s 1000 -r 10 --percentile 99 -f "$out" \
      >"$out.log" 2>&1; then
    log "perf_analyzer failed or ran past ${RUN_TIMEOUT_S} s ($case $protocol c=$c):"
    tail -5 "$out.log" >&2
    rm -f "$out"
  fi
  curl -sf "$stats" -o "${out%.csv}.after.json"
  [ "$model" = simple_cached ] || rm -f "${out%.csv}.before.json" "${out%.csv}.after.json"
}

log "warming up"
for protocol in $PROTOCOLS; do
  for case in bare nocache hit; do run "$case" "$protocol" 4 500 "$WORK/warmup.csv"; done
done

RESULTS="$WORK/results"
mkdir -p "$RESULTS"
START=$(date +%s)
for r in $(seq 1 "$REPEATS"); do
  for protocol in $PROTOCOLS; do
    for c in $CONCURRENCY; do
      log "repeat $r/$REPEATS: $protocol concurrency $c"
      for case in bare nocache hit mix90 cold; do
        run "$case" "$protocol" "$c" "$INTERVAL_MS" "$RESULTS/pa_${protocol}_c${c}_${case}_r$r.csv"
      done
    done
  done
done
log "measured in $(( $(date +%s) - START )) s, ${SECONDS} s in all"

OUT="bench/results/cache-$(date -u +%Y-%m-%d-%H%M%S).md"
mapfile -t META < <(commit_and_machine)
$CACHE_PY summarize "$RESULTS" --out "$OUT" --meta "${META[@]}" \
  "command=\`make bench-cache\` (bench/cache.sh; BENCH_REPEATS=$REPEATS BENCH_INTERVAL_MS=$INTERVAL_MS BENCH_CACHE_BYTES=$CACHE_BYTES)" \
  "inferd=$INFERD_BINARY ($(build_type)), --cpu-cores 1, --cache-config local,size=$CACHE_BYTES" \
  "pinning=inferd and echo_server on core $SERVER_CORE; perf_analyzer on core $CLIENT_CORE" \
  "client=perf_analyzer $($PA --version 2>&1 | grep -o '[0-9][0-9.]*' | head -1), closed loop, 3 windows of $INTERVAL_MS ms per run, binary tensors, batch 1, --input-data (bare: random)"
log "written to $OUT"
