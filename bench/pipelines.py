# SPDX-License-Identifier: Apache-2.0
"""The driver of bench/pipelines.sh (`make bench-pipelines`); run with .venv/bin/python.
What a pipeline costs when the server runs it (an ensemble, a BLS call, the OCR
pipeline) next to the same work orchestrated by the client or done in one process
(docs/benchmarks.md, "make bench-pipelines", explains the method and the columns).

  pipelines.py run --inferd BIN --work DIR --out-dir DIR ...
      Part "ensemble" and "bls": one inferd (pinned with taskset) serves a repository
      written into DIR: the example `simple` model, chains of N = 1, 2, 4 `simple` steps
      (ens1, ens2, ens4), and one model.py twice: `bls_simple` (calls `simple` through
      pb_utils.InferenceRequest(...).exec()) and `py_pass` (the same code without the
      exec(): returns its inputs). Per repeat, protocol and concurrency, each target
      for a fixed window, in a rotating order:
        direct          one call to simple
        ens1/ens2/ens4  one call to the ensemble of N steps
        client2/client4 N calls to simple one after another, each sending the previous
                        call's outputs as its inputs
        bls             one call to bls_simple
        py_pass         one call to py_pass
        py_then_simple  py_pass, then simple with py_pass's outputs
      The server's statistics (GET /v2/models/stats) before and after each window give
      the server-side time of every model per request.
      Part "ocr": another inferd serves examples/models; the `ocr` ensemble gets the
      images of tests/integration/ocr_images.py (each client cycles over them), then
      bench/ocr_inprocess.py does the same work in one process, on the server's core.
      Clients are C processes on the client core (closed loop, one request in flight
      each, their own tritonclient). One JSON per repeat and part.
  pipelines.py summarize DIR --out FILE --meta K=V ...
      The markdown tables from DIR's JSON files.
"""
import argparse
import glob
import http.client
import json
import multiprocessing
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))  # ensemble_repo, ocr_images
from backend_overhead import wait_models  # noqa: E402  (models READY or their reasons)
from lifecycle_bench import Server, percentile  # noqa: E402  (pinned inferd, nearest rank)
from report import fmt, mark, write_report  # noqa: E402  (median (min–max) †, ✓/✗)

SEED = 42
STEP_GOAL_US = 20  # ensemble orchestration per step
CHAIN_STEPS = (1, 2, 4)
# target -> (part, the models called one after the other, what it is). Every model takes
# INPUT0, INPUT1 (INT32 [1,16]) and gives OUTPUT0, OUTPUT1; a target passes each call's
# outputs on as the next call's inputs.
TARGETS = {
    "direct": ("ensemble", ["simple"], "one call to simple"),
    **{f"ens{n}": ("ensemble", [f"ens{n}"], f"ensemble of {n} simple step(s)") for n in CHAIN_STEPS},
    **{f"client{n}": ("ensemble", ["simple"] * n, f"{n} client calls to simple, outputs passed on")
       for n in CHAIN_STEPS if n > 1},
    "bls": ("bls", ["bls_simple"], "bls_simple: model.py calling simple through BLS"),
    "py_pass": ("bls", ["py_pass"], "py_pass: the same model.py without the BLS call"),
    "py_then_simple": ("bls", ["py_pass", "simple"], "py_pass, then a client call to simple"),
}
# What each model does to (a, b): simple gives (a+b, a-b); py_pass (a, b).
STEP_MODELS = {"simple": 1, "bls_simple": 1, "py_pass": 0, **{f"ens{n}": n for n in CHAIN_STEPS}}

PY_MODEL = '''\
# Written by bench/pipelines.py. One model.py, two models: with the parameter
# bls_target set (bls_simple) it calls that model through BLS and returns its outputs;
# without it (py_pass) it builds the very same request and returns its own inputs.
import json

import triton_python_backend_utils as pb_utils

NAMES = ("OUTPUT0", "OUTPUT1")


class TritonPythonModel:
    def initialize(self, args):
        parameters = json.loads(args["model_config"]).get("parameters", {})
        self.target = parameters.get("bls_target", {}).get("string_value", "")

    def execute(self, requests):
        responses = []
        for request in requests:
            in0 = pb_utils.get_input_tensor_by_name(request, "INPUT0").as_numpy()
            in1 = pb_utils.get_input_tensor_by_name(request, "INPUT1").as_numpy()
            call = pb_utils.InferenceRequest(
                model_name=self.target or "simple", requested_output_names=list(NAMES),
                inputs=[pb_utils.Tensor("INPUT0", in0), pb_utils.Tensor("INPUT1", in1)])
            if self.target:
                answer = call.exec()
                if answer.has_error():
                    responses.append(pb_utils.InferenceResponse(error=answer.error()))
                    continue
                out = [pb_utils.get_output_tensor_by_name(answer, n).as_numpy() for n in NAMES]
            else:
                out = [in0, in1]
            responses.append(pb_utils.InferenceResponse(
                output_tensors=[pb_utils.Tensor(n, x) for n, x in zip(NAMES, out)]))
        return responses
'''


def log(text):
    print(f"[bench] {text}", file=sys.stderr, flush=True)


# --- the repository of parts "ensemble" and "bls" ----------------------------------------


def make_repository(repository):
    import pathlib

    import ensemble_repo as er

    repo = pathlib.Path(repository)
    er.add_simple(repo)
    io_in = [er.tensor("INPUT0"), er.tensor("INPUT1")]
    io_out = [er.tensor("OUTPUT0"), er.tensor("OUTPUT1")]
    for n in CHAIN_STEPS:
        # step i reads t{i}_0, t{i}_1 and writes t{i+1}_*; the first reads the ensemble's
        # inputs and the last writes its outputs.
        def name(i, k):
            return (f"INPUT{k}" if i == 0 else f"OUTPUT{k}" if i == n else f"t{i}_{k}")
        steps = [er.step("simple", {"INPUT0": name(i, 0), "INPUT1": name(i, 1)},
                         {"OUTPUT0": name(i + 1, 0), "OUTPUT1": name(i + 1, 1)}) for i in range(n)]
        er.add_ensemble(repo, f"ens{n}", io_in, io_out, steps, max_batch_size=8)
    for model, target in (("bls_simple", "simple"), ("py_pass", "")):
        folder = repo / model
        (folder / "1").mkdir(parents=True)
        (folder / "1" / "model.py").write_text(PY_MODEL)
        (folder / "config.pbtxt").write_text(
            f'name: "{model}"\nbackend: "python"\nmax_batch_size: 8\n'
            f'input [ {", ".join(io_in)} ]\noutput [ {", ".join(io_out)} ]\n'
            f'parameters {{ key: "bls_target" value: {{ string_value: "{target}" }} }}\n'
            "instance_group [ { count: 1 kind: KIND_CPU } ]\n")
    return ["simple", "bls_simple", "py_pass"] + [f"ens{n}" for n in CHAIN_STEPS]


