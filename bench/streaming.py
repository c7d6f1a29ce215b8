# SPDX-License-Identifier: Apache-2.0
"""The driver of bench/streaming.sh (`make bench-streaming`); run with .venv/bin/python.
What streaming and stateful serving cost and give, next to unary calls and to the
same model run in one process (docs/benchmarks.md, "make bench-streaming", explains
the method and the columns).

  streaming.py run --inferd BIN --work DIR --out-dir DIR ...
      One inferd (pinned with taskset, --cpu-cores 1) serves a repository written into
      DIR: examples/models/simple, examples/models/silero_vad and, when the backend is
      built, examples/backends/repeat's decoupled repeat_int32.
      Part "stream" (a): responses per second over gRPC streams against unary gRPC
        calls. perf_analyzer (C++ client) on simple, unary and --streaming, at each
        concurrency; then tritonclient processes (closed loop, each its own channel):
          unary      client.infer(simple), one call at a time
          stream     simple over one stream (start_stream/async_stream_infer), one
                     request in flight
          stream_w8  the same stream with 8 requests in flight
          repeat_N   repeat_int32 over one stream, one request in flight, N responses
                     per request (decoupled)
        the targets' order rotating from window to window.
      Part "vad" (b, c): the VAD stream's real-time factor (audio seconds answered per
        wall second) at S concurrent streams. perf_analyzer in sequence mode over gRPC
        streams (--streaming --serial-sequences: one chunk in flight per stream, S
        streams), chunks of the pocketsphinx recordings (--input-data, one data stream
        per recording); the server's statistics give the batch it formed. One
        tritonclient stream (S = 1) as a Python application sends it. Then
        bench/vad_inprocess.py on the server's core at batch S, batch 1 and every
        formed batch (rounded).
      One JSON per repeat and part.
  streaming.py summarize DIR --out FILE --meta K=V ...
      The markdown tables from DIR's JSON files (bench/streaming_report.py).
"""
import argparse
import csv
import http.client
import json
import os
import shutil
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "examples", "silero_vad"))
from backend_overhead import wait_models  # noqa: E402  (models READY or their reasons)
from lifecycle_bench import Server, percentile  # noqa: E402  (pinned inferd, nearest rank)
from pipelines import core_ticks, process_tree_seconds  # noqa: E402  (/proc figures)
from streaming_clients import REPEAT, VAD, Clients  # noqa: E402  (tritonclient processes)

REPEAT_RESPONSES = (1, 16)
STREAM_TARGETS = {
    "unary": ("simple", "unary gRPC calls to simple, one at a time"),
    "stream": ("simple", "simple over one gRPC stream, 1 request in flight"),
    "stream_w8": ("simple", "simple over one gRPC stream, 8 requests in flight"),
    **{f"repeat_{n}": (REPEAT, f"repeat_int32 (decoupled) over one stream, {n} response(s) per request")
       for n in REPEAT_RESPONSES},
}


def log(text):
    print(f"[bench] {text}", file=sys.stderr, flush=True)


# --- the repository ------------------------------------------------------------------------


def make_repository(repository, backend_directory):
    """Copies the models; returns the names and notes on what is missing."""
    os.makedirs(repository)
    models, notes = [], []
    sources = [("simple", os.path.join(ROOT, "examples", "models", "simple")),
               (VAD, os.path.join(ROOT, "examples", "models", VAD)),
               (REPEAT, os.path.join(ROOT, "examples", "backends", "repeat", "models", REPEAT))]
    for name, source in sources:
        if name == REPEAT and not os.path.isdir(os.path.join(backend_directory or "", "repeat")):
            notes.append(f"{REPEAT} skipped: the repeat backend is not built ({backend_directory}/repeat)")
            continue
        if not os.path.exists(os.path.join(source, "config.pbtxt")):
            notes.append(f"{name} skipped: {os.path.relpath(source, ROOT)}/config.pbtxt not found")
            continue
        shutil.copytree(source, os.path.join(repository, name), ignore=shutil.ignore_patterns("*.md"))
        os.makedirs(os.path.join(repository, name, "1"), exist_ok=True)
        models.append(name)
    return models, notes


