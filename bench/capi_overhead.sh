#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The embedding C API's cost per request at batch 1 (issue 12 item 5): an ONNX
# Identity model (FP32 [n], one CPU instance, one intra-op thread) called through
# INFERD_ServerInfer versus through ONNX Runtime's C API directly, in one process run
# (bench/capi_overhead.cc). docs/benchmarks.md, "The C API's overhead", has the method.
#
# Environment (all optional; the common ones are in bench/lib.sh):
#   BENCH_CAPI_ELEMENTS=16     tensor elements (FP32)
#   BENCH_CAPI_ROUNDS=7        alternating rounds; medians are reported
#   BENCH_CAPI_REQUESTS=5000   requests per round and side
#   BENCH_CAPI_CORES="$BENCH_SERVER_CORE,$BENCH_CLIENT_CORE"  cores the process may use
set -euo pipefail
BENCH_NEEDS="capi_overhead"
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ELEMENTS=${BENCH_CAPI_ELEMENTS:-16}
ROUNDS=${BENCH_CAPI_ROUNDS:-7}
REQUESTS=${BENCH_CAPI_REQUESTS:-5000}
CORES=${BENCH_CAPI_CORES:-$SERVER_CORE,$CLIENT_CORE}
command -v taskset >/dev/null || die "taskset not found (util-linux)"

REPO="$WORK/repo"
"$PY" - "$REPO" <<'PYEOF'
import pathlib, sys
import onnx
from onnx import TensorProto, helper
repo = pathlib.Path(sys.argv[1])
(repo / "identity_fp32" / "1").mkdir(parents=True)
graph = helper.make_graph(
    [helper.make_node("Identity", ["INPUT0"], ["OUTPUT0"])], "identity",
    [helper.make_tensor_value_info("INPUT0", TensorProto.FLOAT, ["n"])],
    [helper.make_tensor_value_info("OUTPUT0", TensorProto.FLOAT, ["n"])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
onnx.save(model, str(repo / "identity_fp32" / "1" / "model.onnx"))
(repo / "identity_fp32" / "config.pbtxt").write_text(
    'name: "identity_fp32"\nplatform: "onnxruntime_onnx"\nmax_batch_size: 0\n'
    'input [{ name: "INPUT0" data_type: TYPE_FP32 dims: [ -1 ] }]\n'
    'output [{ name: "OUTPUT0" data_type: TYPE_FP32 dims: [ -1 ] }]\n'
    'instance_group [{ kind: KIND_CPU count: 1 }]\n'
    'parameters { key: "intra_op_thread_count" value: { string_value: "1" } }\n'
    'parameters { key: "inter_op_thread_count" value: { string_value: "1" } }\n')
PYEOF

log "identity_fp32, $ELEMENTS FP32 elements, cores $CORES, $ROUNDS rounds x $REQUESTS requests"
bounded "$RUN_TIMEOUT_S" capi_overhead taskset -c "$CORES" "$INFERD_BENCH_BIN/capi_overhead" --repository "$REPO" \
  --model identity_fp32 --onnx "$REPO/identity_fp32/1/model.onnx" --elements "$ELEMENTS" \
  --rounds "$ROUNDS" --requests "$REQUESTS"
