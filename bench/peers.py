# SPDX-License-Identifier: Apache-2.0
"""Helpers of bench/peers.sh (`make bench-peers`): inferd beside Triton 2.51 (PyPI's
nvidia-pytriton 0.7.0 wheel). Standard library only, plus bench/report.py.

  peers.py unpack WHEEL DIR
      extracts a wheel (a zip) into DIR, keeping the files' modes (tritonserver and
      the Python stubs are executables); DIR/.complete marks a finished unpack
  peers.py models --shared DIR --native DIR --onnx OCR_CLS.onnx
      writes the repositories: DIR/py_identity and DIR/py_ocr_cls (Python models,
      served by both servers from this one folder) and, in --native, ort_ocr_cls
      (inferd's ONNX Runtime backend on the same model.onnx; Triton's wheel has no
      onnxruntime backend)
  peers.py startup --port P --out FILE.json -- COMMAND...
      starts COMMAND (a server), times it to GET /v2/health/ready = 200, reads the
      resident memory of its process tree (server plus worker processes: Triton's
      Python stubs, inferd's Python workers), stops it; one JSON line to FILE
  peers.py memory --pid PID --out FILE.json
      the same memory figures of a running server's process tree
  peers.py summarize DIR --out FILE --meta K=V ...
      the markdown tables, from the perf_analyzer CSVs and the startup/memory JSONs
"""
import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
import urllib.request
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402  (bench/report.py: read_pa, fmt, ratios, write_report)

def unpack(args):
    done = os.path.join(args.directory, ".complete")
    if os.path.exists(done):
        return
    shutil.rmtree(args.directory, ignore_errors=True)
    with zipfile.ZipFile(args.wheel) as wheel:
        for member in wheel.infolist():
            path = wheel.extract(member, args.directory)
            mode = (member.external_attr >> 16) & 0o777
            if mode and not member.is_dir():
                os.chmod(path, mode)
    open(done, "w").close()


# --- the repositories ----------------------------------------------------------------
IDENTITY_PY = '''\
"""Returns INPUT0 as OUTPUT0: the Python backend's own cost (bench/peers.py)."""
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            x = pb_utils.get_input_tensor_by_name(request, "INPUT0").as_numpy()
            responses.append(pb_utils.InferenceResponse(output_tensors=[pb_utils.Tensor("OUTPUT0", x)]))
        return responses
'''

OCR_CLS_PY = '''\
"""PaddleOCR's direction classifier through onnxruntime in Python (bench/peers.py):
what a Triton user without an onnxruntime backend writes. The requests that the
dynamic batcher hands over in one execute() run as one ONNX Runtime call."""
import os

import numpy as np
import onnxruntime as ort
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        path = os.path.join(args["model_repository"], args["model_version"], "model.onnx")
        self.session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])

    def execute(self, requests):
        images = [pb_utils.get_input_tensor_by_name(r, "x").as_numpy() for r in requests]
        if all(image.shape[1:] == images[0].shape[1:] for image in images):
            sizes = [len(image) for image in images]
            batch = images[0] if len(images) == 1 else np.concatenate(images)
            scores = self.session.run(["softmax_0.tmp_0"], {"x": batch})[0]
            parts = np.split(scores, np.cumsum(sizes)[:-1])
        else:  # images of different sizes cannot share a call
            parts = [self.session.run(["softmax_0.tmp_0"], {"x": image})[0] for image in images]
        return [pb_utils.InferenceResponse(output_tensors=[pb_utils.Tensor("softmax_0.tmp_0", part)])
                for part in parts]
'''

MAX_BATCH = 16


def config(name, backend_line, tensors_in, tensors_out, max_batch, batching):
    def tensors(kind, items):
        return "\n".join(f'{kind} [{{ name: "{n}" data_type: {t} dims: [ {d} ] }}]' for n, t, d in items)
    text = [f'name: "{name}"', backend_line, f"max_batch_size: {max_batch}",
            tensors("input", tensors_in), tensors("output", tensors_out),
            "instance_group [{ count: 1 kind: KIND_CPU }]"]
    if batching:
        text.append("dynamic_batching { }")
    return "\n".join(text) + "\n"


