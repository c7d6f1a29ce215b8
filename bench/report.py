# SPDX-License-Identifier: Apache-2.0
"""Helpers of bench/run.sh and bench/batching.sh (standard library only; run with
.venv/bin/python).

  report.py free-ports N                      N free TCP ports on 127.0.0.1
  report.py describe MODEL CONFIG.json|-      how to load MODEL in each tool, from the
                                              configuration inferd serves ("-": the
                                              built-in copy, when inferd is not there)
  report.py summarize DIR --out FILE --meta K=V ...
                                              the markdown tables, from the perf_analyzer
                                              CSVs and ort_inprocess JSONs in DIR
  report.py formed-batch BEFORE.json AFTER.json
                                              the mean batch size a model formed between
                                              two reads of its statistics, rounded (nothing
                                              and exit 1 when unknown)
  report.py summarize-batching DIR --out FILE --meta K=V ...
                                              the tables of bench/batching.sh
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
            "workers": data["workers"],
            "rows": data.get("rows_per_s", data["throughput"] * data.get("batch", 1))}


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


def write_report(lines, out):
    """Prints a markdown report and, when `out` is set, writes it there too."""
    markdown = "\n".join(lines) + "\n"
    sys.stdout.write(markdown)
    if out:
        os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
        with open(out, "w") as f:
            f.write(markdown)


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
    write_report(text, out)


# --- batching (bench/batching.sh) ---------------------------------------------------
# Files: variants.txt (NAME BASE MAX_BATCH DELAY_US ONNX ORT_SHAPE per line),
# pa_<base>_<variant>_c<C>_r<R>.csv, stats_<base>_<variant>_c<C>_r<R>_{before,after}.json,
# ort_<base>_b<B>_r<R>.json.
BATCH_PA_FILE = re.compile(r"pa_(?P<base>.+)_(?P<variant>direct|batched)_c(?P<c>\d+)_r(?P<r>\d+)\.csv$")
BATCH_STATS_FILE = re.compile(r"stats_(?P<base>.+)_(?P<variant>direct|batched)_c(?P<c>\d+)_r(?P<r>\d+)"
                              r"_before\.json$")
BATCH_ORT_FILE = re.compile(r"ort_(?P<base>.+)_b(?P<b>\d+)_r(?P<r>\d+)\.json$")
THROUGHPUT_GOAL = 0.9    # inferd infer/s >= 0.9 x in-process rows/s at the formed batch size
THROUGHPUT_GOAL_AT = 32  # ... at this concurrency


def batch_counts(path):
    """{batch_size: executions} from a Triton statistics JSON (all versions summed)."""
    with open(path) as f:
        data = json.load(f)
    counts = {}
    for model in data.get("model_stats", []):
        for stat in model.get("batch_stats", []):
            size = int(stat["batch_size"])
            counts[size] = counts.get(size, 0) + int(stat["compute_infer"]["count"])
    return counts


def formed_batches(before_path, after_path):
    """{batch_size: executions} between two reads of the statistics; None when unknown."""
    try:
        before, after = batch_counts(before_path), batch_counts(after_path)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    formed = {size: n - before.get(size, 0) for size, n in after.items() if n > before.get(size, 0)}
    return formed or None


def mean_batch(formed):
    executions = sum(formed.values())
    return sum(size * n for size, n in formed.items()) / executions


def rounded(value):
    return max(1, int(value + 0.5))


def formed_batch(before_path, after_path):
    formed = formed_batches(before_path, after_path)
    if formed is None:
        sys.exit(1)
    print(rounded(mean_batch(formed)))


def load_batching(directory):
    variants = {}
    with open(os.path.join(directory, "variants.txt")) as f:
        for line in f:
            name, base, max_batch, delay = line.split()[:4]
            variant = name.removeprefix(base + "_")
            variants[(base, variant)] = {"max_batch": int(max_batch), "delay_us": int(delay)}
    pa, formed, ort = {}, {}, {}
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        try:
            if m := BATCH_PA_FILE.match(name):
                pa.setdefault((m["base"], m["variant"], int(m["c"])), {})[int(m["r"])] = read_pa(path)
            elif m := BATCH_STATS_FILE.match(name):
                dist = formed_batches(path, path.replace("_before.json", "_after.json"))
                if dist is not None:
                    formed.setdefault((m["base"], m["variant"], int(m["c"])), {})[int(m["r"])] = dist
            elif m := BATCH_ORT_FILE.match(name):
                ort.setdefault((m["base"], int(m["b"])), {})[int(m["r"])] = read_ort(path)
        except (OSError, ValueError, KeyError, StopIteration, json.JSONDecodeError):
            pass  # a failed run: its cell shows as missing
    return variants, pa, formed, ort


def mark(values, ok):
    if not values:
        return ""
    return " ✓" if ok(statistics.median(values)) else " ✗"


def batching_tables(variants, pa, formed, ort):
    lines = ["| model | scheduler | conc. | inferd infer/s | inferd p50 µs | inferd p99 µs "
             "| formed batch: mean [sizes] | in-process rows/s @ formed batch "
             "| infer/s ÷ in-process | p99 goal µs | p99 ÷ goal |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    bases = list(dict.fromkeys(base for base, _ in variants))
    for base in bases:
        concurrencies = sorted({c for (b, _, c) in pa if b == base} | {c for (b, _, c) in formed if b == base})
        for c in concurrencies:
            for variant in ("direct", "batched"):
                if (base, variant) not in variants:
                    continue
                facts = variants[(base, variant)]
                runs = pa.get((base, variant, c), {})
                dists = formed.get((base, variant, c), {})
                scheduler = (f"batched, {facts['delay_us']:,} µs" if variant == "batched" else "direct")
                cells = [base, scheduler, str(c)]
                cells += [fmt([v[f] for v in runs.values()]) for f in ("thr", "p50", "p99")]
                # The formed batch: per repeat its mean; sizes seen over all repeats.
                means = [mean_batch(d) for d in dists.values()]
                sizes = sorted({s for d in dists.values() for s in d})
                cells.append(f"{statistics.median(means):.1f} [{sizes[0]}–{sizes[-1]}]" if means else "?")
                # In-process at the (rounded) mean formed batch of the same repeat; a
                # direct variant runs batch 1 by construction.
                reference, used = {}, set()
                for r in runs:
                    size = rounded(mean_batch(dists[r])) if r in dists else (1 if variant == "direct" else None)
                    if size is not None and r in ort.get((base, size), {}):
                        reference[r] = ort[(base, size)][r]
                        used.add(size)
                rows_cell = fmt([v["rows"] for v in reference.values()])
                if used:
                    rows_cell += " @" + "/".join(str(s) for s in sorted(used))
                cells.append(rows_cell)
                ratio = [runs[r]["thr"] / reference[r]["rows"] for r in reference if reference[r]["rows"] > 0]
                cells.append(fmt(ratio, 2, "×")
                             + (mark(ratio, lambda v: v >= THROUGHPUT_GOAL) if c == THROUGHPUT_GOAL_AT else ""))
                # p99 goal: max_queue_delay + 2 x the in-process time of a full batch.
                full = ort.get((base, facts["max_batch"]), {})
                goal = {r: facts["delay_us"] + 2 * full[r]["p50"] for r in runs if r in full}
                if variant == "batched" and goal:
                    over = [runs[r]["p99"] / goal[r] for r in goal]
                    cells += [fmt(list(goal.values())), fmt(over, 2, "×") + mark(over, lambda v: v <= 1.0)]
                else:
                    cells += ["–", "–"]
                lines.append("| " + " | ".join(cells) + " |")
    reference_lines = ["| model | batch | in-process calls/s | rows/s | p50 µs per call | p99 µs per call |",
                       "|---|---:|---:|---:|---:|---:|"]
    for (base, size) in sorted(ort, key=lambda k: (bases.index(k[0]) if k[0] in bases else 99, k[1])):
        data = ort[(base, size)]
        reference_lines.append("| " + " | ".join(
            [base, str(size)] + [fmt([v[f] for v in data.values()]) for f in ("thr", "rows", "p50", "p99")])
            + " |")
    return lines, reference_lines


def summarize_batching(directory, out, meta):
    variants, pa, formed, ort = load_batching(directory)
    info = dict(kv.split("=", 1) for kv in meta)
    table, reference = batching_tables(variants, pa, formed, ort)
    text = [f"# inferd dynamic batching benchmark, {info.get('date', '?')}", ""]
    text += [f"- {k}: {v}" for k, v in info.items() if k != "date"]
    text += ["", "Figures: median (min–max) over the repeats; † = spread over 10 % of the median. "
             "Latencies in µs. Ratios are computed per repeat (inferd and the in-process run of the "
             "same repeat), then median (min–max).",
             f"Goals: at concurrency {THROUGHPUT_GOAL_AT}, infer/s ÷ in-process ≥ {THROUGHPUT_GOAL} "
             "(✓/✗); p99 ≤ max_queue_delay + 2 × the in-process p50 of a full batch (✓/✗).", ""]
    text += table
    text += ["", "In-process reference (ort_inprocess, one session, intra-op 1), per batch size:", ""]
    text += reference
    write_report(text, out)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("free-ports")
    p.add_argument("count", type=int)
    p = sub.add_parser("describe")
    p.add_argument("model")
    p.add_argument("config")
    for name in ("summarize", "summarize-batching"):
        p = sub.add_parser(name)
        p.add_argument("directory")
        p.add_argument("--out")
        p.add_argument("--meta", nargs="*", default=[])
    p = sub.add_parser("formed-batch")
    p.add_argument("before")
    p.add_argument("after")
    args = parser.parse_args()
    if args.command == "free-ports":
        free_ports(args.count)
    elif args.command == "describe":
        describe(args.model, args.config)
    elif args.command == "formed-batch":
        formed_batch(args.before, args.after)
    elif args.command == "summarize-batching":
        summarize_batching(args.directory, args.out, args.meta)
    else:
        summarize(args.directory, args.out, args.meta)


if __name__ == "__main__":
    main()
