# SPDX-License-Identifier: Apache-2.0
"""Dynamic batching, instances and response ordering end to end: the real
binary, tritonclient over HTTP and gRPC, the example `simple` ONNX model and
fake-backend models (see scheduling_util).

Batches are made deterministic by a max_queue_delay far longer than any test:
a batch then leaves only when it is full (or cannot grow), so the exact
batch_stats are known in advance.
"""
import concurrent.futures
import queue
import threading

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

from scheduling_util import (batch_sizes, echo_io, echo_model_file, env, grpc_echo,  # noqa: F401
                             http_echo, model_stats, write_fake_model, write_simple_model)

LONG_DELAY = "dynamic_batching { max_queue_delay_microseconds: 60000000 }"  # 60 s: batches leave full


def simple_inputs(request_index, rows):
    """Inputs that differ per request and per row."""
    base = np.arange(16, dtype=np.int32) + 1000 * request_index
    in0 = np.stack([base + 100 * row for row in range(rows)]).astype(np.int32)
    in1 = np.full((rows, 16), request_index * 7 + 1, dtype=np.int32)
    return in0, in1


def infer_simple(protocol, url, model, request_index, rows):
    """One request of `rows` rows; returns (in0, in1, out0, out1)."""
    in0, in1 = simple_inputs(request_index, rows)
    module = httpclient if protocol == "http" else grpcclient
    client = (httpclient.InferenceServerClient(url, network_timeout=120) if protocol == "http"
              else grpcclient.InferenceServerClient(url))
    with client:
        inputs = [module.InferInput("INPUT0", [rows, 16], "INT32"),
                  module.InferInput("INPUT1", [rows, 16], "INT32")]
        inputs[0].set_data_from_numpy(in0)
        inputs[1].set_data_from_numpy(in1)
        result = client.infer(model, inputs, request_id=str(request_index))
        return in0, in1, result.as_numpy("OUTPUT0"), result.as_numpy("OUTPUT1")


def run_concurrently(calls):
    """Runs every (fn, args) at once, each on its own thread; returns the results in order."""
    start = threading.Barrier(len(calls))

    def run(fn, args):
        start.wait()
        return fn(*args)

    with concurrent.futures.ThreadPoolExecutor(len(calls)) as pool:
        futures = [pool.submit(run, fn, args) for fn, args in calls]
        return [f.result(timeout=120) for f in futures]


def check_simple_outputs(results):
    for in0, in1, out0, out1 in results:
        np.testing.assert_array_equal(out0, in0 + in1)
        np.testing.assert_array_equal(out1, in0 - in1)


def server_urls(server):
    return {"http": server.http_url, "grpc": server.grpc_url}


def test_concurrent_clients_get_their_own_outputs_from_full_batches(env):
    write_simple_model(env.repo, "batched", LONG_DELAY)
    server = env.start()
    urls = server_urls(server)
    calls = [(infer_simple, ("http" if i % 2 else "grpc", urls["http" if i % 2 else "grpc"],
                             "batched", i, 1)) for i in range(32)]
    check_simple_outputs(run_concurrently(calls))
    stats = model_stats(server, "batched")
    assert stats["inference_count"] == 32
    assert stats["execution_count"] == 4, stats
    assert batch_sizes(stats) == {8: 4}
    assert stats["inference_stats"]["success"]["count"] == 32


def test_realistic_delay_batches_and_counts_exactly(env):
    """The brief's setting (20 ms): how requests group depends on timing, but
    every output is exact and the statistics add up."""
    write_simple_model(env.repo, "batched", "dynamic_batching { max_queue_delay_microseconds: 20000 }")
    server = env.start()
    urls = server_urls(server)
    calls = [(infer_simple, (p, urls[p], "batched", i, 1))
             for i, p in enumerate(["http", "grpc"] * 16)]
    check_simple_outputs(run_concurrently(calls))
    stats = model_stats(server, "batched")
    sizes = batch_sizes(stats)
    assert stats["inference_count"] == 32
    assert sum(size * count for size, count in sizes.items()) == 32, sizes
    assert sum(sizes.values()) == stats["execution_count"]
    assert max(sizes) <= 8


def test_requests_with_several_rows_are_combined_and_split_back(env):
    write_simple_model(env.repo, "batched", LONG_DELAY)
    server = env.start()
    urls = server_urls(server)
    # 3 + 2 + 3 rows fill one batch of 8 whatever the arrival order; then 5 + 3.
    rounds = [[("http", 0, 3), ("grpc", 1, 2), ("http", 2, 3)],
              [("grpc", 3, 5), ("http", 4, 3)]]
    for requests in rounds:
        results = run_concurrently([(infer_simple, (p, urls[p], "batched", i, rows))
                                    for p, i, rows in requests])
        for (_, _, rows), (in0, _, out0, _) in zip(requests, results):
            assert out0.shape == (rows, 16)
        check_simple_outputs(results)
    stats = model_stats(server, "batched")
    assert stats["inference_count"] == 16
    assert stats["execution_count"] == 2
    assert batch_sizes(stats) == {8: 2}


