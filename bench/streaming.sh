#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make bench-streaming`: what streams and stateful sequences cost and give, in ONE run
# (docs/benchmarks.md, "make bench-streaming", explains the method and the columns).
# bench/streaming.py does the measuring, against one inferd (core 0, --cpu-cores 1)
# serving examples/models/simple, examples/models/silero_vad and, when its backend is
# built, examples/backends/repeat's decoupled repeat_int32:
#
#   (a) Responses per second over gRPC streams against unary gRPC calls: perf_analyzer
#       on simple (unary and --streaming), then tritonclient processes (core 1): unary
#       calls, one stream with 1 and with 8 requests in flight, and repeat_int32 with
#       1 and 16 responses per request over one stream.
#   (b) The Silero VAD stream's real-time factor at 1, 8 and 32 concurrent streams
#       (perf_analyzer in sequence mode over gRPC streams, chunks of the pocketsphinx
#       recordings), beside bench/vad_inprocess.py on the server's core (the upstream
#       model, state carried by hand) at batch S and batch 1; one tritonclient stream.
#   (c) The batch the sequence batcher (`oldest`) formed, and in-process at that batch.
# Markdown to stdout and to bench/results/<date>-streaming.md (the JSON in <date>-streaming-json/).
#
# Environment (all optional; the common ones are in bench/lib.sh):
#   BENCH_STREAMING_PARTS="stream vad"  BENCH_CONCURRENCY="1 8"  BENCH_VAD_STREAMS="1 8 32"
#   BENCH_STREAMING_WINDOW_S=0.5  BENCH_STREAMING_ROUNDS=4  BENCH_STREAMING_WARMUP_S=0.5
#   BENCH_INTERVAL_MS=1500 (perf_analyzer's window)  BENCH_VAD_WINDOW_S=3  BENCH_VAD_INPROCESS_S=2
#   BENCH_SYSTEM_PYTHON=/usr/bin/python3   the Python workers' interpreter
set -euo pipefail
BENCH_NEEDS="perf_analyzer"
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PARTS=${BENCH_STREAMING_PARTS:-stream vad}
CONCURRENCY=${BENCH_CONCURRENCY:-1 8}
STREAMS=${BENCH_VAD_STREAMS:-1 8 32}
WINDOW_S=${BENCH_STREAMING_WINDOW_S:-0.5}
ROUNDS=${BENCH_STREAMING_ROUNDS:-4}
WARMUP_S=${BENCH_STREAMING_WARMUP_S:-0.5}
VAD_WINDOW_S=${BENCH_VAD_WINDOW_S:-3}
INPROCESS_S=${BENCH_VAD_INPROCESS_S:-2}
SYSTEM_PYTHON=${BENCH_SYSTEM_PYTHON:-$INFERD_PYTHON}
[ -x "$INFERD_BINARY" ] || die "$INFERD_BINARY not found: build it first (make build)"
[ -x "$PY" ] || die "$PY not found: run 'make setup'"
command -v taskset >/dev/null || die "taskset not found (util-linux)"

RESULTS="$WORK/results"
mkdir -p "$RESULTS"
START=$(date +%s)
timeout -k 5 "$RUN_TIMEOUT_S" taskset -c "$CLIENT_CORE" "$PY" bench/streaming.py run --inferd "$INFERD_BINARY" \
  --backend-directory "$INFERD_BACKEND_DIR" --perf-analyzer "$PA" --server-core "$SERVER_CORE" \
  --client-core "$CLIENT_CORE" --system-python "$SYSTEM_PYTHON" --parts "$PARTS" \
  --concurrency "$CONCURRENCY" --streams "$STREAMS" --window-s "$WINDOW_S" --rounds "$ROUNDS" \
  --warmup-s "$WARMUP_S" --pa-interval-ms "$INTERVAL_MS" --vad-window-s "$VAD_WINDOW_S" \
  --inprocess-s "$INPROCESS_S" --repeats "$REPEATS" --work "$WORK/run" --out-dir "$RESULTS" &
PIDS+=($!)
wait $! || stalled $? "$RUN_TIMEOUT_S" streaming.py || log "warning: the driver failed; the report holds the repeats that finished"
log "measured in $(( $(date +%s) - START )) s"

# --- report ----------------------------------------------------------------------------
OUT="bench/results/$(date -u +%Y-%m-%d-%H%M%S)-streaming.md"
# The raw JSON beside the report: `bench/streaming.py summarize DIR` redoes the tables.
mkdir -p bench/results && cp -r "$RESULTS" "${OUT%.md}-json"
mapfile -t META < <(commit_and_machine)
$PY bench/streaming.py summarize "$RESULTS" --out "$OUT" --meta \
  "${META[@]}" \
  "command=\`make bench-streaming\` (bench/streaming.sh; BENCH_REPEATS=$REPEATS BENCH_STREAMING_PARTS=\"$PARTS\" BENCH_CONCURRENCY=\"$CONCURRENCY\" BENCH_VAD_STREAMS=\"$STREAMS\" BENCH_STREAMING_WINDOW_S=$WINDOW_S BENCH_STREAMING_ROUNDS=$ROUNDS BENCH_INTERVAL_MS=$INTERVAL_MS BENCH_VAD_WINDOW_S=$VAD_WINDOW_S BENCH_VAD_INPROCESS_S=$INPROCESS_S)" \
  "inferd=$INFERD_BINARY ($(build_type)), --cpu-cores 1 --log-level info; simple, silero_vad and repeat_int32 as configured in examples/ (one CPU instance each; silero_vad: oldest sequence batching, max_batch_size 32, no queue delay)" \
  "pinning=inferd and bench/vad_inprocess.py on core $SERVER_CORE (taskset -c $SERVER_CORE); perf_analyzer and the tritonclient processes on core $CLIENT_CORE" \
  "clients=perf_analyzer $($PA --version 2>&1 | grep -o 'Version [0-9][0-9.]*' | head -1 | cut -d' ' -f2 || echo '?') (gRPC, closed loop, windows of $INTERVAL_MS ms, -s 1000 -r 10: the first three windows); tritonclient $($PY -c 'import importlib.metadata as m; print(m.version("tritonclient"))' 2>/dev/null || echo '?') processes, each its own channel, $ROUNDS windows of ${WINDOW_S} s per target and repeat, targets rotating" \
  "in-process=bench/vad_inprocess.py ($PY, onnxruntime $($PY -c 'import onnxruntime; print(onnxruntime.__version__)' 2>/dev/null || echo '?'), one intra-op thread), the upstream silero_vad.onnx, ${INPROCESS_S} s per batch size"
log "written to $OUT"
