# SPDX-License-Identifier: Apache-2.0
"""The tables of `make bench-streaming`: bench/streaming.py summarize reads the JSON
files its run wrote (one per repeat and part) and writes the markdown report
(docs/benchmarks.md, "make bench-streaming", explains the columns)."""
import glob
import json
import os

from report import fmt, write_report  # (median (min–max) †)
from streaming import STREAM_TARGETS, VAD

def load(directory, part):
    runs = []
    for path in sorted(glob.glob(os.path.join(directory, f"{part}_*.json"))):
        try:
            with open(path) as f:
                runs.append(json.load(f))
        except (OSError, json.JSONDecodeError):
            pass
    return runs


def each(repeats, fn):
    values = []
    for r in repeats:
        try:
            v = fn(r)
        except (KeyError, TypeError, ZeroDivisionError, StopIteration, IndexError):
            continue
        if v is not None:
            values.append(v)
    return values


def total(values):
    return f"{sum(values):,}" if values else "–"


def cell(r, **match):
    return next(x for x in r["runs"] if all(x.get(k) == v for k, v in match.items()) and "error" not in x)


def inproc(r, batch):
    return next(x for x in r["inprocess"]["runs"] if x["batch"] == batch)


def stream_tables(repeats):
    concurrencies = sorted({x["concurrency"] for r in repeats for x in r["runs"]})
    text = ["", "### perf_analyzer (C++ client): simple, unary gRPC against a gRPC stream", "",
            "| conc. | unary infer/s | stream infer/s | stream ÷ unary | unary p50 µs | stream p50 µs "
            "| unary p99 µs | stream p99 µs | inferd CPU µs per request: unary / stream |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for c in concurrencies:
        def pa(r, mode, key, c=c):
            return cell(r, client="perf_analyzer", target=mode, concurrency=c)[key]

        def cpu(r, mode, c=c):
            x = cell(r, client="perf_analyzer", target=mode, concurrency=c)
            return x["server_cpu_s"] * 1e6 / x["inferences"]
        text.append(f"| {c} | {fmt(each(repeats, lambda r: pa(r, 'unary', 'per_s')))} "
                    f"| {fmt(each(repeats, lambda r: pa(r, 'stream', 'per_s')))} "
                    f"| {fmt(each(repeats, lambda r: pa(r, 'stream', 'per_s') / pa(r, 'unary', 'per_s')), 2, '×')} "
                    f"| {fmt(each(repeats, lambda r: pa(r, 'unary', 'p50_us')))} "
                    f"| {fmt(each(repeats, lambda r: pa(r, 'stream', 'p50_us')))} "
                    f"| {fmt(each(repeats, lambda r: pa(r, 'unary', 'p99_us')))} "
                    f"| {fmt(each(repeats, lambda r: pa(r, 'stream', 'p99_us')))} "
                    f"| {fmt(each(repeats, lambda r: cpu(r, 'unary')))} / {fmt(each(repeats, lambda r: cpu(r, 'stream')))} |")
    text += ["", "### tritonclient (Python): responses per second, streams against unary calls", "",
             "C client processes, each its own channel; a request's latency runs from its send to its "
             "last response. ÷ unary: responses/s against `unary` at the same concurrency, same repeat.",
             "", "| target | what | conc. | requests/s | responses/s | ÷ unary | p50 µs | p99 µs "
             "| client core busy | errors |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    targets = [t for t in STREAM_TARGETS if any(x.get("target") == t and x["client"] == "tritonclient"
                                                 for r in repeats for x in r["runs"])]
    for t in targets:
        for c in concurrencies:
            def tc(r, key, target=t, c=c):
                return cell(r, client="tritonclient", target=target, concurrency=c)[key]
            text.append(
                f"| {t} | {STREAM_TARGETS[t][1]} | {c} | {fmt(each(repeats, lambda r: tc(r, 'requests_per_s')))} "
                f"| {fmt(each(repeats, lambda r: tc(r, 'responses_per_s')))} "
                f"| {fmt(each(repeats, lambda r: tc(r, 'responses_per_s') / tc(r, 'responses_per_s', 'unary')), 2, '×')} "
                f"| {fmt(each(repeats, lambda r: tc(r, 'p50_us')))} | {fmt(each(repeats, lambda r: tc(r, 'p99_us')))} "
                f"| {fmt(each(repeats, lambda r: tc(r, 'client_core_busy') * 100), 0, ' %')} "
                f"| {sum(each(repeats, lambda r: tc(r, 'errors')))} |")
    return text


