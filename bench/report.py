# SPDX-License-Identifier: Apache-2.0
"""Helpers of bench/run.sh (standard library only; run with .venv/bin/python).

  report.py free-ports N                      N free TCP ports on 127.0.0.1
  report.py describe MODEL CONFIG.json|-      how to load MODEL in each tool, from the
                                              configuration inferd serves ("-": the
                                              built-in copy, when inferd is not there)
  report.py summarize DIR --out FILE --meta K=V ...
                                              the markdown tables, from the perf_analyzer
                                              CSVs and ort_inprocess JSONs in DIR
"""
import argparse
import csv
import json
import os
import re
import socket
import statistics
import sys

# Shapes of the variable (non-batch) dims, the same for every tool. PaddleOCR
# feeds its direction classifier 3x48x192 images.
VARIABLE_DIMS = {"ocr_cls": {"x": [3, 48, 192]}}

# What inferd serves for the example models (GET /v2/models/M/config, trimmed),
# used when inferd is not available so that the other columns still run.
FALLBACK_CONFIGS = {
    "simple": {
        "name": "simple", "max_batch_size": 8,
        "input": [{"name": "INPUT0", "data_type": "TYPE_INT32", "dims": [16]},
                  {"name": "INPUT1", "data_type": "TYPE_INT32", "dims": [16]}],
        "output": [{"name": "OUTPUT0", "data_type": "TYPE_INT32", "dims": [16]},
                   {"name": "OUTPUT1", "data_type": "TYPE_INT32", "dims": [16]}],
        "instance_group": [{"count": 1, "kind": "KIND_CPU"}],
    },
    "ocr_cls": {
        "name": "ocr_cls", "max_batch_size": 4,
        "input": [{"name": "x", "data_type": "TYPE_FP32", "dims": [3, -1, -1]}],
        "output": [{"name": "softmax_0.tmp_0", "data_type": "TYPE_FP32", "dims": [2]}],
        "instance_group": [{"count": 2, "kind": "KIND_CPU"}],
    },
}


def free_ports(count):
    sockets, ports = [], []
    for _ in range(count):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        sockets.append(s)
        ports.append(s.getsockname()[1])
    for s in sockets:
        s.close()
    print(" ".join(str(p) for p in ports))


def protocol_datatype(config_type):
    name = config_type.removeprefix("TYPE_")
    return "BYTES" if name == "STRING" else name


def describe(model, config_path):
    """Prints KEY=VALUE lines: echo_args, pa_args, ort_args, instances, max_batch_size."""
    if config_path == "-":
        config = FALLBACK_CONFIGS[model]
    else:
        with open(config_path) as f:
            config = json.load(f)
    batching = config.get("max_batch_size", 0) > 0
    fixed = VARIABLE_DIMS.get(model, {})
    echo_args = ["--model", model, "--max-batch-size", str(config.get("max_batch_size", 0))]
    pa_args, ort_args = [], []
    for tensor in config["input"]:
        dims = [int(d) for d in tensor["dims"]]
        echo_args += ["--input", f"{tensor['name']}:{protocol_datatype(tensor['data_type'])}:"
                      + ",".join(str(d) for d in dims)]
        if any(d < 0 for d in dims):
            if tensor["name"] not in fixed:
                sys.exit(f"report.py: input '{tensor['name']}' of '{model}' has variable dims; "
                         "add it to VARIABLE_DIMS")
            dims = fixed[tensor["name"]]
            pa_args += ["--shape", f"{tensor['name']}:" + ",".join(str(d) for d in dims)]
        full = ([1] if batching else []) + dims
        ort_args += ["--shape", f"{tensor['name']}:" + ",".join(str(d) for d in full)]
    for tensor in config["output"]:
        echo_args += ["--output", f"{tensor['name']}:{protocol_datatype(tensor['data_type'])}:"
                      + ",".join(str(int(d)) for d in tensor["dims"])]
    instances = sum(int(g.get("count", 1)) for g in config.get("instance_group", [])) or 1
    print("echo_args=" + " ".join(echo_args))
    print("pa_args=" + " ".join(pa_args))
    print("ort_args=" + " ".join(ort_args))
    print(f"instances={instances}")
    print(f"max_batch_size={config.get('max_batch_size', 0)}")


# --- summarize ---------------------------------------------------------------------
# File names: pa_<model>_<protocol>_c<C>_<target>_r<R>.csv and ort_<model>_c<C>_r<R>.json.
PA_FILE = re.compile(r"pa_(?P<model>.+)_(?P<protocol>http|grpc)_c(?P<c>\d+)_(?P<target>inferd|bare)"
                     r"_r(?P<r>\d+)\.csv$")
ORT_FILE = re.compile(r"ort_(?P<model>.+)_c(?P<c>\d+)_r(?P<r>\d+)\.json$")


def read_pa(path):
    with open(path, newline="") as f:
        row = next(csv.DictReader(f))
    return {"thr": float(row["Inferences/Second"]), "p50": float(row["p50 latency"]),
            "p99": float(row["p99 latency"])}


def read_ort(path):
    with open(path) as f:
        data = json.loads(f.read().strip().splitlines()[-1])
    return {"thr": data["throughput"], "p50": data["p50_us"], "p99": data["p99_us"],
            "workers": data["workers"]}


