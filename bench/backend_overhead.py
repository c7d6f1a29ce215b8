# SPDX-License-Identifier: Apache-2.0
"""The driver of bench/backends.sh (`make bench-backends`): what the Python and the
LibTorch backends cost per request, next to the same model called in-process and next
to an ONNX Identity model served by the same server (docs/benchmarks.md, "Backend
overhead: Python and LibTorch").

  backend_overhead.py run --inferd BIN --work DIR --out-dir DIR ...      (.venv/bin/python)
      Writes the three identity models, starts one inferd (pinned with taskset, Python
      workers run by --system-python), and per repeat: for each protocol, closed-loop
      requests (concurrency 1, tritonclient) to the three models in interleaved chunks,
      then the in-process references on the server's core. One JSON per repeat.
  backend_overhead.py summarize DIR --out FILE --meta K=V ...             (.venv/bin/python)
      The markdown tables from DIR's repeat_*.json.

Run by --system-python (Debian's /usr/bin/python3 with numpy and python3-torch), never
by the .venv (its numpy conflicts with Debian's torch):

  backend_overhead.py make-torch OUT.pt
      torch.jit.script of an identity-like module (forward returns x.clone()), saved.
  backend_overhead.py inprocess-python --model-dir DIR --calls N --warmup N
      model.py's TritonPythonModel.execute() called directly (PYTHONPATH=python/, the
      inferd_python API); one JSON line.
  backend_overhead.py inprocess-torch --model OUT.pt --calls N --warmup N
      the TorchScript module called under torch.inference_mode, 1 thread; one JSON line.

This file imports only the standard library at the top, so every interpreter can run it.
"""
import argparse
import glob
import http.client
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lifecycle_bench import Server, percentile  # noqa: E402  (pinned inferd, nearest rank)
from report import fmt, write_report  # noqa: E402  (median (min–max) †, as the other benchmarks)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHAPE = [1, 16]
SEED = 42
# name -> (backend, input, output, what it is); in this order in every table.
MODELS = {
    "onnx_identity": ("onnxruntime", "INPUT0", "OUTPUT0",
                      "ONNX Identity (onnx.helper), the transport reference"),
    "py_identity": ("python", "INPUT0", "OUTPUT0", "model.py returning its input (pb_utils)"),
    "pt_identity": ("pytorch", "INPUT__0", "OUTPUT__0", "TorchScript, forward returns x.clone()"),
}
REFERENCE = "onnx_identity"

PY_MODEL = '''\
# Written by bench/backend_overhead.py: the Python backend's per-request cost, with
# (almost) no work of the model's own: OUTPUT0 is INPUT0.
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            x = pb_utils.get_input_tensor_by_name(request, "INPUT0").as_numpy()
            responses.append(pb_utils.InferenceResponse(output_tensors=[pb_utils.Tensor("OUTPUT0", x)]))
        return responses
'''


def config_text(name, backend_line, in_name, out_name):
    dims = ", ".join(str(d) for d in SHAPE)
    return (f'name: "{name}"\n{backend_line}\nmax_batch_size: 0\n'
            f'input [ {{ name: "{in_name}" data_type: TYPE_FP32 dims: [ {dims} ] }} ]\n'
            f'output [ {{ name: "{out_name}" data_type: TYPE_FP32 dims: [ {dims} ] }} ]\n'
            "instance_group [ { count: 1 kind: KIND_CPU } ]\n")


def py_model_config():
    """What the server would pass as args["model_config"] (the parts model.py may read)."""
    return {"name": "py_identity", "backend": "python", "max_batch_size": 0,
            "input": [{"name": "INPUT0", "data_type": "TYPE_FP32", "dims": SHAPE}],
            "output": [{"name": "OUTPUT0", "data_type": "TYPE_FP32", "dims": SHAPE}]}


def log(text):
    print(f"[bench] {text}", file=sys.stderr, flush=True)


# --- the system interpreter's commands ------------------------------------------------


def make_torch(path):
    import torch

    class Identity(torch.nn.Module):
        """Identity-like: a fresh output tensor holding the input (as ONNX Runtime's
        Identity and the Python worker each produce an output buffer of their own)."""

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x.clone()

    module = torch.jit.script(Identity())
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    module.save(path)
    print(f"torch {torch.__version__}")