def vad_tables(repeats):
    streams = sorted({x["streams"] for r in repeats for x in r["runs"] if x["client"] == "perf_analyzer"})
    rtf = 0.032  # seconds of audio per chunk

    def pa(r, s, key):
        return cell(r, client="perf_analyzer", streams=s)[key]

    text = ["", "### (b) Real-time factor: audio seconds answered per wall second, all streams together", "",
            "Served: perf_analyzer in sequence mode over gRPC streams, one chunk in flight per stream "
            "(failed requests: the server's fail count over the runs, all repeats). "
            "In-process: bench/vad_inprocess.py, the S streams as one batch (what a program that "
            "batches its streams itself gets on the server's core) and one stream at batch 1. "
            "Ratios per repeat.", "",
            "| streams S | served RTF | per stream | chunk p50 ms | chunk p99 ms | formed batch "
            "| in-process RTF, batch S | in-process RTF, batch 1 | served ÷ in-process (batch S) "
            "| served ÷ in-process (batch 1) | failed requests |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in streams:
        text.append(
            f"| {s} | {fmt(each(repeats, lambda r: pa(r, s, 'per_s') * rtf), 0, '×')} "
            f"| {fmt(each(repeats, lambda r: pa(r, s, 'per_s') * rtf / s), 1, '×')} "
            f"| {fmt(each(repeats, lambda r: pa(r, s, 'p50_us') / 1e3), 2)} "
            f"| {fmt(each(repeats, lambda r: pa(r, s, 'p99_us') / 1e3), 2)} "
            f"| {fmt(each(repeats, lambda r: pa(r, s, 'formed_batch')), 1)} "
            f"| {fmt(each(repeats, lambda r: inproc(r, s)['rtf']), 0, '×')} "
            f"| {fmt(each(repeats, lambda r: inproc(r, 1)['rtf']), 0, '×')} "
            f"| {fmt(each(repeats, lambda r: pa(r, s, 'per_s') * rtf / inproc(r, s)['rtf']), 2, '×')} "
            f"| {fmt(each(repeats, lambda r: pa(r, s, 'per_s') * rtf / inproc(r, 1)['rtf']), 2, '×')} "
            f"| {total(each(repeats, lambda r: pa(r, s, 'server_failures')))} |")
    py = each(repeats, lambda r: cell(r, client="tritonclient", streams=1))
    if py:
        text += ["", "One tritonclient stream (Python, as the README's client sends it, one chunk in flight): "
                 f"RTF {fmt([x['responses_per_s'] * rtf for x in py], 0, '×')}, chunk p50 "
                 f"{fmt([x['p50_us'] / 1e3 for x in py], 2)} ms, p99 {fmt([x['p99_us'] / 1e3 for x in py], 2)} ms, "
                 f"client core busy {fmt([x['client_core_busy'] * 100 for x in py], 0, ' %')}, "
                 f"errors {sum(x['errors'] for x in py)}."]
    text += ["", "### (c) Sequence batching (`oldest`) against in-process at the formed batch", "",
             "Formed batch = inferences ÷ executions from GET /v2/models/silero_vad/stats over the run; "
             "in-process at that batch size rounded (same repeat). Served compute input / infer / output: "
             "the server's statistics per request, each request of a batch recording its batch's times "
             "(so they are per execution): gathering the inputs and states, the model call, scattering "
             "the outputs and states; wall time on the server's core, which the gRPC threads share. CPU per chunk: inferd's user + system time over the run ÷ chunks; in-process: one "
             "thread's wall time ÷ chunks.", "",
             "| streams S | formed batch | served chunks/s | in-process chunks/s at that batch "
             "| served ÷ in-process | served compute input / infer / output µs | in-process call µs p50 "
             "| inferd CPU µs per chunk | in-process µs per chunk |", "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in streams:
        def at_formed(r, s=s):
            return inproc(r, max(1, round(pa(r, s, "formed_batch"))))
        text.append(
            f"| {s} | {fmt(each(repeats, lambda r: pa(r, s, 'formed_batch')), 1)} "
            f"| {fmt(each(repeats, lambda r: pa(r, s, 'per_s')))} "
            f"| {fmt(each(repeats, lambda r: at_formed(r)['chunks_per_s']))} "
            f"| {fmt(each(repeats, lambda r: pa(r, s, 'per_s') / at_formed(r)['chunks_per_s']), 2, '×')} "
            f"| {fmt(each(repeats, lambda r: pa(r, s, 'compute_input_us')))} / "
            f"{fmt(each(repeats, lambda r: pa(r, s, 'compute_infer_us')))} / "
            f"{fmt(each(repeats, lambda r: pa(r, s, 'compute_output_us')))} "
            f"| {fmt(each(repeats, lambda r: at_formed(r)['call_p50_us']))} "
            f"| {fmt(each(repeats, lambda r: pa(r, s, 'server_cpu_s') * 1e6 / pa(r, s, 'inferences')))} "
            f"| {fmt(each(repeats, lambda r: 1e6 / at_formed(r)['chunks_per_s']))} |")
    return text


def notes_list(directory, parts):
    notes = []
    try:
        with open(os.path.join(directory, "notes.json")) as f:
            notes += json.load(f)
    except (OSError, json.JSONDecodeError):
        pass
    for repeats in parts:
        for r in repeats:
            notes += r.get("notes", [])
            for x in r["runs"]:
                where = f"{x['client']} {x.get('target', VAD)} " + (
                    f"c={x['concurrency']}" if "concurrency" in x else f"streams={x['streams']}")
                if "error" in x:
                    notes.append(f"{where}: {x['error']}")
                notes += [f"{where}: {e}" for e in x.get("error_texts", [])]
            if "error" in r.get("inprocess", {}):
                notes.append(f"vad_inprocess: {r['inprocess']['error']}")
            notes += [f"server log: {w}" for w in r.get("log_warnings", [])]
    notes = list(dict.fromkeys(notes))
    return ["", "Notes:", ""] + [f"- {n}" for n in notes] if notes else []


def summarize(directory, out, meta):
    info = dict(kv.split("=", 1) for kv in meta)
    text = [f"# inferd streaming benchmark (gRPC streams, decoupled, Silero VAD sequences), {info.get('date', '?')}", ""]
    text += [f"- {k}: {v}" for k, v in info.items() if k != "date"]
    text += ["", "Figures: median (min–max) over the repeats; † = spread over 10 % of the median. Ratios "
             "are computed per repeat (conditions of the same repeat), then median (min–max)."]
    stream, vad = load(directory, "stream"), load(directory, "vad")
    if stream:
        text += ["", f"## (a) Responses per second: gRPC streams against unary calls ({len(stream)} repeat(s))"]
        text += stream_tables(stream)
    if vad:
        text += ["", f"## Silero VAD streams ({len(vad)} repeat(s))"]
        text += vad_tables(vad)
    if not stream and not vad:
        text += ["", "No repeat finished: no figures."]
    text += notes_list(directory, [stream, vad])
    write_report(text, out)


