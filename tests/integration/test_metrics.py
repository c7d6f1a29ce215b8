# SPDX-License-Identifier: Apache-2.0
"""Prometheus metrics on --metrics-port: the exposition read back with a strict
parser of the text format (exact counters after known requests, histogram
consistency, label escaping, 404/405, flags), then a real Prometheus server
(Debian's `prometheus` package) scraping inferd and answering PromQL."""
import json
import math
import pathlib
import re
import shutil
import subprocess
import time

import pytest
import requests

from conftest import BINARY, EXAMPLES, free_port

pytestmark = pytest.mark.timeout(180)

PROMETHEUS = pathlib.Path("/usr/bin/prometheus")
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
# A model folder name that needs escaping in a label value.
WEIRD = 'we"ird\\name'
SIMPLE = {"model": "simple", "version": "1"}
REASONS = ("REJECTED", "CANCELED", "BACKEND", "OTHER")


# --- a strict reader of the text format 0.0.4 ----------------------------------------

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"'
SAMPLE = re.compile(rf"^({NAME})(?:\{{((?:{LABEL},?)*)\}})? (\S+)$")


def unescape(value):
    return re.sub(r'\\([\\"n])', lambda m: "\n" if m.group(1) == "n" else m.group(1), value)


def parse_exposition(text):
    """{family: {"type", "help", "samples": [(name, labels, value)]}}; asserts that
    every sample follows its family's HELP and TYPE and that families are contiguous."""
    assert text.endswith("\n")
    families, current = {}, None
    for line in text.splitlines():
        if line.startswith("# HELP "):
            name, _, help_text = line[7:].partition(" ")
            assert name not in families, f"family {name} appears twice"
            current = families[name] = {"help": help_text, "type": None, "samples": []}
            current["name"] = name
            continue
        if line.startswith("# TYPE "):
            name, _, kind = line[7:].partition(" ")
            assert current is not None and current["name"] == name, line
            assert kind in ("counter", "gauge", "histogram"), line
            current["type"] = kind
            continue
        match = SAMPLE.match(line)
        assert match, f"not a sample line: {line!r}"
        name, labels_text, value = match.group(1), match.group(2) or "", match.group(5)
        labels = {k: unescape(v) for k, v in re.findall(LABEL, labels_text)}
        suffixes = ("_bucket", "_sum", "_count") if current["type"] == "histogram" else ("",)
        assert any(name == current["name"] + s for s in suffixes), f"{name} outside its family"
        current["samples"].append((name, labels, float(value)))
    return families


def value(families, name, **labels):
    found = [v for family in families.values() for n, l, v in family["samples"]
             if n == name and all(l.get(k) == w for k, w in labels.items())]
    assert len(found) == 1, f"{name} {labels}: {found}"
    return found[0]


def buckets(families, family, **labels):
    """[(le, cumulative count)] of one histogram series, in order."""
    return [(float(l["le"]), v) for n, l, v in families[family]["samples"]
            if n == family + "_bucket" and all(l.get(k) == w for k, w in labels.items())]


def scrape(server):
    r = requests.get(f"http://{server.metrics_url}/metrics", timeout=10)
    assert r.status_code == 200, r.text
    assert r.headers["Content-Type"] == CONTENT_TYPE
    return parse_exposition(r.text), r.text


# --- models and requests -------------------------------------------------------------

@pytest.fixture
def repo(tmp_path):
    """simple, and a copy of it under a name with a quote and a backslash."""
    dest = tmp_path / "models"
    shutil.copytree(EXAMPLES / "simple", dest / "simple")
    weird = dest / WEIRD
    shutil.copytree(EXAMPLES / "simple", weird)
    config = weird / "config.pbtxt"
    config.write_text("\n".join(line for line in config.read_text().splitlines()
                                if not line.startswith("name:")) + "\n")
    return dest


def infer(server, model="simple", batch=1, width=16):
    data = list(range(batch * width))
    body = {"inputs": [{"name": "INPUT0", "datatype": "INT32", "shape": [batch, width], "data": data},
                       {"name": "INPUT1", "datatype": "INT32", "shape": [batch, width], "data": data}]}
    quoted = requests.utils.quote(model, safe="")
    return requests.post(f"http://{server.http_url}/v2/models/{quoted}/infer", data=json.dumps(body), timeout=30)


def send(server, count, batch=1, model="simple"):
    for _ in range(count):
        r = infer(server, model, batch)
        assert r.status_code == 200, r.text


# --- the exposition ------------------------------------------------------------------

