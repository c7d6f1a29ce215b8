# SPDX-License-Identifier: Apache-2.0
"""Triton's generate extension over real HTTP clients (requests, a raw
socket): POST .../generate (one JSON object) and .../generate_stream
(Server-Sent Events) on an ordinary model (simple) and on the decoupled
repeat_int32 (examples/backends/repeat), error objects and error events,
keep-alive after a stream, HTTP/1.0, and a client that disconnects
cancelling its request."""
import json
import socket

import pytest
import requests

from conftest import RunningServer
from scheduling_util import fail_count, failures, model_stats, wait_stats
from streaming_util import REPEAT, WAIT, streaming_repo

NEEDS_ONE = ("generate expects model to produce exactly 1 response, use generate stream for "
             "model that generates various number of responses")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("generate")
    running = RunningServer([streaming_repo(folder / "models")], [], folder / "server.log")
    yield running
    assert running.stop() == 0, running.output()


def url(server, model, action):
    return f"http://{server.http_url}/v2/models/{model}/{action}"


def events(reply):
    """The JSON objects of a Server-Sent Events body, in order."""
    out = []
    for line in reply.iter_lines():
        if line:
            assert line.startswith(b"data: "), line
            out.append(json.loads(line[len(b"data: "):]))
    return out


def test_generate_maps_json_keys_to_inputs_and_outputs_to_keys(server):
    reply = requests.post(url(server, "simple", "generate"),
                          json={"INPUT0": list(range(16)), "INPUT1": [1] * 16}, timeout=WAIT)
    assert reply.status_code == 200, reply.text
    assert reply.headers["Content-Type"] == "application/json"
    body = reply.json()
    assert body["model_name"] == "simple" and body["model_version"] == "1"
    assert body["OUTPUT0"] == list(range(1, 17))
    assert body["OUTPUT1"] == list(range(-1, 15))
    # The same through "parameters", with a version in the path.
    reply = requests.post(f"http://{server.http_url}/v2/models/simple/versions/1/generate",
                          json={"parameters": {"INPUT0": [2] * 16, "INPUT1": [2] * 16}},
                          timeout=WAIT)
    assert reply.status_code == 200, reply.text
    assert reply.json()["OUTPUT0"] == [4] * 16


def test_generate_on_a_decoupled_model_needs_exactly_one_response(server):
    reply = requests.post(url(server, REPEAT, "generate"), json={"IN": [5]}, timeout=WAIT)
    assert reply.status_code == 200, reply.text
    assert reply.json() == {"model_name": REPEAT, "model_version": "1", "OUT": 5, "IDX": 0}
    # Several responses: Triton's error object, with the status of the
    # first response (a success).
    for values in ([1, 2, 3], []):
        reply = requests.post(url(server, REPEAT, "generate"), json={"IN": values}, timeout=WAIT)
        assert reply.status_code == 200
        assert reply.json() == {"error": NEEDS_ONE}


def test_generate_stream_sends_one_event_per_response(server):
    with requests.post(url(server, REPEAT, "generate_stream"),
                       json={"IN": [10, 20, 30, 40], "DELAY": [5, 5, 5, 5]}, stream=True,
                       timeout=WAIT) as reply:
        assert reply.status_code == 200
        assert reply.headers["Content-Type"] == "text/event-stream; charset=utf-8"
        assert "Content-Length" not in reply.headers
        got = events(reply)
    assert got == [{"model_name": REPEAT, "model_version": "1", "OUT": v, "IDX": i}
                   for i, v in enumerate([10, 20, 30, 40])]
    with requests.post(url(server, "simple", "generate_stream"),
                       json={"INPUT0": [3] * 16, "INPUT1": [1] * 16}, stream=True,
                       timeout=WAIT) as reply:
        assert reply.status_code == 200
        got = events(reply)
    assert len(got) == 1 and got[0]["OUTPUT0"] == [4] * 16 and got[0]["OUTPUT1"] == [2] * 16


def test_errors_during_a_stream_are_error_events(server):
    with requests.post(url(server, REPEAT, "generate_stream"),
                       json={"IN": [1, 2, 3], "fail_at_index": 1}, stream=True,
                       timeout=WAIT) as reply:
        assert reply.status_code == 200  # set by the first response
        got = events(reply)
    assert got[0]["OUT"] == 1 and got[2]["OUT"] == 3
    assert set(got[1]) == {"error"} and "response 1 failed" in got[1]["error"]
    # An error first: its status, still as an event stream.
    with requests.post(url(server, REPEAT, "generate_stream"),
                       json={"IN": [1, 2], "fail_at_index": 0}, stream=True,
                       timeout=WAIT) as reply:
        assert reply.status_code == 400
        assert reply.headers["Content-Type"] == "text/event-stream; charset=utf-8"
        got = events(reply)
    assert "response 0 failed" in got[0]["error"] and got[1]["OUT"] == 2


