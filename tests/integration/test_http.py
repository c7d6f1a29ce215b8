# SPDX-License-Identifier: Apache-2.0
"""The HTTP/REST frontend against the real binary: every endpoint, every
datatype round-tripped as JSON and as binary, output subsets, compression,
keep-alive. Error paths are in test_http_errors.py."""
import gzip
import json
import zlib

import numpy as np
import pytest
import requests
import tritonclient.http as httpclient

from test_http_util import binary_body, bytes_blob, raw_exchange, read_response, request_bytes

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def client(server):
    with httpclient.InferenceServerClient(server.http_url) as c:
        yield c


def url(server, path):
    return f"http://{server.http_url}{path}"


def simple_inputs(batch=1, binary=True):
    a = np.arange(16 * batch, dtype=np.int32).reshape(batch, 16)
    b = np.full((batch, 16), 3, dtype=np.int32)
    inputs = [httpclient.InferInput("INPUT0", [batch, 16], "INT32"),
              httpclient.InferInput("INPUT1", [batch, 16], "INT32")]
    inputs[0].set_data_from_numpy(a, binary_data=binary)
    inputs[1].set_data_from_numpy(b, binary_data=binary)
    return inputs, a, b


# --- health and metadata -----------------------------------------------------

def test_health_probes(server, client):
    for probe in ("live", "ready"):
        r = requests.get(url(server, f"/v2/health/{probe}"))
        assert r.status_code == 200
        assert r.content == b""
    assert client.is_server_live()
    assert client.is_server_ready()


def test_server_metadata(server, client):
    r = requests.get(url(server, "/v2"))
    assert r.status_code == 200
    assert r.headers["Content-Type"] == "application/json"
    body = r.json()
    assert body["name"] and isinstance(body["version"], str)
    assert isinstance(body["extensions"], list)
    assert client.get_server_metadata()["name"] == body["name"]


def test_model_metadata(server, client):
    meta = client.get_model_metadata("simple")
    assert meta["name"] == "simple"
    assert meta["versions"] == ["1"]
    assert meta["platform"]
    assert meta["inputs"] == [{"name": "INPUT0", "datatype": "INT32", "shape": [-1, 16]},
                              {"name": "INPUT1", "datatype": "INT32", "shape": [-1, 16]}]
    assert [o["name"] for o in meta["outputs"]] == ["OUTPUT0", "OUTPUT1"]
    assert client.get_model_metadata("simple", "1") == meta
    strings = client.get_model_metadata("string_identity")
    assert strings["inputs"][0]["datatype"] == "BYTES"


def test_model_ready(server, client):
    assert client.is_model_ready("simple")
    assert client.is_model_ready("simple", "1")
    r = requests.get(url(server, "/v2/models/simple/versions/1/ready"))
    assert r.status_code == 200 and r.content == b""


def test_model_config(server, client):
    config = client.get_model_config("simple")
    assert config["name"] == "simple"
    assert config["max_batch_size"] == 8
    assert [i["name"] for i in config["input"]] == ["INPUT0", "INPUT1"]
    assert config["input"][0]["data_type"] == "TYPE_INT32"
    assert config["input"][0]["dims"] == [16]  # numbers, not strings
    assert config["input"][0]["is_shape_tensor"] is False
    assert "dynamic_batching" not in config or isinstance(config["dynamic_batching"], dict)
    r = requests.get(url(server, "/v2/models/simple/versions/1/config"))
    assert r.status_code == 200 and r.json() == config


def test_repository_index(server, client):
    index = client.get_model_repository_index()
    names = {entry["name"] for entry in index}
    assert {"simple", "string_identity"} <= names
    simple = [e for e in index if e["name"] == "simple"][0]
    assert simple["state"] == "READY" and simple["version"] == "1"
    r = requests.post(url(server, "/v2/repository/index"), data=json.dumps({"ready": True}))
    assert r.status_code == 200
    assert all(e["state"] == "READY" for e in r.json())


def test_percent_encoded_model_name(server):
    r = requests.get(url(server, "/v2/models/%73imple"))
    assert r.status_code == 200 and r.json()["name"] == "simple"


# --- inference -----------------------------------------------------------------

@pytest.mark.parametrize("binary", [True, False])
def test_simple_infer(client, binary):
    inputs, a, b = simple_inputs(batch=2, binary=binary)
    outputs = [httpclient.InferRequestedOutput("OUTPUT0", binary_data=binary),
               httpclient.InferRequestedOutput("OUTPUT1", binary_data=binary)]
    result = client.infer("simple", inputs, outputs=outputs, request_id="req-7")
    np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), a + b)
    np.testing.assert_array_equal(result.as_numpy("OUTPUT1"), a - b)
    response = result.get_response()
    assert response["id"] == "req-7"
    assert response["model_name"] == "simple"
    assert response["model_version"] == "1"
    for output in response["outputs"]:
        assert ("parameters" in output) == binary
        assert ("data" in output) == (not binary)