def vad_input_data(path):
    """perf_analyzer --input-data: one data stream per recording, a step per chunk."""
    import vad_core
    streams = []
    for name in vad_core.RECORDINGS:
        chunks = vad_core.chunks(vad_core.recording(name)[0])
        streams.append([{"audio": {"content": [round(float(v), 7) for v in c], "shape": [vad_core.CHUNK]}}
                        for c in chunks])
    with open(path, "w") as f:
        json.dump({"data": streams}, f)
    return sum(len(s) for s in streams) / len(streams)


# --- measuring -------------------------------------------------------------------------------------


STAT_FIELDS = ("queue", "compute_input", "compute_infer", "compute_output")


def model_stats(server, model):
    """{"inferences", "executions", field: [count, ns] ...} of a model (GET .../stats).
    Every request of a batch records the batch's compute times (as Triton counts them),
    so a field's ns ÷ its count is the mean time of the execution a request ran in."""
    connection = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=10)
    try:
        connection.request("GET", f"/v2/models/{model}/stats")
        response = connection.getresponse()
        body = response.read()
    finally:
        connection.close()
    out = {"inferences": 0, "executions": 0, "failures": 0, **{f: [0, 0] for f in STAT_FIELDS}}
    if response.status != 200:
        return out
    entry = json.loads(body)["model_stats"][0]
    out["inferences"] = int(entry.get("inference_count", 0))
    out["executions"] = int(entry.get("execution_count", 0))
    out["failures"] = int(entry.get("inference_stats", {}).get("fail", {}).get("count", 0))
    for f in STAT_FIELDS:
        d = entry.get("inference_stats", {}).get(f, {})
        out[f] = [int(d.get("count", 0)), int(d.get("ns", 0))]
    return out


class Meter:
    """The server's statistics of one model, its CPU and the client core around a run."""

    def __init__(self, server, model, args):
        self.server, self.model, self.args = server, model, args

    def __enter__(self):
        self.stats = model_stats(self.server, self.model)
        self.cpu = process_tree_seconds(self.server.process.pid)
        self.ticks = core_ticks({self.args.client_core})
        return self

    def __exit__(self, *exc):
        after = model_stats(self.server, self.model)
        ticks = core_ticks({self.args.client_core})
        busy, every = (ticks[c][i] - self.ticks[c][i] for c in ticks for i in (0, 1))
        inferences = after["inferences"] - self.stats["inferences"]
        executions = after["executions"] - self.stats["executions"]
        per_request = {}
        for f in STAT_FIELDS:
            count, ns = (a - b for a, b in zip(after[f], self.stats[f]))
            per_request[f"{f}_us"] = ns / count / 1e3 if count else None
        self.delta = {"inferences": inferences, "executions": executions,
                      "server_failures": after["failures"] - self.stats["failures"],
                      "formed_batch": inferences / executions if executions else None, **per_request,
                      "server_cpu_s": process_tree_seconds(self.server.process.pid) - self.cpu,
                      "client_core_busy": busy / every if every else None}
        return False


def perf_analyzer(args, server, model, concurrency, out_csv, extra):
    """One perf_analyzer run over gRPC; its figures, or {"error": ...}."""
    command = ["taskset", "-c", str(args.client_core), args.perf_analyzer, "-m", model, "-i", "grpc",
               "-u", f"127.0.0.1:{server.grpc_port}", "--concurrency-range", str(concurrency),
               "--measurement-interval", str(args.pa_interval_ms), "-s", "1000", "-r", "10",
               "--percentile", "99", "-f", out_csv] + extra
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        return {"error": str(e)[:300]}
    if done.returncode != 0:
        lines = (done.stderr + done.stdout).strip().splitlines()
        return {"error": " / ".join(lines[-3:])[:400] or f"exit {done.returncode}"}
    with open(out_csv, newline="") as f:
        row = next(csv.DictReader(f))
    return {"per_s": float(row["Inferences/Second"]), "p50_us": float(row["p50 latency"]),
            "p99_us": float(row["p99 latency"])}


def figures(sample, delta):
    lat = sample["latencies"]
    return {"requests": sample["requests"], "responses": sample["responses"], "seconds": sample["seconds"],
            "requests_per_s": sample["requests"] / sample["seconds"],
            "responses_per_s": sample["responses"] / sample["seconds"],
            "p50_us": percentile(lat, 50), "p99_us": percentile(lat, 99),
            "errors": sample["errors"], "error_texts": sample["error_texts"], **delta}


