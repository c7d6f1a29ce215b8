# SPDX-License-Identifier: Apache-2.0
"""The response cache (docs/configuration.md, "Response cache"), as Triton's
clients see it: `--cache-config local,size=N` on the server,
`response_cache { enable: true }` in a model's config, hits answered without
running the model (execution_count does not move), Triton's cache_hit /
cache_miss statistics over HTTP and gRPC, Prometheus metrics, eviction by
size, and no stale answer after a version swap or a reload.

The models are Python models made at test time whose answer is
OUT = IN + OFFSET, OFFSET written into each version's model.py, so that an
answer shows which load produced it.
"""
import json
import pathlib
import shutil

import numpy as np
import pytest
import requests
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

import sequence_repo
from conftest import BINARY, ROOT

pytestmark = pytest.mark.timeout(180)

CACHE = ("--cache-config", "local,size=1048576")
EXPLICIT = ("--model-control-mode", "explicit")

MODEL_PY = """
import numpy as np
import triton_python_backend_utils as pb_utils

OFFSET = {offset}


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            x = pb_utils.get_input_tensor_by_name(request, "IN").as_numpy()
            responses.append(pb_utils.InferenceResponse(
                output_tensors=[pb_utils.Tensor("OUT", (x + OFFSET).astype(np.int32)),
                                pb_utils.Tensor("TWICE", (2 * x).astype(np.int32))]))
        return responses
"""

CONFIG = """
name: "{name}"
backend: "python"
max_batch_size: 0
input [ {{ name: "IN" data_type: TYPE_INT32 dims: [ 4 ] }} ]
output [
  {{ name: "OUT" data_type: TYPE_INT32 dims: [ 4 ] }},
  {{ name: "TWICE" data_type: TYPE_INT32 dims: [ 4 ] }}
]
instance_group [ {{ count: 1 kind: KIND_CPU }} ]
{extra}
"""

ENABLE = "response_cache { enable: true }"


def add_version(repo, name, version, offset):
    folder = repo / name / str(version)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "model.py").write_text(MODEL_PY.format(offset=offset))


def add_model(repo, name, extra=ENABLE, offset=100):
    (repo / name).mkdir(parents=True, exist_ok=True)
    (repo / name / "config.pbtxt").write_text(CONFIG.format(name=name, extra=extra))
    add_version(repo, name, 1, offset)


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "models"
    add_model(root, "cached")
    add_model(root, "uncached", extra="")
    # Triton's ensemble: the top-level request is cached as one entry, and
    # its composing model may be cached as well.
    (root / "chain" / "1").mkdir(parents=True)
    (root / "chain" / "config.pbtxt").write_text("""
name: "chain"
platform: "ensemble"
max_batch_size: 0
input [ { name: "X" data_type: TYPE_INT32 dims: [ 4 ] } ]
output [ { name: "Y" data_type: TYPE_INT32 dims: [ 4 ] } ]
ensemble_scheduling { step [ {
  model_name: "uncached" model_version: -1
  input_map { key: "IN" value: "X" } output_map { key: "OUT" value: "Y" }
} ] }
response_cache { enable: true }
""")
    return root


def http_infer(server, model, values, outputs=None, binary=True, version=""):
    with httpclient.InferenceServerClient(server.http_url) as client:
        inp = httpclient.InferInput("IN" if model != "chain" else "X", [4], "INT32")
        inp.set_data_from_numpy(np.array(values, dtype=np.int32), binary_data=binary)
        requested = [httpclient.InferRequestedOutput(n, binary_data=binary) for n in outputs] \
            if outputs else None
        result = client.infer(model, [inp], outputs=requested, model_version=version)
        name = outputs[0] if outputs else ("OUT" if model != "chain" else "Y")
        return result.as_numpy(name).tolist()


def grpc_infer(server, model, values, outputs=None):
    with grpcclient.InferenceServerClient(server.grpc_url) as client:
        inp = grpcclient.InferInput("IN", [4], "INT32")
        inp.set_data_from_numpy(np.array(values, dtype=np.int32))
        requested = [grpcclient.InferRequestedOutput(n) for n in outputs] if outputs else None
        result = client.infer(model, [inp], outputs=requested)
        return result.as_numpy(outputs[0] if outputs else "OUT").tolist()


