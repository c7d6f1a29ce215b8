# SPDX-License-Identifier: Apache-2.0
"""Decoupled Python models in the real server (Triton's decoupled API):
tests/integration/decoupled_models and examples/models/word_stream, through
tritonclient.

- gRPC streaming (start_stream / async_stream_infer): every response of a
  request in order, then its final flag; error responses that do not end
  the stream; Triton's errors for misuse; responses sent from threads after
  execute() returned, while other requests stream at the same time.
- The unary endpoints refuse decoupled models with Triton's messages.
- BLS from an ordinary model to a decoupled one (exec/async_exec with
  decoupled=True) over plain HTTP infer, and Triton's error for exec()
  without it.
- request.parameters() and request.correlation_id() as the client sent them,
  and an ordinary model answering through its response sender.
"""
import json
import os
import pathlib
import queue
import shutil
import signal

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

from conftest import EXAMPLES, RunningServer

MODELS = pathlib.Path(__file__).resolve().parent / "decoupled_models"
TIMEOUT_S = 30


@pytest.fixture(scope="module")
def decoupled(tmp_path_factory):
    """One server with the decoupled test models and word_stream."""
    repo = tmp_path_factory.mktemp("decoupled") / "models"
    shutil.copytree(MODELS, repo)
    shutil.copytree(EXAMPLES / "word_stream", repo / "word_stream")
    running = RunningServer([repo], [], repo.parent / "server.log")
    yield running
    code = running.stop()
    assert code == 0, f"inferd exited with {code}:\n{running.output()}"


def int_input(module, name, value):
    tensor = module.InferInput(name, [1], "INT32")
    tensor.set_data_from_numpy(np.array([value], np.int32))
    return tensor


def bytes_input(module, name, text):
    tensor = module.InferInput(name, [1], "BYTES")
    tensor.set_data_from_numpy(np.array([text.encode()], np.object_))
    return tensor


class Stream:
    """A gRPC ModelStreamInfer stream: every callback in a queue."""

    def __init__(self, server):
        self.client = grpcclient.InferenceServerClient(server.grpc_url)
        self.results = queue.Queue()
        self.client.start_stream(callback=lambda result, error: self.results.put((result, error)))

    def send(self, model, inputs, request_id="", **options):
        self.client.async_stream_infer(model, inputs, request_id=request_id,
                                       enable_empty_final_response=True, **options)

    def until_final(self, count=1):
        """The callbacks until `count` requests sent their final flag, by
        request id: [(result, error), ...]; errors have no id and are
        listed under None."""
        by_id, ended = {}, 0
        while ended < count:
            result, error = self.results.get(timeout=TIMEOUT_S)
            if error is not None:
                by_id.setdefault(None, []).append((None, error))
                continue
            response = result.get_response()
            by_id.setdefault(response.id, []).append((result, None))
            ended += response.parameters["triton_final_response"].bool_param
        return by_id

    def close(self):
        self.client.stop_stream()
        self.client.close()


@pytest.fixture
def stream(decoupled):
    opened = Stream(decoupled)
    yield opened
    opened.close()


def is_final(result):
    return result.get_response().parameters["triton_final_response"].bool_param


def test_square_streams_n_responses_then_the_final_flag(stream):
    for n in (3, 0, 5):
        stream.send("square", [int_input(grpcclient, "IN", n)], request_id=f"r{n}")
    streams = stream.until_final(3)
    for n in (3, 0, 5):
        results = [result for result, _ in streams[f"r{n}"]]
        assert len(results) == n + 1
        assert [result.as_numpy("OUT").tolist() for result in results[:-1]] == [[n]] * n
        assert not any(is_final(result) for result in results[:-1])
        assert is_final(results[-1]) and results[-1].as_numpy("OUT") is None  # the final flag alone


def test_an_error_response_does_not_end_the_stream(stream):
    stream.send("square", [int_input(grpcclient, "IN", -1)], request_id="bad")
    streams = stream.until_final(1)
    (error,) = [error for _, error in streams[None]]
    assert "IN must be >= 0, got -1" in error.message()
    (final,) = streams["bad"]
    assert is_final(final[0])


def test_word_stream_sends_one_response_per_word(stream):
    stream.send("word_stream", [bytes_input(grpcclient, "TEXT", "the quick brown fox")], request_id="w")
    results = [result for result, _ in stream.until_final(1)["w"]]
    words = [(result.as_numpy("WORD")[0].decode(), int(result.as_numpy("INDEX")[0])) for result in results[:-1]]
    assert words == [("the", 0), ("quick", 1), ("brown", 2), ("fox", 3)]
    assert is_final(results[-1])


def test_requests_stream_concurrently_from_their_threads(stream):
    # word_stream answers from a thread per request: a slow sentence does
    # not hold back one sent after it (both finish; order within each holds).
    stream.send("word_stream", [bytes_input(grpcclient, "TEXT", "a b c d e f")], request_id="slow",
                parameters={"delay_ms": 20})
    stream.send("word_stream", [bytes_input(grpcclient, "TEXT", "one two")], request_id="fast")
    streams = stream.until_final(2)
    assert [r.as_numpy("WORD")[0] for r, _ in streams["slow"][:-1]] == [w.encode() for w in "a b c d e f".split()]
    assert [r.as_numpy("WORD")[0] for r, _ in streams["fast"][:-1]] == [b"one", b"two"]


