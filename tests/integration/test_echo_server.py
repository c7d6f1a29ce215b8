# SPDX-License-Identifier: Apache-2.0
"""bench/echo_server, the bare round trip of `make bench-transport`, gets the same care as
inferd: pipelined requests are all answered, a client that stops reading does not stall
the I/O thread for the others, and an unreadable request is answered and its connection
closed (a benchmark client must never wait for an answer that will not come)."""
import json
import socket
import subprocess
import time

import pytest

from conftest import BINARY, free_ports

ECHO = BINARY.parent / "bench" / "echo_server"
OUTPUT_ELEMENTS = 1 << 18  # 1 MiB of FP32 per response: a few fill the socket buffers

pytestmark = pytest.mark.skipif(not ECHO.exists(), reason=f"{ECHO} not built (INFERD_BUILD_BENCH)")


@pytest.fixture
def echo(tmp_path):
    http, grpc = free_ports(2)
    log = open(tmp_path / "echo.log", "w")
    process = subprocess.Popen(
        [str(ECHO), "--model", "big", "--max-batch-size", "0", "--input", "IN:FP32:4",
         "--output", f"OUT:FP32:{OUTPUT_ELEMENTS}", "--host", "127.0.0.1",
         "--http-port", str(http), "--grpc-port", str(grpc)], stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", http), timeout=1).close()
            break
        except OSError:
            assert process.poll() is None, (tmp_path / "echo.log").read_text()
            assert time.monotonic() < deadline, "echo_server did not listen"
            time.sleep(0.05)
    yield http
    process.terminate()
    process.wait(timeout=20)


def infer_request(request_id):
    header = json.dumps({"id": request_id, "inputs": [
        {"name": "IN", "datatype": "FP32", "shape": [4], "parameters": {"binary_data_size": 16}}],
        "outputs": [{"name": "OUT", "parameters": {"binary_data": True}}]}).encode()
    body = header + bytes(16)
    return (b"POST /v2/models/big/infer HTTP/1.1\r\nHost: x\r\n"
            b"Content-Type: application/octet-stream\r\n"
            b"Inference-Header-Content-Length: " + str(len(header)).encode() + b"\r\n"
            b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)


def read_response(sock, buffered=b""):
    """(status, headers, body, rest) of one HTTP/1.1 response with a Content-Length."""
    data = buffered
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, "connection closed before a response header"
        data += chunk
    head, data = data.split(b"\r\n\r\n", 1)
    lines = head.decode().split("\r\n")
    headers = {k.lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
    length = int(headers["content-length"])
    while len(data) < length:
        chunk = sock.recv(1 << 20)
        assert chunk, "connection closed mid-body"
        data += chunk
    return int(lines[0].split()[1]), headers, data[:length], data[length:]


def test_pipelined_requests_are_all_answered_in_order(echo):
    with socket.create_connection(("127.0.0.1", echo), timeout=10) as sock:
        sock.sendall(b"".join(infer_request(f"r{i}") for i in range(5)))
        rest = b""
        for i in range(5):
            status, headers, body, rest = read_response(sock, rest)
            assert status == 200
            header_bytes = int(headers["inference-header-content-length"])
            assert json.loads(body[:header_bytes])["id"] == f"r{i}"
            assert len(body) - header_bytes == OUTPUT_ELEMENTS * 4


def test_a_client_that_stops_reading_does_not_stall_the_others(echo):
    # 40 MiB of answers that nobody reads: a blocking write on the one I/O thread would
    # wait forever here, and the second client's request would never be read.
    stuck = socket.create_connection(("127.0.0.1", echo), timeout=10)
    stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    stuck.sendall(b"".join(infer_request(f"s{i}") for i in range(40)))
    time.sleep(0.5)
    with socket.create_connection(("127.0.0.1", echo), timeout=5) as other:
        other.sendall(infer_request("other"))
        status, _, _, _ = read_response(other)
        assert status == 200
    stuck.close()


@pytest.mark.parametrize("request_bytes", [
    b"NOT HTTP AT ALL\r\n\r\n",
    b"POST /v2/models/big/infer HTTP/1.1\r\nContent-Length: nope\r\n\r\n",
])
def test_an_unreadable_request_is_answered_and_the_connection_closed(echo, request_bytes):
    with socket.create_connection(("127.0.0.1", echo), timeout=10) as sock:
        sock.sendall(request_bytes)
        status, headers, _, rest = read_response(sock)
        assert status == 400
        assert headers.get("connection", "").lower() == "close"
        assert rest == b"" and sock.recv(1) == b""  # closed, nothing more


def test_a_bad_infer_body_keeps_the_connection(echo):
    with socket.create_connection(("127.0.0.1", echo), timeout=10) as sock:
        body = b"{not json"
        sock.sendall(b"POST /v2/models/big/infer HTTP/1.1\r\nHost: x\r\nContent-Length: "
                     + str(len(body)).encode() + b"\r\n\r\n" + body + infer_request("after"))
        status, _, _, rest = read_response(sock)
        assert status == 400
        status, _, _, _ = read_response(sock, rest)
        assert status == 200


def test_the_peer_closing_mid_request_frees_the_session(echo):
    for _ in range(50):
        with socket.create_connection(("127.0.0.1", echo), timeout=10) as sock:
            sock.sendall(infer_request("cut")[:40])
    with socket.create_connection(("127.0.0.1", echo), timeout=5) as sock:
        sock.sendall(infer_request("fine"))
        assert read_response(sock)[0] == 200

