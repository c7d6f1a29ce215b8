# SPDX-License-Identifier: Apache-2.0
"""Silero VAD in ONE Python process with onnxruntime, no server: the reference
that examples/models/silero_vad served by inferd is compared with in
bench/streaming.sh (`make bench-streaming`). It runs the upstream
silero_vad.onnx through examples/silero_vad/vad_core.py's Reference, state and
context carried by hand, exactly as the tests' in-process loop does.

  taskset -c 0 .venv/bin/python bench/vad_inprocess.py [--batches 1,8,32] [--duration S]

For each batch size B, B streams advance together: one model call per step
takes one 512-sample chunk of each stream ([B, 576] with the context, state
[2, B, 128]), which is what the server's sequence batcher does at a formed
batch of B. Each stream plays the pocketsphinx recordings one after another
(stream b starts with recording b mod 3); when a recording ends, that stream's
row of state and context is reset, as a new sequence starts with the initial
state. One intra-op thread: pin the process with taskset to the server's core.
Prints one JSON object: per B, calls/s, chunks/s, the real-time factor
(audio seconds per wall second, all streams together) and per-call latency.
"""
import argparse
import json
import os
import platform
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "examples", "silero_vad"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402
import onnxruntime as ort  # noqa: E402

import vad_core  # noqa: E402
from lifecycle_bench import percentile  # noqa: E402  (nearest rank)


class Streams:
    """B streams of real speech, each cycling over the recordings."""

    def __init__(self, batch, recordings):
        self.recordings = recordings
        self.batch = batch
        self.which = [b % len(recordings) for b in range(batch)]
        self.position = [0] * batch

    def next_chunks(self, state, context):
        """[B, CHUNK] of the next chunk of every stream; resets the rows of streams
        that start a new recording (in place)."""
        out = np.empty((self.batch, vad_core.CHUNK), np.float32)
        for b in range(self.batch):
            chunks = self.recordings[self.which[b]]
            if self.position[b] == len(chunks):
                self.which[b] = (self.which[b] + 1) % len(self.recordings)
                self.position[b] = 0
                chunks = self.recordings[self.which[b]]
                state[:, b, :] = 0
                context[b, :] = 0
            out[b] = chunks[self.position[b]]
            self.position[b] += 1
        return out


def measure(reference, recordings, batch, duration, warmup_calls=20):
    streams = Streams(batch, recordings)
    state, context = reference.initial(batch)
    for _ in range(warmup_calls):
        _, state, context = reference.step(streams.next_chunks(state, context), state, context)
    latencies = []
    clock = time.perf_counter
    started = clock()
    deadline = started + duration
    while True:
        chunk = streams.next_chunks(state, context)
        t0 = clock()
        if t0 >= deadline:
            break
        _, state, context = reference.step(chunk, state, context)
        latencies.append(clock() - t0)
    elapsed = clock() - started  # the chunk preparation counts too: a stream has to cut its audio
    calls = len(latencies)
    return {
        "batch": batch,
        "calls": calls,
        "seconds": round(elapsed, 3),
        "calls_per_s": round(calls / elapsed, 1),
        "chunks_per_s": round(calls * batch / elapsed, 1),
        "rtf": round(calls * batch * vad_core.CHUNK_SECONDS / elapsed, 2),
        "call_p50_us": round(percentile(latencies, 50) * 1e6, 1),
        "call_p99_us": round(percentile(latencies, 99) * 1e6, 1),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batches", default="1,8,32", help="comma-separated batch sizes (streams per call)")
    parser.add_argument("--duration", type=float, default=3.0, help="seconds per batch size")
    args = parser.parse_args()
    if not vad_core.available():
        raise SystemExit("the Silero VAD model or the recordings are missing: run make setup")
    reference = vad_core.Reference()
    recordings = [vad_core.chunks(vad_core.recording(name)[0]) for name in vad_core.RECORDINGS]
    report = {
        "benchmark": "vad_inprocess",
        "python": platform.python_version(),
        "numpy": np.__version__,
        "onnxruntime": ort.__version__,
        "cpus": sorted(os.sched_getaffinity(0)),
        "model": str(vad_core.UPSTREAM_MODEL.relative_to(ROOT)),
        "recordings": {name: len(c) for name, c in zip(vad_core.RECORDINGS, recordings)},
        "runs": [measure(reference, recordings, int(b), args.duration) for b in args.batches.split(",")],
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
