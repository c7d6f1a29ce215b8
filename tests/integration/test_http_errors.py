# SPDX-License-Identifier: Apache-2.0
"""Every bad-input path of the HTTP frontend: the right status and a JSON
{"error": ...} body, and a server that stays healthy afterwards."""
import gzip
import json
import socket

import numpy as np
import pytest
import requests

from conftest import EXAMPLES
from test_http_util import binary_body, raw_exchange, request_bytes

pytestmark = pytest.mark.timeout(120)


def url(server, path):
    return f"http://{server.http_url}{path}"


@pytest.fixture(autouse=True)
def still_healthy(server):
    yield
    assert server.alive(), server.output()
    assert requests.get(url(server, "/v2/health/live"), timeout=5).status_code == 200
    good = {"inputs": [{"name": n, "datatype": "INT32", "shape": [1, 16], "data": [1] * 16}
                       for n in ("INPUT0", "INPUT1")]}
    r = requests.post(url(server, "/v2/models/simple/infer"), data=json.dumps(good), timeout=10)
    assert r.status_code == 200, r.text


def simple_request(**overrides):
    inputs = [{"name": n, "datatype": "INT32", "shape": [1, 16], "data": [1] * 16}
              for n in ("INPUT0", "INPUT1")]
    request = {"inputs": inputs}
    request.update(overrides)
    return request


def post_infer(server, body, model="simple", headers=None):
    if not isinstance(body, (bytes, str)):
        body = json.dumps(body)
    return requests.post(url(server, f"/v2/models/{model}/infer"), data=body, headers=headers or {})


def assert_error(r, status, fragment=None):
    assert r.status_code == status, r.text
    assert r.headers["Content-Type"] == "application/json"
    message = r.json()["error"]
    assert isinstance(message, str) and message
    if fragment:
        assert fragment.lower() in message.lower(), message


# --- routing -------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/", "/v1/models", "/v2/", "/v2/models", "/v2/health",
                                  "/v2/models/simple/versions/one", "/v2/models/simple/bogus",
                                  "/v2/models/simple/versions/1/trace/setting"])
def test_unknown_path_is_404(server, path):
    r = requests.get(url(server, path))
    assert r.status_code == 404
    assert r.json() == {"error": "Not Found"}


@pytest.mark.parametrize("method,path", [("POST", "/v2/health/live"), ("GET", "/v2/models/simple/infer"),
                                         ("DELETE", "/v2"), ("PUT", "/v2/models/simple/config"),
                                         ("GET", "/v2/repository/index")])
def test_wrong_method_is_405(server, method, path):
    r = requests.request(method, url(server, path))
    assert r.status_code == 405
    assert r.json() == {"error": "Method Not Allowed"}


def test_unimplemented_extensions_are_501(server):
    for method, path in [("GET", "/v2/trace/setting"), ("GET", "/v2/logging")]:
        r = requests.request(method, url(server, path))
        assert_error(r, 501)


# --- models and versions -------------------------------------------------------

def test_unknown_model(server):
    for path in ("/v2/models/nope", "/v2/models/nope/ready", "/v2/models/nope/config"):
        r = requests.get(url(server, path))
        assert r.status_code in (400, 404), r.text
        assert "nope" in r.json()["error"]
    r = post_infer(server, simple_request(), model="nope")
    assert r.status_code in (400, 404) and "nope" in r.json()["error"]


def test_unknown_version(server):
    for path in ("/v2/models/simple/versions/9", "/v2/models/simple/versions/9/ready",
                 "/v2/models/simple/versions/9/config"):
        assert_error(requests.get(url(server, path)), 404)
    assert_error(post_infer(server, simple_request(), model="simple/versions/9"), 404)


# --- request contents ----------------------------------------------------------

def test_wrong_datatype(server):
    request = simple_request()
    request["inputs"][0]["datatype"] = "FP32"
    assert_error(post_infer(server, request), 400, "INPUT0")


