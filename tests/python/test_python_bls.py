# SPDX-License-Identifier: Apache-2.0
"""BLS in the worker: InferenceRequest.exec() and async_exec() against the
server's side of the protocol as python/PROTOCOL.md describes it
(pyworker_wire): BLS_REQUEST out, BLS_RESPONSE back, in any order, through
the region or inline."""
import json
import socket
import struct

import numpy as np

import pyworker_wire as wire
from pyworker_wire import In, Req, tensor_in
from test_python_worker import execute, finalize, init_payload, initialize, python, start  # noqa: F401 - fixtures

CONFIG = {"name": "bls"}

# Calls model TARGET (an input) with INPUT0/INPUT1 and answers with what came
# back; the MODE input picks exec, async_exec or the error path.
CALLER = """\
    import asyncio
    import json

    import numpy as np
    import triton_python_backend_utils as pb_utils


    def where(array):
        base = array
        while getattr(base, "base", None) is not None:
            base = base.base
        return type(base).__name__


    class TritonPythonModel:
        def initialize(self, args):
            self.where = []

        async def execute(self, requests):
            responses = []
            for request in requests:
                mode = pb_utils.get_input_tensor_by_name(request, "MODE").as_numpy()[0].decode()
                target = pb_utils.get_input_tensor_by_name(request, "TARGET").as_numpy()[0].decode()
                a = pb_utils.get_input_tensor_by_name(request, "INPUT0")
                b = pb_utils.get_input_tensor_by_name(request, "INPUT1")
                if mode == "sync":
                    bls = pb_utils.InferenceRequest(model_name=target, requested_output_names=["OUTPUT0", "OUTPUT1"],
                                                    inputs=[a, b])
                    response = bls.exec()
                    if response.has_error():
                        error = response.error()
                        responses.append(pb_utils.InferenceResponse(
                            error=pb_utils.TritonError("BLS failed: " + error.message(), error.code())))
                        continue
                    out0 = pb_utils.get_output_tensor_by_name(response, "OUTPUT0")
                    out1 = pb_utils.get_output_tensor_by_name(response, "OUTPUT1")
                    self.where = [where(out0.as_numpy()), where(out1.as_numpy())]
                    responses.append(pb_utils.InferenceResponse([out0, out1]))
                elif mode == "async":
                    # One call per row, all outstanding at once.
                    rows = a.as_numpy().shape[0]
                    calls = [pb_utils.InferenceRequest(
                        model_name=target, requested_output_names=["OUTPUT0"],
                        inputs=[pb_utils.Tensor("INPUT0", a.as_numpy()[i:i + 1]),
                                pb_utils.Tensor("INPUT1", b.as_numpy()[i:i + 1])]).async_exec()
                             for i in range(rows)]
                    results = await asyncio.gather(*calls)
                    errors = [r.error().message() for r in results if r.has_error()]
                    if errors:
                        responses.append(pb_utils.InferenceResponse(error=pb_utils.TritonError("; ".join(errors))))
                        continue
                    out = np.concatenate([pb_utils.get_output_tensor_by_name(r, "OUTPUT0").as_numpy()
                                          for r in results])
                    responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("OUTPUT0", out)]))
                elif mode == "options":
                    bls = pb_utils.InferenceRequest(
                        model_name=target, requested_output_names=[], inputs=[a], model_version=3, timeout=250000,
                        correlation_id=42, flags=pb_utils.TRITONSERVER_REQUEST_FLAG_SEQUENCE_START,
                        parameters={"priority": 2, "tag": "x", "flag": True})
                    response = bls.exec()
                    responses.append(pb_utils.InferenceResponse(
                        [pb_utils.Tensor("INFO", np.array([json.dumps(self.where).encode()], dtype=object))]
                        + response.output_tensors()))
                elif mode == "forget":
                    # Not awaited: the worker still waits for it before answering.
                    self.forgotten = pb_utils.InferenceRequest(
                        model_name=target, requested_output_names=["OUTPUT0"], inputs=[a, b]).async_exec()
                    responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("OUTPUT0", a.as_numpy())]))
            return responses

        def finalize(self):
            try:
                pb_utils.InferenceRequest(model_name="x", inputs=[]).exec()
            except pb_utils.TritonModelException as error:
                print("finalize BLS:", error)
    """


def bytes_in(name, text):
    return tensor_in(name, np.array([text.encode()], dtype=object), "BYTES")


