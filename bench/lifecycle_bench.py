# SPDX-License-Identifier: Apache-2.0
"""The driver of bench/lifecycle.sh (`make bench-lifecycle`); run with .venv/bin/python.

  lifecycle_bench.py swap --mode explicit|poll --out RUN.json ...
      One inferd (pinned with taskset) serving a copy of one model (version 1) in a
      fresh repository; a closed-loop gRPC load of C threads (this process, pinned to the
      client core). Phase A: steady state. Phase B: the same load while the model's
      version is replaced N times (copy version 1's folder to a staging folder on the
      same file system, mv it into <model>/<v>; explicit mode: POST .../load and wait for
      its 200). Every request is recorded (start, latency, version or error); the server
      log gives when each version became ready and was unloaded. Explicit mode also times
      idle loads of the model (nothing else running) before the load starts.
  lifecycle_bench.py startup --repository DIR --label NAME --repeats R --out RUN.json ...
      R times: start inferd, poll GET /v2/health/ready every 5 ms until 200; the time
      from just before the process is spawned, and the server's own
      "start-up models loaded in N ms".
  lifecycle_bench.py summarize DIR --out FILE --meta K=V ...
      The markdown tables from the JSON files in DIR (swap_*.json, startup_*.json,
      ort_load_*.json).
"""
import argparse
import datetime
import glob
import http.client
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import fmt, mark, write_report  # noqa: E402  (the other benchmarks' formatting)

SWAP_P99_GOAL = 1.2  # p99 during the swaps / steady-state p99
STARTUP_OVERHEAD_GOAL_MS = 200
LOG_EVENT = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3})\] \[\w+\] "
                       r"model '([^']+)' version (\d+) is (ready|unloading|unloaded)")
STARTUP_LOADED = re.compile(r"start-up models loaded in (\d+) ms")
# Shapes of the variable dims (as bench/report.py's VARIABLE_DIMS): PaddleOCR's
# direction classifier gets 3x48x192 images.
INPUT_SHAPES = {"ocr_cls": ("x", [1, 3, 48, 192])}


