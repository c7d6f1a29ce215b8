# SPDX-License-Identifier: Apache-2.0
"""Silero VAD (examples/models/silero_vad) served as a stateful sequence model:
real speech (Debian's pocketsphinx-testdata, fetched by make setup) streamed in
512-sample chunks with tritonclient, over a gRPC stream (start_stream /
async_stream_infer with sequence_id, sequence_start, sequence_end) and over
unary HTTP and gRPC sequence requests. The server keeps each sequence's state
and context (implicit state); the probabilities must equal the upstream model
run in-process chunk by chunk with the state carried by hand
(examples/silero_vad/vad_core.py), and the speech segments found in them must
match the recordings."""
import concurrent.futures
import itertools
import queue
import re
import subprocess
import sys

import numpy as np
import pytest
import requests
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

from conftest import EXAMPLES, ROOT

sys.path.insert(0, str(ROOT / "examples" / "silero_vad"))
import vad_core  # noqa: E402
from vad_core import CHUNK, SAMPLE_RATE, find_segments  # noqa: E402

MODEL = "silero_vad"
# Served and in-process runs use the same ONNX Runtime release and the wrapper only
# copies values, so the two agree to float rounding at most.
ATOL = 1e-5
RESPONSE_TIMEOUT_S = 60
_ids = itertools.count(1000)


def new_sequence_id():
    return next(_ids)


@pytest.fixture(scope="module", autouse=True)
def fetched():
    if not (EXAMPLES / MODEL / "1" / "model.onnx").exists() or not vad_core.available():
        pytest.fail("the Silero VAD model or the recordings are missing: run make setup")


@pytest.fixture(scope="module")
def reference():
    return vad_core.Reference()


@pytest.fixture(scope="module")
def speech(reference):
    """{name: (samples, transcription, chunks, in-process probabilities)}."""
    out = {}
    for name in vad_core.RECORDINGS:
        samples, words = vad_core.recording(name)
        out[name] = (samples, words, vad_core.chunks(samples), reference.probabilities(samples))
    return out


def audio_input(module, chunk):
    tensor = module.InferInput("audio", [1, CHUNK], "FP32")
    tensor.set_data_from_numpy(np.asarray(chunk, np.float32).reshape(1, CHUNK))
    return tensor


class Stream:
    """One gRPC stream (ModelStreamInfer); any number of sequences interleaved on it.
    Responses are collected by request id."""

    def __init__(self, url):
        self.client = grpcclient.InferenceServerClient(url)
        self.answers = queue.Queue()
        self.client.start_stream(callback=lambda result, error: self.answers.put((result, error)))
        self.sent = 0

    def send(self, sequence_id, chunk, start, end, request_id):
        self.client.async_stream_infer(MODEL, [audio_input(grpcclient, chunk)], request_id=request_id,
                                       sequence_id=sequence_id, sequence_start=start, sequence_end=end)
        self.sent += 1

    def send_sequence(self, sequence_id, chunks, tag=None):
        for i, chunk in enumerate(chunks):
            self.send(sequence_id, chunk, i == 0, i == len(chunks) - 1, f"{tag or sequence_id}/{i}")

    def collect(self, count=None):
        """{request id: probability} of `count` answers (default: all sent so far);
        an error answer fails the test."""
        got = {}
        for _ in range(self.sent if count is None else count):
            result, error = self.answers.get(timeout=RESPONSE_TIMEOUT_S)
            assert error is None, f"stream error: {error}"
            probability = result.as_numpy("probability")
            assert probability.dtype == np.float32 and probability.shape == (1, 1)
            got[result.get_response().id] = float(probability[0, 0])
        self.sent -= len(got) if count is None else 0
        return got

    def close(self):
        self.client.stop_stream()
        self.client.close()


def ordered(answers, tag, n):
    return np.array([answers[f"{tag}/{i}"] for i in range(n)], np.float32)


def stream_one(url, chunks):
    stream = Stream(url)
    try:
        sid = new_sequence_id()
        stream.send_sequence(sid, chunks)
        return ordered(stream.collect(), sid, len(chunks))
    finally:
        stream.close()


def unary(module, url, chunks):
    """One unary request per chunk (HTTP or gRPC infer with sequence parameters)."""
    client = module.InferenceServerClient(url)
    sid = new_sequence_id()
    out = []
    try:
        for i, chunk in enumerate(chunks):
            result = client.infer(MODEL, [audio_input(module, chunk)], sequence_id=sid,
                                  sequence_start=i == 0, sequence_end=i == len(chunks) - 1)
            out.append(result.as_numpy("probability")[0, 0])
    finally:
        client.close()
    return np.array(out, np.float32)


# --- the model as served ---------------------------------------------------------------