def test_counters_histograms_and_gauges(make_server, repo):
    server = make_server(repo)
    families, _ = scrape(server)
    assert value(families, "inferd_inference_request_success_total", **SIMPLE) == 0
    assert value(families, "inferd_inference_request_duration_seconds_count", **SIMPLE) == 0

    send(server, 5, batch=1)
    send(server, 2, batch=3)
    bad = infer(server, batch=1, width=15)  # wrong shape: refused by the server's validation
    assert bad.status_code == 400

    families, _ = scrape(server)
    assert value(families, "inferd_inference_request_success_total", **SIMPLE) == 7
    assert value(families, "inferd_inference_count_total", **SIMPLE) == 5 + 2 * 3
    assert value(families, "inferd_inference_exec_count_total", **SIMPLE) == 7
    for reason in REASONS:
        expected = 1 if reason == "OTHER" else 0
        assert value(families, "inferd_inference_request_failure_total", reason=reason, **SIMPLE) == expected
    assert value(families, "inferd_inference_queue_size", **SIMPLE) == 0
    assert value(families, "inferd_inference_pending_requests", **SIMPLE) == 0

    for family in ("request_duration", "queue_duration", "compute_input_duration",
                   "compute_infer_duration", "compute_output_duration"):
        name = f"inferd_inference_{family}_seconds"
        assert families[name]["type"] == "histogram"
        series = buckets(families, name, **SIMPLE)
        assert series[-1][0] == math.inf
        assert [le for le, _ in series] == sorted(le for le, _ in series)
        counts = [c for _, c in series]
        assert counts == sorted(counts), f"{name} buckets are not cumulative: {counts}"
        # Request durations count every request, the failed one too; the
        # phases only successful ones.
        requests_seen = 8 if family == "request_duration" else 7
        assert counts[-1] == value(families, name + "_count", **SIMPLE) == requests_seen
        assert 0 <= value(families, name + "_sum", **SIMPLE) < 60  # seconds, not ns
    assert value(families, "inferd_inference_request_duration_seconds_sum", **SIMPLE) > 0

    sizes = dict(buckets(families, "inferd_inference_batch_size", **SIMPLE))
    assert (sizes[1], sizes[2], sizes[4], sizes[math.inf]) == (5, 5, 7, 7)
    assert value(families, "inferd_inference_batch_size_sum", **SIMPLE) == 11

    # Triton's names carry the same data.
    assert value(families, "nv_inference_request_success", **SIMPLE) == 7
    assert value(families, "nv_inference_count", **SIMPLE) == 11
    assert value(families, "nv_inference_exec_count", **SIMPLE) == 7
    assert value(families, "nv_inference_request_failure", reason="OTHER", **SIMPLE) == 1
    assert value(families, "nv_inference_pending_request_count", **SIMPLE) == 0
    seconds = value(families, "inferd_inference_queue_duration_seconds_sum", **SIMPLE)
    assert abs(value(families, "nv_inference_queue_duration_us", **SIMPLE) - seconds * 1e6) <= 1
    assert 0 < value(families, "nv_inference_request_duration_us", **SIMPLE) <= \
        value(families, "inferd_inference_request_duration_seconds_sum", **SIMPLE) * 1e6

    assert value(families, "process_resident_memory_bytes") > 1 << 20
    assert value(families, "process_virtual_memory_bytes") >= value(families, "process_resident_memory_bytes")
    assert value(families, "process_open_fds") > 3
    assert value(families, "process_cpu_seconds_total") > 0
    assert abs(value(families, "process_start_time_seconds") - time.time()) < 3600
    assert families["process_cpu_seconds_total"]["type"] == "counter"


def test_label_values_are_escaped(make_server, repo):
    server = make_server(repo)
    send(server, 2, model=WEIRD)
    families, text = scrape(server)
    assert value(families, "inferd_inference_request_success_total", model=WEIRD, version="1") == 2
    assert 'model="we\\"ird\\\\name"' in text


def test_only_get_metrics(make_server, repo):
    server = make_server(repo)
    base = f"http://{server.metrics_url}"
    assert requests.get(f"{base}/", timeout=10).status_code == 404
    assert requests.get(f"{base}/metrics/x", timeout=10).status_code == 404
    assert requests.get(f"{base}/v2/health/live", timeout=10).status_code == 404
    post = requests.post(f"{base}/metrics", data="x", timeout=10)
    assert post.status_code == 405 and post.headers["Allow"] == "GET"
    assert requests.put(f"{base}/metrics", timeout=10).status_code == 405
    # Metrics live on their own port only.
    assert requests.get(f"http://{server.http_url}/metrics", timeout=10).status_code == 404


def test_stops_with_a_scraper_connected(make_server, repo):
    server = make_server(repo)
    with requests.Session() as session:  # keeps its connection open
        assert session.get(f"http://{server.metrics_url}/metrics", timeout=10).status_code == 200
        assert server.stop() == 0, server.output()


def test_flags(make_server, repo):
    # Triton's spelling of a boolean flag: a separate value.
    server = make_server(repo, "--metrics-triton-names", "false", "--metrics-duration-buckets", "0.001, 0.01,1",
                         "--metrics-batch-size-buckets", "2,8")
    assert f"http://127.0.0.1:{server.metrics_port}/metrics" in server.output()  # the endpoint table
    send(server, 1)
    families, _ = scrape(server)
    assert not [name for name in families if name.startswith("nv_")]
    le = [le for le, _ in buckets(families, "inferd_inference_request_duration_seconds", **SIMPLE)]
    assert le == [0.001, 0.01, 1, math.inf]
    le = [le for le, _ in buckets(families, "inferd_inference_batch_size", **SIMPLE)]
    assert le == [2, 8, math.inf]

    off = make_server(repo, "--allow-metrics=false")
    with pytest.raises(requests.ConnectionError):
        requests.get(f"http://{off.metrics_url}/metrics", timeout=10)