def expected(models, a, b):
    for m in models:
        for _ in range(STEP_MODELS[m]):
            a, b = a + b, a - b
    return a, b


# --- client processes -----------------------------------------------------------------------


class Caller:
    """One tritonclient of one protocol; calls a list of models in sequence, passing
    OUTPUT0/OUTPUT1 on as INPUT0/INPUT1, or sends an OCR image."""

    def __init__(self, protocol, host_port):
        import numpy as np
        if protocol == "grpc":
            import tritonclient.grpc as module
            self.client = module.InferenceServerClient(host_port)
            self.outputs = [module.InferRequestedOutput(n) for n in ("OUTPUT0", "OUTPUT1")]
        else:
            import tritonclient.http as module
            self.client = module.InferenceServerClient(host_port, concurrency=1)
            self.outputs = [module.InferRequestedOutput(n, binary_data=True) for n in ("OUTPUT0", "OUTPUT1")]
        self.np, self.module = np, module
        rng = np.random.default_rng(SEED)
        self.a = rng.integers(0, 100, (1, 16), dtype=np.int32)
        self.b = rng.integers(0, 100, (1, 16), dtype=np.int32)
        self.first = self.inputs(self.a, self.b)  # the first call's inputs, made once
        self.images = None

    def inputs(self, a, b):
        tensors = []
        for name, data in (("INPUT0", a), ("INPUT1", b)):
            tensor = self.module.InferInput(name, list(data.shape), "INT32")
            tensor.set_data_from_numpy(data)  # binary on HTTP, raw contents on gRPC
            tensors.append(tensor)
        return tensors

    def chain(self, models):
        inputs, a, b = self.first, None, None
        for i, model in enumerate(models):
            if i:
                inputs = self.inputs(a, b)
            result = self.client.infer(model, inputs, outputs=self.outputs)
            a, b = result.as_numpy("OUTPUT0"), result.as_numpy("OUTPUT1")
        return a, b

    def check(self, models):
        a, b = self.chain(models)
        want = expected(models, self.a, self.b)
        if a is None or not (self.np.array_equal(a, want[0]) and self.np.array_equal(b, want[1])):
            raise RuntimeError(f"{'+'.join(models)}: unexpected outputs")

    def ocr(self, index):
        """Sends image `index` (of the cycle) to `ocr`; True when every line is read exactly."""
        if self.images is None:
            import ocr_images
            self.images = ocr_images.all_images()
            self.ocr_out = [self.module.InferRequestedOutput("text")]
        image = self.images[index % len(self.images)]
        tensor = self.module.InferInput("image", [1], "BYTES")
        tensor.set_data_from_numpy(self.np.array([image.data], dtype=object))
        result = self.client.infer("ocr", [tensor], outputs=self.ocr_out)
        text = [t.decode() if isinstance(t, bytes) else str(t) for t in result.as_numpy("text").reshape(-1)]
        return text == list(image.lines)


def worker_main(connection, index, client_core, ports):
    """A client process: runs the windows the main process asks for."""
    os.sched_setaffinity(0, {client_core})
    signal.signal(signal.SIGTERM, lambda *_: os._exit(143))
    callers = {}
    while True:
        command = connection.recv()
        if command is None:
            break
        protocol, what, start_at, duration, tail = command
        if protocol not in callers:
            callers[protocol] = Caller(protocol, ports[protocol])
        caller = callers[protocol]
        if what == "ocr":
            counter = [index]

            def call():
                ok = caller.ocr(counter[0])
                counter[0] += 1
                return ok
        else:
            models = TARGETS[what][1]

            def call():
                caller.chain(models)
                return True
        connection.send(window(call, start_at, duration, tail))
    for caller in callers.values():
        caller.client.close()


def window(call, start_at, duration, tail):
    """Closed loop from start_at (time.monotonic) for `duration` s: (start, end) in ns of
    each request that finished inside the window (tail: of each request started inside
    it, as bench/ocr_inprocess.py counts), failures, and how many answered a wrong
    result (call() returned False)."""
    clock = time.monotonic_ns
    while time.monotonic() < start_at:
        time.sleep(0.0005)
    deadline = int((start_at + duration) * 1e9)
    spans, errors, wrong = [], [], 0
    while True:
        t0 = clock()
        if t0 >= deadline:
            break
        try:
            ok = call()
        except Exception as e:  # noqa: BLE001  a failed request is counted, not fatal
            errors.append(str(e).strip()[:200] or type(e).__name__)
            continue
        t1 = clock()
        if tail or t1 <= deadline:
            spans.append((t0, t1))
            wrong += 0 if ok else 1
    return {"spans": spans, "errors": len(errors), "error_texts": sorted(set(errors))[:3], "wrong": wrong}


class Clients:
    """C client processes on the client core, each with its own connections."""

    def __init__(self, count, client_core, ports):
        context = multiprocessing.get_context("spawn")
        self.connections, self.processes = [], []
        for i in range(count):
            mine, theirs = context.Pipe()
            process = context.Process(target=worker_main, args=(theirs, i, client_core, ports), daemon=True)
            process.start()
            self.connections.append(mine)
            self.processes.append(process)

    def run(self, protocol, what, concurrency, duration, tail=False):
        """One window of `concurrency` clients: every client's requests together."""
        start_at = time.monotonic() + 0.05
        used = self.connections[:concurrency]
        for c in used:
            c.send((protocol, what, start_at, duration, tail))
        parts = [c.recv() for c in used]
        spans = [v for p in parts for v in p["spans"]]
        start_ns, deadline_ns = int(start_at * 1e9), int((start_at + duration) * 1e9)
        end_ns = max([deadline_ns] + [e for _, e in spans]) if tail else deadline_ns
        return {"latencies": [(e - s) / 1e3 for s, e in spans], "seconds": (end_ns - start_ns) / 1e9,
                "errors": sum(p["errors"] for p in parts),
                "error_texts": sorted({t for p in parts for t in p["error_texts"]}),
                "wrong": sum(p["wrong"] for p in parts)}

    def close(self):
        for c in self.connections:
            try:
                c.send(None)
            except OSError:
                pass
        for p in self.processes:
            p.join(10)
            if p.is_alive():
                p.terminate()