def test_infer_without_outputs_returns_all_as_json(server):
    request = {"inputs": [
        {"name": "INPUT0", "datatype": "INT32", "shape": [1, 16], "data": list(range(16))},
        {"name": "INPUT1", "datatype": "INT32", "shape": [1, 16], "data": [[1] * 16]}]}
    r = requests.post(url(server, "/v2/models/simple/infer"), data=json.dumps(request))
    assert r.status_code == 200, r.text
    assert r.headers["Content-Type"] == "application/json"
    assert "Inference-Header-Content-Length" not in r.headers
    body = r.json()
    assert "id" not in body
    assert [o["name"] for o in body["outputs"]] == ["OUTPUT0", "OUTPUT1"]
    assert body["outputs"][0]["data"] == [i + 1 for i in range(16)]
    assert body["outputs"][0]["shape"] == [1, 16]
    assert "parameters" not in body["outputs"][0]


def test_binary_data_output_default(server):
    request = {"parameters": {"binary_data_output": True},
               "inputs": [{"name": n, "datatype": "INT32", "shape": [1, 16], "data": [2] * 16}
                          for n in ("INPUT0", "INPUT1")],
               "outputs": [{"name": "OUTPUT0"}, {"name": "OUTPUT1", "parameters": {"binary_data": False}}]}
    r = requests.post(url(server, "/v2/models/simple/infer"), data=json.dumps(request))
    assert r.status_code == 200, r.text
    assert r.headers["Content-Type"] == "application/octet-stream"
    n = int(r.headers["Inference-Header-Content-Length"])
    header = json.loads(r.content[:n])
    assert header["outputs"][0]["parameters"] == {"binary_data_size": 64}
    assert header["outputs"][1]["data"] == [0] * 16
    assert np.frombuffer(r.content[n:], dtype=np.int32).tolist() == [4] * 16


def test_output_subset(client):
    inputs, a, b = simple_inputs()
    result = client.infer("simple", inputs, outputs=[httpclient.InferRequestedOutput("OUTPUT1")])
    names = [o["name"] for o in result.get_response()["outputs"]]
    assert names == ["OUTPUT1"]
    np.testing.assert_array_equal(result.as_numpy("OUTPUT1"), a - b)
    assert result.as_numpy("OUTPUT0") is None


def test_explicit_version(client):
    inputs, a, b = simple_inputs()
    result = client.infer("simple", inputs, model_version="1")
    np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), a + b)


@pytest.mark.parametrize("binary", [True, False])
def test_bytes_round_trip(client, binary):
    data = np.array([["hello", "", "wörld"], ["a" * 1000, "b", "\u00e9t\u00e9"]], dtype=np.object_)
    infer_input = httpclient.InferInput("INPUT0", list(data.shape), "BYTES")
    infer_input.set_data_from_numpy(data, binary_data=binary)
    output = httpclient.InferRequestedOutput("OUTPUT0", binary_data=binary)
    result = client.infer("string_identity", [infer_input], outputs=[output])
    got = result.as_numpy("OUTPUT0")
    assert got.shape == (2, 3)
    assert [x.decode() if isinstance(x, bytes) else x for x in got.flatten()] == list(data.flatten())


def test_large_binary_bytes_tensor(client):
    big = np.array([[b"x" * (8 << 20)]], dtype=np.object_)
    infer_input = httpclient.InferInput("INPUT0", [1, 1], "BYTES")
    infer_input.set_data_from_numpy(big)
    result = client.infer("string_identity", [infer_input])
    assert result.as_numpy("OUTPUT0")[0][0] == big[0][0]


def test_async_infer_echoes_ids(server):
    with httpclient.InferenceServerClient(server.http_url, concurrency=4) as c:
        pending = []
        for i in range(16):
            inputs, a, b = simple_inputs()
            pending.append((c.async_infer("simple", inputs, request_id=str(i)), a + b, str(i)))
        for handle, expected, request_id in pending:
            result = handle.get_result()
            assert result.get_response()["id"] == request_id
            np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), expected)


def test_cpp_client_style_header_on_pure_json(server):
    """perf_analyzer always sends Inference-Header-Content-Length, even for JSON."""
    request = {"inputs": [{"name": n, "datatype": "INT32", "shape": [1, 16], "data": [1] * 16}
                          for n in ("INPUT0", "INPUT1")]}
    body = json.dumps(request).encode()
    r = requests.post(url(server, "/v2/models/simple/infer"), data=body,
                      headers={"Inference-Header-Content-Length": str(len(body)),
                               "Content-Type": "application/json", "Expect": ""})
    assert r.status_code == 200, r.text
    assert r.json()["outputs"][0]["data"] == [2] * 16


