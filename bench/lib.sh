# SPDX-License-Identifier: Apache-2.0
# What bench/run.sh, bench/batching.sh and bench/lifecycle.sh share; sourced, not run.
# It cds to the repository root, reads the common environment, checks the tools, makes
# $WORK (removed on exit, with every process in PIDS stopped) and defines helpers.
#
# Environment (all optional):
#   INFERD_BINARY        inferd to measure (default build/bin/inferd)
#   INFERD_BACKEND_DIR   its backends (default <binary dir>/../lib/backends)
#   INFERD_BENCH_BIN     echo_server + ort_inprocess (default <binary dir>/bench)
#   BENCH_REPEATS=3  BENCH_INTERVAL_MS=1500  BENCH_SERVER_CORE=0  BENCH_CLIENT_CORE=1
#   BENCH_STEP_TIMEOUT_S=120  the time limit of one step (a perf_analyzer run, an in-process
#                        reference, a driver script's run gets BENCH_RUN_TIMEOUT_S=1800): past
#                        it the step is stopped and reported as stalled (see `bounded`)
#   BENCH_NEEDS          set by the sourcing script: the tools it requires (default
#                        "perf_analyzer echo_server ort_inprocess")

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

INFERD_BINARY=${INFERD_BINARY:-build/bin/inferd}
BIN_DIR=$(dirname "$INFERD_BINARY")
INFERD_BACKEND_DIR=${INFERD_BACKEND_DIR:-$BIN_DIR/../lib/backends}
INFERD_BENCH_BIN=${INFERD_BENCH_BIN:-$BIN_DIR/bench}
REPEATS=${BENCH_REPEATS:-3}
INTERVAL_MS=${BENCH_INTERVAL_MS:-1500}
SERVER_CORE=${BENCH_SERVER_CORE:-0}
CLIENT_CORE=${BENCH_CLIENT_CORE:-1}
STEP_TIMEOUT_S=${BENCH_STEP_TIMEOUT_S:-120}
RUN_TIMEOUT_S=${BENCH_RUN_TIMEOUT_S:-1800}
# Every inferd a benchmark starts runs Python models (examples/models/ocr_cls_label)
# on Debian's python3, which has numpy (python3-numpy), as `make serve` does; not
# whatever python3 leads PATH.
export INFERD_PYTHON="${INFERD_PYTHON:-$(command -v /usr/bin/python3 || command -v python3)}"
PA=.venv/bin/perf_analyzer
PY=.venv/bin/python
REPORT="$PY bench/report.py"

log() { printf '[bench] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# BENCH_NEEDS: the tools the sourcing script cannot do without (set it before sourcing).
for tool in ${BENCH_NEEDS-perf_analyzer echo_server ort_inprocess}; do
  if [ "$tool" = perf_analyzer ]; then
    [ -x "$PA" ] || die "$PA not found: run 'make setup'"
  else
    [ -x "$INFERD_BENCH_BIN/$tool" ] || die "$INFERD_BENCH_BIN/$tool not found: build with INFERD_BUILD_BENCH=ON"
  fi
done
if [ "$(nproc)" -lt 2 ]; then
  log "warning: one core only: client and server share it"
  CLIENT_CORE=$SERVER_CORE
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

# bounded SECONDS LABEL COMMAND...: runs COMMAND with a time limit, so that a stalled
# step (a client spinning, a server that stopped answering) ends the step instead of
# the benchmark: past SECONDS, SIGTERM, SIGKILL 5 s later. Returns COMMAND's exit
# status, 124 on a stall (as timeout does), which `stalled` reports.
bounded() {
  local seconds=$1 label=$2 status=0
  shift 2
  timeout -k 5 "$seconds" "$@" || status=$?
  [ $status -eq 0 ] || stalled $status "$seconds" "$label"
}

# stalled STATUS SECONDS LABEL: given the exit status of a `timeout -k 5 SECONDS ...`
# run (a step in the background uses timeout itself, so that cleanup's SIGTERM reaches
# it), logs a stall with the TCP queues of the connections still holding unread bytes
# (a request the server did not read, a response the client did not); returns STATUS.
stalled() {
  local status=$1 seconds=$2 label=$3
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    log "STALLED: $label did not finish within $seconds s and was stopped" \
        "(BENCH_STEP_TIMEOUT_S / BENCH_RUN_TIMEOUT_S); connections with unread bytes" \
        "(Recv-Q Send-Q local peer):"
    ss -tn 2>/dev/null | awk 'NR > 1 && ($2 > 0 || $3 > 0) { print "  " $2, $3, $4, $5 }' \
      | head -20 >&2 || true
  fi
  return "$status"
}

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

# start_inferd REPOSITORY: inferd pinned to the server core, serving REPOSITORY;
# sets INFERD_HTTP_PORT and INFERD_GRPC_PORT. --cpu-cores 1: it runs on one core,
# so each ONNX Runtime session gets intra-op 1 thread.
start_inferd() {
  read -r INFERD_HTTP_PORT INFERD_GRPC_PORT INFERD_METRICS_PORT < <($REPORT free-ports 3)
  taskset -c "$SERVER_CORE" "$INFERD_BINARY" serve --model-repository "$1" \
    --backend-directory "$INFERD_BACKEND_DIR" --host 127.0.0.1 --cpu-cores 1 \
    --http-port "$INFERD_HTTP_PORT" --grpc-port "$INFERD_GRPC_PORT" \
    --metrics-port "$INFERD_METRICS_PORT" --log-level warn \
    >"$WORK/inferd.log" 2>&1 &
  PIDS+=($!)
  wait_ready $! "$INFERD_HTTP_PORT" "$WORK/inferd.log"
  log "inferd ready on HTTP $INFERD_HTTP_PORT, gRPC $INFERD_GRPC_PORT"
}

# commit_and_machine: prints the date=, commit= and machine= --meta arguments of report.py.
commit_and_machine() {
  local commit cpu
  commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
  if [ -n "$(git status --porcelain 2>/dev/null | head -1)" ]; then commit="$commit (+ uncommitted changes)"; fi
  cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
  printf '%s\n' "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)" "commit=$commit" \
    "machine=$(nproc) cores, $cpu; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
}

# build_type: CMAKE_BUILD_TYPE of the build that holds INFERD_BINARY.
build_type() {
  grep -s '^CMAKE_BUILD_TYPE:' "$BIN_DIR/../CMakeCache.txt" | cut -d= -f2 || true
}
