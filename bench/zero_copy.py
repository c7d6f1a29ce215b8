# SPDX-License-Identifier: Apache-2.0
"""`make bench-zero-copy` driver (bench/zero_copy.sh; docs/benchmarks.md, "make
bench-zero-copy"): FP32 tensors of 64 KiB, 4 MiB and 64 MiB through an ONNX
Identity model, sent three ways by tritonclient from one client process:

  shm   input and output in system shared-memory regions (registered once;
        each request names them, no tensor byte crosses the socket)
  http  HTTP with binary tensors (input and output bytes in the body)
  grpc  gRPC raw_input_contents / raw_output_contents

beside a numpy copy of the same bytes in the client (the memcpy limit: one
pass over the input, as the identity model's output copy is). Throughput is
the input tensor's bytes per second and requests per second, closed loop, one
request in flight. Markdown to stdout (and --out).
"""
import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import time

import numpy as np

SIZES = [("64 KiB", 64 << 10), ("4 MiB", 4 << 20), ("64 MiB", 64 << 20)]


def make_repository(repository):
    import onnx
    from onnx import TensorProto, helper
    directory = repository / "identity_fp32" / "1"
    directory.mkdir(parents=True)
    graph = helper.make_graph(
        [helper.make_node("Identity", ["INPUT0"], ["OUTPUT0"])], "identity",
        [helper.make_tensor_value_info("INPUT0", TensorProto.FLOAT, ["n"])],
        [helper.make_tensor_value_info("OUTPUT0", TensorProto.FLOAT, ["n"])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, str(directory / "model.onnx"))
    (repository / "identity_fp32" / "config.pbtxt").write_text(
        'name: "identity_fp32"\nplatform: "onnxruntime_onnx"\nmax_batch_size: 0\n'
        'input [{ name: "INPUT0" data_type: TYPE_FP32 dims: [ -1 ] }]\n'
        'output [{ name: "OUTPUT0" data_type: TYPE_FP32 dims: [ -1 ] }]\n'
        'instance_group [{ kind: KIND_CPU count: 1 }]\n')


def start_server(args, repository, log_path):
    import requests
    http_port, grpc_port, metrics_port = 18500, 18501, 18502
    command = ["taskset", "-c", str(args.server_core), args.inferd, "serve", "--host", "127.0.0.1",
               "--http-port", str(http_port), "--grpc-port", str(grpc_port),
               "--metrics-port", str(metrics_port), "--cpu-cores", "1",
               "--backend-directory", args.backend_directory, "--model-repository", str(repository)]
    log = open(log_path, "wb")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if requests.get(f"http://127.0.0.1:{http_port}/v2/health/ready", timeout=1).ok:
                return process, f"127.0.0.1:{http_port}", f"127.0.0.1:{grpc_port}"
        except requests.RequestException:
            pass
        time.sleep(0.1)
    process.kill()
    sys.exit(f"inferd did not become ready; see {log_path}")


def timed(call, window_s, min_requests):
    """Runs `call` closed loop for window_s (at least min_requests); returns requests/s."""
    call()  # warm-up
    count, start = 0, time.perf_counter()
    while True:
        call()
        count += 1
        elapsed = time.perf_counter() - start
        if elapsed >= window_s and count >= min_requests:
            return count / elapsed


def measure(args, http_url, grpc_url):
    import tritonclient.grpc as grpcclient
    import tritonclient.http as httpclient
    import tritonclient.utils.shared_memory as shm
    http = httpclient.InferenceServerClient(http_url, connection_timeout=300, network_timeout=300)
    grpc = grpcclient.InferenceServerClient(grpc_url)
    rows = []
    for label, size in SIZES:
        count = size // 4
        data = np.random.default_rng(42).random(count, dtype=np.float32)
        results = {}
        # memcpy limit: the client copies the same bytes once.
        target = np.empty_like(data)
        results["memcpy"] = [timed(lambda: np.copyto(target, data), args.window_s, 3)
                             for _ in range(args.repeats)]
        # shared memory: regions registered once, outside the timed loop.
        http.unregister_system_shared_memory()
        in_handle = shm.create_shared_memory_region("zc_in", "/zc_in", size)
        out_handle = shm.create_shared_memory_region("zc_out", "/zc_out", size)
        shm.set_shared_memory_region(in_handle, [data])
        http.register_system_shared_memory("zc_in", "/zc_in", size)
        http.register_system_shared_memory("zc_out", "/zc_out", size)
        shm_in = grpcclient.InferInput("INPUT0", [count], "FP32")
        shm_in.set_shared_memory("zc_in", size)
        shm_out = grpcclient.InferRequestedOutput("OUTPUT0")
        shm_out.set_shared_memory("zc_out", size)
        grpc.infer("identity_fp32", [shm_in], outputs=[shm_out])
        got = shm.get_contents_as_numpy(out_handle, np.float32, [count])
        assert np.array_equal(got, data), "shared-memory output differs from the input"
        results["shm"] = [timed(lambda: grpc.infer("identity_fp32", [shm_in], outputs=[shm_out]),
                                args.window_s, 3) for _ in range(args.repeats)]
        http.unregister_system_shared_memory()
        shm.destroy_shared_memory_region(in_handle)
        shm.destroy_shared_memory_region(out_handle)
        # HTTP binary tensors.
        h_in = httpclient.InferInput("INPUT0", [count], "FP32")
        h_in.set_data_from_numpy(data, binary_data=True)
        h_out = httpclient.InferRequestedOutput("OUTPUT0", binary_data=True)
        assert np.array_equal(http.infer("identity_fp32", [h_in], outputs=[h_out]).as_numpy("OUTPUT0"), data)
        results["http"] = [timed(lambda: http.infer("identity_fp32", [h_in], outputs=[h_out]),
                                 args.window_s, 3) for _ in range(args.repeats)]
        # gRPC raw contents.
        g_in = grpcclient.InferInput("INPUT0", [count], "FP32")
        g_in.set_data_from_numpy(data)
        assert np.array_equal(grpc.infer("identity_fp32", [g_in]).as_numpy("OUTPUT0"), data)
        results["grpc"] = [timed(lambda: grpc.infer("identity_fp32", [g_in]), args.window_s, 3)
                           for _ in range(args.repeats)]
        rows.append((label, size, {k: statistics.median(v) for k, v in results.items()}))
        print(f"[bench] {label}: " + ", ".join(f"{k} {statistics.median(v):.0f} req/s"
                                               for k, v in results.items()), file=sys.stderr)
    return rows


def report(rows, meta):
    lines = ["| tensor | memcpy GB/s | shm GB/s (req/s) | HTTP binary GB/s (req/s) | gRPC GB/s (req/s) | shm ÷ HTTP | shm ÷ gRPC |",
             "|---|---|---|---|---|---|---|"]
    for label, size, r in rows:
        gbps = {k: v * size / 1e9 for k, v in r.items()}
        lines.append(f"| {label} | {gbps['memcpy']:.1f} | {gbps['shm']:.2f} ({r['shm']:.0f}) | "
                     f"{gbps['http']:.2f} ({r['http']:.0f}) | {gbps['grpc']:.2f} ({r['grpc']:.0f}) | "
                     f"{r['shm'] / r['http']:.1f}x | {r['shm'] / r['grpc']:.1f}x |")
    return "\n".join(lines + [""] + [f"- {m}" for m in meta]) + "\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--inferd", required=True)
    parser.add_argument("--backend-directory", required=True)
    parser.add_argument("--server-core", type=int, default=0)
    parser.add_argument("--window-s", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--work", required=True)
    parser.add_argument("--out")
    parser.add_argument("--meta", nargs="*", default=[])
    args = parser.parse_args()
    work = pathlib.Path(args.work)
    repository = work / "models"
    make_repository(repository)
    process, http_url, grpc_url = start_server(args, repository, work / "inferd.log")
    try:
        rows = measure(args, http_url, grpc_url)
    finally:
        process.terminate()
        process.wait(timeout=30)
    text = report(rows, args.meta)
    sys.stdout.write(text)
    if args.out:
        os.makedirs(os.path.dirname(args.out), exist_ok=True)
        pathlib.Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
