# SPDX-License-Identifier: Apache-2.0
"""The in-process Python API (`import inferd`) over the embedding C API:
inference with numpy arrays in and out without copies, asyncio, callbacks,
decoupled streams, metadata, statistics, load/unload, errors, threads."""
import asyncio
import gc
import sys
import threading
import time

import numpy as np
import pytest

from conftest import EXAMPLES, inferd, make_server


def simple_inputs(offset=0, batch=1):
    a = (np.arange(16 * batch, dtype=np.int32) + offset).reshape(batch, 16)
    b = np.full((batch, 16), 3, dtype=np.int32)
    return a, b


def wait_until(condition, timeout=30.0):
    """Polls `condition` until it holds (the server gives inputs back on its
    own thread, shortly after the response)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.005)


def test_infer_returns_read_only_views_of_the_server_memory(server):
    a, b = simple_inputs()
    out = server.model("simple").infer({"INPUT0": a, "INPUT1": b})
    assert set(out) == {"OUTPUT0", "OUTPUT1"}
    np.testing.assert_array_equal(out["OUTPUT0"], a + b)
    np.testing.assert_array_equal(out["OUTPUT1"], a - b)
    assert out["OUTPUT0"].dtype == np.int32 and out["OUTPUT0"].shape == (1, 16)
    assert (out.model_name, out.model_version) == ("simple", 1)
    for array in out.values():
        assert not array.flags.owndata  # a view, not a copy
        assert not array.flags.writeable  # the server's buffer
        with pytest.raises(ValueError):
            array[0, 0] = 7


def test_an_output_array_keeps_its_response_alive(server):
    a, b = simple_inputs(1000)
    total = server.model("simple").infer({"INPUT0": a, "INPUT1": b})["OUTPUT0"]
    gc.collect()
    # Other requests reuse the server's memory; ours must be untouched.
    for i in range(20):
        server.model("simple").infer({"INPUT0": simple_inputs(i)[0], "INPUT1": b})
    gc.collect()
    np.testing.assert_array_equal(total, a + b)


def test_inputs_are_lent_until_the_server_releases_them(server):
    # repeat_int32 answers IN one value at a time, DELAY ms apart: while it
    # runs the request holds the caller's array (not a copy), then lets go.
    values = np.array([5, 6], dtype=np.int32)
    delays = np.array([0, 300], dtype=np.uint32)
    before = sys.getrefcount(values)
    first = threading.Event()
    done = threading.Event()
    results = []

    def callback(result, error, final):
        results.append((result, error, final))
        first.set()
        if final:
            done.set()

    server.model("repeat_int32").infer_with_callback({"IN": values, "DELAY": delays}, callback)
    assert first.wait(30)
    assert sys.getrefcount(values) == before + 1  # held by the request, in place
    assert done.wait(30)
    wait_until(lambda: sys.getrefcount(values) == before)
    assert [int(r["OUT"][0]) for r, _, _ in results if r is not None] == [5, 6]


def test_requested_outputs_id_and_parameters(server):
    a, b = simple_inputs()
    out = server.model("simple").infer(
        {"INPUT0": a, "INPUT1": b},
        outputs=["OUTPUT1"],
        id="req-42",
        parameters={"priority": 0, "note": "py", "flag": True},
        timeout_us=10_000_000,
    )
    assert list(out) == ["OUTPUT1"] and out.id == "req-42"
    with pytest.raises(inferd.InferdError) as error:
        server.model("simple").infer({"INPUT0": a, "INPUT1": b}, parameters={"triton_x": 1})
    assert error.value.code == "INVALID_ARG"
    with pytest.raises(inferd.InferdError):
        server.model("simple").infer({"INPUT0": a, "INPUT1": b}, parameters={"bad": 1.5})


def test_inputs_are_converted_when_they_must_be(server):
    a, b = simple_inputs()
    # Not contiguous, big-endian, a list: each becomes an int32 array once.
    wide = np.zeros((1, 32), dtype=np.int32)
    wide[:, ::2] = a
    out = server.model("simple").infer(
        {"INPUT0": wide[:, ::2], "INPUT1": b.astype(">i4")}
    )
    np.testing.assert_array_equal(out["OUTPUT0"], a + b)
    # A list takes numpy's type (int64 here) unless the datatype is named.
    out = server.model("simple").infer({"INPUT0": (a.tolist(), "INT32"), "INPUT1": (b, "INT32")})
    np.testing.assert_array_equal(out["OUTPUT1"], a - b)


def test_errors_carry_their_code(server):
    a, b = simple_inputs()
    cases = [
        (server.model("nope"), {"INPUT0": a, "INPUT1": b}, "NOT_FOUND", "nope"),
        (server.model("simple"), {"INPUT0": a}, "INVALID_ARG", "INPUT1"),
        (server.model("simple"), {"INPUT0": a, "BOGUS": b}, "INVALID_ARG", "BOGUS"),
        (server.model("simple"), {"INPUT0": a.astype(np.float32), "INPUT1": b}, "INVALID_ARG", ""),
        (server.model("simple", 9), {"INPUT0": a, "INPUT1": b}, "NOT_FOUND", ""),
        (
            server.model("simple"),
            {"INPUT0": np.zeros((9, 16), np.int32), "INPUT1": np.zeros((9, 16), np.int32)},
            "INVALID_ARG",
            "batch-size must be <= 8",
        ),
    ]
    for model, inputs, code, words in cases:
        with pytest.raises(inferd.InferdError) as error:
            model.infer(inputs)
        assert error.value.code == code, error.value
        assert words in error.value.message
    with pytest.raises(TypeError):
        server.model("simple").infer({"INPUT0": np.zeros(16, dtype=np.complex64)})
    with pytest.raises(TypeError):
        server.model("simple").infer([a, b])


def test_infer_async_with_asyncio(server):
    simple = server.model("simple")

    async def main():
        calls = [
            simple.infer_async({"INPUT0": simple_inputs(i)[0], "INPUT1": simple_inputs(i)[1]})
            for i in range(16)
        ]
        results = await asyncio.gather(*calls)
        for i, out in enumerate(results):
            a, b = simple_inputs(i)
            np.testing.assert_array_equal(out["OUTPUT0"], a + b)
        with pytest.raises(inferd.InferdError) as error:
            await server.model("nope").infer_async({"INPUT0": simple_inputs()[0]})
        assert error.value.code == "NOT_FOUND"

    asyncio.run(main())


def test_a_decoupled_model_streams_every_response(server):
    repeat = server.model("repeat_int32")

    async def main():
        got = [
            (int(r["OUT"][0]), int(r["IDX"][0]))
            async for r in repeat.stream({"IN": np.array([4, 8, 15, 16], dtype=np.int32)})
        ]
        assert got == [(4, 0), (8, 1), (15, 2), (16, 3)]
        # An ordinary model's one response is a stream of one.
        a, b = simple_inputs()
        one = [r async for r in server.model("simple").stream({"INPUT0": a, "INPUT1": b})]
        assert len(one) == 1

    asyncio.run(main())
    with pytest.raises(inferd.InferdError) as error:
        repeat.infer({"IN": np.array([1], dtype=np.int32)})
    assert error.value.code == "UNSUPPORTED"
    assert "decoupled" in error.value.message


def test_callbacks_see_every_response_and_the_final_flag(server):
    calls = []
    done = threading.Event()

    def callback(result, error, final):
        calls.append((None if result is None else int(result["OUT"][0]), error, final))
        if final:
            done.set()

    server.model("repeat_int32").infer_with_callback(
        {"IN": np.array([3, 2, 1], dtype=np.int32)}, callback
    )
    assert done.wait(30)
    assert calls == [(3, None, False), (2, None, False), (1, None, False), (None, None, True)]


def test_server_calls_are_refused_inside_a_callback(server):
    seen = []
    done = threading.Event()

    def callback(result, error, final):
        try:
            server.model("simple").infer({"INPUT0": simple_inputs()[0], "INPUT1": simple_inputs()[1]})
        except inferd.InferdError as e:
            seen.append(e.code)
        done.set()

    a, b = simple_inputs()
    server.model("simple").infer_with_callback({"INPUT0": a, "INPUT1": b}, callback)
    assert done.wait(30)
    assert seen == ["UNSUPPORTED"]


def test_concurrent_callers_from_threads(server):
    errors = []

    def worker(t):
        try:
            for i in range(25):
                a, b = simple_inputs(t * 100 + i)
                out = server.model("simple").infer({"INPUT0": a, "INPUT1": b})
                np.testing.assert_array_equal(out["OUTPUT1"], a - b)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


def test_metadata_config_index_and_statistics(server):
    assert server.is_live() and server.is_ready()
    assert server.metadata()["name"] == "inferd"
    simple = server.model("simple")
    assert simple.is_ready()
    meta = simple.metadata()
    assert [t["name"] for t in meta["inputs"]] == ["INPUT0", "INPUT1"]
    assert meta["inputs"][0]["shape"] == [-1, 16]
    assert simple.config()["max_batch_size"] == 8
    index = server.model_index(ready_only=True)
    assert {"name": "simple", "version": "1", "state": "READY", "reason": ""} in index
    simple.infer(dict(zip(("INPUT0", "INPUT1"), simple_inputs())))
    stats = simple.statistics()["model_stats"]
    assert stats[0]["name"] == "simple" and stats[0]["inference_count"] >= 1
    assert any(s["name"] == "simple" for s in server.statistics()["model_stats"])
    with pytest.raises(inferd.InferdError) as error:
        server.model("nope").metadata()
    assert error.value.code == "NOT_FOUND"


def test_load_and_unload_in_explicit_mode():
    with make_server() as server:
        with pytest.raises(inferd.InferdError) as error:
            server.model("simple").infer(dict(zip(("INPUT0", "INPUT1"), simple_inputs())))
        assert error.value.code == "NOT_FOUND"
        simple = server.load_model("simple")
        assert simple.is_ready()
        a, b = simple_inputs()
        kept = simple.infer({"INPUT0": a, "INPUT1": b})["OUTPUT0"]
        server.unload_model("simple")
        assert not simple.is_ready()
        np.testing.assert_array_equal(kept, a + b)  # outlives the model
        with pytest.raises(inferd.InferdError) as error:
            simple.infer({"INPUT0": a, "INPUT1": b})
        assert error.value.code == "UNAVAILABLE"
        config = simple_config = {
            "name": "simple",
            "platform": "onnxruntime_onnx",
            "max_batch_size": 2,
            "input": [
                {"name": n, "data_type": "TYPE_INT32", "dims": [16]} for n in ("INPUT0", "INPUT1")
            ],
            "output": [
                {"name": n, "data_type": "TYPE_INT32", "dims": [16]} for n in ("OUTPUT0", "OUTPUT1")
            ],
        }
        assert server.load_model("simple", config=config).config()["max_batch_size"] == 2
        assert simple_config is config
        with pytest.raises(inferd.InferdError) as error:
            server.load_model("nope")
        assert error.value.code == "NOT_FOUND"


def test_load_outside_explicit_mode_is_unsupported():
    with inferd.Server(str(EXAMPLES / ".." / "backends" / "repeat" / "models"),
                       log_level="warn") as server:
        assert server.model("repeat_int32").is_ready()
        with pytest.raises(inferd.InferdError) as error:
            server.load_model("repeat_int32")
        assert error.value.code == "UNSUPPORTED"


def test_bad_options_are_clear_errors():
    with pytest.raises(inferd.InferdError) as error:
        inferd.Server([], log_level="warn")
    assert error.value.code == "INVALID_ARG" and "no model repository" in error.value.message
    with pytest.raises(inferd.InferdError) as error:
        inferd.Server(EXAMPLES, log_level="loud")
    assert error.value.code == "INVALID_ARG"
    with pytest.raises(inferd.InferdError):
        inferd.Server(EXAMPLES, model_control_mode="sometimes")
    with pytest.raises(inferd.InferdError):
        inferd.Server(EXAMPLES, cpu_cores=-1)


def test_close_drains_and_is_idempotent():
    server = make_server("simple")
    a, b = simple_inputs()
    done = threading.Event()
    results = []
    server.model("simple").infer_with_callback(
        {"INPUT0": a, "INPUT1": b}, lambda r, e, f: (results.append((r, e)), done.set())
    )
    server.close()  # answers what was accepted first
    assert done.is_set() and results[0][1] is None
    np.testing.assert_array_equal(results[0][0]["OUTPUT0"], a + b)
    server.close()
    with pytest.raises(inferd.InferdError) as error:
        server.model("simple").infer({"INPUT0": a, "INPUT1": b})
    assert error.value.code == "UNAVAILABLE"


def test_stop_refuses_new_requests():
    with make_server("simple") as server:
        server.stop()
        assert not server.is_live() and not server.is_ready()
        with pytest.raises(inferd.InferdError) as error:
            server.model("simple").infer(dict(zip(("INPUT0", "INPUT1"), simple_inputs())))
        assert error.value.code == "UNAVAILABLE" and "shutting down" in error.value.message


def test_bytes_and_other_datatypes_through_string_identity():
    with make_server("string_identity") as server:
        words = np.array([[b"zero", "copy", b""]], dtype=np.object_)
        out = server.model("string_identity").infer({"INPUT0": words})
        assert out["OUTPUT0"].tolist() == [[b"zero", b"copy", b""]]


def test_version():
    assert inferd.api_version() == (1, 0)
    assert inferd.version()
