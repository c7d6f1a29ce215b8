# SPDX-License-Identifier: Apache-2.0
"""Model repositories in S3 (docs/deployment.md, "Object storage"), against a
real S3-compatible server started here: versitygw (Apache-2.0, built by
scripts/setup.sh into .deps/go/bin) over a folder of its own. Objects are
written with curl's SigV4 signing. Covers loading and inferring, polling for
a new version, deleting one, a half-uploaded version, refused credentials, a
missing bucket, an unreachable server and a download cut mid-transfer, and
TLS: each failure a clear error while the old version keeps serving."""
import hashlib
import io
import os
import pathlib
import socket
import subprocess
import tempfile
import threading
import time
import urllib.parse

import numpy as np
import pytest
import requests
import tritonclient.http as httpclient

from conftest import ROOT, free_port
from test_repository import add_constant_model

VERSITYGW = ROOT / ".deps" / "go" / "bin" / "versitygw"
ACCESS, SECRET = "inferdtest", "inferd-test-secret"
BUCKET = "models"
PREFIX = "repo"
CONFIG = 'platform: "onnxruntime_onnx"\nmax_batch_size: 8\n'
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()
POLL = ["--model-control-mode", "poll", "--repository-poll-secs", "1"]


def constant_model(value, external=False):
    """{file name: bytes} of y = x + value (FP32 [-1, 4]), as test_repository's
    add_constant_model writes it; with `external`, the weights in a second file
    (model.onnx is useless without weights.bin)."""
    with tempfile.TemporaryDirectory() as tmp:
        add_constant_model(pathlib.Path(tmp) / "model.onnx", value, external)
        return {f.name: f.read_bytes() for f in pathlib.Path(tmp).iterdir()}


