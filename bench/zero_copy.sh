#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make bench-zero-copy`: FP32 tensors of 64 KiB, 4 MiB and 64 MiB through an ONNX
# Identity model via system shared memory (input and output in regions) versus HTTP
# binary tensors versus gRPC raw contents, beside a memcpy of the same bytes, in ONE run
# (docs/benchmarks.md, "make bench-zero-copy", explains the method and the columns).
# inferd runs on core 0 (--cpu-cores 1), the tritonclient driver (bench/zero_copy.py) on
# core 1. Markdown to stdout and to bench/results/<date>-zero-copy.md.
#
# Environment (all optional; the common ones are in bench/lib.sh):
#   BENCH_ZERO_COPY_WINDOW_S=1.0   seconds per measurement window (at least 3 requests)
set -euo pipefail
BENCH_NEEDS=""  # neither perf_analyzer nor the bench/ C++ tools
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

WINDOW_S=${BENCH_ZERO_COPY_WINDOW_S:-1.0}
[ -x "$INFERD_BINARY" ] || die "$INFERD_BINARY not found: build it first (make build)"
[ -x "$PY" ] || die "$PY not found: run 'make setup'"
command -v taskset >/dev/null || die "taskset not found (util-linux)"

OUT="bench/results/$(date -u +%Y-%m-%d-%H%M%S)-zero-copy.md"
mapfile -t META < <(commit_and_machine)
timeout -k 5 "$RUN_TIMEOUT_S" taskset -c "$CLIENT_CORE" "$PY" bench/zero_copy.py --inferd "$INFERD_BINARY" \
  --backend-directory "$INFERD_BACKEND_DIR" --server-core "$SERVER_CORE" \
  --window-s "$WINDOW_S" --repeats "$REPEATS" --work "$WORK" --out "$OUT" --meta \
  "${META[@]}" \
  "command=\`make bench-zero-copy\` (bench/zero_copy.sh; BENCH_REPEATS=$REPEATS BENCH_ZERO_COPY_WINDOW_S=$WINDOW_S)" \
  "inferd=$INFERD_BINARY ($(build_type)) on core $SERVER_CORE, --cpu-cores 1; identity_fp32: ONNX Identity, one CPU instance" \
  "client=bench/zero_copy.py on core $CLIENT_CORE: tritonclient, one request in flight, closed loop; GB/s = input tensor bytes per second; median of $REPEATS windows of ${WINDOW_S} s (at least 3 requests each)" &
PIDS+=($!)
wait $! || stalled $? "$RUN_TIMEOUT_S" zero_copy.py
log "written to $OUT"
