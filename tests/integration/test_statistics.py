# SPDX-License-Identifier: Apache-2.0
"""The statistics extension (GET /v2/models[/{m}[/versions/{v}]]/stats and
gRPC ModelStatistics) through tritonclient and raw requests.

A server of its own, so that no other test's requests land in the counters;
each test compares the counters before and after its own sequential requests,
which makes the expected changes exact: one request of one row is one
inference, one execution and one queue entry (the `simple` model does not
batch dynamically).
"""
import time

import grpc
import numpy as np
import pytest
import requests
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

from conftest import EXAMPLES, RunningServer

pytestmark = pytest.mark.timeout(120)

DURATIONS = ("success", "fail", "queue", "compute_input", "compute_infer", "compute_output",
             "cache_hit", "cache_miss")
COUNTERS = ("last_inference", "inference_count", "execution_count")
# last_inference is ms since the epoch on the server's wall clock; the slack
# only absorbs clock granularity between this process and the server.
CLOCK_SLACK_MS = 5000


@pytest.fixture(scope="module")
def stats_server(tmp_path_factory):
    running = RunningServer([EXAMPLES], [], tmp_path_factory.mktemp("stats") / "server.log")
    yield running
    code = running.stop()
    assert code == 0, f"inferd exited with {code}:\n{running.output()}"


@pytest.fixture(scope="module")
def http_client(stats_server):
    with httpclient.InferenceServerClient(stats_server.http_url) as c:
        yield c


@pytest.fixture(scope="module")
def grpc_client(stats_server):
    with grpcclient.InferenceServerClient(stats_server.grpc_url) as c:
        yield c


def url(server, path):
    return f"http://{server.http_url}{path}"


def http_infer(client, shape=(1, 16)):
    inputs = []
    for name in ("INPUT0", "INPUT1"):
        tensor = httpclient.InferInput(name, list(shape), "INT32")
        tensor.set_data_from_numpy(np.ones(shape, dtype=np.int32))
        inputs.append(tensor)
    return client.infer("simple", inputs)


def grpc_infer(client, shape=(1, 16)):
    inputs = []
    for name in ("INPUT0", "INPUT1"):
        tensor = grpcclient.InferInput(name, list(shape), "INT32")
        tensor.set_data_from_numpy(np.ones(shape, dtype=np.int32))
        inputs.append(tensor)
    return client.infer("simple", inputs)


def http_stat(client, model="simple", version=""):
    stats = client.get_inference_statistics(model, version)["model_stats"]
    assert len(stats) == 1, stats
    return stats[0]


def grpc_stat(client, model="simple", version=""):
    """The gRPC message, turned into the same dict shape as the HTTP body."""
    stats = client.get_inference_statistics(model, version).model_stats
    assert len(stats) == 1, stats
    s = stats[0]
    as_dict = {"name": s.name, "version": s.version, "batch_stats": []}
    for field in COUNTERS:
        as_dict[field] = getattr(s, field)
    as_dict["inference_stats"] = {
        d: {"count": getattr(s.inference_stats, d).count, "ns": getattr(s.inference_stats, d).ns}
        for d in DURATIONS}
    for b in s.batch_stats:
        entry = {"batch_size": b.batch_size}
        for d in ("compute_input", "compute_infer", "compute_output"):
            entry[d] = {"count": getattr(b, d).count, "ns": getattr(b, d).ns}
        as_dict["batch_stats"].append(entry)
    return as_dict


def delta(before, after, field, key="count"):
    return after["inference_stats"][field][key] - before["inference_stats"][field][key]


def batch_entry(stat, size):
    found = [b for b in stat["batch_stats"] if b["batch_size"] == size]
    return found[0] if found else {d: {"count": 0, "ns": 0}
                                   for d in ("compute_input", "compute_infer", "compute_output")}


def pick(protocol, http_client, grpc_client):
    """(client, infer, read) of one protocol."""
    if protocol == "http":
        return http_client, http_infer, http_stat
    return grpc_client, grpc_infer, grpc_stat


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_successful_requests_are_counted_exactly(protocol, http_client, grpc_client):
    client, infer, read = pick(protocol, http_client, grpc_client)
    n = 6
    before = read(client)
    started_ms = int(time.time() * 1000)
    for _ in range(n):
        infer(client)
    finished_ms = int(time.time() * 1000)
    after = read(client)

    assert after["name"] == "simple" and after["version"] == "1"
    assert after["inference_count"] - before["inference_count"] == n
    assert after["execution_count"] - before["execution_count"] == n
    for field in ("success", "queue", "compute_input", "compute_infer", "compute_output"):
        assert delta(before, after, field) == n, (field, before, after)
        assert delta(before, after, field, "ns") > 0, (field, before, after)
    assert delta(before, after, "fail") == 0
    for field in ("cache_hit", "cache_miss"):
        assert after["inference_stats"][field] == {"count": 0, "ns": 0}
    one_before, one_after = batch_entry(before, 1), batch_entry(after, 1)
    for field in ("compute_input", "compute_infer", "compute_output"):
        assert one_after[field]["count"] - one_before[field]["count"] == n
        assert one_after[field]["ns"] > one_before[field]["ns"]
    assert started_ms - CLOCK_SLACK_MS <= after["last_inference"] <= finished_ms + CLOCK_SLACK_MS
    assert after["last_inference"] >= before["last_inference"]


