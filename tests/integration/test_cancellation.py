# SPDX-License-Identifier: Apache-2.0
"""Clients that give up while their request is queued: an HTTP client that
disconnects, a gRPC call that is cancelled or whose deadline passes. The
request leaves the queue at once, is never executed and is counted as a
failure; the others run; the server stays healthy.

The model's only instance is held at the fake backend's gate, so requests
queue; "the request left the queue" is seen in the statistics (its failure is
counted while the gate is still closed), never guessed from timing.
"""
import concurrent.futures
import json
import queue
import socket
import struct

import numpy as np
import pytest
import requests
import tritonclient.grpc as grpcclient
from tritonclient.utils import InferenceServerException

from scheduling_util import (hold_instance, start_gated_model, echo_io, echo_model_file, env, fail_count, failures,  # noqa: F401
                             grpc_echo, http_echo, model_stats, queue_size, wait_for, wait_stats,
                             write_fake_model)


def raw_infer_request(port, value):
    body = json.dumps({"inputs": [{"name": "IN", "shape": [1, 1], "datatype": "INT32",
                                   "data": [value]}]}).encode()
    return (f"POST /v2/models/m/infer HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body


def read_replies(sock, count):
    """Reads `count` HTTP/1.1 replies with Content-Length bodies: [(status, body)]."""
    sock.settimeout(60)
    data, replies = b"", []
    while len(replies) < count:
        head_end = data.find(b"\r\n\r\n")
        if head_end >= 0:
            head = data[:head_end].decode()
            length = int(next(line.split(":", 1)[1] for line in head.split("\r\n")
                              if line.lower().startswith("content-length:")))
            if len(data) >= head_end + 4 + length:
                replies.append((int(head.split()[1]), data[head_end + 4:head_end + 4 + length]))
                data = data[head_end + 4 + length:]
                continue
        chunk = sock.recv(65536)
        assert chunk, f"connection closed after {replies} + {data!r}"
        data += chunk
    return replies


def assert_healthy(server):
    assert server.alive()
    assert requests.get(f"http://{server.http_url}/v2/health/ready", timeout=10).status_code == 200
    assert http_echo(server.http_url, "m", 42).tolist() == [[42]]
    assert grpc_echo(server.grpc_url, "m", 43).tolist() == [[43]]


@pytest.mark.parametrize("how", ["close", "reset"])
def test_http_client_that_disconnects_costs_no_execution(env, how):
    server = start_gated_model(env)
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        held = hold_instance(env, pool, server)
        kept = pool.submit(http_echo, server.http_url, "m", 8)  # queued, and waits
        wait_for(lambda: queue_size(server, "m") == 1, "the kept request to queue")
        with socket.create_connection(("127.0.0.1", server.http_port)) as s:
            s.sendall(raw_infer_request(server.http_port, 7))
            if how == "reset":  # RST instead of FIN
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        # Answered (to nobody) and counted while the instance is still held.
        wait_stats(server, "m", lambda s: fail_count(s) == 1, "the abandoned request to be dropped")
        assert failures(server, "m", "CANCELED") == 1
        assert queue_size(server, "m") == 1  # it left the queue; the kept one waits
        assert not kept.done()
        env.gate.open()
        assert held.result(timeout=60).tolist() == [[0]]
        assert kept.result(timeout=60).tolist() == [[8]]
    stats = model_stats(server, "m")
    assert stats["execution_count"] == 2 and stats["inference_count"] == 2, stats
    assert fail_count(stats) == 1
    assert sorted(env.log.executed_values()) == [0, 8]
    assert_healthy(server)


def test_pipelined_request_is_not_mistaken_for_a_disconnect(env):
    server = start_gated_model(env)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        held = hold_instance(env, pool, server)
        with socket.create_connection(("127.0.0.1", server.http_port)) as s:
            # Two requests at once on one connection: bytes wait behind the first.
            s.sendall(raw_infer_request(server.http_port, 5) + raw_infer_request(server.http_port, 6))
            env.gate.open()
            replies = read_replies(s, 2)
        assert held.result(timeout=60).tolist() == [[0]]
    assert [status for status, _ in replies] == [200, 200], replies
    assert [json.loads(body)["outputs"][0]["data"] for _, body in replies] == [[5], [6]]
    assert fail_count(model_stats(server, "m")) == 0
    assert env.log.executed_values() == [0, 5, 6]


def test_cancelled_grpc_call_costs_no_execution(env):
    # A queue of one: a refusal proves the other request is queued before we cancel.
    server = start_gated_model(env, "default_queue_policy { max_queue_size: 1 }")
    answers = queue.Queue()
    with concurrent.futures.ThreadPoolExecutor(1) as pool, \
            grpcclient.InferenceServerClient(server.grpc_url) as client:
        held = hold_instance(env, pool, server)
        calls = []
        for value in (11, 12):
            tensor = grpcclient.InferInput("IN", [1, 1], "INT32")
            tensor.set_data_from_numpy(np.full((1, 1), value, dtype=np.int32))
            calls.append(client.async_infer(
                "m", [tensor], callback=lambda result, error, v=value: answers.put((v, error))))
        value, error = answers.get(timeout=60)
        assert error is not None and "Exceeds maximum queue size" in error.message(), error
        for call in calls:
            call.cancel()  # the refused one is over already
        value, error = answers.get(timeout=60)
        assert error is not None and "CANCELLED" in error.status(), error
        wait_stats(server, "m", lambda s: fail_count(s) == 2, "the cancelled request to be dropped")
        assert failures(server, "m", "REJECTED") == 1 and failures(server, "m", "CANCELED") == 1
        assert queue_size(server, "m") == 0
        env.gate.open()
        assert held.result(timeout=60).tolist() == [[0]]
    assert model_stats(server, "m")["execution_count"] == 1
    assert env.log.executed_values() == [0]
    assert_healthy(server)


def test_grpc_deadline_passing_in_the_queue_costs_no_execution(env):
    server = start_gated_model(env)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        held = hold_instance(env, pool, server)
        with pytest.raises(InferenceServerException) as raised:
            grpc_echo(server.grpc_url, "m", 9, client_timeout=0.5)
        assert "DEADLINE_EXCEEDED" in raised.value.status()
        wait_stats(server, "m", lambda s: fail_count(s) == 1, "the expired request to be dropped")
        assert failures(server, "m", "CANCELED") == 1 and queue_size(server, "m") == 0
        env.gate.open()
        assert held.result(timeout=60).tolist() == [[0]]
    assert model_stats(server, "m")["execution_count"] == 1
    assert env.log.executed_values() == [0]
    assert_healthy(server)