# --- server statistics ------------------------------------------------------------------------

STAT_FIELDS = ("success", "queue", "compute_input", "compute_infer", "compute_output")


def all_stats(server):
    """{model: {field: (count, ns)}} from GET /v2/models/stats (every version summed)."""
    connection = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=10)
    try:
        connection.request("GET", "/v2/models/stats")
        response = connection.getresponse()
        body = response.read()
    finally:
        connection.close()
    if response.status != 200:
        return {}
    out = {}
    for entry in json.loads(body).get("model_stats", []):
        model = out.setdefault(entry["name"], {f: [0, 0] for f in STAT_FIELDS})
        for f in STAT_FIELDS:
            d = entry.get("inference_stats", {}).get(f, {})
            model[f][0] += int(d.get("count", 0))
            model[f][1] += int(d.get("ns", 0))
    return out


def stats_delta(before, after):
    """{model: {field: [count, ns]}} of the models that ran in between."""
    out = {}
    for model, fields in after.items():
        old = before.get(model, {f: [0, 0] for f in STAT_FIELDS})
        if fields["success"][0] > old["success"][0]:
            out[model] = {f: [fields[f][0] - old[f][0], fields[f][1] - old[f][1]] for f in STAT_FIELDS}
    return out


CLOCK_TICK = os.sysconf("SC_CLK_TCK")


def process_tree_seconds(pid):
    """CPU seconds (user + system) of a process and its descendants (inferd and its
    Python workers), from /proc; children that exited are not counted."""
    total, pending, seen = 0, [pid], set()
    while pending:
        p = pending.pop()
        if p in seen:
            continue
        seen.add(p)
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15)
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    pending += [int(c) for c in f.read().split()]
        except (OSError, IndexError, ValueError):
            continue
    return total / CLOCK_TICK


def core_ticks(cores):
    """{core: (busy ticks, all ticks)} from /proc/stat (busy: all but idle and iowait)."""
    out = {}
    with open("/proc/stat") as f:
        for line in f:
            name, *values = line.split()
            if name.startswith("cpu") and name[3:].isdigit() and int(name[3:]) in cores:
                v = [int(x) for x in values[:8]]
                out[int(name[3:])] = (sum(v) - v[3] - v[4], sum(v))
    return out


class Meter:
    """What the server and the two cores did during one window (raw counts)."""

    def __init__(self, server, clients, args):
        self.server, self.clients = server, [p.pid for p in clients.processes]
        self.cores = {args.server_core: "server_core_busy", args.client_core: "client_core_busy"}

    def client_seconds(self):
        return sum(process_tree_seconds(pid) for pid in self.clients)

    def __enter__(self):
        self.stats = all_stats(self.server)
        self.cpu = process_tree_seconds(self.server.process.pid)
        self.client_cpu = self.client_seconds()
        self.ticks = core_ticks(self.cores)
        return self

    def __exit__(self, *exc):
        ticks = core_ticks(self.cores)
        self.delta = {"stats": stats_delta(self.stats, all_stats(self.server)),
                      "server_cpu_s": process_tree_seconds(self.server.process.pid) - self.cpu,
                      "client_cpu_s": self.client_seconds() - self.client_cpu,
                      "ticks": {name: [ticks[core][i] - self.ticks[core][i] for i in (0, 1)]
                                for core, name in self.cores.items() if core in ticks}}
        return False


class Tally:
    """One target's windows (of one repeat, protocol and concurrency) added up."""

    def __init__(self):
        self.latencies, self.seconds, self.errors, self.texts, self.wrong = [], 0.0, 0, set(), 0
        self.stats, self.cpu, self.client_cpu, self.ticks = {}, 0.0, 0.0, {}

    def add(self, sample, delta):
        self.latencies += sample["latencies"]
        self.seconds += sample["seconds"]
        self.errors += sample["errors"]
        self.texts.update(sample["error_texts"])
        self.wrong += sample["wrong"]
        for model, fields in delta["stats"].items():
            mine = self.stats.setdefault(model, {f: [0, 0] for f in STAT_FIELDS})
            for f in STAT_FIELDS:
                mine[f][0] += fields[f][0]
                mine[f][1] += fields[f][1]
        self.cpu += delta["server_cpu_s"]
        self.client_cpu += delta["client_cpu_s"]
        for name, (busy, every) in delta["ticks"].items():
            mine = self.ticks.setdefault(name, [0, 0])
            mine[0] += busy
            mine[1] += every

    def figures(self):
        lat = self.latencies
        out = {"ok": len(lat), "errors": self.errors, "error_texts": sorted(self.texts)[:3],
               "wrong": self.wrong, "seconds": round(self.seconds, 3),
               "per_s": len(lat) / self.seconds if self.seconds else None,
               "p50_us": percentile(lat, 50), "p99_us": percentile(lat, 99),
               "mean_us": statistics.fmean(lat) if lat else None, "server_cpu_s": self.cpu,
               "client_cpu_s": self.client_cpu,
               # per model: successes, and the mean µs per success of each field
               "stats": {m: {"count": f["success"][0],
                             **{f"{k}_us": f[k][1] / f["success"][0] / 1e3 for k in STAT_FIELDS}}
                         for m, f in self.stats.items() if f["success"][0] > 0}}
        for name, (busy, every) in self.ticks.items():
            out[name] = busy / every if every else None
        return out


# --- run ----------------------------------------------------------------------------------


def start_server(args, repository, log_name, models):
    """inferd serving the repository; {model: reason} of those that did not load."""
    os.environ["INFERD_PYTHON"] = args.system_python  # the server's Python workers
    server = Server(args, repository, os.path.join(args.work, log_name), ["--strict-readiness", "false"])
    try:
        server.wait_ready()
        failed = wait_models(server, models)
    except BaseException:
        server.stop()
        raise
    return server, failed