def write_model(root, name, config_text, files):
    directory = os.path.join(root, name)
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(os.path.join(directory, "1"))
    with open(os.path.join(directory, "config.pbtxt"), "w") as f:
        f.write(config_text)
    for target, source in files.items():
        path = os.path.join(directory, "1", target)
        if isinstance(source, str) and os.path.isfile(source):
            shutil.copyfile(source, path)
        else:
            with open(path, "w") as f:
                f.write(source)


def models(args):
    ocr_in = [("x", "TYPE_FP32", "3, -1, -1")]
    ocr_out = [("softmax_0.tmp_0", "TYPE_FP32", "2")]
    write_model(args.shared, "py_identity",
                config("py_identity", 'backend: "python"', [("INPUT0", "TYPE_FP32", "16")],
                       [("OUTPUT0", "TYPE_FP32", "16")], 8, False),
                {"model.py": IDENTITY_PY})
    write_model(args.shared, "py_ocr_cls",
                config("py_ocr_cls", 'backend: "python"', ocr_in, ocr_out, MAX_BATCH, True),
                {"model.py": OCR_CLS_PY, "model.onnx": args.onnx})
    write_model(args.native, "ort_ocr_cls",
                config("ort_ocr_cls", 'platform: "onnxruntime_onnx"', ocr_in, ocr_out, MAX_BATCH, True),
                {"model.onnx": args.onnx})


# --- start-up time and memory ---------------------------------------------------------
def children():
    """{ppid: [pid, ...]} of every process now."""
    tree = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            tree.setdefault(int(fields[1]), []).append(int(entry))
        except (OSError, IndexError, ValueError):
            pass
    return tree


def kib(path, key):
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def memory(pid):
    """RSS and PSS (MiB) summed over pid and its descendants, and the process count."""
    tree, todo, pids = children(), [pid], []
    while todo:
        p = todo.pop()
        pids.append(p)
        todo.extend(tree.get(p, []))
    rss = sum(kib(f"/proc/{p}/status", "VmRSS") for p in pids)
    pss = sum(kib(f"/proc/{p}/smaps_rollup", "Pss") for p in pids)
    return {"rss_mib": rss / 1024, "pss_mib": pss / 1024, "processes": len(pids)}


def ready(port):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/v2/health/ready", timeout=1) as r:
            return r.status == 200
    except OSError:
        return False