def test_different_shapes_are_never_mixed(env):
    # IN is INT32 [batch, -1]; a batch may only hold requests of one width.
    write_fake_model(env.repo, "ragged",
                     "max_batch_size: 8\n" + echo_io("[ -1 ]")
                     + "\ndynamic_batching { max_queue_delay_microseconds: 300000 }",
                     echo_model_file("-1 -1"))
    server = env.start()

    def send(protocol, value, width):
        data = (np.arange(4 * width, dtype=np.int32).reshape(4, width) + 1000 * value)
        module = httpclient if protocol == "http" else grpcclient
        client = (httpclient.InferenceServerClient(server.http_url) if protocol == "http"
                  else grpcclient.InferenceServerClient(server.grpc_url))
        with client:
            tensor = module.InferInput("IN", [4, width], "INT32")
            tensor.set_data_from_numpy(data)
            return data, client.infer("ragged", [tensor]).as_numpy("OUT")

    # Widths 3 and 5, 4 rows each: mixed they would fill one batch of 8.
    for data, out in run_concurrently([(send, ("http", 1, 3)), (send, ("grpc", 2, 5))]):
        np.testing.assert_array_equal(out, data)
    assert batch_sizes(model_stats(server, "ragged")) == {4: 2}
    # The same width does combine.
    for data, out in run_concurrently([(send, ("http", 3, 3)), (send, ("grpc", 4, 3))]):
        np.testing.assert_array_equal(out, data)
    stats = model_stats(server, "ragged")
    assert batch_sizes(stats) == {4: 2, 8: 1}
    assert stats["inference_count"] == 16 and stats["execution_count"] == 3


@pytest.mark.parametrize("scheduler", ["direct", "dynamic"])
def test_two_instances_execute_in_parallel(env, scheduler):
    body = (echo_io() + "\nmax_batch_size: 1\ninstance_group [ { count: 2 kind: KIND_CPU } ]"
            + ("\ndynamic_batching { }" if scheduler == "dynamic" else ""))
    write_fake_model(env.repo, "pair", body, echo_model_file(gate=env.gate, log=env.log))
    server = env.start()
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        futures = [pool.submit(http_echo, server.http_url, "pair", 1),
                   pool.submit(grpc_echo, server.grpc_url, "pair", 2)]
        # Both are inside Execute at once: neither can leave before the gate opens.
        started = env.log.wait_started(2)
        assert sorted(instance for instance, _ in started) == [0, 1]
        assert sorted(v for _, values in started for v in values) == [1, 2]
        env.gate.open()
        assert [f.result(timeout=60).tolist() for f in futures] == [[[1]], [[2]]]
    assert model_stats(server, "pair")["execution_count"] == 2


def test_kind_gpu_is_a_clear_load_error(env):
    write_fake_model(env.repo, "gpu", echo_io() + "\nmax_batch_size: 1\n"
                     "instance_group [ { count: 1 kind: KIND_GPU } ]", echo_model_file())
    server = env.start()
    with httpclient.InferenceServerClient(server.http_url) as client:
        rows = {row["name"]: row for row in client.get_model_repository_index()}
    assert rows["gpu"]["state"] == "UNAVAILABLE"
    assert "KIND_GPU" in rows["gpu"]["reason"], rows["gpu"]


@pytest.mark.parametrize("preserve", [True, False])
def test_preserve_ordering_with_two_instances(env, preserve):
    body = (echo_io() + "\nmax_batch_size: 1\ninstance_group [ { count: 2 kind: KIND_CPU } ]"
            f"\ndynamic_batching {{ preserve_ordering: {str(preserve).lower()} }}")
    write_fake_model(env.repo, "ordered", body,
                     echo_model_file(log=env.log, gate_dir=env.gate_dir))
    first, second = env.value_gate(1), env.value_gate(2)
    server = env.start()
    answers = queue.Queue()
    with grpcclient.InferenceServerClient(server.grpc_url) as client:
        def send(value):
            tensor = grpcclient.InferInput("IN", [1, 1], "INT32")
            tensor.set_data_from_numpy(np.full((1, 1), value, dtype=np.int32))
            client.async_infer("ordered", [tensor],
                               callback=lambda result, error: answers.put((value, result, error)))

        send(1)
        env.log.wait_started(1)  # 1 arrived first and holds one instance
        send(2)
        env.log.wait_started(2)  # 2 runs on the other
        second.open()
        env.log.wait_ended(1)  # 2 has completed in the backend; 1 is still held
        if preserve:
            assert answers.empty(), "the second response left before the first"
        else:
            value, result, error = answers.get(timeout=60)
            assert (value, error) == (2, None)
        first.open()
        order = [answers.get(timeout=60) for _ in range(2 if preserve else 1)]
    for value, result, error in order:
        assert error is None, error
        assert result.as_numpy("OUT").tolist() == [[value]]
    if preserve:
        assert [value for value, _, _ in order] == [1, 2]