def log_warnings(server):
    with open(server.log_path, errors="replace") as f:
        return [line.strip() for line in f if "[error]" in line or "[warning]" in line][:10]


def run_chains(args, notes):
    """Parts "ensemble" and "bls": one JSON per repeat."""
    wanted = [t for t, (part, _, _) in TARGETS.items() if part in args.parts]
    if "bls" in args.parts and "direct" not in wanted:
        wanted.insert(0, "direct")  # part "bls" compares with it too
    repository = os.path.join(args.work, "models")
    models = make_repository(repository)
    server, failed = start_server(args, repository, "inferd-chains.log", models)
    clients = None
    try:
        for model, reason in failed.items():
            notes.append(f"{model} did not load: {reason}")
            log(notes[-1])
        ports = {"grpc": f"127.0.0.1:{server.grpc_port}", "http": f"127.0.0.1:{server.http_port}"}
        # Which targets answer correctly, checked from this process (client core).
        targets = []
        for target in wanted:
            problems = []
            for p in args.protocols:
                try:
                    caller = Caller(p, ports[p])
                    caller.check(TARGETS[target][1])
                    caller.client.close()
                except Exception as e:  # noqa: BLE001
                    problems.append(f"{p}: {str(e).strip()[:300]}")
            if problems:
                notes.append(f"{target} skipped: " + "; ".join(problems))
                log(notes[-1])
            else:
                targets.append(target)
        if not targets:
            raise RuntimeError("no target answered correctly")
        clients = Clients(max(args.concurrency), args.client_core, ports)
        log(f"targets {', '.join(targets)}; warming up")
        for p in args.protocols:
            for t in targets:
                clients.run(p, t, max(args.concurrency), args.warmup_s)
        for r in range(1, args.repeats + 1):
            result = {"part": "chains", "repeat": r, "window_s": args.window_s, "rounds": args.rounds,
                      "targets": targets, "runs": []}
            for p in args.protocols:
                for c in args.concurrency:
                    # `rounds` windows per target, the targets' order rotating from window
                    # to window, so that a slow drift of the machine touches them all alike.
                    tallies = {t: Tally() for t in targets}
                    for k in range(args.rounds):
                        shift = ((r - 1) * args.rounds + k) % len(targets)
                        for t in targets[shift:] + targets[:shift]:
                            with Meter(server, clients, args) as meter:
                                sample = clients.run(p, t, c, args.window_s)
                            tallies[t].add(sample, meter.delta)
                    result["runs"] += [{"target": t, "protocol": p, "concurrency": c, **tallies[t].figures()}
                                       for t in targets]
                    log(f"repeat {r}/{args.repeats} {p} c={c}: " + ", ".join(
                        f"{x['target']} {x['p50_us'] or 0:,.0f}" for x in result["runs"]
                        if x["protocol"] == p and x["concurrency"] == c) + " µs p50")
            result["notes"] = notes
            result["log_warnings"] = log_warnings(server)
            with open(os.path.join(args.out_dir, f"chains_{r}.json"), "w") as f:
                json.dump(result, f, indent=1)
    finally:
        if clients:
            clients.close()
        code = server.stop()
        if code not in (0, None):
            log(f"warning: inferd (chains) exited with {code}")


def served_parameter(config, key):
    """A string parameter of a config.pbtxt (regular expression: the file is simple)."""
    try:
        with open(config) as f:
            text = f.read()
    except OSError:
        return None
    m = re.search(r'key:\s*"%s"\s*value:\s*\{\s*string_value:\s*"([^"]*)"' % re.escape(key), text)
    return m[1] if m else None


def ocr_inprocess(args, rec_batch_lines):
    """bench/ocr_inprocess.py on the server's core: its JSON, or {"error": ...}."""
    argv = ["taskset", "-c", str(args.server_core), sys.executable, os.path.join(HERE, "ocr_inprocess.py"),
            "--duration", str(args.ocr_window_s), "--concurrency", ",".join(map(str, args.concurrency)),
            "--warmup", "1"]
    if rec_batch_lines is not None:
        argv += ["--rec-batch-lines", rec_batch_lines]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=900)
    except (OSError, subprocess.TimeoutExpired) as e:
        return {"error": str(e)}
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]}
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError:
        return {"error": f"no JSON in its output: {done.stdout[-200:]!r}"}


def run_ocr(args, notes):
    """Part "ocr": the `ocr` ensemble of examples/models and bench/ocr_inprocess.py."""
    repository = os.path.join(ROOT, "examples", "models")
    if not os.path.exists(os.path.join(repository, "ocr", "config.pbtxt")):
        notes.append("ocr skipped: examples/models/ocr/config.pbtxt not found")
        log(notes[-1])
        return
    rec_batch_lines = served_parameter(os.path.join(repository, "ocr_recognize", "config.pbtxt"),
                                       "rec_batch_lines")
    server, failed = start_server(args, repository, "inferd-ocr.log", ["ocr"])
    clients = None
    try:
        if failed:
            notes.append(f"ocr skipped: it did not load ({failed['ocr']})")
            log(notes[-1])
            return
        ports = {"grpc": f"127.0.0.1:{server.grpc_port}", "http": f"127.0.0.1:{server.http_port}"}
        clients = Clients(max(args.concurrency), args.client_core, ports)
        log("ocr: warming up")
        for p in args.ocr_protocols:
            clients.run(p, "ocr", max(args.concurrency), args.ocr_warmup_s)
        for r in range(1, args.repeats + 1):
            result = {"part": "ocr", "repeat": r, "window_s": args.ocr_window_s, "runs": [],
                      "rec_batch_lines": rec_batch_lines}
            for p in args.ocr_protocols:
                for c in args.concurrency:
                    tally = Tally()
                    with Meter(server, clients, args) as meter:
                        sample = clients.run(p, "ocr", c, args.ocr_window_s, tail=True)
                    tally.add(sample, meter.delta)
                    figures = tally.figures()
                    result["runs"].append({"target": "ocr", "protocol": p, "concurrency": c, **figures})
                    log(f"repeat {r}/{args.repeats} ocr {p} c={c}: {figures['per_s']:.2f} images/s, "
                        f"p50 {(figures['p50_us'] or 0) / 1e3:,.0f} ms")
            inprocess = ocr_inprocess(args, rec_batch_lines)
            if "error" in inprocess:
                log(f"warning: ocr_inprocess failed: {inprocess['error']}")
            else:
                log(f"repeat {r}/{args.repeats} ocr in-process: " + ", ".join(
                    f"c={x['concurrency']} {x['images_per_s']:.2f} images/s" for x in inprocess["runs"]))
            result["inprocess"] = inprocess
            result["notes"] = notes
            result["log_warnings"] = log_warnings(server)
            with open(os.path.join(args.out_dir, f"ocr_{r}.json"), "w") as f:
                json.dump(result, f, indent=1)
    finally:
        if clients:
            clients.close()
        code = server.stop()
        if code not in (0, None):
            log(f"warning: inferd (ocr) exited with {code}")


