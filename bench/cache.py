# SPDX-License-Identifier: Apache-2.0
"""Helpers of bench/cache.sh (`make bench-cache`), the response cache benchmark.

  inputs DIR        writes perf_analyzer --input-data files for the `simple` model:
                    hot.json   one input, so every request after the first is a hit;
                    mix90.json 1000 steps, 9 of every 10 the hot input and the 10th a
                               different input each time: with a cache too small to
                               keep the cold inputs (bench/cache.sh gives it about ten
                               entries) until they come round again, 90 % of requests hit;
                    cold.json  1000 different inputs: every request misses (the cost of
                               looking up and inserting for nothing).
  hit-rate BEFORE AFTER   prints the hit rate between two statistics JSON files.
  summarize DIR --out FILE --meta K=V...  the markdown report.
"""
import argparse
import csv
import json
import pathlib
import re
import statistics
import sys

ELEMENTS = 16


def step(value):
    row = [value + i for i in range(ELEMENTS)]
    return {"INPUT0": {"content": row, "shape": [ELEMENTS]},
            "INPUT1": {"content": [1] * ELEMENTS, "shape": [ELEMENTS]}}


def inputs(directory):
    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    hot = step(0)
    mix = [hot if i % 10 else step(1000 + i) for i in range(1000)]
    files = {"hot": [hot], "mix90": mix, "cold": [step(100000 + i) for i in range(1000)]}
    for name, steps in files.items():
        (directory / f"{name}.json").write_text(json.dumps({"data": steps}))


def cache_counts(path):
    with open(path) as f:
        stats = json.load(f)["model_stats"][0]["inference_stats"]
    return int(stats["cache_hit"]["count"]), int(stats["cache_miss"]["count"])


def hit_rate(before, after):
    hits0, misses0 = cache_counts(before)
    hits1, misses1 = cache_counts(after)
    hits, misses = hits1 - hits0, misses1 - misses0
    return hits / (hits + misses) if hits + misses else None


# pa_<protocol>_c<C>_<case>_r<R>.csv (+ .before.json / .after.json for cached cases)
PA_FILE = re.compile(r"pa_(?P<protocol>http|grpc)_c(?P<c>\d+)_(?P<case>[a-z0-9_]+)_r(?P<r>\d+)\.csv$")
CASES = [
    ("bare", "bare round trip (echo_server)"),
    ("nocache", "inferd, no cache"),
    ("hit", "inferd, every request a hit"),
    ("mix90", "inferd, 90 % hits"),
    ("cold", "inferd, every request a miss"),
]


def read_pa(path):
    with open(path, newline="") as f:
        row = next(csv.DictReader(f))
    return float(row["Inferences/Second"]), float(row["p50 latency"]), float(row["p99 latency"])


def summarize(directory, out, meta):
    runs = {}
    rates = {}
    for path in sorted(pathlib.Path(directory).glob("pa_*.csv")):
        m = PA_FILE.match(path.name)
        if not m:
            continue
        key = (m["protocol"], int(m["c"]), m["case"])
        runs.setdefault(key, []).append(read_pa(path))
        before = path.with_suffix(".before.json")
        after = path.with_suffix(".after.json")
        if before.exists() and after.exists():
            rate = hit_rate(before, after)
            if rate is not None:
                rates.setdefault(key, []).append(rate)
    lines = ["# Response cache benchmark", ""]
    lines += [f"- {k}: {v}" for k, v in (item.split("=", 1) for item in meta)]
    lines += ["", "Medians over the repeats; latencies in µs; `×bare` is p50 over the bare "
              "round trip's p50 at the same protocol and concurrency; `×no cache` is throughput "
              "over inferd's without a cache.", "",
              "| protocol | concurrency | case | hit rate | p50 µs | p99 µs | ×bare p50 | "
              "infer/s | ×no cache infer/s |", "|---|---|---|---|---|---|---|---|---|"]
    for protocol in ("http", "grpc"):
        for c in sorted({k[1] for k in runs}):
            bare = runs.get((protocol, c, "bare"))
            nocache = runs.get((protocol, c, "nocache"))
            for case, label in CASES:
                values = runs.get((protocol, c, case))
                if not values:
                    continue
                thr = statistics.median(v[0] for v in values)
                p50 = statistics.median(v[1] for v in values)
                p99 = statistics.median(v[2] for v in values)
                rate = rates.get((protocol, c, case))
                rate_text = f"{100 * statistics.median(rate):.1f} %" if rate else "—"
                x_bare = f"{p50 / statistics.median(v[1] for v in bare):.2f}" if bare else "—"
                x_thr = (f"{thr / statistics.median(v[0] for v in nocache):.2f}"
                         if nocache and case != "bare" else "—")
                lines.append(f"| {protocol.upper() if protocol == 'http' else 'gRPC'} | {c} | "
                             f"{label} | {rate_text} | {p50:.0f} | {p99:.0f} | {x_bare} | "
                             f"{thr:.0f} | {x_thr} |")
    text = "\n".join(lines) + "\n"
    pathlib.Path(out).parent.mkdir(parents=True, exist_ok=True)
    pathlib.Path(out).write_text(text)
    sys.stdout.write(text)


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("inputs")
    p.add_argument("directory")
    p = sub.add_parser("hit-rate")
    p.add_argument("before")
    p.add_argument("after")
    p = sub.add_parser("summarize")
    p.add_argument("directory")
    p.add_argument("--out", required=True)
    p.add_argument("--meta", nargs="*", default=[])
    args = parser.parse_args()
    if args.command == "inputs":
        inputs(args.directory)
    elif args.command == "hit-rate":
        rate = hit_rate(args.before, args.after)
        print("n/a" if rate is None else f"{100 * rate:.1f}")
    else:
        summarize(args.directory, args.out, args.meta)


if __name__ == "__main__":
    main()
