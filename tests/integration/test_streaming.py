# SPDX-License-Identifier: Apache-2.0
"""gRPC ModelStreamInfer with tritonclient's start_stream / async_stream_infer,
as Triton's clients use it: many requests on one stream for an ordinary
model (answers in request order) and for the decoupled repeat_int32 model
(examples/backends/repeat: n responses, then the final flag), the empty
final response and triton_final_response, errors that do not end the
stream, half-close, cancellation, shutdown, and the unary endpoints'
refusal of a decoupled model with Triton's messages."""
import concurrent.futures
import csv
import json
import subprocess
import threading

import numpy as np
import pytest
import requests
import tritonclient.grpc as grpcclient
from tritonclient.utils import InferenceServerException

from conftest import RunningServer
from scheduling_util import (echo_io, echo_model_file, env, fail_count, failures,  # noqa: F401
                             hold_instance, model_stats, queue_size, wait_for, wait_stats,
                             write_fake_model)
from streaming_util import (REPEAT, WAIT, Answers, final_flag, repeat_inputs, simple_inputs,
                            streaming_repo, summary)


@pytest.fixture(scope="module")
def stream_server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("streaming")
    running = RunningServer([streaming_repo(folder / "models")], [], folder / "server.log")
    yield running
    assert running.stop() == 0, running.output()


@pytest.fixture
def client(stream_server):
    with grpcclient.InferenceServerClient(stream_server.grpc_url) as c:
        yield c


def test_ordinary_model_answers_many_requests_on_one_stream_in_order(client):
    answers = Answers()
    client.start_stream(callback=answers)
    for i in range(20):
        client.async_stream_infer("simple", simple_inputs(i, 1), request_id=f"r{i}")
    got = answers.take(20)
    client.stop_stream()
    assert [error for _, error in got] == [None] * 20
    assert [result.get_response().id for result, _ in got] == [f"r{i}" for i in range(20)]
    for i, (result, _) in enumerate(got):
        assert result.get_response().model_name == "simple"
        assert result.get_response().model_version == "1"
        assert result.as_numpy("OUTPUT0").tolist() == [[i + 1] * 16]
        assert result.as_numpy("OUTPUT1").tolist() == [[i - 1] * 16]
        assert final_flag(result)  # an ordinary model's only response is its last


def test_decoupled_model_sends_each_response_then_the_final_flag(client):
    answers = Answers()
    client.start_stream(callback=answers)
    client.async_stream_infer(REPEAT, repeat_inputs([7, 8, 9]), request_id="plain")
    client.async_stream_infer(REPEAT, repeat_inputs([4, 5]), request_id="empty-final",
                              enable_empty_final_response=True)
    client.stop_stream()  # half-close: returns once everything was answered
    got = [summary(result) for result, error in answers.rest() if error is None]
    plain = [g for g in got if g[0] == "plain"]
    assert plain == [("plain", {"OUT": [7], "IDX": [0]}, False),
                     ("plain", {"OUT": [8], "IDX": [1]}, False),
                     ("plain", {"OUT": [9], "IDX": [2]}, False)]  # no empty final: not asked
    asked = [g for g in got if g[0] == "empty-final"]
    assert asked == [("empty-final", {"OUT": [4], "IDX": [0]}, False),
                     ("empty-final", {"OUT": [5], "IDX": [1]}, False),
                     ("empty-final", {}, True)]
    assert len(got) == 6


def test_interleaved_decoupled_requests_keep_their_ids_and_order(client):
    answers = Answers()
    client.start_stream(callback=answers)
    expected = {}
    for k in range(6):
        values = list(range(10 * k, 10 * k + k + 2))
        expected[f"req-{k}"] = values
        # Delays make the one instance's worker interleave the requests.
        client.async_stream_infer(REPEAT, repeat_inputs(values, delays=[2] * len(values)),
                                  request_id=f"req-{k}", enable_empty_final_response=True)
    client.stop_stream()
    got = answers.rest()
    assert all(error is None for _, error in got), got
    by_id = {}
    for result, _ in got:
        request_id, outputs, final = summary(result)
        by_id.setdefault(request_id, []).append((outputs, final))
    assert sorted(by_id) == sorted(expected)
    for request_id, values in expected.items():
        assert by_id[request_id] == (
            [({"OUT": [v], "IDX": [i]}, False) for i, v in enumerate(values)] + [({}, True)])