def test_the_model_is_a_sequence_model_with_implicit_state(server):
    with httpclient.InferenceServerClient(server.http_url) as client:
        assert client.is_model_ready(MODEL)
        metadata = client.get_model_metadata(MODEL)
        config = client.get_model_config(MODEL)
    # clients see the audio and the probability only: state and context stay in the server
    assert [(i["name"], i["datatype"], i["shape"]) for i in metadata["inputs"]] == [("audio", "FP32", [-1, 512])]
    assert [(o["name"], o["datatype"], o["shape"]) for o in metadata["outputs"]] == \
        [("probability", "FP32", [-1, 1])]
    batching = config["sequence_batching"]
    assert "oldest" in batching
    assert [(s["input_name"], s["output_name"]) for s in batching["state"]] == \
        [("state_in", "state_out"), ("context_in", "context_out")]


# --- one stream ------------------------------------------------------------------------


@pytest.mark.parametrize("name", vad_core.RECORDINGS)
def test_grpc_stream_equals_the_in_process_loop(server, speech, name):
    samples, words, chunks, expected = speech[name]
    streamed = stream_one(server.grpc_url, chunks)
    np.testing.assert_allclose(streamed, expected, rtol=0, atol=ATOL)
    assert find_segments(streamed, samples.size) == find_segments(expected, samples.size)


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_unary_sequence_requests_equal_the_in_process_loop(server, speech, protocol):
    samples, words, chunks, expected = speech["librivox-0880"]
    module, url = (httpclient, server.http_url) if protocol == "http" else (grpcclient, server.grpc_url)
    np.testing.assert_allclose(unary(module, url, chunks), expected, rtol=0, atol=ATOL)


def test_a_client_waiting_for_each_answer_gets_the_same(server, speech):
    """Chunks sent one at a time, each after the previous answer (a live microphone)."""
    samples, words, chunks, expected = speech["cards-001"]
    stream = Stream(server.grpc_url)
    got = []
    try:
        sid = new_sequence_id()
        for i, chunk in enumerate(chunks):
            stream.send(sid, chunk, i == 0, i == len(chunks) - 1, f"{sid}/{i}")
            got.append(stream.collect(1)[f"{sid}/{i}"])
    finally:
        stream.close()
    np.testing.assert_allclose(got, expected, rtol=0, atol=ATOL)