def caller_request(mode, target, a, b, outputs=("OUTPUT0", "OUTPUT1")):
    return Req([bytes_in("MODE", mode), bytes_in("TARGET", target),
                tensor_in("INPUT0", a, "INT32"), tensor_in("INPUT1", b, "INT32")], list(outputs))


def receive(worker, expected):
    kind, payload = worker.server.receive()
    assert kind == expected, (kind, wire.parse_error(payload) if kind == wire.ERROR else payload[:200])
    return payload


def receive_bls(worker):
    return wire.parse_bls_request(receive(worker, wire.BLS_REQUEST))


def answer_sums(worker, request, region_offset=None):
    """Answers a BLS call like Triton's `simple`: OUTPUT0 = sum, OUTPUT1 =
    difference; in the region at `region_offset` when given."""
    region = worker.server.region
    a = request.input("INPUT0").value(region)
    b = request.input("INPUT1").value(region)
    outputs = []
    for name, value in (("OUTPUT0", a + b), ("OUTPUT1", a - b)):
        if request.requested_outputs and name not in request.requested_outputs:
            continue
        tensor = tensor_in(name, value.astype(np.int32), "INT32")
        if region_offset is not None:
            tensor.offset = worker.server.write(region_offset, tensor.data)
            region_offset += 64 * ((len(tensor.data) + 63) // 64)
        outputs.append(tensor)
    worker.server.send(wire.BLS_RESPONSE, wire.bls_response_payload(request.id, outputs))


def test_exec_through_the_region(start):
    worker, model_file = start(CALLER)
    initialize(worker, model_file, CONFIG)
    region = worker.server.new_region(1 << 16)
    a = np.arange(32, dtype=np.int32).reshape(2, 16)
    b = np.full((2, 16), 3, dtype=np.int32)
    worker.server.send(wire.EXECUTE, wire.execute_payload([caller_request("sync", "simple", a, b)], 4096, 8192))

    request = receive_bls(worker)
    assert (request.model_name, request.model_version, request.timeout_us) == ("simple", -1, 0)
    assert request.parameters == {}
    assert request.requested_outputs == ["OUTPUT0", "OUTPUT1"]
    # The inputs lie in the output range, packed from its start, 64-aligned.
    assert [(i.name, i.location, i.offset, i.dims) for i in request.inputs] == \
        [("INPUT0", 0, 4096, [2, 16]), ("INPUT1", 0, 4096 + 128, [2, 16])]
    np.testing.assert_array_equal(request.input("INPUT0").value(region), a)
    answer_sums(worker, request, region_offset=32768)  # a block outside the range

    used, (response,) = wire.parse_result(receive(worker, wire.RESULT))
    assert response.error is None
    # The BLS outputs came back as the model's outputs: copied into the
    # output range after the BLS inputs, which output_bytes_used covers.
    assert [(o.name, o.location, o.offset) for o in response.outputs] == \
        [("OUTPUT0", 0, 4096 + 256), ("OUTPUT1", 0, 4096 + 384)]
    assert used == 512
    np.testing.assert_array_equal(response.output("OUTPUT0").value(region), a + b)
    np.testing.assert_array_equal(response.output("OUTPUT1").value(region), a - b)

    # The model viewed the BLS outputs in the region (no copy): "mmap".
    worker.server.send(wire.EXECUTE, wire.execute_payload(
        [Req([bytes_in("MODE", "options"), bytes_in("TARGET", "t"), tensor_in("INPUT0", a, "INT32"),
              tensor_in("INPUT1", b, "INT32")], ["INFO"])]))
    options = receive_bls(worker)
    worker.server.send(wire.BLS_RESPONSE, wire.bls_response_payload(options.id, []))
    _, (response,) = wire.parse_result(receive(worker, wire.RESULT))
    assert json.loads(response.output("INFO").value()[0]) == ["mmap", "mmap"]
    finalize(worker)
    assert "finalize BLS: BLS requests can be made only while initialize() or execute() runs" in worker.stdout()


def test_async_calls_are_outstanding_together_and_answered_in_any_order(start):
    worker, model_file = start(CALLER)
    initialize(worker, model_file, CONFIG)
    region = worker.server.new_region(1 << 16)
    a = np.arange(64, dtype=np.int32).reshape(4, 16)
    b = np.ones((4, 16), dtype=np.int32)
    worker.server.send(wire.EXECUTE, wire.execute_payload([caller_request("async", "simple", a, b, ["OUTPUT0"])],
                                                          0, 16384))
    # All four are sent before any is answered.
    requests = [receive_bls(worker) for _ in range(4)]
    assert len({r.id for r in requests}) == 4
    rows = {r.id: r.input("INPUT0").value(region)[0, 0] for r in requests}
    assert sorted(rows.values()) == [0, 16, 32, 48]
    # Answer in reverse order, some through the region, some inline.
    for index, request in enumerate(reversed(requests)):
        answer_sums(worker, request, region_offset=32768 + 4096 * index if index % 2 else None)
    _, (response,) = wire.parse_result(receive(worker, wire.RESULT))
    assert response.error is None, response.error
    np.testing.assert_array_equal(response.output("OUTPUT0").value(region), a + b)
    finalize(worker)


def test_errors_reach_the_model_and_it_goes_on(start):
    worker, model_file = start(CALLER)
    initialize(worker, model_file, CONFIG)
    a = np.zeros((1, 16), dtype=np.int32)
    for code, message in ((wire.NOT_FOUND, "Request for unknown model: 'nope' is not found"),
                          (wire.DEADLINE_EXCEEDED, "BLS request to model 'slow' timed out"),
                          (wire.INVALID_ARG, "unexpected shape")):
        worker.server.send(wire.EXECUTE, wire.execute_payload([caller_request("sync", "nope", a, a)]))
        request = receive_bls(worker)
        worker.server.send(wire.BLS_RESPONSE, wire.bls_response_payload(request.id, error=(code, message)))
        _, (response,) = wire.parse_result(receive(worker, wire.RESULT))
        assert response.error == (code, "BLS failed: " + message)
    # The async path reports each failed call, and still serves.
    worker.server.send(wire.EXECUTE, wire.execute_payload([caller_request("async", "nope", a, a, ["OUTPUT0"])]))
    request = receive_bls(worker)
    worker.server.send(wire.BLS_RESPONSE, wire.bls_response_payload(request.id, error=(wire.UNAVAILABLE, "gone")))
    _, (response,) = wire.parse_result(receive(worker, wire.RESULT))
    assert response.error == (wire.INTERNAL, "gone")
    finalize(worker)


def test_without_region_or_room_everything_is_inline(start):
    worker, model_file = start(CALLER)
    initialize(worker, model_file, CONFIG)
    a = np.arange(16, dtype=np.int32).reshape(1, 16)
    b = np.ones((1, 16), dtype=np.int32)
    # No region at all.
    worker.server.send(wire.EXECUTE, wire.execute_payload([caller_request("sync", "simple", a, b)]))
    request = receive_bls(worker)
    assert [i.location for i in request.inputs] == [1, 1]
    answer_sums(worker, request)
    used, (response,) = wire.parse_result(receive(worker, wire.RESULT))
    assert used == 0 and [o.location for o in response.outputs] == [1, 1]
    np.testing.assert_array_equal(response.output("OUTPUT0").value(), a + b)
    # A region whose output range holds only the first BLS input.
    region = worker.server.new_region(8192)
    worker.server.send(wire.EXECUTE, wire.execute_payload([caller_request("sync", "simple", a, b)], 1024, 64))
    request = receive_bls(worker)
    assert [(i.location, i.offset) for i in request.inputs] == [(0, 1024), (1, None)]
    np.testing.assert_array_equal(request.input("INPUT1").value(region), b)
    answer_sums(worker, request)
    used, (response,) = wire.parse_result(receive(worker, wire.RESULT))
    assert used == 64 and [o.location for o in response.outputs] == [1, 1]
    np.testing.assert_array_equal(response.output("OUTPUT1").value(), a - b)
    finalize(worker)


def test_options_and_parameters_travel(start):
    worker, model_file = start(CALLER)
    initialize(worker, model_file, CONFIG)
    a = np.zeros((1, 16), dtype=np.int32)
    worker.server.send(wire.EXECUTE, wire.execute_payload(
        [Req([bytes_in("MODE", "options"), bytes_in("TARGET", "t"), tensor_in("INPUT0", a, "INT32"),
              tensor_in("INPUT1", a, "INT32")], ["INFO", "TEXT"])]))
    request = receive_bls(worker)
    assert (request.model_name, request.model_version, request.timeout_us) == ("t", 3, 250000)
    assert request.requested_outputs == []
    assert request.parameters == {"priority": 2, "tag": "x", "flag": True, "sequence_id": 42,
                                  "sequence_start": True}
    # A BYTES output comes back as bytes.
    text = tensor_in("TEXT", np.array([b"h\xc3\xa9", b"", b"x" * 300], dtype=object), "BYTES")
    worker.server.send(wire.BLS_RESPONSE, wire.bls_response_payload(request.id, [text]))
    _, (response,) = wire.parse_result(receive(worker, wire.RESULT))
    assert response.output("TEXT").value() == [b"h\xc3\xa9", b"", b"x" * 300]
    finalize(worker)


def test_a_call_not_awaited_is_answered_before_the_execute(start):
    worker, model_file = start(CALLER)
    initialize(worker, model_file, CONFIG)
    a = np.zeros((1, 16), dtype=np.int32)
    worker.server.send(wire.EXECUTE, wire.execute_payload([caller_request("forget", "t", a, a, ["OUTPUT0"])]))
    request = receive_bls(worker)
    worker.server.sock.settimeout(0.5)
    try:
        worker.server.receive()
        raise AssertionError("RESULT came while a BLS call was outstanding")
    except socket.timeout:
        pass
    worker.server.sock.settimeout(30)
    answer_sums(worker, request)
    _, (response,) = wire.parse_result(receive(worker, wire.RESULT))
    assert response.error is None
    finalize(worker)


def test_bls_in_initialize(start):
    worker, model_file = start("""\
        import numpy as np
        import triton_python_backend_utils as pb_utils


        class TritonPythonModel:
            def initialize(self, args):
                response = pb_utils.InferenceRequest(
                    model_name="table", requested_output_names=["VALUES"],
                    inputs=[pb_utils.Tensor("KEY", np.array([7], dtype=np.int64))]).exec()
                self.values = pb_utils.get_output_tensor_by_name(response, "VALUES").as_numpy().copy()

            def execute(self, requests):
                return [pb_utils.InferenceResponse([pb_utils.Tensor("OUT", self.values)]) for _ in requests]
        """)
    region = worker.server.new_region(8192)
    worker.server.send_json(wire.INIT, init_payload(model_file, CONFIG))
    request = receive_bls(worker)
    assert request.model_name == "table"
    assert [(i.name, i.location) for i in request.inputs] == [("KEY", 1)]  # INIT has no output range
    assert request.input("KEY").value().tolist() == [7]
    values = tensor_in("VALUES", np.array([1.5, 2.5], dtype=np.float32), "FP32")
    values.offset = worker.server.write(4096, values.data)
    worker.server.send(wire.BLS_RESPONSE, wire.bls_response_payload(request.id, [values]))
    assert receive(worker, wire.READY)
    region[4096:4104] = b"\0" * 8  # the model copied it
    _, (response,) = wire.parse_result(receive_after_execute(worker, [Req([], ["OUT"])]))
    assert response.output("OUT").value().tolist() == [1.5, 2.5]
    finalize(worker)


def test_unknown_call_id_ends_the_worker(start):
    worker, model_file = start(CALLER)
    initialize(worker, model_file, CONFIG)
    a = np.zeros((1, 16), dtype=np.int32)
    worker.server.send(wire.EXECUTE, wire.execute_payload([caller_request("sync", "t", a, a)]))
    request = receive_bls(worker)
    worker.server.send(wire.BLS_RESPONSE, wire.bls_response_payload(request.id + 1000, []))
    assert worker.wait(10) == 1
    assert "BLS_RESPONSE for call" in worker.stderr()


def receive_after_execute(worker, requests):
    worker.server.send(wire.EXECUTE, wire.execute_payload(requests))
    return receive(worker, wire.RESULT)


def test_bls_response_layout_is_as_documented():
    # The wire helper's own encoding, checked against PROTOCOL.md's table,
    # so that the tests above cannot agree with a wrong helper.
    payload = wire.bls_response_payload(5, error=(wire.DEADLINE_EXCEEDED, "late"))
    assert payload == struct.pack("<QBBBI", 5, 1, 1, 8, 4) + b"late"
    assert wire.bls_response_payload(7, none=True) == struct.pack("<QBB", 7, 1, 2)
    payload = wire.bls_response_payload(6, [In("X", "INT8", [2], b"\x01\x02")], final=False)
    assert payload == struct.pack("<QBBI", 6, 0, 0, 1) + struct.pack("<H", 1) + b"X" + \
        struct.pack("<BBqBQ", 6, 1, 2, 1, 2) + b"\x01\x02"