def test_errors_travel_on_the_stream_without_closing_it(client):
    answers = Answers()
    client.start_stream(callback=answers)
    client.async_stream_infer("simple", simple_inputs(1, 1), request_id="ok-1")
    client.async_stream_infer("no_such_model", simple_inputs(1, 1), request_id="unknown")
    bad = grpcclient.InferInput("INPUT0", [1, 3], "INT32")  # wrong shape
    bad.set_data_from_numpy(np.zeros((1, 3), dtype=np.int32))
    client.async_stream_infer("simple", [bad, simple_inputs(0, 0)[1]], request_id="bad-shape")
    # A decoupled model's error in the middle of its responses (repeat's
    # fail_at_index parameter): the responses after it still come.
    client.async_stream_infer(REPEAT, repeat_inputs([1, 2, 3]), request_id="mid",
                              parameters={"fail_at_index": 1})
    client.async_stream_infer("simple", simple_inputs(2, 1), request_id="ok-2")
    client.stop_stream()
    got = answers.rest()
    errors = [str(error) for _, error in got if error is not None]
    assert len(errors) == 3, got
    assert any("no_such_model" in e for e in errors), errors
    assert any("INPUT0" in e and "shape" in e for e in errors), errors
    assert any("response 1 failed" in e for e in errors), errors
    ok = [summary(result) for result, error in got if error is None]
    assert [i for i, _, _ in ok if i.startswith("ok")] == ["ok-1", "ok-2"]
    assert [(o, f) for i, o, f in ok if i == "mid"] == [({"OUT": [1], "IDX": [0]}, False),
                                                         ({"OUT": [3], "IDX": [2]}, False)]


def test_half_close_delivers_every_pending_answer(client):
    answers = Answers()
    client.start_stream(callback=answers)
    # Still being answered when the client half-closes right after sending.
    client.async_stream_infer(REPEAT, repeat_inputs(list(range(8)), delays=[20] * 8, wait=20),
                              request_id="slow", enable_empty_final_response=True)
    client.async_stream_infer("simple", simple_inputs(3, 3), request_id="quick")
    client.stop_stream(cancel_requests=False)
    got = answers.rest()
    assert all(error is None for _, error in got), got
    slow = [summary(r) for r, _ in got if r.get_response().id == "slow"]
    assert [o.get("OUT") for _, o, _ in slow] == [[v] for v in range(8)] + [None]
    assert slow[-1][2] is True
    assert [r.get_response().id for r, _ in got].count("quick") == 1


def test_unary_endpoints_refuse_a_decoupled_model_with_tritons_words(stream_server, client):
    with pytest.raises(InferenceServerException) as error:
        client.infer(REPEAT, repeat_inputs([1]))
    assert error.value.status() == "StatusCode.UNIMPLEMENTED"
    assert error.value.message() == (
        "ModelInfer RPC doesn't support models with decoupled transaction policy")
    reply = requests.post(f"http://{stream_server.http_url}/v2/models/{REPEAT}/infer",
                          json={"inputs": [{"name": "IN", "shape": [1], "datatype": "INT32",
                                            "data": [1]}]}, timeout=WAIT)
    assert reply.status_code == 501
    assert reply.json() == {
        "error": "HTTP end point doesn't support models with decoupled transaction policy"}


def test_cancelling_a_stream_stops_a_decoupled_request(stream_server, client):
    before = fail_count(model_stats(stream_server, REPEAT))
    answers = Answers()
    client.start_stream(callback=answers)
    # 1000 responses, 50 ms apart: 50 s unless the cancellation stops it.
    client.async_stream_infer(REPEAT, repeat_inputs(list(range(1000)), delays=[50] * 1000),
                              request_id="long")
    first, error = answers.take(1)[0]
    assert error is None and summary(first)[1] == {"OUT": [0], "IDX": [0]}
    client.stop_stream(cancel_requests=True)
    # The backend saw the cancellation (RequestIsCancelled) and ended it.
    wait_stats(stream_server, REPEAT, lambda s: fail_count(s) == before + 1,
               "the cancelled request to end")
    assert failures(stream_server, REPEAT, "CANCELED") >= 1


def test_cancelling_a_stream_takes_its_queued_requests_out_of_the_queue(env):  # noqa: F811
    write_fake_model(env.repo, "m", echo_io() + "\nmax_batch_size: 1\ndynamic_batching { }",
                     echo_model_file(gate=env.gate, log=env.log))
    server = env.start()
    with concurrent.futures.ThreadPoolExecutor(1) as pool, \
            grpcclient.InferenceServerClient(server.grpc_url) as client:
        held = hold_instance(env, pool, server)
        answers = Answers()
        client.start_stream(callback=answers)
        for value in (1, 2, 3):
            tensor = grpcclient.InferInput("IN", [1, 1], "INT32")
            tensor.set_data_from_numpy(np.full((1, 1), value, dtype=np.int32))
            client.async_stream_infer("m", [tensor], request_id=str(value))
        wait_for(lambda: queue_size(server, "m") == 3, "the stream's requests to queue")
        client.stop_stream(cancel_requests=True)
        # They leave the queue while the instance is still held.
        wait_for(lambda: failures(server, "m", "CANCELED") == 3, "the queued requests to go")
        assert queue_size(server, "m") == 0
        env.gate.open()
        assert held.result(timeout=WAIT).tolist() == [[0]]
    assert env.log.executed_values() == [0]
    assert all(error is not None for _, error in answers.rest())  # only the stream's end