def stats(server, model, protocol="http"):
    """The model's newest version's statistics as plain numbers."""
    if protocol == "http":
        with httpclient.InferenceServerClient(server.http_url) as client:
            entry = client.get_inference_statistics(model)["model_stats"][-1]
    else:
        with grpcclient.InferenceServerClient(server.grpc_url) as client:
            entry = client.get_inference_statistics(model, as_json=True)["model_stats"][-1]
    infer = entry["inference_stats"]
    number = lambda v: int(v or 0)  # gRPC's JSON leaves zeros out and writes uint64 as strings
    return {
        "success": number(infer["success"].get("count")),
        "queue": number(infer["queue"].get("count")),
        "hit": number(infer["cache_hit"].get("count")),
        "hit_ns": number(infer["cache_hit"].get("ns")),
        "miss": number(infer["cache_miss"].get("count")),
        "miss_ns": number(infer["cache_miss"].get("ns")),
        "executions": number(entry.get("execution_count")),
        "inferences": number(entry.get("inference_count")),
    }


def test_second_identical_request_is_a_hit(repo, make_server):
    server = make_server(repo, *CACHE)
    assert http_infer(server, "cached", [1, 2, 3, 4]) == [101, 102, 103, 104]
    first = stats(server, "cached")
    assert (first["miss"], first["hit"], first["executions"]) == (1, 0, 1), first
    assert first["miss_ns"] > 0
    assert http_infer(server, "cached", [1, 2, 3, 4]) == [101, 102, 103, 104]
    second = stats(server, "cached")
    # Triton's counting: a hit is a success with a queue entry, and no
    # inference or execution.
    assert second["hit"] == 1 and second["hit_ns"] > 0, second
    assert second["miss"] == 1
    assert second["executions"] == 1
    assert second["inferences"] == 1
    assert second["success"] == 2 and second["queue"] == 2
    # gRPC reports the same numbers; a gRPC request hits what HTTP stored
    # (the key is the request, not its transport), JSON or binary alike.
    assert stats(server, "cached", "grpc") == second
    assert grpc_infer(server, "cached", [1, 2, 3, 4]) == [101, 102, 103, 104]
    assert http_infer(server, "cached", [1, 2, 3, 4], binary=False) == [101, 102, 103, 104]
    third = stats(server, "cached", "grpc")
    assert (third["hit"], third["executions"]) == (3, 1), third


def test_what_changes_the_answer_is_a_miss(repo, make_server):
    server = make_server(repo, *CACHE)
    assert http_infer(server, "cached", [1, 2, 3, 4]) == [101, 102, 103, 104]
    assert http_infer(server, "cached", [1, 2, 3, 5]) == [101, 102, 103, 105]
    # Other outputs asked for: another answer, another entry.
    assert http_infer(server, "cached", [1, 2, 3, 4], outputs=["TWICE"]) == [2, 4, 6, 8]
    assert grpc_infer(server, "cached", [1, 2, 3, 4], outputs=["TWICE", "OUT"]) == [2, 4, 6, 8]
    after = stats(server, "cached")
    assert (after["miss"], after["hit"], after["executions"]) == (4, 0, 4), after
    assert http_infer(server, "cached", [1, 2, 3, 4], outputs=["TWICE"]) == [2, 4, 6, 8]
    assert stats(server, "cached")["hit"] == 1


def test_models_without_response_cache_are_not_cached(repo, make_server):
    server = make_server(repo, *CACHE)
    for _ in range(2):
        assert http_infer(server, "uncached", [5, 5, 5, 5]) == [105] * 4
    after = stats(server, "uncached")
    assert (after["hit"], after["miss"], after["executions"]) == (0, 0, 2), after