def test_wrong_shape(server):
    request = simple_request()
    request["inputs"][0]["shape"] = [1, 15]
    request["inputs"][0]["data"] = [1] * 15
    assert_error(post_infer(server, request), 400, "INPUT0")


def test_element_count_does_not_match_shape(server):
    request = simple_request()
    request["inputs"][0]["data"] = [1] * 15
    assert_error(post_infer(server, request), 400, "INPUT0")


@pytest.mark.parametrize("value", [1.5, "1", True, None, 2**31])
def test_bad_json_element(server, value):
    request = simple_request()
    request["inputs"][0]["data"] = [value] + [1] * 15
    assert_error(post_infer(server, request), 400, "INPUT0")


def test_missing_input(server):
    request = simple_request()
    del request["inputs"][1]
    assert_error(post_infer(server, request), 400, "INPUT1")


def test_unknown_output(server):
    assert_error(post_infer(server, simple_request(outputs=[{"name": "OUTPUT9"}])), 400, "OUTPUT9")


@pytest.mark.parametrize("body", [b"", b"{", b"not json", b"[]", b'{"inputs": 5}',
                                  b'{"inputs": [{"name": "INPUT0"}]}', b"\xff\xfe"])
def test_malformed_json(server, body):
    assert_error(post_infer(server, body), 400)


def test_reserved_parameter(server):
    assert_error(post_infer(server, simple_request(parameters={"triton_x": 1})), 400, "triton_")


def test_unknown_shared_memory_region_is_404(server):
    request = simple_request()
    del request["inputs"][0]["data"]
    request["inputs"][0]["parameters"] = {"shared_memory_region": "r", "shared_memory_byte_size": 64}
    assert_error(post_infer(server, request), 404, "Unable to find shared memory region: 'r'")


def binary_request(sizes, blobs, declared_length=None):
    request = {"inputs": [{"name": n, "datatype": "INT32", "shape": [1, 16],
                           "parameters": {"binary_data_size": s}}
                          for n, s in zip(("INPUT0", "INPUT1"), sizes)]}
    body, length = binary_body(request, blobs)
    return body, str(length if declared_length is None else declared_length)


def test_binary_size_mismatch(server):
    body, length = binary_request([60, 64], [b"\0" * 60, b"\0" * 64])
    assert_error(post_infer(server, body, headers={"Inference-Header-Content-Length": length}),
                 400, "input byte size mismatch for input 'INPUT0' for model 'simple'. Expected 64, got 60")


def test_truncated_binary_body(server):
    body, length = binary_request([64, 64], [b"\0" * 64, b"\0" * 10])
    assert_error(post_infer(server, body, headers={"Inference-Header-Content-Length": length}),
                 400, "INPUT1")


def test_leftover_binary_bytes(server):
    body, length = binary_request([64, 64], [b"\0" * 64, b"\0" * 64, b"extra"])
    assert_error(post_infer(server, body, headers={"Inference-Header-Content-Length": length}), 400)


@pytest.mark.parametrize("value", ["-1", "abc", "99999", "1.5"])
def test_bad_inference_header_length(server, value):
    body, _ = binary_request([64, 64], [b"\0" * 64, b"\0" * 64])
    assert_error(post_infer(server, body, headers={"Inference-Header-Content-Length": value}),
                 400, "Inference-Header-Content-Length")


def test_raw_binary_request_needs_single_input_model(server):
    r = post_infer(server, np.zeros(32, np.int32).tobytes(),
                   headers={"Inference-Header-Content-Length": "0"})
    assert_error(r, 400, "one input")


def test_fp16_as_json_is_refused(server):
    request = simple_request()
    request["inputs"][0]["datatype"] = "FP16"
    assert_error(post_infer(server, request), 400, "binary")


# --- compression and framing ---------------------------------------------------

def test_unsupported_content_encoding(server):
    r = post_infer(server, json.dumps(simple_request()), headers={"Content-Encoding": "br"})
    assert_error(r, 501, "br")
    assert r.headers["Accept-Encoding"] == "gzip, deflate"


