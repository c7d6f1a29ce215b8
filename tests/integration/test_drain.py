# SPDX-License-Identifier: Apache-2.0
"""Nothing cut off at shutdown: keep-alive HTTP clients sending continuously
through SIGTERM see every request either answered (a result, or 503 with
`Connection: close` once the drain began) or their next connection refused
before they sent anything — never a connection closed under a request
(docs/deployment.md, "Shutdown, step by step"). Raw sockets, so that each
outcome is seen exactly as the server produced it (no client retries)."""

import json
import shutil
import signal
import socket
import threading
import time

from conftest import EXAMPLES
from test_http_util import read_response, request_bytes

BODY = json.dumps({
    "inputs": [
        {"name": "INPUT0", "datatype": "INT32", "shape": [1, 16], "data": list(range(16))},
        {"name": "INPUT1", "datatype": "INT32", "shape": [1, 16], "data": [1] * 16},
    ]
}).encode()
REQUEST = request_bytes("POST", "/v2/models/simple/infer",
                        {"Content-Type": "application/json"}, BODY)


class CutOff(Exception):
    """The connection ended after the request was sent, before its reply."""


def read_reply(sock):
    """(status, headers) of one complete reply; CutOff when the connection
    ends (end of stream or reset) before the reply is whole."""
    try:
        reply, _ = read_response(sock)
    except ConnectionError as error:  # ConnectionResetError and BrokenPipeError too
        raise CutOff(str(error)) from error
    length = int(reply.headers.get("content-length", "0"))
    if len(reply.body) < length:
        raise CutOff(f"end of stream inside the body ({len(reply.body)} of {length} bytes)")
    return reply.status, reply.headers


class Client(threading.Thread):
    """Sends one request after another on a keep-alive connection and opens
    a new connection when a reply says `Connection: close`."""

    def __init__(self, port, stop):
        super().__init__(daemon=True)
        self.port, self.stop = port, stop
        self.ok = self.refused_503 = self.connections_refused = 0
        self.closing_replies = 0  # replies that said Connection: close
        self.cut_off = []
        self.other = []

    def run(self):
        sock = None
        while not self.stop.is_set():
            if sock is None:
                try:
                    sock = socket.create_connection(("127.0.0.1", self.port), timeout=10)
                except ConnectionRefusedError:
                    self.connections_refused += 1
                    time.sleep(0.002)
                    continue
            try:
                sock.sendall(REQUEST)
                status, headers = read_reply(sock)
            except (CutOff, BrokenPipeError, ConnectionResetError) as error:
                self.cut_off.append(str(error))
                sock.close()
                sock = None
                continue
            except OSError as error:  # a timeout: no reply within 10 s
                self.other.append(repr(error))
                sock.close()
                sock = None
                continue
            if status == 200:
                self.ok += 1
            elif status == 503:
                self.refused_503 += 1
            else:
                self.other.append(f"status {status}")
            if headers.get("connection", "").lower() == "close":
                self.closing_replies += 1
                sock.close()
                sock = None
        if sock is not None:
            sock.close()


def test_keep_alive_clients_are_never_cut_off_at_sigterm(make_server, tmp_path):
    repo = tmp_path / "models"
    repo.mkdir()
    shutil.copytree(EXAMPLES / "simple", repo / "simple")
    totals = {"ok": 0, "503": 0, "refused": 0, "closing": 0}
    for run in range(3):
        server = make_server(repo, "--exit-timeout-secs", "5")
        stop = threading.Event()
        clients = [Client(server.http_port, stop) for _ in range(8)]
        for client in clients:
            client.start()
        deadline = time.monotonic() + 10
        while sum(c.ok for c in clients) < 500 and time.monotonic() < deadline:
            time.sleep(0.01)
        signalled = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(timeout=30) == 0, server.output()
        exited = time.monotonic()
        time.sleep(0.2)  # the clients now find the port closed
        stop.set()
        for client in clients:
            client.join(timeout=15)
        cut_off = [e for c in clients for e in c.cut_off]
        other = [e for c in clients for e in c.other]
        assert not cut_off, f"run {run}: {len(cut_off)} requests cut off: {cut_off[:5]}"
        assert not other, other[:5]
        totals["ok"] += sum(c.ok for c in clients)
        totals["503"] += sum(c.refused_503 for c in clients)
        totals["refused"] += sum(c.connections_refused for c in clients)
        totals["closing"] += sum(c.closing_replies for c in clients)
        assert exited - signalled < 5, "the drain of an idle server took too long"
    # Every client ended by finding the listener closed, after a reply that
    # told it the connection would close.
    assert totals["refused"] >= 8 * 3, totals
    assert totals["closing"] >= 8 * 3, totals
    print(f"\n3 SIGTERMs under 8 keep-alive clients: {totals['ok']} answered 200, "
          f"{totals['503']} answered 503, {totals['closing']} replies with Connection: close, "
          f"{totals['refused']} connections refused, 0 cut off")