def test_ensemble_top_level_requests_are_cached(repo, make_server):
    server = make_server(repo, *CACHE)
    for _ in range(3):
        assert http_infer(server, "chain", [1, 1, 1, 1]) == [101] * 4
    chain = stats(server, "chain")
    assert (chain["miss"], chain["hit"]) == (1, 2), chain
    # The composing model ran once: the hits never reached the ensemble's steps.
    assert stats(server, "uncached")["executions"] == 1


def test_eviction_by_size(repo, make_server):
    # Two entries of this model fit in 2000 bytes (each is charged about 670:
    # its key, its two outputs and a fixed overhead).
    server = make_server(repo, "--cache-config", "local,size=2000")
    for i in range(8):
        assert http_infer(server, "cached", [i, 0, 0, 0]) == [100 + i, 100, 100, 100]
    assert stats(server, "cached")["executions"] == 8
    # The newest is still there; the oldest was evicted and runs again.
    http_infer(server, "cached", [7, 0, 0, 0])
    assert stats(server, "cached")["hit"] == 1
    http_infer(server, "cached", [0, 0, 0, 0])
    after = stats(server, "cached")
    assert (after["hit"], after["executions"]) == (1, 9), after


def test_responses_larger_than_the_cache_are_not_stored(repo, make_server):
    server = make_server(repo, "--cache-config", "local,size=100")
    for _ in range(2):
        assert http_infer(server, "cached", [1, 2, 3, 4]) == [101, 102, 103, 104]
    after = stats(server, "cached")
    assert (after["hit"], after["miss"], after["executions"]) == (0, 2, 2), after


def test_new_version_never_serves_the_old_answer(repo, make_server):
    server = make_server(repo, *CACHE, *EXPLICIT, "--load-model", "cached")
    assert http_infer(server, "cached", [1, 2, 3, 4]) == [101, 102, 103, 104]
    assert http_infer(server, "cached", [1, 2, 3, 4]) == [101, 102, 103, 104]  # cached
    add_version(repo, "cached", 2, offset=200)
    with httpclient.InferenceServerClient(server.http_url) as client:
        client.load_model("cached")
    assert http_infer(server, "cached", [1, 2, 3, 4]) == [201, 202, 203, 204]
    v2 = stats(server, "cached")
    assert (v2["miss"], v2["hit"]) == (1, 0), v2


def test_reload_of_the_same_version_never_serves_the_old_answer(repo, make_server):
    server = make_server(repo, *CACHE, *EXPLICIT, "--load-model", "cached")
    assert http_infer(server, "cached", [1, 2, 3, 4]) == [101, 102, 103, 104]
    assert http_infer(server, "cached", [1, 2, 3, 4]) == [101, 102, 103, 104]
    add_version(repo, "cached", 1, offset=300)  # version 1's files change
    with grpcclient.InferenceServerClient(server.grpc_url) as client:
        client.load_model("cached")
    assert grpc_infer(server, "cached", [1, 2, 3, 4]) == [301, 302, 303, 304]
    # Unloaded and loaded again, unchanged: a new load, so a miss too.
    with httpclient.InferenceServerClient(server.http_url) as client:
        client.unload_model("cached")
        client.load_model("cached")
    assert http_infer(server, "cached", [1, 2, 3, 4]) == [301, 302, 303, 304]
    assert stats(server, "cached")["miss"] == 1


def test_decoupled_model_with_response_cache_does_not_load(tmp_path, make_server):
    root = tmp_path / "models"
    shutil.copytree(ROOT / "tests" / "integration" / "decoupled_models" / "square",
                    root / "square")
    config = root / "square" / "config.pbtxt"
    config.write_text(config.read_text() + "\n" + ENABLE + "\n")
    server = make_server(root, *CACHE, *EXPLICIT)
    with httpclient.InferenceServerClient(server.http_url) as client:
        with pytest.raises(InferenceServerException) as error:
            client.load_model("square")
    assert "response cache does not currently support model 'square' with 'decoupled' " \
           "transaction policy" in str(error.value)