def run(args):
    os.sched_setaffinity(0, {args.client_core})
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    os.makedirs(args.out_dir, exist_ok=True)
    notes = []
    if {"ensemble", "bls"} & set(args.parts):
        run_chains(args, notes)
    if "ocr" in args.parts:
        run_ocr(args, notes)
    with open(os.path.join(args.out_dir, "notes.json"), "w") as f:
        json.dump(notes, f)


# --- summarize ---------------------------------------------------------------------------------


class Repeats:
    """The JSON files of one part; per-repeat figures drawn from them."""

    def __init__(self, directory, part):
        self.runs = []
        for path in sorted(glob.glob(os.path.join(directory, f"{part}_*.json"))):
            try:
                with open(path) as f:
                    self.runs.append(json.load(f))
            except (OSError, json.JSONDecodeError):
                pass  # a failed repeat: missing from the figures

    def cell(self, r, target, protocol, c):
        for x in r["runs"]:
            if x["target"] == target and x["protocol"] == protocol and x["concurrency"] == c:
                return x
        raise KeyError(target)

    def each(self, fn):
        values = []
        for r in self.runs:
            try:
                v = fn(r)
            except (KeyError, TypeError, ZeroDivisionError, IndexError):
                continue
            if v is not None:
                values.append(v)
        return values

    def present(self, key):
        return sorted({x[key] for r in self.runs for x in r["runs"]}, key=str)


PROTOCOL_NAME = {"grpc": "gRPC", "http": "HTTP"}


def requests_seen(x):
    """The client requests the server saw in the cell's window (its statistics): the
    first model's successes ÷ how often the target calls it."""
    models = TARGETS[x["target"]][1]
    return x["stats"][models[0]]["count"] / models.count(models[0])


def server_us(x, model, field="success"):
    """Server-side time of `model` per client request of the cell (GET .../stats over the
    window: all the time `model` spent ÷ the requests the server saw; an ensemble of N
    steps runs simple N times per request, client4 calls it 4 times). field: success
    (arrival → response), queue, compute_input, compute_infer, compute_output."""
    s = x["stats"][model]
    return s[f"{field}_us"] * s["count"] / requests_seen(x)


def execution_us(x, model):
    """Per client request: `model`'s time in its instance (success − queue)."""
    return server_us(x, model) - server_us(x, model, "queue")


def cpu_us(x):
    """inferd's CPU (its threads and Python workers) per client request."""
    return x["server_cpu_s"] * 1e6 / requests_seen(x)


def busy(values):
    return fmt([v * 100 for v in values]) + " %" if values else "–"