def free_ports(count):
    sockets = [socket.socket() for _ in range(count)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def percentile(values, p):
    """Nearest rank, as ort_inprocess and perf_analyzer."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, min(len(ordered), -(-len(ordered) * p // 100)))
    return ordered[int(rank) - 1]


class Server:
    """inferd pinned to one core, log in a file; stopped with SIGTERM (SIGKILL after 15 s)."""

    def __init__(self, args, repository, log_path, extra):
        self.http_port, self.grpc_port, metrics_port = free_ports(3)
        self.log_path = log_path
        command = ["taskset", "-c", str(args.server_core), args.inferd, "serve",
                   "--model-repository", repository, "--host", "127.0.0.1", "--cpu-cores", "1",
                   "--http-port", str(self.http_port), "--grpc-port", str(self.grpc_port),
                   "--metrics-port", str(metrics_port), "--log-level", "info"] + extra
        if args.backend_directory:
            command += ["--backend-directory", args.backend_directory]
        self.log = open(log_path, "w")
        self.started = time.perf_counter()
        self.process = subprocess.Popen(command, stdout=self.log, stderr=subprocess.STDOUT)
        self.log_offset = 0
        self.events = {}  # (model, version, state) -> wall time of the log line

    def wait_ready(self, timeout_s=120, interval_s=0.005):
        """Seconds from just before the spawn to GET /v2/health/ready = 200."""
        deadline = time.perf_counter() + timeout_s
        while time.perf_counter() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"inferd exited ({self.process.returncode}) before it was ready:\n"
                                   + self.log_tail())
            try:
                connection = http.client.HTTPConnection("127.0.0.1", self.http_port, timeout=2)
                connection.request("GET", "/v2/health/ready")
                status = connection.getresponse().status
                connection.close()
                if status == 200:
                    return time.perf_counter() - self.started
            except OSError:
                pass
            time.sleep(interval_s)
        raise RuntimeError(f"inferd not ready after {timeout_s} s:\n" + self.log_tail())

    def post(self, path, body=b"{}", timeout_s=120):
        connection = http.client.HTTPConnection("127.0.0.1", self.http_port, timeout=timeout_s)
        connection.request("POST", path, body=body, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        text = response.read().decode(errors="replace")
        connection.close()
        return response.status, text

    def read_log(self):
        with open(self.log_path, errors="replace") as f:
            f.seek(self.log_offset)
            text = f.read()
        # Only whole lines; the rest is read next time.
        end = text.rfind("\n") + 1
        self.log_offset += len(text[:end].encode())
        for line in text[:end].splitlines():
            if m := LOG_EVENT.match(line):
                stamp = datetime.datetime.strptime(m[1], "%Y-%m-%d %H:%M:%S.%f").timestamp()
                self.events.setdefault((m[2], int(m[3]), m[4]), stamp)
        return text[:end]

    def wait_event(self, model, version, state, timeout_s=60):
        deadline = time.time() + timeout_s
        while time.time() < deadline:
            self.read_log()
            if (model, version, state) in self.events:
                return self.events[(model, version, state)]
            time.sleep(0.005)
        raise RuntimeError(f"no log line 'model '{model}' version {version} is {state}' "
                           f"within {timeout_s} s:\n" + self.log_tail())

    def log_tail(self, lines=20):
        with open(self.log_path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                print("[bench] warning: inferd did not stop within 15 s of SIGTERM; killing it",
                      file=sys.stderr)
                self.process.kill()
                self.process.wait()
        self.log.close()
        return self.process.returncode


class Load:
    """C closed-loop gRPC clients (one channel each), recording every request as
    (start wall time, end wall time, latency s, version or None, error or None)."""

    def __init__(self, url, model, concurrency):
        import numpy as np
        import tritonclient.grpc as grpcclient
        self.grpcclient = grpcclient
        name, shape = INPUT_SHAPES[model]
        self.data = np.random.default_rng(42).random(shape, dtype=np.float32)
        self.input_name = name
        self.url, self.model = url, model
        self.records = [[] for _ in range(concurrency)]
        self.first_seen = {}  # version -> wall time of the first response that carried it
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self.worker, args=(i,), daemon=True)
                        for i in range(concurrency)]

    def start(self):
        for t in self.threads:
            t.start()

    def stop(self):
        self.stopping.set()
        for t in self.threads:
            t.join()

    def worker(self, index):
        client = self.grpcclient.InferenceServerClient(self.url)
        request = self.grpcclient.InferInput(self.input_name, list(self.data.shape), "FP32")
        request.set_data_from_numpy(self.data)
        records = self.records[index]
        while not self.stopping.is_set():
            wall = time.time()
            t0 = time.perf_counter()
            version = error = None
            try:
                result = client.infer(self.model, [request], client_timeout=60)
                version = int(result.get_response().model_version)
            except Exception as e:  # noqa: BLE001  every failure counts
                error = str(e).strip() or type(e).__name__
            latency = time.perf_counter() - t0
            end = wall + latency
            if version is not None and version not in self.first_seen:
                self.first_seen[version] = end
            records.append((wall, end, latency, version, error))
        client.close()

    def all(self):
        return [r for records in self.records for r in records]


def summarize_requests(records):
    latencies = [r[2] * 1e6 for r in records if r[4] is None]
    errors = [r[4] for r in records if r[4] is not None]
    versions = {}
    for r in records:
        if r[3] is not None:
            versions[r[3]] = versions.get(r[3], 0) + 1
    return {"count": len(records), "ok": len(latencies), "errors": len(errors),
            "error_texts": sorted(set(errors))[:5],
            "p50_us": percentile(latencies, 50), "p99_us": percentile(latencies, 99),
            "versions": {str(k): v for k, v in sorted(versions.items())}}


def overlapping(records, start, end):
    """Requests that were in flight at some point of [start, end]."""
    return [r for r in records if r[0] < end and r[1] > start]


def renice_threads(pid, name, nice):
    """An experiment, not a measurement of inferd as shipped: sets the nice value of the
    server's threads called NAME (inferd's model loading pool); returns how many."""
    count = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                if f.read().strip() != name:
                    continue
            os.setpriority(os.PRIO_PROCESS, int(tid), nice)
            count += 1
        except OSError:
            pass
    return count


def swap(args):
    os.sched_setaffinity(0, {args.client_core})
    model = os.path.basename(os.path.normpath(args.model_dir))
    repository = os.path.join(args.work, "repository")
    staging = os.path.join(args.work, "staging")  # same file system: mv is a rename
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(staging)
    shutil.copytree(os.path.join(args.model_dir, "1"), os.path.join(repository, model, "1"))
    extra = ["--model-control-mode", args.mode]
    if args.mode == "poll":
        extra += ["--repository-poll-secs", str(args.poll_secs)]
    result = {"mode": args.mode, "model": model, "concurrency": args.concurrency,
              "steady_s": args.steady_s, "swaps_asked": args.swaps, "poll_secs": args.poll_secs}
    server = Server(args, repository, os.path.join(args.work, "inferd.log"), extra)
    try:
        server.wait_ready()
        if args.load_nice is not None:
            result["load_nice"] = renice_threads(server.process.pid, "inferd-load", args.load_nice)
        if args.mode == "explicit":
            # The model's load time in an idle inferd: a first load, then unload + load.
            idle = []
            for i in range(args.idle_loads + 1):
                if i > 0:
                    status, text = server.post(f"/v2/repository/models/{model}/unload")
                    if status != 200:
                        raise RuntimeError(f"unload answered {status}: {text}")
                t0 = time.perf_counter()
                status, text = server.post(f"/v2/repository/models/{model}/load")
                idle.append((time.perf_counter() - t0) * 1e3)
                if status != 200:
                    raise RuntimeError(f"load answered {status}: {text}")
            result["first_load_ms"] = idle[0]
            result["idle_load_ms"] = idle[1:]
            server.read_log()
            server.events.clear()  # the swaps below must not see these loads' lines
        else:
            server.wait_event(model, 1, "ready")
        load = Load(f"127.0.0.1:{server.grpc_port}", model, args.concurrency)
        load.start()
        time.sleep(args.warmup_s)
        steady = (time.time(), None)
        time.sleep(args.steady_s)
        steady = (steady[0], time.time())
        swaps = []
        for k in range(args.swaps):
            old, new = k + 1, k + 2
            s = {"version": new}
            s["created"] = time.time()
            staged = os.path.join(staging, str(new))
            shutil.copytree(os.path.join(args.model_dir, "1"), staged)
            os.rename(staged, os.path.join(repository, model, str(new)))
            s["moved"] = time.time()
            if args.mode == "explicit":
                status, text = server.post(f"/v2/repository/models/{model}/load")
                s["load_answered"] = time.time()
                s["load_status"] = status
                if status != 200:
                    s["load_error"] = text
            s["ready"] = server.wait_event(model, new, "ready")
            s["unloaded"] = server.wait_event(model, old, "unloaded")
            deadline = time.time() + 30
            while new not in load.first_seen and time.time() < deadline:
                time.sleep(0.005)
            s["first_response"] = load.first_seen.get(new)
            # The window: from the folder's creation until the old version is gone (the
            # log's times have ms resolution: round the end up).
            s["window"] = (s["created"], max(s["unloaded"] + 0.001, s.get("load_answered", 0),
                                             s["first_response"] or 0))
            swaps.append(s)
            time.sleep(args.gap_s)
        phase_b = (swaps[0]["created"], swaps[-1]["window"][1]) if swaps else None
        load.stop()
        records = load.all()
        result["steady"] = summarize_requests([r for r in records if steady[0] <= r[0] < steady[1]])
        result["steady"]["seconds"] = steady[1] - steady[0]
        in_windows = [r for r in records if any(r[0] < s["window"][1] and r[1] > s["window"][0]
                                                for s in swaps)]
        result["windows"] = summarize_requests(in_windows)
        result["windows"]["seconds"] = sum(s["window"][1] - s["window"][0] for s in swaps)
        if phase_b:
            result["phase_b"] = summarize_requests(overlapping(records, *phase_b))
            result["phase_b"]["seconds"] = phase_b[1] - phase_b[0]
        result["swaps"] = [{
            "version": s["version"],
            "load_status": s.get("load_status"),
            "load_error": s.get("load_error"),
            "moved_to_load_answered_ms": (s["load_answered"] - s["moved"]) * 1e3 if "load_answered" in s else None,
            "moved_to_ready_ms": (s["ready"] - s["moved"]) * 1e3,
            "moved_to_first_response_ms": (s["first_response"] - s["moved"]) * 1e3 if s["first_response"] else None,
            "ready_to_unloaded_ms": (s["unloaded"] - s["ready"]) * 1e3,
            "window_ms": (s["window"][1] - s["window"][0]) * 1e3,
        } for s in swaps]
        if args.records:  # every request and swap, for a closer look (times in s from the first)
            origin = min(r[0] for r in records)
            with open(args.records, "w") as f:
                f.write("start_s,latency_ms,version,error\n")
                for r in sorted(records):
                    f.write(f"{r[0] - origin:.4f},{r[2] * 1e3:.2f},{r[3] or ''},{json.dumps(r[4] or '')}\n")
                for s in swaps:
                    f.write(f"# swap to {s['version']}: created {s['created'] - origin:.4f} moved "
                            f"{s['moved'] - origin:.4f} ready {s['ready'] - origin:.4f} unloaded "
                            f"{s['unloaded'] - origin:.4f}\n")
        server.read_log()
        result["log_errors"] = [line for line in open(server.log_path, errors="replace")
                                if "[error]" in line or "[warning]" in line or "[warn]" in line][:10]
    finally:
        result["exit_code"] = server.stop()
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    b = result.get("windows", {})
    print(f"[bench] {args.mode}: steady p99 {result['steady']['p99_us']:,.0f} µs, "
          f"swap windows p99 {b.get('p99_us') or 0:,.0f} µs, errors "
          f"{result['steady']['errors']} + {b.get('errors')}", file=sys.stderr)


def startup(args):
    os.sched_setaffinity(0, {args.client_core})
    runs = []
    for r in range(args.repeats):
        log_path = os.path.join(args.work, f"startup_{r}.log")
        server = Server(args, args.repository, log_path, [])
        try:
            ready_s = server.wait_ready()
            text = server.read_log()
            m = STARTUP_LOADED.search(text)
            loaded_ms = int(m[1]) if m else None
            if m is None:  # logged just before readiness turned true: look again
                time.sleep(0.2)
                m = STARTUP_LOADED.search(open(log_path, errors="replace").read())
                loaded_ms = int(m[1]) if m else None
        finally:
            code = server.stop()
        runs.append({"ready_ms": ready_s * 1e3, "loaded_ms": loaded_ms, "exit_code": code})
    with open(args.out, "w") as f:
        json.dump({"label": args.label, "repository": args.repository, "runs": runs}, f, indent=1)


# --- summary -------------------------------------------------------------------------


def load_json(pattern):
    out = []
    for path in sorted(glob.glob(pattern)):
        try:
            with open(path) as f:
                out.append(json.load(f))
        except (OSError, json.JSONDecodeError):
            pass  # a failed run: missing in the table
    return out


def summarize(directory, out, meta):
    info = dict(kv.split("=", 1) for kv in meta)
    text = [f"# inferd model lifecycle benchmark, {info.get('date', '?')}", ""]
    text += [f"- {k}: {v}" for k, v in info.items() if k != "date"]
    text += ["", "Figures: median (min–max) over the repeats (swap times: over every swap of every "
             "repeat); † = spread over 10 % of the median. Ratios are computed per repeat (phase A and "
             "phase B of the same server, one after the other), then median (min–max).", ""]

    # 1. p99 during swaps against the steady state.
    text += [f"Swap p99: goal p99 in the swap windows ÷ steady p99 ≤ {SWAP_P99_GOAL}× (✓/✗), "
             "zero errors.", "",
             "| mode | repeats | steady p50 µs | steady p99 µs | swap windows p50 µs | swap windows p99 µs "
             "| p99 ÷ steady (windows) | phase B p99 µs | p99 ÷ steady (phase B) | requests steady / windows "
             "| errors | versions answered in phase B |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    error_lines = []
    for mode in ("explicit", "poll"):
        runs = load_json(os.path.join(directory, f"swap_{mode}_*.json"))
        runs = [r for r in runs if "steady" in r and "windows" in r]
        if not runs:
            continue
        steady_p99 = [r["steady"]["p99_us"] for r in runs]
        win_ratio = [r["windows"]["p99_us"] / r["steady"]["p99_us"] for r in runs
                     if r["windows"]["p99_us"] and r["steady"]["p99_us"]]
        b_ratio = [r["phase_b"]["p99_us"] / r["steady"]["p99_us"] for r in runs
                   if r.get("phase_b", {}).get("p99_us") and r["steady"]["p99_us"]]
        errors = sum(r["steady"]["errors"] + r.get("phase_b", r["windows"])["errors"] for r in runs)
        load_failures = sum(1 for r in runs for s in r["swaps"] if s["load_status"] not in (None, 200))
        swaps_done = sum(len(r["swaps"]) for r in runs)
        versions = sorted({int(v) for r in runs for v in r.get("phase_b", {}).get("versions", {})})
        cells = [mode, str(len(runs)),
                 fmt([r["steady"]["p50_us"] for r in runs]), fmt(steady_p99),
                 fmt([r["windows"]["p50_us"] for r in runs]), fmt([r["windows"]["p99_us"] for r in runs]),
                 fmt(win_ratio, 2, "×") + mark(win_ratio, lambda v: v <= SWAP_P99_GOAL),
                 fmt([r["phase_b"]["p99_us"] for r in runs if "phase_b" in r]),
                 fmt(b_ratio, 2, "×"),
                 f"{statistics.median([r['steady']['ok'] for r in runs]):,.0f} / "
                 f"{statistics.median([r['windows']['ok'] for r in runs]):,.0f}",
                 f"{errors}" + (f" (+{load_failures} failed loads)" if load_failures else "")
                 + (" ✓" if errors == 0 and load_failures == 0 else " ✗"),
                 (f"{versions[0]}–{versions[-1]}" if versions else "–")
                 + f" ({swaps_done} swaps)"]
        text.append("| " + " | ".join(cells) + " |")
        for r in runs:
            for phase in ("steady", "phase_b"):
                for e in r.get(phase, {}).get("error_texts", []):
                    error_lines.append(f"- {mode}, {phase}: {e}")
            for s in r["swaps"]:
                if s.get("load_error"):
                    error_lines.append(f"- {mode}, load of version {s['version']}: "
                                       f"{s['load_status']} {s['load_error']}")
            for line in r.get("log_errors", []):
                # Without its time stamp, so that each message is listed once.
                error_lines.append(f"- {mode}, server log: {line.strip().split('] ', 1)[-1]}")
    if error_lines:
        text += ["", "Errors, failed loads and server log warnings seen:", ""] + sorted(set(error_lines))[:20]

    # 2. From a new version folder to serving.
    text += ["", "From a new version folder to serving (ms; median (min–max) over every swap). "
             "\"mv\" = the moment the complete folder was renamed into place.", "",
             "| mode | what | ms |", "|---|---|---:|"]
    for mode in ("explicit", "poll"):
        runs = [r for r in load_json(os.path.join(directory, f"swap_{mode}_*.json")) if "swaps" in r]
        if not runs:
            continue
        swaps = [s for r in runs for s in r["swaps"]]

        def col(field):
            return [s[field] for s in swaps if s.get(field) is not None]
        if mode == "explicit":
            text.append(f"| explicit | mv → load call answered 200 (folder → serving) | "
                        f"{fmt(col('moved_to_load_answered_ms'))} |")
        else:
            text.append(f"| poll ({runs[0]['poll_secs']:g} s) | mv → server logs the version ready | "
                        f"{fmt(col('moved_to_ready_ms'))} |")
        text.append(f"| {mode} | mv → first response carrying the new version | "
                    f"{fmt(col('moved_to_first_response_ms'))} |")
        text.append(f"| {mode} | new version ready → old version unloaded (drain + unload) | "
                    f"{fmt(col('ready_to_unloaded_ms'))} |")
        if mode == "explicit":
            idle = [v for r in runs for v in r.get("idle_load_ms", [])]
            first = [r["first_load_ms"] for r in runs if "first_load_ms" in r]
            text.append(f"| explicit | load call of the model in an idle inferd (unload + load, no traffic) | "
                        f"{fmt(idle)} |")
            text.append(f"| explicit | first load call after start-up (idle) | {fmt(first)} |")
    # ort_inprocess created instances + 1 sessions one after the other; the first one also
    # initialised ONNX Runtime in the process (as inferd's first load does).
    ort = [r for r in load_json(os.path.join(directory, "ort_load_*.json")) if len(r.get("session_ms", [])) >= 2]
    if ort:
        n = len(ort[0]["session_ms"]) - 1
        text.append(f"| in-process | ONNX Runtime creating the model's {n} session(s) one after the other, "
                    f"in a process that already has one (the model's own load time) | "
                    f"{fmt([sum(r['session_ms'][1:n + 1]) for r in ort])} |")
        text.append(f"| in-process | the same, the first {n} session(s) of the process | "
                    f"{fmt([sum(r['session_ms'][:n]) for r in ort])} |")

    # 3. Start-up.
    text += ["", f"Start-up: process spawned → GET /v2/health/ready = 200, polled every 5 ms; the server's "
             f"own \"start-up models loaded in N ms\"; overhead = ready − N. Goal: overhead ≤ "
             f"{STARTUP_OVERHEAD_GOAL_MS} ms with the example repository (✓/✗).", "",
             "| repository | runs | ready ms | models loaded in (N) ms | overhead ms (ready − N) |",
             "|---|---:|---:|---:|---:|"]
    for r in load_json(os.path.join(directory, "startup_*.json")):
        runs = [x for x in r["runs"] if x["ready_ms"] is not None]
        over = [x["ready_ms"] - x["loaded_ms"] for x in runs if x["loaded_ms"] is not None]
        text.append(f"| {r['label']} | {len(runs)} | {fmt([x['ready_ms'] for x in runs])} | "
                    f"{fmt([x['loaded_ms'] for x in runs if x['loaded_ms'] is not None])} | "
                    f"{fmt(over)}{mark(over, lambda v: v <= STARTUP_OVERHEAD_GOAL_MS)} |")
    write_report(text, out)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("swap", "startup"):
        p = sub.add_parser(name)
        p.add_argument("--inferd", required=True)
        p.add_argument("--backend-directory")
        p.add_argument("--server-core", type=int, default=0)
        p.add_argument("--client-core", type=int, default=1)
        p.add_argument("--work", required=True, help="a folder of this run's own")
        p.add_argument("--out", required=True)
    p = sub.choices["swap"]
    p.add_argument("--mode", choices=("explicit", "poll"), required=True)
    p.add_argument("--model-dir", required=True, help="a model folder with version 1")
    p.add_argument("--concurrency", type=int, default=4)
    p.add_argument("--warmup-s", type=float, default=1.0)
    p.add_argument("--steady-s", type=float, default=5.0)
    p.add_argument("--swaps", type=int, default=10)
    p.add_argument("--gap-s", type=float, default=0.5, help="pause between two swaps")
    p.add_argument("--poll-secs", type=float, default=1.0)
    p.add_argument("--idle-loads", type=int, default=2)
    p.add_argument("--records", help="write every request (start, latency, version, error) here")
    p.add_argument("--load-nice", type=int,
                   help="experiment: renice inferd's 'inferd-load' threads (taskset's child) to this")
    p = sub.choices["startup"]
    p.add_argument("--repository", required=True)
    p.add_argument("--label", required=True)
    p.add_argument("--repeats", type=int, default=5)
    p = sub.add_parser("summarize")
    p.add_argument("directory")
    p.add_argument("--out")
    p.add_argument("--meta", nargs="*", default=[])
    args = parser.parse_args()
    # SIGTERM (bench/lib.sh's cleanup) unwinds like Ctrl-C, so that inferd is stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if args.command == "swap":
        swap(args)
    elif args.command == "startup":
        os.makedirs(args.work, exist_ok=True)
        startup(args)
    else:
        summarize(args.directory, args.out, args.meta)


if __name__ == "__main__":
    main()