@pytest.mark.parametrize("mode,message", [
    ("return", "Python model 'decoupled_misuse_0' is using the decoupled mode and the execute function must "
               "return None."),
    ("raise", "execute() raised RuntimeError: gave up after one response"),
    ("drop", "without sending the final flag"),
])
def test_decoupled_misuse_ends_the_request_with_triton_s_error(stream, mode, message):
    stream.send("decoupled_misuse", [bytes_input(grpcclient, "MODE", mode)], request_id=mode)
    results = []
    while True:
        result, error = stream.results.get(timeout=TIMEOUT_S)
        results.append((result, error))
        if error is not None:
            break
    errors = [error for _, error in results if error is not None]
    assert message in errors[-1].message()
    if mode == "raise":
        assert results[0][0].as_numpy("OUT").tolist() == [1]  # sent before the error


def test_a_worker_killed_mid_stream_fails_its_open_requests(stream):
    stream.send("decoupled_misuse", [bytes_input(grpcclient, "MODE", "pid")], request_id="pid")
    pid = int(stream.until_final(1)["pid"][0][0].as_numpy("OUT")[0])
    stream.send("decoupled_misuse", [bytes_input(grpcclient, "MODE", "hang")], request_id="hang")
    first, error = stream.results.get(timeout=TIMEOUT_S)
    assert error is None and first.as_numpy("OUT").tolist() == [7]
    os.kill(pid, signal.SIGKILL)
    result, error = stream.results.get(timeout=TIMEOUT_S)
    assert result is None
    assert f"the worker (pid {pid}) exited before it sent the final response of this request" in error.message()
    # A new worker serves the model.
    stream.send("decoupled_misuse", [bytes_input(grpcclient, "MODE", "pid")], request_id="again")
    assert int(stream.until_final(1)["again"][0][0].as_numpy("OUT")[0]) != pid


def test_unary_endpoints_refuse_decoupled_models_as_triton(decoupled):
    http = httpclient.InferenceServerClient(decoupled.http_url)
    with pytest.raises(InferenceServerException) as refused:
        http.infer("square", [int_input(httpclient, "IN", 2)])
    assert "doesn't support models with decoupled transaction policy" in refused.value.message()
    assert refused.value.status() == "501"
    grpc = grpcclient.InferenceServerClient(decoupled.grpc_url)
    with pytest.raises(InferenceServerException) as refused:
        grpc.infer("square", [int_input(grpcclient, "IN", 2)])
    assert "ModelInfer RPC doesn't support models with decoupled transaction policy" in refused.value.message()
    assert refused.value.status() == "StatusCode.UNIMPLEMENTED"


@pytest.mark.parametrize("protocol", ["http", "grpc"])
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_bls_aggregates_a_decoupled_model_over_unary_infer(decoupled, protocol, mode):
    module = httpclient if protocol == "http" else grpcclient
    client = module.InferenceServerClient(decoupled.http_url if protocol == "http" else decoupled.grpc_url)
    for n, count in ((4, 5), (0, 1)):  # n responses, then the empty final one
        result = client.infer("square_bls", [int_input(module, "IN", n), bytes_input(module, "MODE", mode)])
        assert result.as_numpy("SUM").tolist() == [n * n]
        assert result.as_numpy("COUNT").tolist() == [count]
    # An error response in the stream reaches the caller with its code.
    with pytest.raises(InferenceServerException, match="IN must be >= 0"):
        client.infer("square_bls", [int_input(module, "IN", -2), bytes_input(module, "MODE", mode)])


def test_bls_exec_without_decoupled_is_triton_s_error(decoupled):
    client = httpclient.InferenceServerClient(decoupled.http_url)
    with pytest.raises(InferenceServerException) as failed:
        client.infer("square_bls", [int_input(httpclient, "IN", 1), bytes_input(httpclient, "MODE", "unary")])
    assert failed.value.message().endswith(
        "Model square is using the decoupled. The current BLS request call doesn't support models using the "
        "decoupled transaction policy. Please use 'decoupled=True' argument to the 'exec' or 'async_exec' "
        "calls for decoupled models.'")


@pytest.mark.parametrize("through_sender", [0, 1])
def test_parameters_and_correlation_id_reach_the_model(decoupled, through_sender):
    http = httpclient.InferenceServerClient(decoupled.http_url)
    result = http.infer("request_info", [int_input(httpclient, "X", through_sender)],
                        parameters={"temperature": "hot", "top_k": 3, "greedy": True})
    assert json.loads(result.as_numpy("PARAMETERS")[0]) == {"temperature": "hot", "top_k": 3, "greedy": True}
    assert json.loads(result.as_numpy("CORRELATION_ID")[0]) == ["int", 0]
    assert result.as_numpy("CANCELLED").tolist() == [0]  # an ordinary model may ask too
    grpc = grpcclient.InferenceServerClient(decoupled.grpc_url)
    result = grpc.infer("request_info", [int_input(grpcclient, "X", through_sender)], sequence_id=42,
                        sequence_start=True, parameters={"mode": "x"})
    # The parameters the server acts on itself are not the model's (Triton).
    assert json.loads(result.as_numpy("PARAMETERS")[0]) == {"mode": "x"}
    assert json.loads(result.as_numpy("CORRELATION_ID")[0]) == ["int", 42]
    assert result.as_numpy("FLAGS").tolist() == [1]  # TRITONSERVER_REQUEST_FLAG_SEQUENCE_START
    result = grpc.infer("request_info", [int_input(grpcclient, "X", through_sender)], sequence_id="session-7",
                        sequence_end=True)
    assert json.loads(result.as_numpy("CORRELATION_ID")[0]) == ["str", "session-7"]
    assert result.as_numpy("FLAGS").tolist() == [2]