def stop(process):
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def startup(args):
    # A time limit's SIGTERM (bench/lib.sh's bounded) still stops the server below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    log = open(args.out + ".log", "w")
    start = time.monotonic()
    # Its own process group: stopping it stops its workers too.
    process = subprocess.Popen(args.command, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
    try:
        while not ready(args.port):
            if process.poll() is not None:
                raise SystemExit(f"server exited ({process.returncode}) before it was ready: "
                                 f"see {args.out}.log")
            if time.monotonic() - start > args.timeout:
                raise SystemExit(f"server not ready after {args.timeout} s: see {args.out}.log")
            time.sleep(0.005)
        ready_s = time.monotonic() - start
        time.sleep(args.settle)  # workers finishing their start after the server said ready
        figures = {"ready_s": ready_s, **memory(process.pid)}
    finally:
        stop(process)
    with open(args.out, "w") as f:
        f.write(json.dumps(figures) + "\n")


def memory_cmd(args):
    with open(args.out, "w") as f:
        f.write(json.dumps(memory(args.pid)) + "\n")


# --- summarize -------------------------------------------------------------------------
# pa_<row>_<protocol>_c<C>_<server>_r<R>.csv; startup_<server>_r<R>.json; memory_<server>.json
PA_FILE = re.compile(r"pa_(?P<row>.+)_(?P<protocol>http|grpc)_c(?P<c>\d+)_(?P<server>inferd|triton)"
                     r"_r(?P<r>\d+)\.csv$")
STARTUP_FILE = re.compile(r"startup_(?P<server>inferd|triton)_r(?P<r>\d+)\.json$")
MEMORY_FILE = re.compile(r"memory_(?P<server>inferd|triton)\.json$")
# Rows: what inferd serves, against what Triton serves (the same model.py where both are Python).
ROWS = {"py_identity": ("py_identity", "py_identity"),
        "py_ocr_cls": ("py_ocr_cls", "py_ocr_cls"),
        "ort_ocr_cls": ("ort_ocr_cls", "py_ocr_cls")}
ROW_NOTES = {"py_identity": "Python identity (same model.py)",
             "py_ocr_cls": "Python + onnxruntime OCR classifier (same model.py), dynamic batching",
             "ort_ocr_cls": "inferd ONNX Runtime backend vs Triton Python + onnxruntime, "
                            "dynamic batching"}


def read_json(path):
    with open(path) as f:
        return json.loads(f.read().strip().splitlines()[-1])


def load(directory):
    pa, starts, mem = {}, {}, {}
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        try:
            if m := PA_FILE.match(name):
                key = (m["row"], m["protocol"], int(m["c"]), m["server"])
                pa.setdefault(key, {})[int(m["r"])] = report.read_pa(path)
            elif m := STARTUP_FILE.match(name):
                starts.setdefault(m["server"], {})[int(m["r"])] = read_json(path)
            elif m := MEMORY_FILE.match(name):
                mem[m["server"]] = read_json(path)
        except (OSError, ValueError, KeyError, StopIteration, json.JSONDecodeError):
            pass  # a failed run: its cell shows as missing
    return pa, starts, mem


def goal_mark(values, ok):
    if not values:
        return ""
    return " ✓" if ok(statistics.median(values)) else " ✗"


def throughput_goal(protocol, c, row):
    """The issue's goal on inferd ÷ Triton throughput for this row, or None."""
    if c == 16 and row.startswith("py_"):
        return 2.0  # Python model throughput at concurrency 16 >= 2x Triton's
    if c == 16 and protocol == "grpc":
        return 2.0  # gRPC throughput per server core >= 2x Triton's
    return None


def peer_tables(pa):
    keys = sorted({(row, p, c) for (row, p, c, s) in pa},
                  key=lambda k: (list(ROWS).index(k[0]) if k[0] in ROWS else 9, k[1] != "http", k[2]))
    figures = ["| row | protocol | conc. | inferd infer/s | inferd p50 µs | inferd p99 µs "
               "| Triton infer/s | Triton p50 µs | Triton p99 µs |",
               "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    ratio = ["| row | protocol | conc. | infer/s ÷ Triton | p50 ÷ Triton | p99 ÷ Triton |",
             "|---|---|---:|---:|---:|---:|"]
    for row, protocol, c in keys:
        inferd = pa.get((row, protocol, c, "inferd"), {})
        triton = pa.get((row, protocol, c, "triton"), {})
        cells = [row, protocol, str(c)]
        for data in (inferd, triton):
            cells += [report.fmt([v[f] for v in data.values()]) for f in ("thr", "p50", "p99")]
        figures.append("| " + " | ".join(cells) + " |")
        thr = report.ratios(inferd, triton, "thr")
        p50 = report.ratios(inferd, triton, "p50")
        goal = throughput_goal(protocol, c, row)
        thr_cell = report.fmt(thr, 2, "×")
        if goal:
            thr_cell += goal_mark(thr, lambda v: v >= goal) + f" (goal ≥ {goal:g}×)"
        p50_cell = report.fmt(p50, 2, "×")
        if c == 1 and row.startswith("py_"):
            p50_cell += goal_mark(p50, lambda v: v <= 0.7) + " (goal ≤ 0.7×)"
        ratio.append("| " + " | ".join([row, protocol, str(c), thr_cell, p50_cell,
                                        report.fmt(report.ratios(inferd, triton, "p99"), 2, "×")])
                     + " |")
    return figures, ratio


def startup_table(starts, mem):
    lines = ["| | inferd | Triton | inferd ÷ Triton |", "|---|---:|---:|---:|"]
    for field, label, digits in (("ready_s", "start-up to ready, s", 2),
                                 ("rss_mib", "RSS at ready, MiB (process tree)", 0),
                                 ("pss_mib", "PSS at ready, MiB (process tree)", 0),
                                 ("processes", "processes", 0)):
        a = {r: v for r, v in starts.get("inferd", {}).items()}
        b = {r: v for r, v in starts.get("triton", {}).items()}
        lines.append(f"| {label} | {report.fmt([v[field] for v in a.values()], digits)} "
                     f"| {report.fmt([v[field] for v in b.values()], digits)} "
                     f"| {report.fmt(report.ratios(a, b, field), 2, '×')} |")
    if mem:
        # inferd also holds ort_ocr_cls (an ONNX Runtime session) here: not the same repository.
        for field, label in (("rss_mib", "RSS after the load above, MiB (inferd: + ort_ocr_cls)"),
                             ("pss_mib", "PSS after the load above, MiB (inferd: + ort_ocr_cls)")):
            a, b = mem.get("inferd"), mem.get("triton")
            ratio = f"{a[field] / b[field]:.2f}×" if a and b and b[field] else "–"
            lines.append(f"| {label} | {a[field]:,.0f} | {b[field]:,.0f} | {ratio} |"
                         if a and b else f"| {label} | – | – | – |")
    return lines


def summarize(args):
    pa, starts, mem = load(args.directory)
    info = dict(kv.split("=", 1) for kv in args.meta)
    text = [f"# inferd beside Triton, {info.get('date', '?')}", ""]
    text += [f"- {k}: {v}" for k, v in info.items() if k != "date"]
    text += ["- rows: " + "; ".join(f"`{k}`: {v}" for k, v in ROW_NOTES.items()), "",
             "Figures: median (min–max) over the repeats; † = spread over 10 % of the median. "
             "Latencies in µs.", ""]
    figures, ratio = peer_tables(pa)
    text += figures
    text += ["", "inferd ÷ Triton, computed per repeat (both measured back to back), then median "
             "(min–max). Above 1× is better for infer/s, below 1× for latency; ✓/✗ against "
             "issue 16's goals.", ""]
    text += ratio
    text += ["", "Start-up and memory, the same repository (py_identity, py_ocr_cls) on both:", ""]
    text += startup_table(starts, mem)
    report.write_report(text, args.out)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command_name", required=True)
    p = sub.add_parser("unpack")
    p.add_argument("wheel")
    p.add_argument("directory")
    p.set_defaults(run=unpack)
    p = sub.add_parser("models")
    p.add_argument("--shared", required=True)
    p.add_argument("--native", required=True)
    p.add_argument("--onnx", required=True)
    p.set_defaults(run=models)
    p = sub.add_parser("startup")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--timeout", type=float, default=90)
    p.add_argument("--settle", type=float, default=1.0)
    p.add_argument("command", nargs=argparse.REMAINDER)
    p.set_defaults(run=startup)
    p = sub.add_parser("memory")
    p.add_argument("--pid", type=int, required=True)
    p.add_argument("--out", required=True)
    p.set_defaults(run=memory_cmd)
    p = sub.add_parser("summarize")
    p.add_argument("directory")
    p.add_argument("--out")
    p.add_argument("--meta", nargs="*", default=[])
    p.set_defaults(run=summarize)
    args = parser.parse_args()
    if getattr(args, "command", None) and args.command[:1] == ["--"]:
        args.command = args.command[1:]
    args.run(args)


if __name__ == "__main__":
    main()