def test_raw_binary_request(server):
    """Inference-Header-Content-Length: 0 sends the single input's raw bytes."""
    r = requests.post(url(server, "/v2/models/string_identity/infer"), data=b"raw text",
                      headers={"Inference-Header-Content-Length": "0"})
    assert r.status_code == 200, r.text
    n = int(r.headers["Inference-Header-Content-Length"])
    header = json.loads(r.content[:n])
    assert header["outputs"][0]["shape"] == [1, 1]
    assert r.content[n:] == bytes_blob([b"raw text"])


# --- compression ---------------------------------------------------------------

@pytest.mark.parametrize("request_algorithm", [None, "gzip", "deflate"])
@pytest.mark.parametrize("response_algorithm", [None, "gzip", "deflate"])
def test_client_compression(client, request_algorithm, response_algorithm):
    inputs, a, b = simple_inputs(batch=3)
    result = client.infer("simple", inputs, request_compression_algorithm=request_algorithm,
                          response_compression_algorithm=response_algorithm)
    np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), a + b)
    np.testing.assert_array_equal(result.as_numpy("OUTPUT1"), a - b)


@pytest.mark.parametrize("encoding,decompress", [("gzip", gzip.decompress),
                                                  ("deflate", zlib.decompress)])
def test_response_compression_headers(server, encoding, decompress):
    request = {"inputs": [{"name": n, "datatype": "INT32", "shape": [1, 16], "data": [5] * 16}
                          for n in ("INPUT0", "INPUT1")],
               "outputs": [{"name": "OUTPUT0", "parameters": {"binary_data": True}}]}
    body, length = binary_body(request, [])
    raw = raw_exchange(server.http_url, request_bytes(
        "POST", "/v2/models/simple/infer",
        {"Accept-Encoding": f"identity;q=0.5, {encoding};q=0.9", "Content-Length": len(body)}, body))
    assert raw.status == 200
    assert raw.headers["content-encoding"] == encoding
    plain = decompress(raw.body)
    n = int(raw.headers["inference-header-content-length"])  # of the uncompressed JSON
    assert json.loads(plain[:n])["outputs"][0]["parameters"]["binary_data_size"] == 64
    assert np.frombuffer(plain[n:], dtype=np.int32).tolist() == [10] * 16


def test_compressed_binary_request(server):
    request = {"inputs": [{"name": n, "datatype": "INT32", "shape": [1, 16],
                           "parameters": {"binary_data_size": 64}} for n in ("INPUT0", "INPUT1")]}
    body, length = binary_body(request, [np.ones(16, np.int32).tobytes(),
                                         np.full(16, 4, np.int32).tobytes()])
    r = requests.post(url(server, "/v2/models/simple/infer"), data=gzip.compress(body),
                      headers={"Content-Encoding": "gzip",
                               "Inference-Header-Content-Length": str(length)})
    assert r.status_code == 200, r.text
    assert r.json()["outputs"][1]["data"] == [-3] * 16


# --- connection handling -------------------------------------------------------

def test_keep_alive_serves_many_requests_on_one_connection(server):
    host, port = server.http_url.split(":")
    import socket
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        leftover = b""
        for path in ("/v2/health/live", "/v2", "/v2/models/simple", "/v2/nope", "/v2/health/ready"):
            sock.sendall(request_bytes("GET", path))
            response, leftover = read_response(sock)
            assert response.status in (200, 404)
            assert "close" not in response.headers.get("connection", "")
        assert leftover == b""


def test_http10_closes_unless_keep_alive(server):
    response = raw_exchange(server.http_url,
                            request_bytes("GET", "/v2/health/live", version="HTTP/1.0", host=False))
    assert response.status == 200
    assert response.headers.get("connection") == "close"


def test_chunked_request_body(server):
    request = {"inputs": [{"name": n, "datatype": "INT32", "shape": [1, 16], "data": [1] * 16}
                          for n in ("INPUT0", "INPUT1")]}
    body = json.dumps(request).encode()
    chunked = b"".join(b"%x\r\n%s\r\n" % (len(body[i:i + 50]), body[i:i + 50])
                       for i in range(0, len(body), 50)) + b"0\r\n\r\n"
    response = raw_exchange(server.http_url, request_bytes(
        "POST", "/v2/models/simple/infer", {"Transfer-Encoding": "chunked"}, chunked))
    assert response.status == 200, response.body
    assert response.json()["outputs"][0]["data"] == [2] * 16


def test_expect_100_continue(server):
    request = {"inputs": [{"name": n, "datatype": "INT32", "shape": [1, 16], "data": [1] * 16}
                          for n in ("INPUT0", "INPUT1")]}
    body = json.dumps(request).encode()
    host, port = server.http_url.split(":")
    import socket
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(request_bytes("POST", "/v2/models/simple/infer",
                                   {"Expect": "100-continue", "Content-Length": len(body)}))
        interim = sock.recv(1024)
        assert interim.startswith(b"HTTP/1.1 100 Continue\r\n\r\n")
        sock.sendall(body)
        response, _ = read_response(sock)
        assert response.status == 200