def load(directory):
    """{(model, protocol|None, c, target): {repeat: figures}}"""
    runs = {}
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if m := PA_FILE.match(name):
            key = (m["model"], m["protocol"], int(m["c"]), m["target"])
            reader = read_pa
        elif m := ORT_FILE.match(name):
            key = (m["model"], None, int(m["c"]), "inprocess")
            reader = read_ort
        else:
            continue
        try:
            runs.setdefault(key, {})[int(m["r"])] = reader(path)
        except (OSError, ValueError, KeyError, StopIteration, json.JSONDecodeError):
            pass  # a failed run: its cell shows as missing
    return runs


def spread(values):
    """(median, min, max, flagged) of a list; flagged when (max-min)/median > 10 %."""
    med = statistics.median(values)
    lo, hi = min(values), max(values)
    return med, lo, hi, med > 0 and (hi - lo) / med > 0.10


def fmt(values, digits=0, suffix=""):
    if not values:
        return "–"
    med, lo, hi, flagged = spread(values)
    f = f"{{:,.{digits}f}}"
    text = f"{f.format(med)}{suffix} ({f.format(lo)}–{f.format(hi)})"
    return text + (" †" if flagged else "")


def ratios(num, den, field, den2=None, field2=None):
    """Per-repeat ratios num[field] / (den[field] [+ den2[field2]]), side by side."""
    out = []
    for r, a in num.items():
        if r not in den or (den2 is not None and r not in den2):
            continue
        b = den[r][field] + (den2[r][field2] if den2 is not None else 0)
        if b > 0:
            out.append(a[field] / b)
    return out


def differences(num, den, field):
    """Per-repeat differences num[field] - den[field]."""
    return [a[field] - den[r][field] for r, a in num.items() if r in den]


def rows(runs):
    keys = sorted({(m, p, c) for (m, p, c, t) in runs if p is not None},
                  key=lambda k: (k[0] != "simple", k[0], k[1] != "http", k[2]))
    for model, protocol, c in keys:
        yield (model, protocol, c, runs.get((model, protocol, c, "inferd"), {}),
               runs.get((model, protocol, c, "bare"), {}), runs.get((model, None, c, "inprocess"), {}))


def figures_table(runs):
    lines = ["| model | protocol | conc. | inferd infer/s | inferd p50 µs | inferd p99 µs "
             "| bare infer/s | bare p50 µs | bare p99 µs "
             "| in-process infer/s | in-process p50 µs | in-process p99 µs |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for model, protocol, c, inferd, bare, inproc in rows(runs):
        workers = {v["workers"] for v in inproc.values()}
        cells = [model, protocol, f"{c}"]
        for data in (inferd, bare, inproc):
            for field, digits in (("thr", 0), ("p50", 0), ("p99", 0)):
                cells.append(fmt([v[field] for v in data.values()], digits))
        if workers:
            cells[-3] += f" [{'/'.join(str(w) for w in sorted(workers))} w]"
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def ratio_table(runs):
    lines = ["| model | protocol | conc. | p50 ÷ bare p50 | p50 − bare p50 µs | p99 ÷ bare p99 "
             "| p50 ÷ (bare + in-process) p50 | infer/s ÷ in-process | infer/s ÷ bare |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for model, protocol, c, inferd, bare, inproc in rows(runs):
        p50 = fmt(ratios(inferd, bare, "p50"), 2, "×")
        if c == 1 and inferd and bare:
            med = statistics.median(ratios(inferd, bare, "p50") or [0])
            p50 += " ✓" if 0 < med <= 1.25 else " ✗"
        cells = [model, protocol, str(c), p50, fmt(differences(inferd, bare, "p50")),
                 fmt(ratios(inferd, bare, "p99"), 2, "×"),
                 fmt(ratios(inferd, bare, "p50", inproc, "p50"), 2, "×"),
                 fmt(ratios(inferd, inproc, "thr"), 2, "×"), fmt(ratios(inferd, bare, "thr"), 2, "×")]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def summarize(directory, out, meta):
    runs = load(directory)
    info = dict(kv.split("=", 1) for kv in meta)
    text = [f"# inferd benchmark, {info.get('date', '?')}", ""]
    text += [f"- {k}: {v}" for k, v in info.items() if k != "date"]
    text += ["", "Figures: median (min–max) over the repeats; † = spread over 10 % of the median. "
             "Latencies in µs; `[n w]` = in-process worker threads (one session each).", ""]
    text += figures_table(runs)
    text += ["", "Ratios, computed per repeat (inferd and its references measured side by side), "
             "then median (min–max). Goal: p50 ÷ bare p50 ≤ 1.25× at concurrency 1 (✓/✗).", ""]
    text += ratio_table(runs)
    markdown = "\n".join(text) + "\n"
    sys.stdout.write(markdown)
    if out:
        os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
        with open(out, "w") as f:
            f.write(markdown)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("free-ports")
    p.add_argument("count", type=int)
    p = sub.add_parser("describe")
    p.add_argument("model")
    p.add_argument("config")
    p = sub.add_parser("summarize")
    p.add_argument("directory")
    p.add_argument("--out")
    p.add_argument("--meta", nargs="*", default=[])
    args = parser.parse_args()
    if args.command == "free-ports":
        free_ports(args.count)
    elif args.command == "describe":
        describe(args.model, args.config)
    else:
        summarize(args.directory, args.out, args.meta)


if __name__ == "__main__":
    main()