@pytest.mark.parametrize("flag,text,message", [
    ("--metrics-duration-buckets", "0.2,0.1", "strictly ascending"),
    ("--metrics-duration-buckets", "0.1,abc", "'abc' is not a number of seconds"),
    ("--metrics-batch-size-buckets", "0,4", "'0' is not a positive integer"),
])
def test_invalid_buckets_fail_start(repo, flag, text, message):
    run = subprocess.run([str(BINARY), "serve", "--model-repository", str(repo), "--http-port", "0",
                          "--grpc-port", "0", "--metrics-port", "0", flag, text],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode != 0
    assert message in run.stdout + run.stderr


def test_metrics_port_in_use_fails_start(make_server, repo):
    server = make_server(repo)
    run = subprocess.run([str(BINARY), "serve", "--model-repository", str(repo), "--host", "127.0.0.1",
                          "--http-port", "0", "--grpc-port", "0", "--metrics-port", str(server.metrics_port)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode != 0
    assert "metrics endpoint" in run.stdout + run.stderr


# --- a real Prometheus ---------------------------------------------------------------

class Prometheus:
    def __init__(self, tmp_path, target):
        if not PROMETHEUS.exists():
            pytest.skip("/usr/bin/prometheus is missing: install Debian's prometheus package (scripts/setup.sh)")
        self.port = free_port()
        config = tmp_path / "prometheus.yml"
        config.write_text(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n"
            "scrape_configs:\n  - job_name: inferd\n    static_configs:\n"
            f"      - targets: ['{target}']\n")
        self.log_path = tmp_path / "prometheus.log"
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [str(PROMETHEUS), f"--config.file={config}", f"--storage.tsdb.path={tmp_path / 'data'}",
             f"--web.listen-address=127.0.0.1:{self.port}"],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.url = f"http://127.0.0.1:{self.port}"

    def output(self):
        self.log.flush()
        return self.log_path.read_text(errors="replace")

    def poll(self, what, check, timeout=60.0):
        """Calls check() until it returns something truthy; fails after `timeout`."""
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            assert self.process.poll() is None, f"prometheus exited:\n{self.output()}"
            try:
                last = check()
                if last:
                    return last
            except requests.RequestException as error:
                last = error
            time.sleep(0.2)
        pytest.fail(f"prometheus: {what} not seen within {timeout} s (last: {last})\n{self.output()[-3000:]}")

    def query(self, promql):
        r = requests.get(f"{self.url}/api/v1/query", params={"query": promql}, timeout=10)
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["status"] == "success", body
        return body["data"]["result"]

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


@pytest.fixture
def prometheus_factory(tmp_path):
    started = []

    def start(target):
        started.append(Prometheus(tmp_path, target))
        return started[-1]

    yield start
    for prometheus in started:
        prometheus.stop()


def scalar(result):
    """The one value of an instant vector with one series, or None."""
    return float(result[0]["value"][1]) if len(result) == 1 else None


def test_prometheus_scrapes_inferd(make_server, repo, prometheus_factory):
    server = make_server(repo)
    send(server, 3)
    send(server, 1, model=WEIRD)
    prometheus = prometheus_factory(server.metrics_url)

    def target_up():
        r = requests.get(f"{prometheus.url}/api/v1/targets", timeout=10)
        if r.status_code != 200:
            return None
        active = r.json()["data"]["activeTargets"]
        assert all(t["lastError"] == "" for t in active), active
        return [t for t in active if t["labels"]["job"] == "inferd" and t["health"] == "up"]

    prometheus.poll("the inferd target up", target_up)
    assert scalar(prometheus.query('up{job="inferd"}')) == 1

    success = 'inferd_inference_request_success_total{job="inferd",model="simple",version="1"}'
    prometheus.poll("3 successes", lambda: scalar(prometheus.query(success)) == 3)
    assert scalar(prometheus.query('nv_inference_request_success{model="simple"}')) == 3
    assert scalar(prometheus.query('inferd_inference_request_failure_total{model="simple",reason="BACKEND"}')) == 0
    # Prometheus read the escaped label value back to the folder's name.
    weird = prometheus.query('inferd_inference_request_success_total{model="we\\"ird\\\\name"}')
    assert scalar(weird) == 1 and weird[0]["metric"]["model"] == WEIRD

    # A quantile needs the counters to grow between two scrapes.
    send(server, 5)
    prometheus.poll("8 successes", lambda: scalar(prometheus.query(success)) == 8)
    median = ('histogram_quantile(0.5, rate(inferd_inference_request_duration_seconds_bucket'
              '{model="simple"}[1m]))')

    def finite_median():
        result = scalar(prometheus.query(median))
        return result is not None and math.isfinite(result) and result > 0

    prometheus.poll("a finite median request duration", finite_median)
    assert 0 < scalar(prometheus.query(median)) < 10
    count = scalar(prometheus.query('inferd_inference_request_duration_seconds_count{model="simple"}'))
    assert count == 8  # no failed requests here