def test_shutdown_answers_requests_in_flight_and_ends_open_streams(tmp_path, make_server):
    server = make_server(streaming_repo(tmp_path / "models"))
    client = grpcclient.InferenceServerClient(server.grpc_url)
    answers = Answers()
    client.start_stream(callback=answers)
    client.async_stream_infer(REPEAT, repeat_inputs(list(range(5)), delays=[100] * 5),
                              request_id="draining", enable_empty_final_response=True)
    answers.take(1)  # in flight
    stopper = threading.Thread(target=server.stop)
    stopper.start()
    stopper.join(timeout=WAIT)
    assert not stopper.is_alive() and server.process.returncode == 0, server.output()
    got = [summary(r) for r, e in answers.rest() if e is None]
    assert [o.get("OUT") for _, o, _ in got] == [[1], [2], [3], [4], None]
    # The stream ended cleanly (OK): no error reached the callback, and
    # the client's reader thread is done.
    assert answers.rest() == []
    wait_for(lambda: not client._stream._handler.is_alive(), "the stream to end")
    client.stop_stream()
    client.close()


PERF_CASES = [
    pytest.param("simple", [], id="simple"),
    # Every input of repeat_int32 given (DELAY and WAIT zero: no waiting):
    # 4 responses and the final flag per request.
    pytest.param(REPEAT, ["--shape", "IN:4", "--shape", "DELAY:4"], id="repeat-decoupled"),
]


@pytest.mark.parametrize("model,extra", PERF_CASES)
def test_perf_analyzer_streaming_runs_without_errors(stream_server, tmp_path, model, extra):
    from test_perf_analyzer import PERF_ANALYZER
    if not PERF_ANALYZER.exists():
        pytest.fail(f"{PERF_ANALYZER} is missing: run make setup")
    if model == REPEAT:
        data = tmp_path / "repeat.json"
        data.write_text(json.dumps({"data": [{"IN": [1, 2, 3, 4], "DELAY": [0, 0, 0, 0],
                                              "WAIT": [0]}]}))
        extra = extra + ["--input-data", str(data)]
    report = tmp_path / "report.csv"
    args = [str(PERF_ANALYZER), "-m", model, "-u", stream_server.grpc_url, "-i", "grpc",
            "--streaming", "--concurrency-range", "2", "--measurement-mode", "count_windows",
            "--measurement-request-count", "40", "--max-trials", "3",
            "--stability-percentage", "999", "-f", str(report), *extra]
    run = subprocess.run(args, capture_output=True, text=True, timeout=240)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    assert "error" not in output.lower(), output
    rows = list(csv.DictReader(report.open()))
    assert rows and float(rows[0]["Inferences/Second"]) > 0, output
    if model == REPEAT:
        assert "Detected decoupled model" in output, output
        # Four responses per request reached the client.
        assert "Response Throughput" in output, output
    assert stream_server.alive()


def test_a_client_that_reads_late_gets_every_answer_in_order(stream_server):
    """More answers than the stream keeps before it stops reading requests
    (16 MiB): the server holds them while the client reads nothing, reads
    the requests after that only once the client caught up, and loses
    nothing."""
    import grpc
    from tritonclient.grpc import service_pb2, service_pb2_grpc

    # Every response repeats the request id: with a 1000-byte id, 20000
    # responses are well past 16 MiB.
    count, big_id = 20_000, "big-" + "x" * 1000
    big = service_pb2.ModelInferRequest(model_name=REPEAT, id=big_id)
    big.inputs.add(name="IN", datatype="INT32", shape=[count])
    big.raw_input_contents.append(np.arange(count, dtype=np.int32).tobytes())
    later = []
    for request_id in ("after", "third"):
        request = service_pb2.ModelInferRequest(model_name="simple", id=request_id)
        for name in ("INPUT0", "INPUT1"):
            request.inputs.add(name=name, datatype="INT32", shape=[1, 16])
            request.raw_input_contents.append(np.ones((1, 16), dtype=np.int32).tobytes())
        later.append(request)
    answered = threading.Event()

    def requests_to_send():
        yield big
        answered.wait(timeout=WAIT)  # sent once every answer of `big` waits in the server
        yield from later

    before = int(model_stats(stream_server, REPEAT)["inference_stats"]["success"]["count"])
    with grpc.insecure_channel(stream_server.grpc_url) as channel:
        stub = service_pb2_grpc.GRPCInferenceServiceStub(channel)
        responses = stub.ModelStreamInfer(requests_to_send(), timeout=240)
        # Read nothing until the big request has been answered in full.
        wait_stats(stream_server, REPEAT,
                   lambda s: int(s["inference_stats"]["success"]["count"]) > before,
                   "the big request to be answered")
        answered.set()
        seen = 0
        ids = []
        for response in responses:
            assert response.error_message == "", response.error_message
            ids.append(response.infer_response.id)
            if response.infer_response.id == big_id:
                index = np.frombuffer(response.infer_response.raw_output_contents[1], np.uint32)
                assert index[0] == seen
                seen += 1
            if len(ids) == count + 2:
                break
        responses.cancel()
    assert seen == count
    assert ids[count:] == ["after", "third"]