def test_sequence_models_are_not_cached(tmp_path, make_server):
    root = sequence_repo.build(tmp_path / "models")
    config = root / "accumulator" / "config.pbtxt"
    config.write_text(config.read_text() + "\n" + ENABLE + "\n")
    server = make_server(root, *CACHE, *EXPLICIT, "--load-model", "accumulator")
    assert "its responses depend on the sequence's state and are not cached" in server.output()
    with grpcclient.InferenceServerClient(server.grpc_url) as client:
        answers = []
        for i in range(3):
            inp = grpcclient.InferInput("INPUT", [1, 1], "INT32")
            inp.set_data_from_numpy(np.array([[5]], dtype=np.int32))
            result = client.infer("accumulator", [inp], sequence_id=41, sequence_start=(i == 0),
                                  sequence_end=(i == 2))
            answers.append(int(result.as_numpy("OUTPUT").reshape(-1)[0]))
    assert answers == [5, 10, 15]
    after = stats(server, "accumulator")
    assert (after["hit"], after["miss"]) == (0, 0), after


def test_without_a_server_cache_the_model_loads_and_is_not_cached(repo, make_server):
    server = make_server(repo)
    assert "model 'cached' version 1 enables response_cache, but the server has no cache" \
        in server.output()
    for _ in range(2):
        assert http_infer(server, "cached", [1, 2, 3, 4]) == [101, 102, 103, 104]
    after = stats(server, "cached")
    assert (after["hit"], after["miss"], after["executions"]) == (0, 0, 2), after
    metrics = requests.get(f"http://{server.metrics_url}/metrics", timeout=10).text
    assert "nv_cache_num_hits_per_model" not in metrics


def metric(text, family, model):
    prefix = f'{family}{{model="{model}",version="1"}} '
    for line in text.splitlines():
        if line.startswith(prefix):
            return float(line[len(prefix):])
    return None


def test_prometheus_metrics(repo, make_server):
    server = make_server(repo, *CACHE)
    for values in ([1, 2, 3, 4], [1, 2, 3, 4], [1, 2, 3, 4], [9, 9, 9, 9]):
        http_infer(server, "cached", values)
    text = requests.get(f"http://{server.metrics_url}/metrics", timeout=10).text
    assert metric(text, "nv_cache_num_hits_per_model", "cached") == 2
    assert metric(text, "nv_cache_num_misses_per_model", "cached") == 2
    assert metric(text, "nv_cache_hit_duration_per_model", "cached") is not None
    assert metric(text, "nv_cache_miss_duration_per_model", "cached") > 0
    assert metric(text, "inferd_cache_hits_total", "cached") == 2
    assert metric(text, "inferd_cache_misses_total", "cached") == 2
    assert metric(text, "inferd_cache_hit_duration_seconds_total", "cached") > 0
    assert metric(text, "inferd_cache_miss_duration_seconds_total", "cached") > 0
    # Hits are successes, not inferences (Triton's counting).
    assert metric(text, "nv_inference_request_success", "cached") == 4
    assert metric(text, "nv_inference_count", "cached") == 2
    assert metric(text, "nv_inference_exec_count", "cached") == 2
    # Only the models whose responses go through the cache have series.
    assert metric(text, "nv_cache_num_hits_per_model", "uncached") is None
    assert metric(text, "inferd_cache_hits_total", "uncached") is None


def test_response_cache_byte_size_flag(repo, make_server):
    server = make_server(repo, "--response-cache-byte-size", "1048576")
    for _ in range(2):
        http_infer(server, "cached", [1, 2, 3, 4])
    assert stats(server, "cached")["hit"] == 1


@pytest.mark.parametrize("args, message", [
    (["--cache-config", "local,size=1024", "--response-cache-byte-size", "1024"],
     "incompatible flags"),
    (["--cache-config", "redis,host=localhost"], "unknown cache 'redis'"),
    (["--cache-config", "local,size=0"], "size must be a positive number of bytes"),
    (["--cache-config=local"], "expected <cache>,<key>=<value>"),
])
def test_bad_cache_flags_stop_start_up(tmp_path, args, message):
    import subprocess
    done = subprocess.run([str(BINARY), "serve", "--model-repository", str(tmp_path), *args],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2, done
    assert message in done.stderr, done.stderr