def test_corrupt_gzip_body(server):
    r = post_infer(server, b"\x1f\x8b\x08\x00garbage", headers={"Content-Encoding": "gzip"})
    assert_error(r, 400, "gzip")
    packed = gzip.compress(json.dumps(simple_request()).encode())
    r = post_infer(server, packed[:-10], headers={"Content-Encoding": "gzip"})
    assert_error(r, 400, "gzip")


def test_decompression_bomb(server):
    bomb = gzip.compress(b"\0" * (300 << 20), compresslevel=9)  # past the 256 MiB default
    r = post_infer(server, bomb, headers={"Content-Encoding": "gzip"})
    assert_error(r, 400, "exceeds")


def test_oversized_body_is_413(server):
    """A Content-Length beyond the limit is refused before the body is read."""
    response = raw_exchange(server.http_url, request_bytes(
        "POST", "/v2/models/simple/infer", {"Content-Length": str(1 << 40)}))
    assert response.status == 413
    assert "exceeds" in response.json()["error"]
    assert response.headers.get("connection") == "close"


def test_oversized_chunked_body_is_413(server, make_server):
    limited = make_server(EXAMPLES, "--http-max-body-bytes", "1000")
    chunk = b"x" * 600
    body = (b"%x\r\n%s\r\n" % (len(chunk), chunk)) * 2 + b"0\r\n\r\n"
    response = raw_exchange(limited.http_url, request_bytes(
        "POST", "/v2/models/simple/infer", {"Transfer-Encoding": "chunked"}, body))
    assert response.status == 413
    small = json.dumps(simple_request()).encode()
    assert len(small) < 1000
    r = requests.post(f"http://{limited.http_url}/v2/models/simple/infer", data=small)
    assert r.status_code == 200


@pytest.mark.parametrize("headers,host,version", [
    ({"Transfer-Encoding": "gzip, chunked"}, True, "HTTP/1.1"),
    ({"Transfer-Encoding": "identity"}, True, "HTTP/1.1"),
    ({"Transfer-Encoding": "chunked", "Content-Length": "5"}, True, "HTTP/1.1"),
    ({}, False, "HTTP/1.1"),
])
def test_refused_framing(server, headers, host, version):
    body = b"0\r\n\r\n" if "Transfer-Encoding" in headers else b""
    response = raw_exchange(server.http_url,
                            request_bytes("POST", "/v2/models/simple/infer", headers, body,
                                          version=version, host=host))
    assert response.status == 400
    assert response.json()["error"]


def test_folded_header_is_refused(server):
    payload = (b"GET /v2/health/live HTTP/1.1\r\nHost: localhost\r\n"
               b"X-Folded: a\r\n b\r\n\r\n")
    response = raw_exchange(server.http_url, payload)
    assert response.status == 400
    assert "fold" in response.json()["error"]


def test_garbage_request_line(server):
    response = raw_exchange(server.http_url, b"NOT HTTP AT ALL\r\n\r\n")
    assert response.status == 400


def test_huge_header_is_refused(server):
    payload = b"GET /v2 HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (80 * 1024) + b"\r\n\r\n"
    response = raw_exchange(server.http_url, payload)
    assert response.status == 431


def test_client_disconnects_mid_request(server):
    host, port = server.http_url.split(":")
    body = json.dumps(simple_request()).encode()
    for cut in (10, len(body) // 2):
        with socket.create_connection((host, int(port)), timeout=5) as sock:
            sock.sendall(request_bytes("POST", "/v2/models/simple/infer",
                                       {"Content-Length": len(body)}) + body[:cut])
    # Requests whose client is gone before the answer: the server must not care.
    for _ in range(20):
        with socket.create_connection((host, int(port)), timeout=5) as sock:
            sock.sendall(request_bytes("POST", "/v2/models/simple/infer",
                                       {"Content-Length": len(body)}, body))
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