@pytest.mark.parametrize("name", vad_core.RECORDINGS)
def test_speech_segments_match_the_recordings(server, speech, name):
    """Each clip is one spoken utterance (the package's transcription): the segments
    found in the streamed probabilities cover most of it, leave both edges quiet, and
    lie where the signal is loud."""
    samples, words, chunks, _ = speech[name]
    seconds = samples.size / SAMPLE_RATE
    segments = find_segments(stream_one(server.grpc_url, chunks), samples.size)
    assert words and segments, name
    assert vad_core.speech_seconds(segments) >= 0.6 * seconds, segments
    assert segments[0].start_s >= 0.1 and segments[-1].end_s <= seconds - 0.05, segments
    level = vad_core.frame_energy_db(samples)
    floor = np.percentile(level, 5)
    for s in segments:
        assert level[s.start // CHUNK:-(-s.end // CHUNK)].mean() > floor + 15, s
    if name == "librivox-0870":  # 7.1 s of continuous reading: one long stretch of speech
        assert max(s.seconds for s in segments) >= 5.0, segments


def test_silence_and_noise_give_no_speech(server):
    rng = np.random.default_rng(11)
    for samples in (np.zeros(2 * SAMPLE_RATE, np.float32),
                    (0.003 * rng.standard_normal(2 * SAMPLE_RATE)).astype(np.float32)):
        probabilities = stream_one(server.grpc_url, vad_core.chunks(samples))
        assert find_segments(probabilities, samples.size) == [], probabilities.max()
        assert probabilities.max() < 0.2


# --- state kept apart --------------------------------------------------------------------


def test_interleaved_sequences_on_one_stream_keep_their_own_state(server, speech):
    """Every recording, plus silence and the longest clip again started later, as
    sequences interleaved chunk by chunk on one stream."""
    jobs = [(name, speech[name][2], speech[name][3]) for name in speech]
    silence = np.zeros((40, CHUNK), np.float32)
    jobs.append(("silence", silence, None))
    late = speech["librivox-0870"]
    jobs.append(("late-0870", late[2], late[3]))
    stream = Stream(server.grpc_url)
    try:
        ids = {tag: new_sequence_id() for tag, _, _ in jobs}
        longest = max(len(c) for _, c, _ in jobs)
        for step in range(longest + 15):
            for tag, chunks, _ in jobs:
                i = step - 15 if tag == "late-0870" else step
                if 0 <= i < len(chunks):
                    stream.send(ids[tag], chunks[i], i == 0, i == len(chunks) - 1, f"{tag}/{i}")
        answers = stream.collect()
    finally:
        stream.close()
    reference = vad_core.Reference()
    for tag, chunks, expected in jobs:
        if expected is None:
            expected = reference.probabilities(chunks.reshape(-1))
        np.testing.assert_allclose(ordered(answers, tag, len(chunks)), expected, rtol=0, atol=ATOL,
                                   err_msg=tag)


def test_concurrent_clients_each_get_their_own_result(server, speech):
    """Eight clients at once (gRPC streams and unary HTTP), each its own sequence of
    its own recording: whatever the batches the server formed, every answer is its
    own stream's."""
    names = list(speech) * 3

    def run(index):
        name = names[index % len(names)]
        chunks = speech[name][2]
        if index % 4 == 3:
            return name, unary(httpclient, server.http_url, chunks)
        return name, stream_one(server.grpc_url, chunks)

    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        for name, got in pool.map(run, range(8)):
            np.testing.assert_allclose(got, speech[name][3], rtol=0, atol=ATOL, err_msg=name)


def test_a_new_start_resets_the_state(server, speech):
    """The same sequence id started again (sequence_start) begins from the initial
    state: the second pass gives the in-process loop's first-pass answers again."""
    _, _, chunks, expected = speech["cards-001"]
    stream = Stream(server.grpc_url)
    try:
        sid = new_sequence_id()
        for run in ("a", "b"):
            for i, chunk in enumerate(chunks):
                stream.send(sid, chunk, i == 0, run == "b" and i == len(chunks) - 1, f"{run}/{i}")
        answers = stream.collect()
    finally:
        stream.close()
    for run in ("a", "b"):
        np.testing.assert_allclose(ordered(answers, run, len(chunks)), expected, rtol=0, atol=ATOL)


# --- mistakes a client can make ------------------------------------------------------------


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_a_chunk_of_the_wrong_size_is_refused(server, protocol):
    """576 samples (the upstream model's input, context included) is the classic
    mistake: the served model takes 512 and keeps the context itself."""
    module, url = (httpclient, server.http_url) if protocol == "http" else (grpcclient, server.grpc_url)
    client = module.InferenceServerClient(url)
    try:
        tensor = module.InferInput("audio", [1, 576], "FP32")
        tensor.set_data_from_numpy(np.zeros((1, 576), np.float32))
        with pytest.raises(InferenceServerException) as error:
            client.infer(MODEL, [tensor], sequence_id=new_sequence_id(), sequence_start=True)
        assert error.value.status() == ("400" if protocol == "http" else "StatusCode.INVALID_ARGUMENT")
        assert "audio" in error.value.message() and "576" in error.value.message()
    finally:
        client.close()


def test_a_chunk_without_a_started_sequence_is_refused(server):
    client = httpclient.InferenceServerClient(server.http_url)
    try:
        with pytest.raises(InferenceServerException) as error:
            client.infer(MODEL, [audio_input(httpclient, np.zeros(CHUNK))], sequence_id=new_sequence_id())
        assert error.value.status() == "400"
        assert "START" in error.value.message()
    finally:
        client.close()


def test_an_error_does_not_close_the_stream(server, speech):
    """A bad request on a stream gets an error answer; the stream goes on serving."""
    _, _, chunks, expected = speech["cards-001"]
    stream = Stream(server.grpc_url)
    try:
        stream.send(new_sequence_id(), np.zeros(CHUNK), False, False, "orphan")
        result, error = stream.answers.get(timeout=RESPONSE_TIMEOUT_S)
        stream.sent -= 1
        assert error is not None and "START" in str(error)
        sid = new_sequence_id()
        stream.send_sequence(sid, chunks)
        np.testing.assert_allclose(ordered(stream.collect(), sid, len(chunks)), expected, rtol=0, atol=ATOL)
    finally:
        stream.close()


# --- the documentation's client ------------------------------------------------------------


def test_the_readme_client_works_as_written(server, speech):
    """The Python block of examples/models/silero_vad/README.md, run as it is (only the
    server address changed), prints one probability per chunk: the in-process ones."""
    readme = (EXAMPLES / MODEL / "README.md").read_text()
    code = re.search(r"```python\n(.*?)```", readme, re.S)[1]
    assert "localhost:8001" in code
    code = code.replace("localhost:8001", server.grpc_url)
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split("\n")
    printed = [float(m[1]) for line in lines if (m := re.match(r"\s*[\d.]+ s\s+([\d.]+)( speech)?$", line))]
    expected = speech["cards-001"][3]
    assert len(printed) == len(expected)
    np.testing.assert_allclose(printed, expected, rtol=0, atol=0.006)  # printed with 2 decimals
    assert "speech" in done.stdout


def test_statistics_count_every_chunk(server, speech):
    before = requests.get(f"http://{server.http_url}/v2/models/{MODEL}/stats", timeout=10).json()
    chunks = speech["cards-001"][2]
    stream_one(server.grpc_url, chunks)
    after = requests.get(f"http://{server.http_url}/v2/models/{MODEL}/stats", timeout=10).json()

    def counts(stats):
        entry = stats["model_stats"][0]
        return int(entry["inference_count"]), int(entry["inference_stats"]["success"]["count"])

    assert counts(after)[0] - counts(before)[0] == len(chunks)
    assert counts(after)[1] - counts(before)[1] == len(chunks)