@pytest.mark.parametrize("action", ["generate", "generate_stream"])
def test_requests_that_fail_before_any_response_get_a_json_error(server, action):
    cases = [
        (REPEAT, b"not json", 400, "malformed"),
        (REPEAT, b"[1, 2]", 400, "JSON object"),
        ("no_such_model", b"{}", 404, "no_such_model"),
        (REPEAT, json.dumps({"IN": ["a"]}).encode(), 400, "IN"),
        (REPEAT, json.dumps({"IN": [1], "options": {"x": 1}}).encode(), 400, "options"),
        # The backend refuses it before sending anything.
        (REPEAT, json.dumps({"IN": [1, 2], "DELAY": [1]}).encode(), 400, "DELAY"),
    ]
    for model, body, status, words in cases:
        reply = requests.post(url(server, model, action), data=body, timeout=WAIT)
        assert reply.status_code == status, (body, reply.text)
        assert reply.headers["Content-Type"] == "application/json"
        assert words in reply.json()["error"], (body, reply.text)


def test_connection_is_kept_alive_after_a_stream(server):
    with requests.Session() as session:
        for _ in range(3):
            with session.post(url(server, REPEAT, "generate_stream"), json={"IN": [1, 2]},
                              stream=True, timeout=WAIT) as reply:
                assert [e["OUT"] for e in events(reply)] == [1, 2]
        reply = session.post(url(server, REPEAT, "generate"), json={"IN": [9]}, timeout=WAIT)
        assert reply.json()["OUT"] == 9


def test_http_1_0_stream_ends_with_the_connection(server):
    body = json.dumps({"IN": [4, 5, 6]}).encode()
    with socket.create_connection(("127.0.0.1", server.http_port), timeout=WAIT) as s:
        s.sendall(f"POST /v2/models/{REPEAT}/generate_stream HTTP/1.0\r\n"
                  f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, payload = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.0 200"), head
    assert b"chunked" not in head.lower()
    lines = [line for line in payload.split(b"\n") if line]
    assert [json.loads(line[len(b"data: "):])["OUT"] for line in lines] == [4, 5, 6]


def test_a_client_that_disconnects_cancels_its_stream(server):
    before = fail_count(model_stats(server, REPEAT))
    # 1000 responses 50 ms apart: 50 s unless the disconnect stops it.
    reply = requests.post(url(server, REPEAT, "generate_stream"),
                          json={"IN": list(range(1000)), "DELAY": [50] * 1000}, stream=True,
                          timeout=WAIT)
    assert reply.status_code == 200
    first = next(reply.iter_lines())
    assert json.loads(first[len(b"data: "):])["IDX"] == 0
    reply.close()  # closes the connection
    wait_stats(server, REPEAT, lambda s: fail_count(s) == before + 1,
               "the abandoned stream's request to end")
    assert failures(server, REPEAT, "CANCELED") >= 1


def test_a_request_pipelined_during_a_stream_waits_for_it(server):
    """Bytes of a next request that arrive while events are being written
    end the disconnect watch without cutting the stream short."""
    first = json.dumps({"IN": [1, 2, 3], "DELAY": [0, 200, 200]}).encode()
    second = json.dumps({"IN": [9]}).encode()

    def post(path, body):
        return (f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n\r\n"
                .encode() + body)

    with socket.create_connection(("127.0.0.1", server.http_port), timeout=WAIT) as s:
        s.sendall(post(f"/v2/models/{REPEAT}/generate_stream", first))
        data = b""
        while b"data: " not in data:  # the first event is out: the stream is open
            data += s.recv(65536)
        s.sendall(post(f"/v2/models/{REPEAT}/generate", second))
        while not data.endswith(b"}"):
            chunk = s.recv(65536)
            assert chunk, data
            data += chunk
            if b"\r\n0\r\n\r\n" in data and data.count(b"HTTP/1.1 200") == 2:
                tail = data.split(b"\r\n0\r\n\r\n", 1)[1]
                if b"\r\n\r\n" in tail and tail.endswith(b"}"):
                    break
    stream, _, rest = data.partition(b"\r\n0\r\n\r\n")
    assert b"Transfer-Encoding: chunked" in stream
    assert [json.loads(line[len(b"data: "):])["OUT"] for line in stream.split(b"\n")
            if line.startswith(b"data: ")] == [1, 2, 3]
    assert rest.startswith(b"HTTP/1.1 200"), rest
    assert json.loads(rest.split(b"\r\n\r\n", 1)[1])["OUT"] == 9
