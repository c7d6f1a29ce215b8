# SPDX-License-Identifier: Apache-2.0
"""Helpers for the HTTP frontend tests (no tests here): raw HTTP/1.1 over a socket (for what
requests and tritonclient refuse to send) and KServe v2 binary bodies."""
import json
import socket
import struct


def bytes_blob(values):
    """KServe v2 binary encoding of BYTES elements (uint32 LE length + bytes)."""
    out = b""
    for value in values:
        if isinstance(value, str):
            value = value.encode()
        out += struct.pack("<I", len(value)) + value
    return out


def binary_body(request, blobs):
    """JSON header + blobs, and the Inference-Header-Content-Length value."""
    header = json.dumps(request).encode()
    return header + b"".join(blobs), len(header)


class RawResponse:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    def json(self):
        return json.loads(self.body)


def read_response(sock):
    """Reads one HTTP/1.1 response with a Content-Length body."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"connection closed after {data!r}")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        rest += chunk
    return RawResponse(status, headers, rest[:length]), rest[length:]


def raw_exchange(url, payload, timeout=10):
    """Sends `payload` bytes on a fresh connection and reads one response."""
    host, port = url.split(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(payload)
        response, _ = read_response(sock)
        return response


def request_bytes(method, path, headers=None, body=b"", version="HTTP/1.1", host=True):
    lines = [f"{method} {path} {version}"]
    if host:
        lines.append("Host: localhost")
    for name, value in (headers or {}).items():
        lines.append(f"{name}: {value}")
    if body and not any(k.lower() in ("content-length", "transfer-encoding") for k in (headers or {})):
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body