def test_a_batch_of_rows_is_one_execution(http_client):
    before = http_stat(http_client)
    http_infer(http_client, shape=(3, 16))
    after = http_stat(http_client)
    assert after["inference_count"] - before["inference_count"] == 3
    assert after["execution_count"] - before["execution_count"] == 1
    assert delta(before, after, "success") == 1
    three_before, three_after = batch_entry(before, 3), batch_entry(after, 3)
    assert three_after["compute_infer"]["count"] - three_before["compute_infer"]["count"] == 1


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_a_failed_request_counts_in_fail_only(protocol, http_client, grpc_client):
    client, infer, read = pick(protocol, http_client, grpc_client)
    before = read(client)
    with pytest.raises(InferenceServerException):
        infer(client, shape=(1, 15))  # the model wants 16 values per row
    after = read(client)
    assert delta(before, after, "fail") == 1
    assert delta(before, after, "success") == 0
    assert delta(before, after, "queue") == 0
    assert after["inference_count"] == before["inference_count"]
    assert after["execution_count"] == before["execution_count"]


def test_http_and_grpc_report_the_same_counters(http_client, grpc_client):
    http_infer(http_client)
    grpc_infer(grpc_client)
    over_http = http_stat(http_client)
    over_grpc = grpc_stat(grpc_client)
    for field in ("name", "version") + COUNTERS + ("inference_stats", "batch_stats"):
        assert over_http[field] == over_grpc[field], field


def test_unknown_model_or_version_is_not_found(stats_server, http_client, grpc_client):
    for path in ("/v2/models/nope/stats", "/v2/models/nope/versions/1/stats",
                 "/v2/models/simple/versions/9/stats"):
        r = requests.get(url(stats_server, path))
        assert r.status_code == 404, (path, r.text)
        assert r.headers["Content-Type"] == "application/json"
        assert isinstance(r.json()["error"], str) and r.json()["error"]
    assert "nope" in requests.get(url(stats_server, "/v2/models/nope/stats")).json()["error"]
    with pytest.raises(InferenceServerException, match="nope"):
        http_client.get_inference_statistics("nope")
    for model, version in (("nope", ""), ("simple", "9")):
        with pytest.raises(InferenceServerException) as error:
            grpc_client.get_inference_statistics(model, version)
        assert error.value.status() == str(grpc.StatusCode.NOT_FOUND), error.value


def test_stats_only_answers_get(stats_server):
    for path in ("/v2/models/stats", "/v2/models/simple/stats"):
        assert requests.post(url(stats_server, path)).status_code == 405


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_per_version_path(protocol, stats_server, http_client, grpc_client):
    client, infer, read = pick(protocol, http_client, grpc_client)
    infer(client)
    versioned = read(client, "simple", "1")
    unversioned = read(client, "simple", "")
    assert versioned["version"] == "1"
    assert versioned["inference_count"] == unversioned["inference_count"] > 0


def ready_models(server):
    index = requests.post(url(server, "/v2/repository/index"), json={"ready": True}).json()
    return sorted((m["name"], m["version"]) for m in index)


def test_all_models_lists_every_ready_version(stats_server, http_client, grpc_client):
    expected = ready_models(stats_server)
    assert ("simple", "1") in expected and ("ocr_cls", "1") in expected
    body = requests.get(url(stats_server, "/v2/models/stats")).json()
    assert sorted((s["name"], s["version"]) for s in body["model_stats"]) == expected
    assert http_client.get_inference_statistics() == body
    over_grpc = grpc_client.get_inference_statistics().model_stats
    assert sorted((s.name, s.version) for s in over_grpc) == expected


def assert_duration(value, where):
    assert isinstance(value, dict) and set(value) == {"count", "ns"}, where
    for key in ("count", "ns"):
        assert type(value[key]) is int and value[key] >= 0, (where, key, value)


def test_json_types_are_what_perf_analyzer_parses(stats_server, http_client):
    http_infer(http_client)
    for path in ("/v2/models/stats", "/v2/models/simple/stats", "/v2/models/simple/versions/1/stats"):
        r = requests.get(url(stats_server, path))
        assert r.status_code == 200, r.text
        assert r.headers["Content-Type"] == "application/json"
        body = r.json()
        assert list(body) == ["model_stats"] and body["model_stats"], body
        for stat in body["model_stats"]:
            assert set(stat) == {"name", "version", "last_inference", "inference_count",
                                 "execution_count", "inference_stats", "batch_stats",
                                 "memory_usage", "response_stats"}, stat
            assert isinstance(stat["name"], str)
            assert isinstance(stat["version"], str) and stat["version"].isdigit()
            for field in COUNTERS:
                assert type(stat[field]) is int and stat[field] >= 0, (field, stat)
            assert set(stat["inference_stats"]) == set(DURATIONS)
            for field in DURATIONS:
                assert_duration(stat["inference_stats"][field], field)
            assert isinstance(stat["batch_stats"], list)
            for batch in stat["batch_stats"]:
                assert type(batch["batch_size"]) is int and batch["batch_size"] > 0
                for field in ("compute_input", "compute_infer", "compute_output"):
                    assert_duration(batch[field], field)
            assert stat["memory_usage"] == [] and stat["response_stats"] == {}
    simple = requests.get(url(stats_server, "/v2/models/simple/stats")).json()["model_stats"][0]
    assert simple["inference_count"] > 0 and simple["batch_stats"]