def vad_inprocess(args, batches):
    """bench/vad_inprocess.py on the server's core: its JSON, or {"error": ...}."""
    argv = ["taskset", "-c", str(args.server_core), sys.executable, os.path.join(HERE, "vad_inprocess.py"),
            "--batches", ",".join(map(str, batches)), "--duration", str(args.inprocess_s)]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        return {"error": str(e)}
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]}
    return json.loads(done.stdout)


def run_stream_part(args, server, clients, models, r):
    result = {"part": "stream", "repeat": r, "window_s": args.window_s, "rounds": args.rounds, "runs": []}
    for c in args.concurrency:
        for mode, extra in (("unary", []), ("stream", ["--streaming"])):
            with Meter(server, "simple", args) as meter:
                pa = perf_analyzer(args, server, "simple", c, os.path.join(args.work, f"pa_simple_{mode}.csv"), extra)
            result["runs"].append({"client": "perf_analyzer", "target": mode, "concurrency": c, **pa, **meter.delta})
            if "error" in pa:
                log(f"perf_analyzer simple {mode} c={c} failed: {pa['error']}")
        targets = [t for t, (model, _) in STREAM_TARGETS.items() if model in models]
        samples = {t: [] for t in targets}
        for k in range(args.rounds):
            shift = ((r - 1) * args.rounds + k) % len(targets)
            for t in targets[shift:] + targets[:shift]:
                with Meter(server, STREAM_TARGETS[t][0], args) as meter:
                    sample = clients.run(t, c, args.window_s)
                samples[t].append((sample, meter.delta))
        for t in targets:
            merged = {"requests": 0, "responses": 0, "latencies": [], "seconds": 0.0, "errors": 0,
                      "error_texts": []}
            delta = {"server_cpu_s": 0.0, "client_core_busy": []}
            for sample, d in samples[t]:
                for key in ("requests", "responses", "latencies", "seconds", "errors", "error_texts"):
                    merged[key] += sample[key]
                delta["server_cpu_s"] += d["server_cpu_s"]
                delta["client_core_busy"].append(d["client_core_busy"] or 0)
            delta["client_core_busy"] = sum(delta["client_core_busy"]) / len(delta["client_core_busy"])
            merged["error_texts"] = sorted(set(merged["error_texts"]))[:3]
            result["runs"].append({"client": "tritonclient", "target": t, "concurrency": c, **figures(merged, delta)})
        log(f"repeat {r}/{args.repeats} stream c={c}: " + ", ".join(
            f"{x['client'][:2]}:{x['target']} {x.get('responses_per_s', x.get('per_s')) or 0:,.0f}/s"
            for x in result["runs"] if x["concurrency"] == c))
    return result


def run_vad_part(args, server, clients, input_data, r):
    result = {"part": "vad", "repeat": r, "pa_interval_ms": args.pa_interval_ms, "window_s": args.vad_window_s,
              "runs": []}
    for s in args.streams:
        with Meter(server, VAD, args) as meter:
            pa = perf_analyzer(args, server, VAD, s, os.path.join(args.work, f"pa_vad_{s}.csv"),
                               ["--streaming", "--serial-sequences", "--input-data", input_data])
        result["runs"].append({"client": "perf_analyzer", "streams": s, **pa, **meter.delta})
        if "error" in pa:
            log(f"perf_analyzer silero_vad streams={s} failed: {pa['error']}")
        else:
            log(f"repeat {r}/{args.repeats} vad streams={s}: {pa['per_s'] * 0.032:,.1f}x real time, "
                f"formed batch {meter.delta['formed_batch'] or 0:.1f}")
    with Meter(server, VAD, args) as meter:
        sample = clients.run("vad", 1, args.vad_window_s)
    result["runs"].append({"client": "tritonclient", "streams": 1, **figures(sample, meter.delta)})
    formed = {max(1, round(x["formed_batch"])) for x in result["runs"] if x.get("formed_batch")}
    batches = sorted({1, *args.streams, *formed})
    result["inprocess"] = vad_inprocess(args, batches)
    if "error" in result["inprocess"]:
        log(f"warning: vad_inprocess failed: {result['inprocess']['error']}")
    else:
        log(f"repeat {r}/{args.repeats} vad in-process: " + ", ".join(
            f"batch {x['batch']} {x['rtf']:,.0f}x" for x in result["inprocess"]["runs"]))
    return result