def figure_rows(rs, targets, protocols, concurrencies):
    """Per target: client-side figures, the server's time and CPU per request, and how
    busy each core was."""
    text = ["| target | protocol | conc. | what a request is | requests/s | p50 µs | p99 µs "
            "| server time µs per request | server CPU µs per request | client CPU µs per request "
            "| server core busy | client core busy | requests (errors) |",
            "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for p in protocols:
        for c in concurrencies:
            for t in targets:
                cells = rs.each(lambda r: rs.cell(r, t, p, c))
                if not cells:
                    continue
                models = set(TARGETS[t][1])
                # The server time of the models the client called (an ensemble's steps are
                # inside its own), summed over the calls of one request.
                server = rs.each(lambda r: sum(server_us(rs.cell(r, t, p, c), m) for m in models))
                ok = sum(x["ok"] for x in cells)
                errors = sum(x["errors"] for x in cells)
                cell = lambda r: rs.cell(r, t, p, c)  # noqa: E731
                text.append(f"| {t} | {PROTOCOL_NAME[p]} | {c} | {TARGETS[t][2]} | "
                            f"{fmt(rs.each(lambda r: cell(r)['per_s']))} | "
                            f"{fmt(rs.each(lambda r: cell(r)['p50_us']))} | "
                            f"{fmt(rs.each(lambda r: cell(r)['p99_us']))} | {fmt(server)} | "
                            f"{fmt(rs.each(lambda r: cpu_us(cell(r))))} | "
                            f"{fmt(rs.each(lambda r: cell(r)['client_cpu_s'] * 1e6 / cell(r)['ok']))} | "
                            f"{busy(rs.each(lambda r: cell(r)['server_core_busy']))} | "
                            f"{busy(rs.each(lambda r: cell(r)['client_core_busy']))} | {ok:,} ({errors}) |")
    return text


def ensemble_tables(rs, protocols, concurrencies):
    def p50(r, t, p, c):
        return rs.cell(r, t, p, c)["p50_us"]

    def client_of(n):
        return "direct" if n == 1 else f"client{n}"

    text = ["", "| protocol | conc. | N | ensemble p50 µs | client-orchestrated p50 µs | ensemble ÷ client p50 "
            "| ensemble ÷ client requests/s | server CPU µs per request: ensemble / client "
            "| (ensemble p50 − direct p50) ÷ (N − 1) µs | ensemble's server time µs | its N steps' server time µs "
            "| orchestration per step µs |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for p in protocols:
        for c in concurrencies:
            for n in CHAIN_STEPS:
                ens, cli = f"ens{n}", client_of(n)
                if not rs.each(lambda r: rs.cell(r, ens, p, c)):
                    continue
                ratio = rs.each(lambda r: p50(r, ens, p, c) / p50(r, cli, p, c))
                delta = "–"
                if n > 1 and c == 1:  # at higher concurrency p50 is queueing (C ÷ throughput)
                    delta = fmt(rs.each(lambda r: (p50(r, ens, p, c) - p50(r, "direct", p, c)) / (n - 1)))
                # (the ensemble's own server time − the time of its N simple requests) ÷ N
                orch = rs.each(lambda r: (server_us(rs.cell(r, ens, p, c), ens)
                                          - server_us(rs.cell(r, ens, p, c), "simple")) / n)
                goal = mark(orch, lambda v: v <= STEP_GOAL_US) if c == 1 else ""
                cpu = (f"{fmt(rs.each(lambda r: cpu_us(rs.cell(r, ens, p, c))))} / "
                       f"{fmt(rs.each(lambda r: cpu_us(rs.cell(r, cli, p, c))))}")
                text.append(
                    f"| {PROTOCOL_NAME[p]} | {c} | {n} | {fmt(rs.each(lambda r: p50(r, ens, p, c)))} | "
                    f"{fmt(rs.each(lambda r: p50(r, cli, p, c)))} | "
                    f"{fmt(ratio, 2, '×')}{mark(ratio, lambda v: v < 1) if n > 1 else ''} | "
                    f"{fmt(rs.each(lambda r: rs.cell(r, ens, p, c)['per_s'] / rs.cell(r, cli, p, c)['per_s']), 2, '×')} | "
                    f"{cpu} | {delta} | "
                    f"{fmt(rs.each(lambda r: server_us(rs.cell(r, ens, p, c), ens)), 1)} | "
                    f"{fmt(rs.each(lambda r: server_us(rs.cell(r, ens, p, c), 'simple')), 1)} | "
                    f"{fmt(orch, 1)}{goal} |")
    # The slope over N = 1, 2, 4 (least squares of the p50s and of the CPU), per repeat.
    text += ["", "Slopes over N = 1, 2, 4 (least squares, per repeat, then median (min–max)): what one "
             "more step costs, and one more call when the client orchestrates:", "",
             "| protocol | conc. | ensemble p50 µs per step | client-orchestrated p50 µs per call "
             "| ensemble server CPU µs per step | client-orchestrated server CPU µs per call |",
             "|---|---:|---:|---:|---:|---:|"]
    for p in protocols:
        for c in concurrencies:
            def fit(target_of, value):
                return rs.each(lambda r: slope([(n, value(rs.cell(r, target_of(n), p, c))) for n in CHAIN_STEPS]))
            ens_of = lambda n: f"ens{n}"  # noqa: E731
            ens = fit(ens_of, lambda x: x["p50_us"])
            if ens:
                text.append(f"| {PROTOCOL_NAME[p]} | {c} | {fmt(ens, 1)} | "
                            f"{fmt(fit(client_of, lambda x: x['p50_us']), 1)} | {fmt(fit(ens_of, cpu_us), 1)} | "
                            f"{fmt(fit(client_of, cpu_us), 1)} |")
    # Where a step's time goes on the server, concurrency 1.
    c = min(concurrencies)
    text += ["", f"simple's server-side time per call (µs, mean over the window, concurrency {c}): "
             "called by the client, as a step of each ensemble, and through BLS:", "",
             "| protocol | simple called by | queue | compute input | compute infer | compute output "
             "| arrival → response |", "|---|---|---:|---:|---:|---:|---:|"]
    callers = [("direct", "the client (direct)", 1)] + [(f"ens{n}", f"ens{n}, per step", n) for n in CHAIN_STEPS]
    callers.append(("bls", "bls_simple (BLS)", 1))
    for p in protocols:
        for t, label, n in callers:
            if not rs.each(lambda r: rs.cell(r, t, p, c)):
                continue
            cells = [fmt(rs.each(lambda r: server_us(rs.cell(r, t, p, c), "simple", f) / n), 1)
                     for f in STAT_FIELDS[1:] + STAT_FIELDS[:1]]
            text.append(f"| {PROTOCOL_NAME[p]} | {label} | " + " | ".join(cells) + " |")
    return text


def slope(points):
    xs, ys = [x for x, _ in points], [y for _, y in points]
    if any(y is None for y in ys):
        return None
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def bls_table(rs, protocols, concurrencies):
    def p50(r, t, p, c):
        return rs.cell(r, t, p, c)["p50_us"]

    text = ["", "| protocol | conc. | BLS p50 µs | py_pass → simple p50 µs | BLS ÷ client pair p50 "
            "| BLS ÷ client pair requests/s | server CPU µs per request: BLS / pair "
            "| BLS call µs (bls − py_pass p50) | client call µs (pair − py_pass p50) | BLS call ÷ client call "
            "| BLS call in execute() µs | of which simple's server time µs |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for p in protocols:
        for c in concurrencies:
            if not rs.each(lambda r: rs.cell(r, "bls", p, c)):
                continue
            ratio = rs.each(lambda r: p50(r, "bls", p, c) / p50(r, "py_then_simple", p, c))
            # p50 differences only at concurrency 1: above it they are queueing.
            diff = (lambda values, *a: fmt(values, *a)) if c == 1 else (lambda values, *a: "–")
            cells = [
                fmt(rs.each(lambda r: p50(r, "bls", p, c))),
                fmt(rs.each(lambda r: p50(r, "py_then_simple", p, c))),
                fmt(ratio, 2, "×") + mark(ratio, lambda v: v < 1),
                fmt(rs.each(lambda r: rs.cell(r, "bls", p, c)["per_s"] / rs.cell(r, "py_then_simple", p, c)["per_s"]),
                    2, "×"),
                f"{fmt(rs.each(lambda r: cpu_us(rs.cell(r, 'bls', p, c))))} / "
                f"{fmt(rs.each(lambda r: cpu_us(rs.cell(r, 'py_then_simple', p, c))))}",
                diff(rs.each(lambda r: p50(r, "bls", p, c) - p50(r, "py_pass", p, c))),
                diff(rs.each(lambda r: p50(r, "py_then_simple", p, c) - p50(r, "py_pass", p, c))),
                diff(rs.each(lambda r: (p50(r, "bls", p, c) - p50(r, "py_pass", p, c))
                            / (p50(r, "py_then_simple", p, c) - p50(r, "py_pass", p, c))), 2, "×"),
                # bls_simple's time in its instance − py_pass's: what exec() adds to execute()
                fmt(rs.each(lambda r: execution_us(rs.cell(r, "bls", p, c), "bls_simple")
                            - execution_us(rs.cell(r, "py_pass", p, c), "py_pass"))),
                fmt(rs.each(lambda r: server_us(rs.cell(r, "bls", p, c), "simple"))),
            ]
            text.append(f"| {PROTOCOL_NAME[p]} | {c} | " + " | ".join(cells) + " |")
    return text


def ocr_tables(rs):
    text = ["", "| conc. | what | images/s | p50 ms | p99 ms | images/s ÷ in-process | p50 ÷ in-process "
            "| server CPU ms per image | client CPU ms per image | server core busy | images (errors, wrong text) |",
            "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]

    def inp(r, c):
        return next(x for x in r["inprocess"]["runs"] if x["concurrency"] == c)

    concurrencies = sorted({x["concurrency"] for r in rs.runs for x in r["runs"]})
    protocols = [p for p in ("grpc", "http") if any(x["protocol"] == p for r in rs.runs for x in r["runs"])]
    for c in concurrencies:
        for p in protocols:
            cells = rs.each(lambda r: rs.cell(r, "ocr", p, c))
            ok = sum(x["ok"] for x in cells)
            errors = sum(x["errors"] for x in cells)
            wrong = sum(x["wrong"] for x in cells)
            cell = lambda r: rs.cell(r, "ocr", p, c)  # noqa: E731
            text.append(
                f"| {c} | inferd `ocr`, {PROTOCOL_NAME[p]} | {fmt(rs.each(lambda r: cell(r)['per_s']), 2)} | "
                f"{fmt(rs.each(lambda r: cell(r)['p50_us'] / 1e3), 1)} | "
                f"{fmt(rs.each(lambda r: cell(r)['p99_us'] / 1e3), 1)} | "
                f"{fmt(rs.each(lambda r: cell(r)['per_s'] / inp(r, c)['images_per_s']), 2, '×')} | "
                f"{fmt(rs.each(lambda r: cell(r)['p50_us'] / 1e3 / inp(r, c)['p50_ms']), 2, '×')} | "
                f"{fmt(rs.each(lambda r: cell(r)['server_cpu_s'] * 1e3 / cell(r)['ok']), 1)} | "
                f"{fmt(rs.each(lambda r: cell(r)['client_cpu_s'] * 1e3 / cell(r)['ok']), 1)} | "
                f"{busy(rs.each(lambda r: cell(r)['server_core_busy']))} | {ok:,} ({errors}, {wrong}) |")
        n = sum(inp(r, c)["images"] for r in rs.runs if "runs" in r.get("inprocess", {}))
        text.append(f"| {c} | in-process (bench/ocr_inprocess.py) | "
                    f"{fmt(rs.each(lambda r: inp(r, c)['images_per_s']), 2)} | "
                    f"{fmt(rs.each(lambda r: inp(r, c)['p50_ms']), 1)} | "
                    f"{fmt(rs.each(lambda r: inp(r, c)['p99_ms']), 1)} | (reference) | (reference) | – | – | – | {n:,} |")
    text += ocr_stage_table(rs, concurrencies, protocols[0] if protocols else "grpc")
    first = next((r["inprocess"] for r in rs.runs if "runs" in r.get("inprocess", {})), None)
    if first:
        acc = first["accuracy"]
        stages = ", ".join(f"{k} {v} ms" for k, v in first["stage_ms_per_image"].items())
        text += ["", f"In-process: {acc['exact']}/{acc['lines']} lines read exactly over "
                 f"{len(first['images'])} images; one serial pass, per image: {stages} "
                 f"(onnxruntime {first['onnxruntime']}, numpy {first['numpy']}, "
                 f"rec_batch_lines {first['rec_batch_lines']}). inferd: rec_batch_lines "
                 f"{rs.runs[0].get('rec_batch_lines')} (ocr_recognize's config)."]
    return text


# The `ocr` ensemble's models, each beside the in-process stage that does its work.
OCR_STAGES = [("ocr_det_pre", "decode_and_det_pre", "decode, resize, normalise (Python)"),
              ("ocr_det", "det", "text detector (ONNX Runtime)"),
              ("ocr_cls", "cls", "direction classifier, through BLS (ONNX Runtime)"),
              ("ocr_rec", "rec", "recogniser, through BLS (ONNX Runtime)"),
              ("ocr_recognize", "post_crop_ctc", "boxes, crops, CTC decoding and its BLS calls, without "
               "the time of the called models (Python)")]


def ocr_stage_table(rs, concurrencies, protocol):
    """Where an image's time goes in the server (GET .../stats), against the in-process
    stages (one serial pass of bench/ocr_inprocess.py, same repeat)."""
    def per_image(x, model, field="success"):
        s, n = x["stats"].get(model), x["stats"]["ocr"]["count"]
        return s[f"{field}_us"] * s["count"] / n / 1e3 if s else 0.0

    def execution(x, model):
        value = per_image(x, model) - per_image(x, model, "queue")
        if model == "ocr_recognize":  # its BLS calls' own time is in ocr_cls' and ocr_rec's rows
            value -= per_image(x, "ocr_cls") + per_image(x, "ocr_rec")
        return value

    text = ["", f"Where an image's time goes in inferd ({PROTOCOL_NAME[protocol]}; GET /v2/models/stats, ms per "
            "image, mean): execution = arrival → response − queue; in-process = the same stage in one serial "
            "pass of bench/ocr_inprocess.py in the same repeat.", "",
            "| model | what | calls per image | " + " | ".join(
                f"conc. {c}: execution ms | conc. {c}: queue ms" for c in concurrencies)
            + " | in-process ms (serial) |",
            "|---|---|---:|" + "---:|---:|" * len(concurrencies) + "---:|"]
    c0 = concurrencies[0]
    for model, stage, what in OCR_STAGES:
        calls = rs.each(lambda r: rs.cell(r, "ocr", protocol, c0)["stats"][model]["count"]
                        / rs.cell(r, "ocr", protocol, c0)["stats"]["ocr"]["count"])
        cells = []
        for c in concurrencies:
            cells.append(fmt(rs.each(lambda r: execution(rs.cell(r, "ocr", protocol, c), model)), 1))
            cells.append(fmt(rs.each(lambda r: per_image(rs.cell(r, "ocr", protocol, c), model, "queue")), 1))
        inproc = fmt(rs.each(lambda r: r["inprocess"]["stage_ms_per_image"][stage]), 1)
        text.append(f"| {model} | {what} | {fmt(calls, 2)} | " + " | ".join(cells) + f" | {inproc} |")
    # The ensemble itself: its time − its three steps' (arrival → response each).
    cells = []
    for c in concurrencies:
        cells.append(fmt(rs.each(lambda r: per_image(rs.cell(r, "ocr", protocol, c), "ocr") - sum(
            per_image(rs.cell(r, "ocr", protocol, c), m) for m in ("ocr_det_pre", "ocr_det", "ocr_recognize"))), 2))
        cells.append("–")
    text.append("| ocr | the ensemble's own time (its time − its 3 steps') | 1 | " + " | ".join(cells) + " | – |")
    cells = []
    for c in concurrencies:
        cells.append(fmt(rs.each(lambda r: per_image(rs.cell(r, "ocr", protocol, c), "ocr")), 1))
        cells.append("–")
    total = fmt(rs.each(lambda r: sum(r["inprocess"]["stage_ms_per_image"].values())), 1)
    text.append("| **ocr** | **whole pipeline** (arrival → response) | 1 | " + " | ".join(cells) + f" | {total} |")
    return text


def notes_list(directory, parts):
    notes = []
    try:
        with open(os.path.join(directory, "notes.json")) as f:
            notes += json.load(f)
    except (OSError, json.JSONDecodeError):
        pass
    for rs in parts:
        for r in rs.runs:
            notes += r.get("notes", [])
            for x in r["runs"]:
                notes += [f"{x['target']} {x['protocol']} c={x['concurrency']}: {e}" for e in x.get("error_texts", [])]
            if "error" in r.get("inprocess", {}):
                notes.append(f"ocr_inprocess: {r['inprocess']['error']}")
            notes += [f"server log: {w}" for w in r.get("log_warnings", [])]
    notes = list(dict.fromkeys(notes))
    return ["", "Notes:", ""] + [f"- {n}" for n in notes] if notes else []


def summarize(directory, out, meta):
    info = dict(kv.split("=", 1) for kv in meta)
    text = [f"# inferd pipelines benchmark (ensembles, BLS, OCR), {info.get('date', '?')}", ""]
    text += [f"- {k}: {v}" for k, v in info.items() if k != "date"]
    text += ["", "Figures: median (min–max) over the repeats; † = spread over 10 % of the median. "
             "Latencies per request, client side (tritonclient's call and reading the outputs). Differences "
             "and ratios are computed per repeat (conditions of the same repeat), then median (min–max). "
             "Server times are means from GET /v2/models/stats over each window (arrival → response, per "
             "client request); server CPU is inferd's and its Python workers' user + system time (/proc) over "
             "the window per request; a core's busy share is from /proc/stat (other processes included)."]
    chains = Repeats(directory, "chains")
    ocr = Repeats(directory, "ocr")
    if chains.runs:
        targets = [t for t in TARGETS if any(t in r["targets"] for r in chains.runs)]
        protocols = [p for p in ("grpc", "http") if p in chains.present("protocol")]
        concurrencies = chains.present("concurrency")
        first = chains.runs[0]
        text += ["", f"## Every target ({len(chains.runs)} repeat(s); per repeat, protocol and concurrency "
                 f"{first.get('rounds', 1)} windows of {first['window_s']} s per target, interleaved)", ""] + figure_rows(chains, targets, protocols, concurrencies)
        if any(t.startswith("ens") for t in targets):
            text += ["", "## Ensemble overhead per step", "",
                     "Orchestration per step = (the ensemble's server time − the server time of its N simple "
                     "requests) ÷ N: what the ensemble adds per step beyond the steps' own execution. "
                     f"Goals: ≤ {STEP_GOAL_US} µs per step at concurrency 1, and the ensemble faster than the "
                     "client orchestrating the same steps (ensemble ÷ client p50 < 1) (✓/✗)."]
            text += ensemble_tables(chains, protocols, concurrencies)
        if "bls" in targets:
            text += ["", "## A BLS call against the same call from the client", "",
                     "bls_simple and py_pass run the same model.py (the same request object built); only "
                     "bls_simple calls exec(). BLS call = what exec() adds; client call = what calling simple "
                     "from the client after py_pass adds. Goal: BLS ÷ client pair p50 < 1 (✓/✗)."]
            text += bls_table(chains, protocols, concurrencies)
    if ocr.runs:
        text += ["", f"## The OCR pipeline ({len(ocr.runs)} repeat(s), windows of {ocr.runs[0]['window_s']} s)"]
        text += ocr_tables(ocr)
    if not chains.runs and not ocr.runs:
        text += ["", "No repeat finished: no figures."]
    text += notes_list(directory, [chains, ocr])
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
    p.add_argument("--system-python", default="/usr/bin/python3", help="runs the Python workers (INFERD_PYTHON)")
    p.add_argument("--parts", type=lambda s: s.split(), default=["ensemble", "bls", "ocr"])
    p.add_argument("--protocols", type=lambda s: s.split(), default=["grpc", "http"])
    p.add_argument("--concurrency", type=lambda s: [int(x) for x in s.split()], default=[1, 8])
    p.add_argument("--window-s", type=float, default=0.5, help="one window of one target")
    p.add_argument("--rounds", type=int, default=4,
                   help="windows per target, protocol, concurrency and repeat (interleaved)")
    p.add_argument("--warmup-s", type=float, default=0.5, help="per target and protocol, before the repeats")
    p.add_argument("--ocr-protocols", type=lambda s: s.split(), default=["grpc"])
    p.add_argument("--ocr-window-s", type=float, default=8.0)
    p.add_argument("--ocr-warmup-s", type=float, default=3.0)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--work", required=True, help="a folder of this run's own")
    p.add_argument("--out-dir", required=True)
    p = sub.add_parser("summarize")
    p.add_argument("directory")
    p.add_argument("--out")
    p.add_argument("--meta", nargs="*", default=[])
    args = parser.parse_args()
    # SIGTERM (bench/lib.sh's cleanup) unwinds like Ctrl-C, so that inferd is stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if args.command == "run":
        for option, allowed in ((args.protocols + args.ocr_protocols, ("grpc", "http")),
                                (args.parts, ("ensemble", "bls", "ocr"))):
            bad = [x for x in option if x not in allowed]
            if bad:
                parser.error(f"unknown value(s) {bad}: {', '.join(allowed)}")
        run(args)
    else:
        summarize(args.directory, args.out, args.meta)


if __name__ == "__main__":
    main()