class Gateway:
    """versitygw on a free port over `root` (one folder per bucket)."""

    def __init__(self, root, cert=None, key=None):
        if not VERSITYGW.exists():
            pytest.fail(f"{VERSITYGW} is missing: run scripts/setup.sh")
        self.root, self.cert, self.key = root, cert, key
        self.port = free_port()
        self.scheme = "https" if cert else "http"
        self.process = None
        self.start()

    def start(self):
        args = [str(VERSITYGW), "--access", ACCESS, "--secret", SECRET, "--port",
                f"127.0.0.1:{self.port}", "--quiet"]
        if self.cert:
            args += ["--cert", str(self.cert), "--key", str(self.key)]
        self.process = subprocess.Popen(args + ["posix", str(self.root)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("versitygw did not start")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)

    def request(self, method, path, data=b"", secret=SECRET, check=True):
        """A SigV4-signed request with curl (S3 needs x-amz-content-sha256)."""
        args = ["curl", "-sS", "-X", method, "--aws-sigv4", "aws:amz:us-east-1:s3", "--user",
                f"{ACCESS}:{secret}", "-H",
                f"x-amz-content-sha256: {hashlib.sha256(data).hexdigest()}", "-w", "\n%{http_code}",
                f"{self.scheme}://127.0.0.1:{self.port}/{urllib.parse.quote(path)}"]
        if self.cert:
            args += ["--cacert", str(self.cert)]
        if data:
            args += ["--data-binary", "@-"]
        done = subprocess.run(args, input=data, capture_output=True, check=True)
        body, _, status = done.stdout.decode().rpartition("\n")
        if check:
            assert status.startswith("2"), f"{method} {path}: {status} {body}"
        return int(status), body

    def put(self, key, data):
        self.request("PUT", f"{BUCKET}/{PREFIX}/{key}", data.encode() if isinstance(data, str) else data)

    def delete(self, key):
        self.request("DELETE", f"{BUCKET}/{PREFIX}/{key}")

    def put_model(self, name, version, value, external=False, config=CONFIG):
        if config is not None:
            self.put(f"{name}/config.pbtxt", config)
        for file, data in constant_model(value, external).items():
            self.put(f"{name}/{version}/{file}", data)

    def url(self, bucket=BUCKET):
        host = f"127.0.0.1:{self.port}"
        return f"s3://{'https://' if self.cert else ''}{host}/{bucket}/{PREFIX}"


@pytest.fixture
def gateway(tmp_path):
    root = tmp_path / "s3"
    root.mkdir()
    gw = Gateway(root)
    gw.request("PUT", BUCKET)
    yield gw
    gw.stop()


@pytest.fixture
def aws_env(monkeypatch, tmp_path):
    """The server's credentials, from the environment; no ~/.aws of the host."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", ACCESS)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    monkeypatch.delenv("AWS_ENDPOINT_URL_S3", raising=False)
    return monkeypatch


def infer(server, model, version=""):
    client = httpclient.InferenceServerClient(server.http_url)
    x = httpclient.InferInput("x", [1, 4], "FP32")
    x.set_data_from_numpy(np.zeros((1, 4), np.float32))
    result = client.infer(model, [x], model_version=version)
    return int(result.as_numpy("y")[0, 0])


def index(server):
    rows = requests.post(f"http://{server.http_url}/v2/repository/index").json()
    return {(r["name"], r.get("version", "")): r for r in rows}


def ready_versions(server, model):
    return sorted(int(v) for (name, v), row in index(server).items()
                  if name == model and v and row["state"] == "READY")


def wait_for(condition, what, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def wait_for_log(server, text, after=0, timeout=30):
    wait_for(lambda: text in server.output()[after:], f"'{text}' in the server log", timeout)


def test_load_from_s3_and_infer(gateway, aws_env, make_server, tmp_path):
    gateway.put_model("const", 1, 1)
    gateway.put_model("other", 3, 30, external=True)
    gateway.put("README.md", "not a model")  # beside the models: ignored
    cache = tmp_path / "cache"
    server = make_server(gateway.url(), "--model-cache-dir", str(cache))
    assert infer(server, "const") == 1
    assert infer(server, "other", "3") == 30
    # The gRPC client too: the models are ordinary ones once in the cache.
    import tritonclient.grpc as grpcclient
    client = grpcclient.InferenceServerClient(server.grpc_url)
    assert client.is_model_ready("const", "1")
    # The cache holds the server's own folder, removed when it stops.
    (folder,) = list(cache.iterdir())
    assert (folder / "const" / "1" / "model.onnx").exists()
    assert server.stop() == 0
    assert list(cache.iterdir()) == []


def test_endpoint_from_the_environment_or_the_flag(gateway, aws_env, make_server, tmp_path):
    gateway.put_model("const", 1, 1)
    endpoint = f"http://127.0.0.1:{gateway.port}"
    aws_env.setenv("AWS_ENDPOINT_URL", endpoint)
    server = make_server(f"s3://{BUCKET}/{PREFIX}")
    assert infer(server, "const") == 1
    aws_env.delenv("AWS_ENDPOINT_URL")
    server = make_server(f"s3://{BUCKET}/{PREFIX}", "--s3-endpoint", endpoint)
    assert infer(server, "const") == 1


def test_credentials_file_profile(gateway, aws_env, make_server, tmp_path):
    gateway.put_model("const", 1, 1)
    aws_env.delenv("AWS_ACCESS_KEY_ID")
    aws_env.delenv("AWS_SECRET_ACCESS_KEY")
    credentials = tmp_path / "credentials"
    credentials.write_text(f"[default]\naws_access_key_id = nobody\naws_secret_access_key = x\n"
                           f"[ci]\naws_access_key_id = {ACCESS}\naws_secret_access_key = {SECRET}\n")
    aws_env.setenv("AWS_SHARED_CREDENTIALS_FILE", str(credentials))
    aws_env.setenv("AWS_PROFILE", "ci")
    server = make_server(gateway.url())
    assert infer(server, "const") == 1


def test_poll_picks_a_new_version_and_deleting_it_unloads_it(gateway, aws_env, make_server):
    gateway.put_model("const", 1, 1)
    server = make_server(gateway.url(), *POLL)
    assert infer(server, "const") == 1
    gateway.put_model("const", 2, 2, config=None)
    wait_for(lambda: ready_versions(server, "const") == [2], "version 2 to replace version 1")
    assert infer(server, "const") == 2
    # A new model appears too.
    gateway.put_model("fresh", 1, 7)
    wait_for(lambda: ready_versions(server, "fresh") == [1], "the new model")
    assert infer(server, "fresh") == 7
    # Deleting version 2 brings back version 1 (the policy serves the latest).
    gateway.delete("const/2/model.onnx")
    wait_for(lambda: ready_versions(server, "const") == [1], "version 2 to be unloaded")
    assert infer(server, "const") == 1
    with pytest.raises(Exception, match="version 2"):
        infer(server, "const", "2")
    # Deleting the whole model unloads it.
    gateway.delete("fresh/1/model.onnx")
    gateway.delete("fresh/config.pbtxt")
    wait_for(lambda: not any(name == "fresh" for name, _ in index(server)), "the model to go")


def test_a_half_uploaded_version_is_never_loaded(gateway, aws_env, make_server):
    gateway.put_model("const", 1, 1)
    server = make_server(gateway.url(), "--model-control-mode", "poll",
                         "--repository-poll-secs", "2")
    files = constant_model(2, external=True)
    # model.onnx first: alone it would fail to load (its weights are missing).
    uploads = [("2/model.onnx", files["model.onnx"])]
    uploads += [(f"2/extra{i}.bin", b"x" * 100) for i in range(5)]
    uploads += [("2/weights.bin", files["weights.bin"])]
    seen = set()
    for key, data in uploads:  # one file every 0.4 s, so polls 2 s apart never agree
        gateway.put(f"const/{key}", data)
        for _ in range(4):
            seen |= {v for (name, v) in index(server) if name == "const"}
            time.sleep(0.1)
    assert seen == {"1"}, "version 2 was taken before its upload finished"
    wait_for(lambda: ready_versions(server, "const") == [2], "the complete version 2")
    assert infer(server, "const") == 2
    output = server.output()
    assert "failed to load" not in output
    assert output.count("model 'const' version 2 copied into the cache") == 1


def test_refused_credentials(gateway, aws_env, make_server, tmp_path):
    gateway.put_model("const", 1, 1)
    # At start-up: the server does not start, and says why.
    aws_env.setenv("AWS_SECRET_ACCESS_KEY", "wrong")
    with pytest.raises(RuntimeError, match="SignatureDoesNotMatch") as failed:
        make_server(gateway.url())
    assert "HTTP 403" in str(failed.value)
    assert "credentials from the environment" in str(failed.value)
    # While serving: credentials from a file that is then spoiled.
    aws_env.delenv("AWS_ACCESS_KEY_ID")
    aws_env.delenv("AWS_SECRET_ACCESS_KEY")
    credentials = tmp_path / "credentials"
    good = f"[default]\naws_access_key_id = {ACCESS}\naws_secret_access_key = {SECRET}\n"
    credentials.write_text(good)
    aws_env.setenv("AWS_SHARED_CREDENTIALS_FILE", str(credentials))
    server = make_server(gateway.url(), *POLL)
    mark = len(server.output())
    credentials.write_text(good.replace(ACCESS, "revoked"))
    gateway.put_model("const", 2, 2, config=None)
    wait_for_log(server, "No user exists with the provided access key ID", after=mark)  # versitygw's words
    time.sleep(3)  # several polls: nothing changes
    assert ready_versions(server, "const") == [1]
    assert infer(server, "const") == 1
    assert "could not be refreshed" in server.output()[mark:]
    credentials.write_text(good)  # fixed: the next polls take version 2
    wait_for(lambda: ready_versions(server, "const") == [2], "version 2 after the fix")


def test_missing_bucket(gateway, aws_env, make_server):
    gateway.put_model("const", 1, 1)
    with pytest.raises(RuntimeError, match="NoSuchBucket"):
        make_server(gateway.url(bucket="nosuchbucket"))
    # While serving: the bucket goes away (its folder renamed under the gateway).
    server = make_server(gateway.url(), *POLL)
    mark = len(server.output())
    (gateway.root / BUCKET).rename(gateway.root / "moved")
    wait_for_log(server, "NoSuchBucket", after=mark)
    time.sleep(3)
    assert ready_versions(server, "const") == [1]  # a failed listing is not an empty one
    assert infer(server, "const") == 1
    (gateway.root / "moved").rename(gateway.root / BUCKET)


def test_unreachable_server(gateway, aws_env, make_server):
    gateway.put_model("const", 1, 1)
    server = make_server(gateway.url(), *POLL)
    mark = len(server.output())
    gateway.stop()
    wait_for_log(server, "Couldn't connect to server", after=mark)
    time.sleep(2)
    assert infer(server, "const") == 1
    gateway.start()
    gateway.put_model("const", 2, 2, config=None)
    wait_for(lambda: ready_versions(server, "const") == [2], "version 2 once it is back")


class CuttingProxy:
    """TCP proxy to the gateway; while `cut` is set it closes any connection
    after `limit` bytes of answers, as a network failure mid-download."""

    def __init__(self, port, limit=64 * 1024):
        self.target, self.limit, self.cut = port, limit, False
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.cuts = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            threading.Thread(target=self._pipe, args=(client, upstream, False), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, True), daemon=True).start()

    def _pipe(self, source, sink, answers):
        sent = 0
        try:
            while True:
                data = source.recv(16384)
                if not data:
                    break
                if answers and self.cut and sent + len(data) > self.limit:
                    sink.sendall(data[: max(0, self.limit - sent)])
                    self.cuts += 1
                    break
                sink.sendall(data)
                sent += len(data)
        except OSError:
            pass
        for s in (source, sink):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self):
        self.listener.close()


def test_download_cut_mid_transfer(gateway, aws_env, make_server):
    gateway.put_model("const", 1, 1)
    proxy = CuttingProxy(gateway.port)
    try:
        server = make_server(f"s3://127.0.0.1:{proxy.port}/{BUCKET}/{PREFIX}", *POLL)
        mark = len(server.output())
        proxy.cut = True
        gateway.put("const/2/big.bin", os.urandom(1024 * 1024))
        gateway.put_model("const", 2, 2, config=None)
        wait_for_log(server, "downloading 'const/2/big.bin'", after=mark)
        log = server.output()[mark:]
        assert "failed" in log and "the cache keeps what it had" in log
        assert proxy.cuts > 0
        time.sleep(2)
        assert ready_versions(server, "const") == [1]
        assert infer(server, "const") == 1
        proxy.cut = False  # the network is back: the next poll fetches it whole
        wait_for(lambda: ready_versions(server, "const") == [2], "version 2 after the cut")
        assert infer(server, "const") == 2
    finally:
        proxy.close()


def test_explicit_load_reads_the_bucket_now(gateway, aws_env, make_server):
    gateway.put_model("const", 1, 1)
    server = make_server(gateway.url(), "--model-control-mode", "explicit")
    gateway.put_model("later", 1, 5)
    client = httpclient.InferenceServerClient(server.http_url)
    client.load_model("later")
    assert infer(server, "later") == 5
    with pytest.raises(Exception, match="no model repository has a model named 'absent'"):
        client.load_model("absent")


def test_tls(tmp_path, aws_env, make_server):
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    root = tmp_path / "s3"
    root.mkdir()
    gw = Gateway(root, cert, key)
    try:
        gw.request("PUT", BUCKET)
        gw.put_model("const", 1, 1)
        with pytest.raises(RuntimeError, match="SSL certificate problem"):
            make_server(gw.url())  # the system's CAs do not know this certificate
        aws_env.setenv("AWS_CA_BUNDLE", str(cert))
        server = make_server(gw.url())
        assert infer(server, "const") == 1
    finally:
        gw.stop()