def log_warnings(server):
    with open(server.log_path, errors="replace") as f:
        return [line.strip() for line in f if "[error]" in line or "[warning]" in line][:10]


def run(args):
    os.sched_setaffinity(0, {args.client_core})
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    os.makedirs(args.out_dir, exist_ok=True)
    repository = os.path.join(args.work, "models")
    models, notes = make_repository(repository, args.backend_directory)
    for n in notes:
        log(n)
    os.environ["INFERD_PYTHON"] = args.system_python
    server = Server(args, repository, os.path.join(args.work, "inferd.log"), ["--strict-readiness", "false"])
    clients = None
    try:
        server.wait_ready()
        for model, reason in wait_models(server, models).items():
            notes.append(f"{model} did not load: {reason}")
            log(notes[-1])
            models.remove(model)
        url = f"127.0.0.1:{server.grpc_port}"
        input_data = os.path.join(args.work, "vad_input.json")
        parts = [p for p in args.parts if p != "vad" or VAD in models]
        if "vad" in args.parts and VAD not in models:
            notes.append("part vad skipped: silero_vad is not served")
        if "vad" in parts:
            log(f"vad input data: {vad_input_data(input_data):.0f} chunks per sequence on average")
        clients = Clients(max(args.concurrency), args.client_core, url)
        log("warming up")
        if "stream" in parts:
            for t, (model, _) in STREAM_TARGETS.items():
                if model in models:
                    clients.run(t, max(args.concurrency), args.warmup_s)
        if "vad" in parts:
            clients.run("vad", 1, args.warmup_s)
        for r in range(1, args.repeats + 1):
            for part in parts:
                if part == "stream":
                    result = run_stream_part(args, server, clients, models, r)
                else:
                    result = run_vad_part(args, server, clients, input_data, r)
                result["notes"] = notes
                result["log_warnings"] = log_warnings(server)
                with open(os.path.join(args.out_dir, f"{part}_{r}.json"), "w") as f:
                    json.dump(result, f, indent=1)
    finally:
        if clients:
            clients.close()
        code = server.stop()
        if code not in (0, None):
            log(f"warning: inferd exited with {code}")
    with open(os.path.join(args.out_dir, "notes.json"), "w") as f:
        json.dump(notes, f)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run")
    p.add_argument("--inferd", required=True)
    p.add_argument("--backend-directory")
    p.add_argument("--perf-analyzer", default=os.path.join(ROOT, ".venv", "bin", "perf_analyzer"))
    p.add_argument("--server-core", type=int, default=0)
    p.add_argument("--client-core", type=int, default=1)
    p.add_argument("--system-python", default="/usr/bin/python3", help="runs the Python workers (INFERD_PYTHON)")
    p.add_argument("--parts", type=lambda s: s.split(), default=["stream", "vad"])
    p.add_argument("--concurrency", type=lambda s: [int(x) for x in s.split()], default=[1, 8])
    p.add_argument("--streams", type=lambda s: [int(x) for x in s.split()], default=[1, 8, 32])
    p.add_argument("--window-s", type=float, default=0.5, help="one tritonclient window of one target")
    p.add_argument("--rounds", type=int, default=4, help="tritonclient windows per target and repeat")
    p.add_argument("--warmup-s", type=float, default=0.5)
    p.add_argument("--pa-interval-ms", type=int, default=1500, help="perf_analyzer's measurement window")
    p.add_argument("--vad-window-s", type=float, default=3.0, help="the tritonclient VAD stream's window")
    p.add_argument("--inprocess-s", type=float, default=2.0, help="vad_inprocess.py seconds per batch size")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--work", required=True)
    p.add_argument("--out-dir", required=True)
    p = sub.add_parser("summarize")
    p.add_argument("directory")
    p.add_argument("--out")
    p.add_argument("--meta", nargs="*", default=[])
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if args.command == "run":
        bad = [x for x in args.parts if x not in ("stream", "vad")]
        if bad:
            parser.error(f"unknown part(s) {bad}: stream, vad")
        run(args)
    else:
        from streaming_report import summarize
        summarize(args.directory, args.out, args.meta)


if __name__ == "__main__":
    main()
