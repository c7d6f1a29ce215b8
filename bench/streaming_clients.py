# SPDX-License-Identifier: Apache-2.0
"""The tritonclient side of `make bench-streaming` (bench/streaming.py): client
processes pinned to the client core, each with its own gRPC channel, running
closed-loop windows of unary calls, of requests over one stream (simple, the
decoupled repeat_int32) or of one Silero VAD stream (sequences over the
pocketsphinx recordings, one chunk in flight)."""
import multiprocessing
import os
import queue
import signal
import time

SEED = 42
VAD = "silero_vad"
REPEAT = "repeat_int32"
WINDOWS = {"stream": 1, "stream_w8": 8}  # requests in flight on the stream targets


class StreamCaller:
    """One gRPC channel: unary calls, or one stream with `window` requests in flight.
    call_window() runs a closed loop for a window and returns what it did."""

    def __init__(self, url):
        import numpy as np
        import tritonclient.grpc as grpcclient
        self.np, self.grpc = np, grpcclient
        self.client = grpcclient.InferenceServerClient(url)
        rng = np.random.default_rng(SEED)
        self.simple = []
        for name in ("INPUT0", "INPUT1"):
            tensor = grpcclient.InferInput(name, [1, 16], "INT32")
            tensor.set_data_from_numpy(rng.integers(0, 100, (1, 16), dtype=np.int32))
            self.simple.append(tensor)
        self.answers = queue.Queue()
        self.streaming = False
        self.counter = 0

    def repeat_inputs(self, n):
        tensor = self.grpc.InferInput("IN", [n], "INT32")
        tensor.set_data_from_numpy(self.np.arange(n, dtype=self.np.int32))
        return [tensor]

    def start_stream(self):
        if not self.streaming:
            self.client.start_stream(callback=lambda result, error: self.answers.put((time.monotonic_ns(), result, error)))
            self.streaming = True

    def window(self, target, start_at, duration):
        clock = time.monotonic_ns
        while time.monotonic() < start_at:
            time.sleep(0.0005)
        deadline = int((start_at + duration) * 1e9)
        out = {"requests": 0, "responses": 0, "latencies": [], "errors": 0, "error_texts": set()}
        if target == "unary":
            while True:
                t0 = clock()
                if t0 >= deadline:
                    break
                try:
                    self.client.infer("simple", self.simple)
                except Exception as e:  # noqa: BLE001  counted, not fatal
                    out["errors"] += 1
                    out["error_texts"].add(str(e).strip()[:200])
                    continue
                t1 = clock()
                if t1 <= deadline:
                    out["requests"] += 1
                    out["responses"] += 1
                    out["latencies"].append((t1 - t0) / 1e3)
            return out
        self.start_stream()
        if target.startswith("repeat_"):
            model, per_request, window = REPEAT, int(target.split("_")[1]), 1
            inputs = self.repeat_inputs(per_request)
        else:
            model, per_request, window = "simple", 1, WINDOWS[target]
            inputs = self.simple
        pending = {}  # request id -> (sent at, responses still due)

        def send():
            self.counter += 1
            rid = str(self.counter)
            pending[rid] = [clock(), per_request]
            self.client.async_stream_infer(model, inputs, request_id=rid)

        for _ in range(window):
            send()
        while pending:
            at, result, error = self.answers.get(timeout=60)
            if error is not None:
                out["errors"] += 1
                out["error_texts"].add(str(error).strip()[:200])
                # an error answers its request (the id travels with it when there is one)
                rid = next(iter(pending))
                pending.pop(rid)
            else:
                rid = result.get_response().id
                entry = pending[rid]
                entry[1] -= 1
                if at <= deadline:
                    out["responses"] += 1
                if entry[1] > 0:
                    continue
                pending.pop(rid)
                if at <= deadline:
                    out["requests"] += 1
                    out["latencies"].append((at - entry[0]) / 1e3)
            if clock() < deadline:
                send()
        return out

    def vad_window(self, chunks, start_at, duration, state):
        """One VAD stream (sequences over the recordings, one chunk in flight) for a
        window; the open sequence is ended afterwards (an extra chunk, not counted)."""
        self.start_stream()
        clock = time.monotonic_ns
        while time.monotonic() < start_at:
            time.sleep(0.0005)
        deadline = int((start_at + duration) * 1e9)
        out = {"requests": 0, "responses": 0, "latencies": [], "errors": 0, "error_texts": set()}
        while True:
            t0 = clock()
            if t0 >= deadline:
                break
            recording, position = state["recording"], state["position"]
            if position == 0:
                state["sequence"] += 1
            chunk = chunks[recording][position]
            last = position == len(chunks[recording]) - 1
            self._vad_send(chunk, state["sequence"], position == 0, last)
            at, result, error = self.answers.get(timeout=60)
            if error is not None:
                out["errors"] += 1
                out["error_texts"].add(str(error).strip()[:200])
            elif at <= deadline:
                out["requests"] += 1
                out["responses"] += 1
                out["latencies"].append((at - t0) / 1e3)
            state["position"] = 0 if last else position + 1
            if last:
                state["recording"] = (recording + 1) % len(chunks)
        if state["position"] > 0:  # end the open sequence so that it frees its slot
            self._vad_send(self.np.zeros(len(chunks[0][0]), self.np.float32), state["sequence"], False, True)
            self.answers.get(timeout=60)
            state["position"] = 0
        return out

    def _vad_send(self, chunk, sequence, start, end):
        tensor = self.grpc.InferInput("audio", [1, chunk.size], "FP32")
        tensor.set_data_from_numpy(chunk.reshape(1, -1))
        self.client.async_stream_infer(VAD, [tensor], sequence_id=sequence, sequence_start=start,
                                       sequence_end=end)

    def close(self):
        if self.streaming:
            self.client.stop_stream()
        self.client.close()


def worker_main(connection, index, client_core, url):
    os.sched_setaffinity(0, {client_core})
    signal.signal(signal.SIGTERM, lambda *_: os._exit(143))
    caller = StreamCaller(url)
    vad_chunks, vad_state = None, {"recording": index % 3, "position": 0, "sequence": (index + 1) * 10**9}
    while True:
        command = connection.recv()
        if command is None:
            break
        target, start_at, duration = command
        if target == "vad":
            if vad_chunks is None:
                import vad_core
                vad_chunks = [vad_core.chunks(vad_core.recording(n)[0]) for n in vad_core.RECORDINGS]
            out = caller.vad_window(vad_chunks, start_at, duration, vad_state)
        else:
            out = caller.window(target, start_at, duration)
        out["error_texts"] = sorted(out["error_texts"])[:3]
        connection.send(out)
    caller.close()


class Clients:
    """C client processes on the client core, each with its own channel."""

    def __init__(self, count, client_core, url):
        context = multiprocessing.get_context("spawn")
        self.connections, self.processes = [], []
        for i in range(count):
            mine, theirs = context.Pipe()
            process = context.Process(target=worker_main, args=(theirs, i, client_core, url), daemon=True)
            process.start()
            self.connections.append(mine)
            self.processes.append(process)

    def run(self, target, concurrency, duration):
        start_at = time.monotonic() + 0.05
        used = self.connections[:concurrency]
        for c in used:
            c.send((target, start_at, duration))
        parts = [c.recv() for c in used]
        return {"requests": sum(p["requests"] for p in parts), "responses": sum(p["responses"] for p in parts),
                "latencies": [v for p in parts for v in p["latencies"]], "seconds": duration,
                "errors": sum(p["errors"] for p in parts),
                "error_texts": sorted({t for p in parts for t in p["error_texts"]})}

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


