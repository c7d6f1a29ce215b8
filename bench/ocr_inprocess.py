# SPDX-License-Identifier: Apache-2.0
"""The OCR pipeline of examples/models/ocr, done in ONE Python process with
onnxruntime: the reference that the served pipeline (the `ocr` ensemble:
ocr_det_pre → ocr_det → ocr_recognize with BLS to ocr_cls and ocr_rec) is
compared with. It calls the very same code, examples/models/ocr_recognize/1/
ocr_core.py, on the images tests/integration/ocr_images.py renders.

  taskset -c 0 .venv/bin/python bench/ocr_inprocess.py [--duration S] [--concurrency 1,8]

Each ONNX Runtime session has one intra-op thread (and one inter-op thread);
pin the process with taskset to give it the cores the server would get. At
each concurrency C, C threads share the three sessions (run() is thread-safe
and releases the GIL) and loop over the images for --duration seconds, after
--warmup passes. Prints one JSON object: images/s, latency p50/p99 (nearest
rank, as the other benchmarks), the mean time per stage of one serial pass,
and how many lines were read exactly.
"""
import argparse
import json
import os
import platform
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = os.path.join(ROOT, "examples", "models")
sys.path.insert(0, os.path.join(MODELS, "ocr_recognize", "1"))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import onnxruntime as ort  # noqa: E402
import PIL  # noqa: E402

import ocr_core  # noqa: E402
import ocr_images  # noqa: E402
from lifecycle_bench import percentile  # noqa: E402  (nearest rank)

OUTPUTS = {"ocr_det": "sigmoid_0.tmp_0", "ocr_cls": "softmax_0.tmp_0", "ocr_rec": "softmax_11.tmp_0"}


def session(name):
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    s = ort.InferenceSession(os.path.join(MODELS, name, "1", "model.onnx"), options,
                             providers=["CPUExecutionProvider"])
    output = OUTPUTS[name]
    return lambda x: s.run([output], {"x": x})[0]


def timed(function, totals, key):
    """`function`, adding the seconds each call takes to totals[key]."""
    def call(x):
        start = time.perf_counter()
        try:
            return function(x)
        finally:
            totals[key] = totals.get(key, 0.0) + time.perf_counter() - start
    return call


def stage_times(images, networks, charset, rec_batch_lines):
    """Milliseconds per image in each stage, over one serial pass."""
    totals = {}
    staged = ocr_core.Networks(timed(networks.detect, totals, "det"),
                               timed(networks.classify, totals, "cls"),
                               timed(networks.recognise, totals, "rec"))
    for image in images:
        start = time.perf_counter()
        decoded = ocr_core.decode_image(image.data)
        x, shape = ocr_core.det_preprocess(decoded)
        totals["decode_and_det_pre"] = totals.get("decode_and_det_pre", 0.0) + \
            time.perf_counter() - start
        prob = staged.detect(x)
        start = time.perf_counter()
        ocr_core.recognise_lines(decoded, prob, shape, staged, charset,
                                 rec_batch_lines=rec_batch_lines)
        totals["recognise_total"] = totals.get("recognise_total", 0.0) + time.perf_counter() - start
    totals["post_crop_ctc"] = totals.pop("recognise_total") - totals["cls"] - totals["rec"]
    return {key: round(value * 1000 / len(images), 2) for key, value in totals.items()}


def accuracy(images, networks, charset, rec_batch_lines):
    lines = exact = 0
    misread = []
    for image in images:
        text = ocr_core.run_ocr(image.data, networks, charset, rec_batch_lines=rec_batch_lines).text
        lines += len(image.lines)
        if len(text) == len(image.lines):  # else a line was lost or split: none counts
            exact += sum(1 for read, drawn in zip(text, image.lines) if read == drawn)
        if text != image.lines:
            misread.append({"image": image.name, "read": text, "drawn": image.lines})
    return {"lines": lines, "exact": exact, "misread": misread}


def measure(images, networks, charset, rec_batch_lines, concurrency, duration):
    """C threads, each looping over the images (starting at a different one)
    until `duration` has passed; every finished image's latency."""
    latencies = [[] for _ in range(concurrency)]
    deadline = time.perf_counter() + duration

    def worker(index):
        i = index
        while time.perf_counter() < deadline:
            start = time.perf_counter()
            ocr_core.run_ocr(images[i % len(images)].data, networks, charset,
                             rec_batch_lines=rec_batch_lines)
            latencies[index].append(time.perf_counter() - start)
            i += 1

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(concurrency)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - started
    every = [v for per_thread in latencies for v in per_thread]
    return {
        "concurrency": concurrency,
        "images": len(every),
        "seconds": round(elapsed, 3),
        "images_per_s": round(len(every) / elapsed, 2),
        "p50_ms": round(percentile(every, 50) * 1000, 2),
        "p99_ms": round(percentile(every, 99) * 1000, 2),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per concurrency")
    parser.add_argument("--concurrency", default="1,8", help="comma-separated thread counts")
    parser.add_argument("--warmup", type=int, default=2, help="serial passes over the images first")
    parser.add_argument("--rec-batch-lines", type=int, default=ocr_core.REC_BATCH_LINES,
                        help="lines per recogniser call (0: all of an image's; "
                             "ocr_recognize's rec_batch_lines)")
    args = parser.parse_args()

    images = ocr_images.all_images()
    networks = ocr_core.Networks(session("ocr_det"), session("ocr_cls"), session("ocr_rec"))
    charset = ocr_core.load_charset(os.path.join(MODELS, "ocr_recognize", "1", "ppocr_keys_v1.txt"))
    lines = args.rec_batch_lines
    for _ in range(args.warmup):
        for image in images:
            ocr_core.run_ocr(image.data, networks, charset, rec_batch_lines=lines)
    report = {
        "benchmark": "ocr_inprocess",
        "python": platform.python_version(),
        "numpy": np.__version__,
        "pillow": PIL.__version__,
        "onnxruntime": ort.__version__,
        "cpus": sorted(os.sched_getaffinity(0)),
        "images": [{"name": im.name, "size": list(im.size), "lines": len(im.lines),
                    "bytes": len(im.data)} for im in images],
        "rec_batch_lines": lines,
        "accuracy": accuracy(images, networks, charset, lines),
        "stage_ms_per_image": stage_times(images, networks, charset, lines),
        "runs": [measure(images, networks, charset, lines, int(c), args.duration)
                 for c in args.concurrency.split(",")],
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