def time_calls(call, calls, warmup):
    for _ in range(warmup):
        call()
    times = []
    clock = time.perf_counter_ns
    for _ in range(calls):
        t0 = clock()
        call()
        times.append(clock() - t0)
    us = [t / 1e3 for t in times]
    return {"calls": calls, "p50_us": statistics.median(us), "p99_us": percentile(us, 99),
            "mean_us": statistics.fmean(us), "min_us": min(us)}


def inprocess_python(args):
    import importlib.util

    import numpy as np
    import triton_python_backend_utils as pb_utils  # PYTHONPATH=python/
    import inferd_python

    version_dir = os.path.join(args.model_dir, "1")
    sys.path.append(version_dir)  # as the worker does
    spec = importlib.util.spec_from_file_location("model", os.path.join(version_dir, "model.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    model = module.TritonPythonModel()
    if hasattr(model, "initialize"):
        model.initialize({"model_config": json.dumps(py_model_config()), "model_name": "py_identity",
                          "model_version": "1", "model_repository": args.model_dir,
                          "model_instance_name": "py_identity_0", "model_instance_kind": "CPU",
                          "model_instance_device_id": "0"})
    x = np.random.default_rng(SEED).random(SHAPE, dtype=np.float32)

    def call():
        # What the worker does around execute(): a request holding the input tensor,
        # execute() on a list of one, the response's output as numpy.
        request = inferd_python.InferenceRequest(inputs=[pb_utils.Tensor("INPUT0", x)],
                                                 requested_output_names=["OUTPUT0"])
        response = model.execute([request])[0]
        return pb_utils.get_output_tensor_by_name(response, "OUTPUT0").as_numpy()

    if not np.array_equal(call(), x):
        raise SystemExit("py_identity's execute() did not return its input")
    result = time_calls(call, args.calls, args.warmup)
    result["python"] = sys.executable
    result["numpy"] = np.__version__
    print(json.dumps(result))


def inprocess_torch(args):
    import numpy as np
    import torch

    torch.set_num_threads(1)
    module = torch.jit.load(args.model)
    module.eval()
    x = torch.from_numpy(np.random.default_rng(SEED).random(SHAPE, dtype=np.float32))
    with torch.inference_mode():
        if not torch.equal(module(x), x):
            raise SystemExit("pt_identity did not return its input")
        result = time_calls(lambda: module(x), args.calls, args.warmup)
    result["torch"] = torch.__version__
    result["threads"] = torch.get_num_threads()
    print(json.dumps(result))


# --- run --------------------------------------------------------------------------------


def system_python_has(python, module):
    try:
        return subprocess.run([python, "-c", f"import {module}"], capture_output=True,
                              timeout=120).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def make_repository(args, repository):
    """Writes the models that can run here; returns ({model: model dir}, [notes])."""
    import onnx
    from onnx import TensorProto, helper

    models, notes = {}, []
    # onnx_identity: one Identity node.
    directory = os.path.join(repository, "onnx_identity")
    os.makedirs(os.path.join(directory, "1"))
    graph = helper.make_graph(
        [helper.make_node("Identity", ["INPUT0"], ["OUTPUT0"], name="identity")], "identity",
        [helper.make_tensor_value_info("INPUT0", TensorProto.FLOAT, SHAPE)],
        [helper.make_tensor_value_info("OUTPUT0", TensorProto.FLOAT, SHAPE)])
    model = helper.make_model(graph, producer_name="inferd-bench",
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.path.join(directory, "1", "model.onnx"))
    with open(os.path.join(directory, "config.pbtxt"), "w") as f:
        f.write(config_text("onnx_identity", 'platform: "onnxruntime_onnx"', "INPUT0", "OUTPUT0"))
    models["onnx_identity"] = directory

    backends = args.backend_directory or os.path.join(os.path.dirname(args.inferd), "..", "lib", "backends")
    python_ok = os.access(args.system_python, os.X_OK)

    # py_identity: the Python backend, workers run by --system-python.
    if not os.path.exists(os.path.join(backends, "python", "libinferd_python.so")):
        notes.append(f"py_identity skipped: no Python backend in {backends}/python")
    elif not python_ok or not system_python_has(args.system_python, "numpy"):
        notes.append(f"py_identity skipped: {args.system_python} missing or without numpy "
                     "(Debian: apt install python3-numpy)")
    else:
        directory = os.path.join(repository, "py_identity")
        os.makedirs(os.path.join(directory, "1"))
        with open(os.path.join(directory, "1", "model.py"), "w") as f:
            f.write(PY_MODEL)
        with open(os.path.join(directory, "config.pbtxt"), "w") as f:
            f.write(config_text("py_identity", 'backend: "python"', "INPUT0", "OUTPUT0"))
        models["py_identity"] = directory

    # pt_identity: made here by --system-python's torch, served by the LibTorch backend.
    if not os.path.exists(os.path.join(backends, "pytorch", "libinferd_pytorch.so")):
        notes.append(f"pt_identity skipped: no LibTorch backend in {backends}/pytorch "
                     "(built only when libtorch-dev is installed)")
    elif not python_ok:
        notes.append(f"pt_identity skipped: {args.system_python} not found")
    else:
        directory = os.path.join(repository, "pt_identity")
        path = os.path.join(directory, "1", "model.pt")
        made = subprocess.run([args.system_python, os.path.abspath(__file__), "make-torch", path],
                              capture_output=True, text=True, env=system_env(args))
        if made.returncode != 0:
            last = (made.stderr.strip().splitlines() or ["?"])[-1]
            notes.append(f"pt_identity skipped: {args.system_python} could not write the TorchScript "
                         f"model ({last}; Debian: apt install python3-torch)")
            shutil.rmtree(directory, ignore_errors=True)
        else:
            with open(os.path.join(directory, "config.pbtxt"), "w") as f:
                f.write(config_text("pt_identity", 'platform: "pytorch_libtorch"', "INPUT__0", "OUTPUT__0"))
            models["pt_identity"] = directory
            log(f"pt_identity written with {made.stdout.strip()}")
    return models, notes


def system_env(args):
    """The system interpreter's environment: our inferd_python first, one thread."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "python")
    env["OMP_NUM_THREADS"] = env["MKL_NUM_THREADS"] = env["OPENBLAS_NUM_THREADS"] = "1"
    env.pop("VIRTUAL_ENV", None)
    return env


def repository_index(server):
    connection = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=10)
    connection.request("POST", "/v2/repository/index", body=b"{}",
                       headers={"Content-Type": "application/json"})
    response = connection.getresponse()
    text = response.read()
    connection.close()
    return json.loads(text) if response.status == 200 else []


def wait_models(server, names, timeout_s=180):
    """{model: reason} of the models that did not become READY (load failures)."""
    deadline = time.time() + timeout_s
    while True:
        index = {}
        for entry in repository_index(server):
            index.setdefault(entry["name"], []).append(entry)
        states = {n: [e.get("state") for e in index.get(n, [])] for n in names}
        if all("READY" in s or (s and "LOADING" not in s) for s in states.values()):
            break
        if time.time() > deadline:
            break
        time.sleep(0.1)
    failed = {}
    for n in names:
        if "READY" not in states[n]:
            reasons = [e.get("reason", "") for e in index.get(n, [])]
            failed[n] = "; ".join(r for r in reasons if r) or f"state {states[n] or 'unknown'}"
    return failed


class Client:
    """One model over one protocol: a prepared request, closed loop, one call at a time."""

    def __init__(self, protocol, server, model, data):
        import numpy as np
        _, in_name, out_name, _ = MODELS[model]
        self.model, self.out_name, self.data, self.np = model, out_name, data, np
        if protocol == "grpc":
            import tritonclient.grpc as client
            self.client = client.InferenceServerClient(f"127.0.0.1:{server.grpc_port}")
            self.outputs = [client.InferRequestedOutput(out_name)]
        else:
            import tritonclient.http as client
            self.client = client.InferenceServerClient(f"127.0.0.1:{server.http_port}", concurrency=1)
            self.outputs = [client.InferRequestedOutput(out_name, binary_data=True)]
        self.inputs = [client.InferInput(in_name, SHAPE, "FP32")]
        self.inputs[0].set_data_from_numpy(data)  # binary on HTTP, raw contents on gRPC

    def infer(self):
        return self.client.infer(self.model, self.inputs, outputs=self.outputs).as_numpy(self.out_name)

    def check(self):
        output = self.infer()
        if output is None or not self.np.array_equal(output, self.data):
            raise RuntimeError(f"{self.model}: the output is not the input ({output!r})")

    def measure(self, count, latencies, errors):
        clock = time.perf_counter_ns
        for _ in range(count):
            t0 = clock()
            try:
                self.infer()
            except Exception as e:  # noqa: BLE001  a failed request is counted, not fatal
                errors.append(str(e).strip()[:200] or type(e).__name__)
                continue
            latencies.append((clock() - t0) / 1e3)

    def close(self):
        self.client.close()


def run_inprocess(args, command, extra):
    """One in-process reference on the server's core: its JSON, or {"error": ...}."""
    argv = ["taskset", "-c", str(args.server_core)] + command + extra
    try:
        done = subprocess.run(argv, capture_output=True, text=True, env=system_env(args), timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        return {"error": str(e)}
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]}
    try:
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return {"error": f"no JSON in its output: {done.stdout[-200:]!r}"}


def inprocess_references(args, models):
    refs = {}
    me = [args.system_python, os.path.abspath(__file__)]
    counts = ["--calls", str(args.inprocess_calls), "--warmup", str(args.inprocess_warmup)]
    if "py_identity" in models:
        refs["py_identity"] = run_inprocess(
            args, me + ["inprocess-python", "--model-dir", models["py_identity"]], counts)
    if "pt_identity" in models:
        refs["pt_identity"] = run_inprocess(
            args, me + ["inprocess-torch", "--model", os.path.join(models["pt_identity"], "1", "model.pt")], counts)
    if args.ort_inprocess and os.access(args.ort_inprocess, os.X_OK):
        shape = "INPUT0:" + ",".join(str(d) for d in SHAPE)
        refs["onnx_identity"] = run_inprocess(
            args, [args.ort_inprocess, "--model", os.path.join(models["onnx_identity"], "1", "model.onnx"),
                   "--shape", shape, "--workers", "1", "--intra-op-threads", "1", "--warmup-s", "0.5",
                   "--duration-s", str(args.ort_duration_s)], [])
    for name, ref in refs.items():
        if "error" in ref:
            log(f"warning: in-process {name} failed: {ref['error']}")
    return refs


def measure_protocol(clients, protocol, order, requests, chunk):
    """requests per model over one protocol, in chunks, the models' order rotating each
    round; {model: figures}."""
    latencies = {m: [] for m in order}
    errors = {m: [] for m in order}
    done, turn = 0, 0
    while done < requests:
        n = min(chunk, requests - done)
        for m in order[turn % len(order):] + order[:turn % len(order)]:
            clients[(protocol, m)].measure(n, latencies[m], errors[m])
        done += n
        turn += 1
    return {m: {"ok": len(latencies[m]), "errors": len(errors[m]),
                "error_texts": sorted(set(errors[m]))[:3],
                "p50_us": percentile(latencies[m], 50), "p99_us": percentile(latencies[m], 99),
                "mean_us": statistics.fmean(latencies[m]) if latencies[m] else None}
            for m in order}


def start_server(args, repository, models, notes):
    """inferd serving the repository; drops (with a note) the models that did not load."""
    os.environ["INFERD_PYTHON"] = args.system_python  # the server's Python workers
    server = Server(args, repository, os.path.join(args.work, "inferd.log"), ["--strict-readiness", "false"])
    try:
        server.wait_ready()
        for name, reason in wait_models(server, list(models)).items():
            notes.append(f"{name} skipped: it did not load ({reason})")
            log(notes[-1])
            del models[name]
        if REFERENCE not in models:
            raise RuntimeError(f"{REFERENCE}, the reference, did not load")
    except BaseException:
        server.stop()
        raise
    return server


def run(args):
    import numpy as np

    os.sched_setaffinity(0, {args.client_core})
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    os.makedirs(args.out_dir, exist_ok=True)
    repository = os.path.join(args.work, "models")
    models, notes = make_repository(args, repository)
    for note in notes:
        log(note)
    server = start_server(args, repository, models, notes)
    try:
        order = [m for m in MODELS if m in models]
        data = np.random.default_rng(SEED).random(SHAPE, dtype=np.float32)
        clients = {(p, m): Client(p, server, m, data) for p in args.protocols for m in order}
        log(f"serving {', '.join(order)}; warming up ({args.warmup} requests each)")
        for c in clients.values():
            c.check()
            c.measure(args.warmup, [], [])
        for r in range(1, args.repeats + 1):
            result = {"repeat": r, "requests": args.requests, "chunk": args.chunk, "models": order,
                      "notes": notes, "server": {}}
            for p in args.protocols:
                result["server"][p] = measure_protocol(clients, p, order, args.requests, args.chunk)
                log(f"repeat {r}/{args.repeats} {p}: " + ", ".join(
                    f"{m} p50 {v['p50_us'] or 0:,.0f} µs" for m, v in result["server"][p].items()))
            result["inprocess"] = inprocess_references(args, models)
            log(f"repeat {r}/{args.repeats} in-process: " + ", ".join(
                f"{m} {v['p50_us']:,.1f} µs" for m, v in result["inprocess"].items() if "p50_us" in v))
            with open(server.log_path, errors="replace") as f:
                result["log_warnings"] = [line.strip() for line in f
                                          if "[error]" in line or "[warning]" in line][:10]
            with open(os.path.join(args.out_dir, f"repeat_{r}.json"), "w") as f:
                json.dump(result, f, indent=1)
        for c in clients.values():
            c.close()
    finally:
        code = server.stop()
        if code not in (0, None):
            log(f"warning: inferd exited with {code}")


# --- summarize ------------------------------------------------------------------------------

INPROCESS_WHAT = {
    "py_identity": "model.py's execute() in /usr/bin/python3 (inferd_python; request built and output "
                   "read as numpy in the timed call)",
    "pt_identity": "the TorchScript module in /usr/bin/python3's torch (inference_mode, 1 thread)",
    "onnx_identity": "ort_inprocess: ONNX Runtime C++, intra-op 1 (inferd's session options)",
}


class Repeats:
    """The repeat_*.json of a run, and per-repeat figures drawn from them."""

    def __init__(self, directory):
        self.runs = []
        for path in sorted(glob.glob(os.path.join(directory, "repeat_*.json"))):
            try:
                with open(path) as f:
                    self.runs.append(json.load(f))
            except (OSError, json.JSONDecodeError):
                pass  # a failed repeat: missing from the figures
        self.protocols = [p for p in ("grpc", "http") if any(p in r["server"] for r in self.runs)]
        self.models = [m for m in MODELS if any(m in r["server"].get(p, {}) for r in self.runs
                                                for p in self.protocols)]

    def each(self, fn):
        """fn(repeat) over the repeats, leaving out those that lack a figure."""
        values = []
        for r in self.runs:
            try:
                v = fn(r)
            except (KeyError, TypeError, ZeroDivisionError):
                continue
            if v is not None:
                values.append(v)
        return values


def server_table(rs, p):
    def srv(r, m, field="p50_us"):
        return r["server"][p][m][field]

    def inp(r, m):
        return r["inprocess"][m]["p50_us"]

    text = ["", f"### {'gRPC' if p == 'grpc' else 'HTTP'}", "",
            "| model | backend | inferd p50 µs | inferd p99 µs | in-process p50 µs | overhead µs "
            f"| inferd p50 ÷ in-process | backend overhead µs | p50 ÷ {REFERENCE} p50 | requests (errors) |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for m in rs.models:
        ok = sum(r["server"].get(p, {}).get(m, {}).get("ok", 0) for r in rs.runs)
        errors = sum(r["server"].get(p, {}).get(m, {}).get("errors", 0) for r in rs.runs)
        if m == REFERENCE:
            backend = ratio = "(reference)"
        else:
            backend = fmt(rs.each(lambda r: srv(r, m) - srv(r, REFERENCE)))
            ratio = fmt(rs.each(lambda r: srv(r, m) / srv(r, REFERENCE)), 2, "×")
        cells = [m, MODELS[m][0], fmt(rs.each(lambda r: srv(r, m))),
                 fmt(rs.each(lambda r: srv(r, m, "p99_us"))), fmt(rs.each(lambda r: inp(r, m)), 1),
                 fmt(rs.each(lambda r: srv(r, m) - inp(r, m))),
                 fmt(rs.each(lambda r: srv(r, m) / inp(r, m)), 1, "×"), backend, ratio, f"{ok:,} ({errors})"]
        text.append("| " + " | ".join(cells) + " |")
    return text


def inprocess_table(rs):
    text = ["", "### In-process references (same core as the server)", "",
            "| model | what runs | calls per repeat | p50 µs per call | p99 µs per call |",
            "|---|---|---:|---:|---:|"]
    for m in rs.models:
        p50 = rs.each(lambda r: r["inprocess"][m]["p50_us"])
        if not p50:
            continue
        # ort_inprocess counts the calls of its time window ("count").
        calls = rs.each(lambda r: r["inprocess"][m].get("calls", r["inprocess"][m].get("count")))
        calls_cell = f"{statistics.median(calls):,.0f}" if calls else "–"
        p99 = fmt(rs.each(lambda r: r["inprocess"][m]["p99_us"]), 1)
        text.append(f"| {m} | {INPROCESS_WHAT[m]} | {calls_cell} | {fmt(p50, 1)} | {p99} |")
    return text


def notes_list(rs):
    notes = [n for r in rs.runs for n in r.get("notes", [])]
    for r in rs.runs:
        for p, per_model in r["server"].items():
            notes += [f"{m} {p}: {e}" for m, v in per_model.items() for e in v.get("error_texts", [])]
        notes += [f"in-process {m}: {v['error']}" for m, v in r["inprocess"].items() if "error" in v]
        notes += [f"server log: {w}" for w in r.get("log_warnings", [])]
    notes = list(dict.fromkeys(notes))
    return ["", "Notes:", ""] + [f"- {n}" for n in notes] if notes else []


def summarize(directory, out, meta):
    rs = Repeats(directory)
    info = dict(kv.split("=", 1) for kv in meta)
    text = [f"# inferd backend overhead benchmark (Python, LibTorch), {info.get('date', '?')}", ""]
    text += [f"- {k}: {v}" for k, v in info.items() if k != "date"]
    if not rs.runs:
        text += ["", "No repeat finished: no figures."]
    else:
        text += ["", f"{len(rs.runs)} repeat(s). Figures: median (min–max) over the repeats; † = spread "
                 "over 10 % of the median. Latencies in µs, per request (client side: tritonclient's call and "
                 "reading the output) or per in-process call. Differences and ratios are computed per "
                 "repeat (the server and the in-process reference of the same repeat), then median (min–max).",
                 "", "Columns: **overhead** = inferd p50 − in-process p50 (client, transport, server and "
                 f"backend); **backend overhead** = inferd p50 − {REFERENCE}'s inferd p50 in the same repeat "
                 "(what the backend adds over ONNX Runtime running an Identity node, same server and protocol)."]
        for p in rs.protocols:
            text += server_table(rs, p)
        text += inprocess_table(rs) + notes_list(rs)
    write_report(text, out)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run")
    p.add_argument("--inferd", required=True)
    p.add_argument("--backend-directory")
    p.add_argument("--server-core", type=int, default=0)
    p.add_argument("--client-core", type=int, default=1)
    p.add_argument("--system-python", default="/usr/bin/python3",
                   help="runs the Python workers (INFERD_PYTHON), makes model.pt, runs the references")
    p.add_argument("--ort-inprocess", help="bench/ort_inprocess: the onnx_identity in-process row")
    p.add_argument("--ort-duration-s", type=float, default=1.0)
    p.add_argument("--protocols", type=lambda s: s.split(), default=["grpc", "http"])
    p.add_argument("--requests", type=int, default=3000, help="per model, protocol and repeat")
    p.add_argument("--warmup", type=int, default=300, help="per model and protocol, before the repeats")
    p.add_argument("--chunk", type=int, default=100, help="requests to one model before the next")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--inprocess-calls", type=int, default=20000)
    p.add_argument("--inprocess-warmup", type=int, default=2000)
    p.add_argument("--work", required=True, help="a folder of this run's own")
    p.add_argument("--out-dir", required=True)
    p = sub.add_parser("summarize")
    p.add_argument("directory")
    p.add_argument("--out")
    p.add_argument("--meta", nargs="*", default=[])
    p = sub.add_parser("make-torch")
    p.add_argument("path")
    for name in ("inprocess-python", "inprocess-torch"):
        p = sub.add_parser(name)
        p.add_argument("--calls", type=int, default=20000)
        p.add_argument("--warmup", type=int, default=2000)
    sub.choices["inprocess-python"].add_argument("--model-dir", required=True)
    sub.choices["inprocess-torch"].add_argument("--model", required=True)
    args = parser.parse_args()
    # SIGTERM (bench/lib.sh's cleanup) unwinds like Ctrl-C, so that inferd is stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if args.command == "run":
        bad = [x for x in args.protocols if x not in ("grpc", "http")]
        if bad:
            parser.error(f"unknown protocol(s) {bad}: grpc, http")
        run(args)
    elif args.command == "summarize":
        summarize(args.directory, args.out, args.meta)
    elif args.command == "make-torch":
        make_torch(args.path)
    elif args.command == "inprocess-python":
        inprocess_python(args)
    else:
        inprocess_torch(args)


if __name__ == "__main__":
    main()
