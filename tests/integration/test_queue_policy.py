# SPDX-License-Identifier: Apache-2.0
"""Queue policies and priorities end to end (docs/configuration.md): queue
timeouts with REJECT and DELAY, per-request timeouts, max_queue_size and
priority levels, over HTTP and gRPC.

Each test first holds the model's only instance with a request that waits at
the fake backend's gate, so that later requests queue. Whether a request is
queued is known from answers, never from timing: with max_queue_size N, a
rejection "Exceeds maximum queue size" proves that N requests sit in that
queue (nothing leaves it while the instance is held).
"""
import concurrent.futures

import pytest
from tritonclient.utils import InferenceServerException

from scheduling_util import (hold_instance, start_gated_model, echo_io, echo_model_file, env, fail_count, failures,  # noqa: F401
                             grpc_echo, http_echo, model_stats, wait_for, write_fake_model)

TIMEOUT_EXPIRED = "Request timeout expired"
QUEUE_FULL = "Exceeds maximum queue size"


def outcome(call, *args, **kwargs):
    """("ok", value) or (status, message) for one request."""
    try:
        return ("ok", call(*args, **kwargs).tolist()[0][0])
    except InferenceServerException as e:
        return (e.status(), e.message())


def assert_unavailable(result, protocol, message):
    status, text = result
    assert status == ("503" if protocol == "http" else "StatusCode.UNAVAILABLE"), result
    assert message in text, result


def call_for(protocol, server):
    return (http_echo, server.http_url) if protocol == "http" else (grpc_echo, server.grpc_url)


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_queued_request_times_out(env, protocol):
    server = start_gated_model(env, "default_queue_policy { default_timeout_microseconds: 100000 }")
    call, url = call_for(protocol, server)
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        held = hold_instance(env, pool, server)
        assert_unavailable(outcome(call, url, "m", 1), protocol, TIMEOUT_EXPIRED)
        env.gate.open()
        assert held.result(timeout=60).tolist() == [[0]]
    stats = model_stats(server, "m")
    assert stats["execution_count"] == 1 and fail_count(stats) == 1
    assert failures(server, "m", "REJECTED") == 1
    assert env.log.executed_values() == [0]


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_request_timeout_overrides_a_longer_default(env, protocol):
    # The default (10 min) never expires in this test; the request's own 100 ms does.
    server = start_gated_model(env, "default_queue_policy { default_timeout_microseconds: 600000000 "
                              "allow_timeout_override: true }")
    call, url = call_for(protocol, server)
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        held = hold_instance(env, pool, server)
        patient = pool.submit(call, url, "m", 2)  # no timeout of its own: waits
        assert_unavailable(outcome(call, url, "m", 1, timeout=100000), protocol, TIMEOUT_EXPIRED)
        env.gate.open()
        assert held.result(timeout=60).tolist() == [[0]]
        assert patient.result(timeout=60).tolist() == [[2]]
    assert sorted(env.log.executed_values()) == [0, 2]


def test_delay_keeps_a_timed_out_request(env):
    # Level 1 rejects after 50 ms and serves as a clock; level 2 (the
    # default) delays after 50 ms and holds one request.
    server = start_gated_model(env, """
        priority_levels: 2 default_priority_level: 2
        priority_queue_policy { key: 1 value { default_timeout_microseconds: 50000 } }
        priority_queue_policy { key: 2 value { timeout_action: DELAY
                                               default_timeout_microseconds: 50000
                                               max_queue_size: 1 } }""")
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        held = hold_instance(env, pool, server)
        delayed = [pool.submit(outcome, http_echo, server.http_url, "m", v) for v in (1, 2)]
        # One of the two is refused at once: the other is queued.
        refused = wait_for(lambda: [f for f in delayed if f.done()], "a refusal")[0]
        assert_unavailable(refused.result(), "http", QUEUE_FULL)
        kept = [f for f in delayed if f is not refused][0]
        # Queued after `kept` and rejected 50 ms later: `kept` is past its timeout too.
        assert_unavailable(outcome(grpc_echo, server.grpc_url, "m", 3, priority=1), "grpc",
                           TIMEOUT_EXPIRED)
        assert not kept.done()
        env.gate.open()
        assert held.result(timeout=60).tolist() == [[0]]
        status, value = kept.result(timeout=60)
        assert status == "ok" and value in (1, 2)
    assert env.log.executed_values() == [0, value]


def test_full_queue_refuses_at_once(env):
    server = start_gated_model(env, "default_queue_policy { max_queue_size: 2 }")
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        held = hold_instance(env, pool, server)
        burst = [pool.submit(outcome, http_echo, server.http_url, "m", v) for v in (1, 2, 3)]
        # Exactly one of the three does not fit; it is answered while the others wait.
        refused = wait_for(lambda: [f for f in burst if f.done()], "a refusal")[0]
        assert_unavailable(refused.result(), "http", QUEUE_FULL)
        # The queue is full now: every further request is refused, on both protocols.
        assert_unavailable(outcome(grpc_echo, server.grpc_url, "m", 4), "grpc", QUEUE_FULL)
        assert_unavailable(outcome(http_echo, server.http_url, "m", 5), "http", QUEUE_FULL)
        env.gate.open()
        assert held.result(timeout=60).tolist() == [[0]]
        accepted = [f.result(timeout=60) for f in burst if f is not refused]
    assert all(status == "ok" for status, _ in accepted), accepted
    stats = model_stats(server, "m")
    assert stats["execution_count"] == 3 and fail_count(stats) == 3
    assert failures(server, "m", "REJECTED") == 3


def test_higher_priority_requests_run_first(env):
    server = start_gated_model(env, """
        priority_levels: 2 default_priority_level: 2
        priority_queue_policy { key: 1 value { max_queue_size: 3 } }
        priority_queue_policy { key: 2 value { max_queue_size: 3 } }""")
    low, high = [100, 101, 102, 103, 104], [200, 201, 202, 203, 204]
    with concurrent.futures.ThreadPoolExecutor(12) as pool:
        held = hold_instance(env, pool, server)

        def fill(values, priority):
            """Sends 5 requests to a level of 3: two are refused, three stay queued."""
            futures = {v: pool.submit(outcome, http_echo if v % 2 else grpc_echo,
                                      server.http_url if v % 2 else server.grpc_url, "m", v,
                                      priority=priority) for v in values}
            wait_for(lambda: sum(f.done() for f in futures.values()) == 2, "two refusals")
            for f in futures.values():
                if f.done():
                    assert f.result()[1].find(QUEUE_FULL) >= 0, f.result()
            return {v for v, f in futures.items() if not f.done()}, futures

        queued_low, low_futures = fill(low, 2)  # the low ones arrive first
        queued_high, high_futures = fill(high, 1)
        env.gate.open()
        assert held.result(timeout=60).tolist() == [[0]]
        for v in queued_low | queued_high:
            assert (low_futures | high_futures)[v].result(timeout=60) == ("ok", v)
    executed = env.log.executed_values()
    assert executed[0] == 0
    assert set(executed[1:4]) == queued_high and set(executed[4:]) == queued_low, executed
