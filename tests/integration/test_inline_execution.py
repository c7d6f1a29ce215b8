# SPDX-License-Identifier: Apache-2.0
"""--inline-execution-max-us: a short request to an idle unbatched model runs on the
frontend's thread. The answers, their order per connection, the statistics and
cancellation must be what the hand-off path gives."""
import threading

import numpy as np
import requests
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

from conftest import EXAMPLES


def _inputs(module, value):
    a = np.full((1, 16), value, dtype=np.int32)
    b = np.arange(16, dtype=np.int32).reshape(1, 16)
    inputs = [module.InferInput("INPUT0", [1, 16], "INT32"),
              module.InferInput("INPUT1", [1, 16], "INT32")]
    inputs[0].set_data_from_numpy(a)
    inputs[1].set_data_from_numpy(b)
    return inputs, a, b


def _success_count(server):
    stats = requests.get(f"http://{server.http_url}/v2/models/simple/stats").json()
    return stats["model_stats"][0]["inference_stats"]["success"]["count"]


def test_short_requests_answer_correctly_on_both_protocols(make_server):
    # One second: every execution of 'simple' counts as short.
    server = make_server(EXAMPLES, "--inline-execution-max-us", "1000000")
    errors = []

    def run(module, offset):
        # One client per thread: tritonclient's clients are not thread-safe.
        url = server.http_url if module is httpclient else server.grpc_url
        client = module.InferenceServerClient(url)
        try:
            for i in range(100):
                inputs, a, b = _inputs(module, offset + i)
                result = client.infer("simple", inputs)
                np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), a + b)
                np.testing.assert_array_equal(result.as_numpy("OUTPUT1"), a - b)
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    before = _success_count(server)
    threads = [threading.Thread(target=run, args=((httpclient, grpcclient)[k % 2], 1000 * k))
               for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    assert _success_count(server) - before == 400


def test_errors_are_unchanged(make_server):
    server = make_server(EXAMPLES, "--inline-execution-max-us", "1000000")
    client = httpclient.InferenceServerClient(server.http_url)
    for i in range(10):  # an execution history, so that the next ones may run inline
        inputs, _, _ = _inputs(httpclient, i)
        client.infer("simple", inputs)
    bad = httpclient.InferInput("INPUT0", [1, 16], "INT32")
    bad.set_data_from_numpy(np.zeros((1, 16), dtype=np.int32))
    try:
        client.infer("simple", [bad])
        raise AssertionError("a request missing an input was accepted")
    except Exception as error:  # tritonclient's InferenceServerException
        assert "expected 2 inputs but got 1 inputs" in str(error)
