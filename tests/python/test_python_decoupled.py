# SPDX-License-Identifier: Apache-2.0
"""Response senders in the worker (request.get_response_sender()): the
RESPONSE messages on the response socket, the response pool, Triton's rules
and messages, RESULT_PENDING, parameters and correlation ids, decoupled BLS;
driven like the server drives them (python/PROTOCOL.md, pyworker_wire)."""
import json
import mmap
import os
import socket
import struct

import numpy as np
import pytest

import pyworker_wire as wire
from pyworker_wire import Req, tensor_in
from test_python_worker import init_payload, python, start  # noqa: F401 - fixtures

TIMEOUT_S = 30

# IN: n (INT32 [1]) -> n responses OUT = n, each from a thread started per
# request (Triton's square example), then the final flag alone. MODE picks
# the misuses whose errors come back as the text of a final response.
SQUARE = """\
    import threading

    import numpy as np
    import triton_python_backend_utils as pb_utils


    class TritonPythonModel:
        def initialize(self, args):
            self.decoupled = pb_utils.using_decoupled_model_transaction_policy(
                __import__("json").loads(args["model_config"]))

        def execute(self, requests):
            for request in requests:
                n = int(pb_utils.get_input_tensor_by_name(request, "IN").as_numpy()[0])
                mode = request.parameters()
                sender = request.get_response_sender()
                if "misuse" in mode:
                    sender.send(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([n], np.int32))]),
                                flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
                    errors = []
                    for attempt in (lambda: sender.send(pb_utils.InferenceResponse()),
                                    lambda: sender.send(None, flags=0),
                                    lambda: sender.send(flags=7)):
                        try:
                            attempt()
                        except pb_utils.TritonModelException as error:
                            errors.append(str(error))
                    self.errors = errors
                    continue
                if "errors" in mode:
                    sender.send(pb_utils.InferenceResponse([pb_utils.Tensor(
                        "OUT", np.array([0], np.int32))]))
                    sender.send(pb_utils.InferenceResponse(error=pb_utils.TritonError(
                        "\\n".join(self.errors), pb_utils.TritonError.INVALID_ARG)))
                    sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
                    continue
                if "cancel" in mode:
                    flag = sender.is_cancelled() and request.is_cancelled()
                    sender.send(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([int(flag)], np.int32))]),
                                flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
                    continue
                if "return" in mode:
                    return [pb_utils.InferenceResponse([])]
                if "raise" in mode:
                    if n:
                        sender.send(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([n], np.int32))]),
                                    flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
                        continue
                    raise ValueError("no luck")
                if "drop" in mode:
                    continue
                threading.Thread(target=self.respond, args=(sender, n)).start()
            return None

        def respond(self, sender, n):
            for i in range(n):
                sender.send(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([n], np.int32)),
                                                         pb_utils.Tensor("IDX", np.array([i], np.int32))]))
            sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
    """

CONFIG = {"name": "square", "model_transaction_policy": {"decoupled": True},
          "input": [{"name": "IN", "data_type": "TYPE_INT32", "dims": [1]}],
          "output": [{"name": "OUT", "data_type": "TYPE_INT32", "dims": [1]},
                     {"name": "IDX", "data_type": "TYPE_INT32", "dims": [1]}]}


class Responses:
    """The server's end of the response socket, and of the pool."""

    def __init__(self, worker, pool_size=0):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        ours.settimeout(TIMEOUT_S)
        self.sock = ours
        worker.server.send(wire.RESPONSE_SOCKET, b"", fd=theirs.fileno())
        theirs.close()
        self.pool = None
        if pool_size:
            fd = os.memfd_create("inferd-test-pool")
            try:
                os.ftruncate(fd, pool_size)
                self.pool = mmap.mmap(fd, pool_size)
                worker.server.send(wire.RESPONSE_POOL, struct.pack("<Q", pool_size), fd=fd)
            finally:
                os.close(fd)

    def receive(self):
        end = wire.ServerEnd(self.sock)
        kind, payload = end.receive()
        return kind, payload

    def response(self):
        kind, payload = self.receive()
        assert kind == wire.RESPONSE, kind
        return wire.parse_response(payload)

    def until_final(self, count):
        """The RESPONSEs until `count` requests ended, by request id."""
        by_request, ended = {}, 0
        while ended < count:
            response = self.response()
            by_request.setdefault(response.request_id, []).append(response)
            ended += response.final
        return by_request

    def release(self, response):
        """What the server does once every output of `response` was sent."""
        if response.pool_block is not None:
            self.pool[response.pool_block] = 0


def start_decoupled(start, python_source=SQUARE, config=CONFIG, pool_size=1 << 16, decoupled=True):
    worker, model_file = start(python_source)
    responses = Responses(worker, pool_size)
    worker.server.send_json(wire.INIT, init_payload(model_file, config, decoupled=decoupled))
    kind, payload = worker.server.receive()
    assert kind == wire.READY, wire.parse_error(payload) if kind == wire.ERROR else kind
    return worker, responses


def square(n, mode="", request_id=None, outputs=("OUT", "IDX")):
    return Req([tensor_in("IN", [n], "INT32")], list(outputs), request_id=request_id,
               parameters=json.dumps({"mode": mode}))


def result(worker):
    kind, payload = worker.server.receive()
    assert kind == wire.RESULT, wire.parse_error(payload) if kind == wire.ERROR else kind
    return wire.parse_result(payload)[1]


def value(out, responses):
    return out.value(responses.pool).tolist()


def test_a_thread_per_request_streams_through_the_pool(start):
    worker, responses = start_decoupled(start)
    worker.server.send(wire.EXECUTE, wire.execute_payload([square(3, request_id=10), square(0, request_id=11),
                                                           square(2, request_id=12)]))
    assert [r.pending for r in result(worker)] == [True, True, True]
    streams = responses.until_final(3)
    assert sorted(streams) == [10, 11, 12]
    for request_id, n in ((10, 3), (11, 0), (12, 2)):
        stream = streams[request_id]
        assert len(stream) == n + 1
        assert stream[-1].final and stream[-1].none  # the final flag alone
        for index, response in enumerate(stream[:-1]):
            assert not response.final and response.error is None
            assert [o.name for o in response.outputs] == ["OUT", "IDX"]
            # Both tensors in one pool block, after its 64-byte header.
            assert all(o.location == 0 for o in response.outputs)
            assert response.outputs[0].offset == response.pool_block + 64
            assert value(response.outputs[0], responses) == [n]
            assert value(response.outputs[1], responses) == [index]


def test_only_the_requested_outputs_are_sent_and_the_pool_is_reused(start):
    # A pool with room for two responses: the third goes inline until the
    # server hands blocks back.
    worker, responses = start_decoupled(start, pool_size=64 * 4 + 64)
    worker.server.send(wire.EXECUTE, wire.execute_payload([square(3, outputs=["IDX"])]))
    result(worker)
    stream = responses.until_final(1)[1]
    assert [[o.name for o in r.outputs] for r in stream[:-1]] == [["IDX"]] * 3
    assert [r.outputs[0].location for r in stream[:-1]] == [0, 0, 1]
    assert [value(r.outputs[0], responses) for r in stream[:-1]] == [[0], [1], [2]]
    for response in stream:
        responses.release(response)
    worker.server.send(wire.EXECUTE, wire.execute_payload([square(2, outputs=["IDX"], request_id=2)]))
    result(worker)
    stream = responses.until_final(1)[2]
    assert [r.outputs[0].location for r in stream[:-1]] == [0, 0]


def test_without_a_pool_tensors_go_inline(start):
    worker, responses = start_decoupled(start, pool_size=0)
    worker.server.send(wire.EXECUTE, wire.execute_payload([square(2)]))
    result(worker)
    stream = responses.until_final(1)[1]
    assert [(r.pool_block, r.outputs[0].location, r.outputs[1].value()) for r in stream[:-1]] == \
        [(None, 1, [0]), (None, 1, [1])]


def test_sender_misuse_raises_triton_errors_and_errors_do_not_end_the_stream(start):
    worker, responses = start_decoupled(start)
    worker.server.send(wire.EXECUTE, wire.execute_payload([square(5, "misuse")]))
    result(worker)
    (only,) = responses.until_final(1)[1]
    assert only.final and value(only.outputs[0], responses) == [5]
    worker.server.send(wire.EXECUTE, wire.execute_payload([square(0, "errors", request_id=2)]))
    result(worker)
    first, error, final = responses.until_final(1)[2]
    assert not first.final and value(first.outputs[0], responses) == [0]
    assert not error.final  # an error response without the final flag
    assert error.error == (wire.INVALID_ARG, "\n".join([
        "Unable to send response. Response sender has been closed.",
        "Inference Response object must be provided when the response flags is set to zero.",
        "Unable to send response. Unsupported flag provided."]))
    assert final.final and final.none


def test_returning_responses_from_a_decoupled_execute_is_triton_s_error(start):
    worker, responses = start_decoupled(start)
    worker.server.send(wire.EXECUTE, wire.execute_payload([square(1, "return")]))
    assert result(worker)[0].pending
    (only,) = responses.until_final(1)[1]
    assert only.final
    assert only.error == (wire.INTERNAL, "Python model 'square_0' is using the decoupled mode and the execute "
                                         "function must return None.")


def test_a_raising_execute_ends_only_the_requests_still_open(start):
    worker, responses = start_decoupled(start)
    worker.server.send(wire.EXECUTE, wire.execute_payload([square(4, "raise"), square(0, "raise")]))
    assert [r.pending for r in result(worker)] == [True, True]
    streams = responses.until_final(2)
    (answered,) = streams[1]
    assert answered.error is None and value(answered.outputs[0], responses) == [4]
    (failed,) = streams[2]
    assert failed.final and failed.error[0] == wire.INTERNAL
    assert failed.error[1].startswith("execute() raised ValueError: no luck")


def test_a_request_the_model_let_go_of_is_answered_with_an_error(start):
    worker, responses = start_decoupled(start)
    worker.server.send(wire.EXECUTE, wire.execute_payload([square(1, "drop")]))
    result(worker)
    (only,) = responses.until_final(1)[1]
    assert only.final and only.error[0] == wire.INTERNAL
    assert "without sending the final flag" in only.error[1]


def test_is_cancelled_asks_the_server(start):
    worker, responses = start_decoupled(start)
    worker.server.send(wire.EXECUTE, wire.execute_payload([square(1, "cancel", request_id=77)]))
    for _ in range(2):  # sender.is_cancelled(), then request.is_cancelled()
        kind, payload = responses.receive()
        assert (kind, payload) == (wire.IS_CANCELLED, struct.pack("<Q", 77))
        responses.sock.sendall(wire.HEADER.pack(9, wire.CANCELLED_ANSWER) + struct.pack("<QB", 77, 1))
    result(worker)
    (only,) = responses.until_final(1)[77]
    assert value(only.outputs[0], responses) == [1]


def test_a_decoupled_model_needs_the_response_socket(start):
    worker, model_file = start(SQUARE)
    worker.server.send_json(wire.INIT, init_payload(model_file, CONFIG, decoupled=True))
    kind, payload = worker.server.receive()
    assert kind == wire.ERROR and "no response socket" in wire.parse_error(payload)[1]


# An ordinary model answering through its sender (Triton allows one
# response): before execute() returns it rides in RESULT, after it in a
# RESPONSE; MODE "twice" and "final-first" are Triton's errors.
ORDINARY = """\
    import threading

    import numpy as np
    import triton_python_backend_utils as pb_utils


    class TritonPythonModel:
        def execute(self, requests):
            responses = []
            for request in requests:
                mode = pb_utils.get_input_tensor_by_name(request, "MODE").as_numpy()[0].decode()
                out = pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([len(mode)], np.int32))])
                sender = request.get_response_sender()
                if mode == "return":
                    responses.append(out)
                elif mode == "send":
                    sender.send(out, flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
                    responses.append(None)
                elif mode == "later":
                    threading.Timer(0.05, sender.send, args=(out, pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)).start()
                    responses.append(None)
                elif mode == "twice":
                    sender.send(out)
                    try:
                        sender.send(out)
                    except pb_utils.TritonModelException as error:
                        out = pb_utils.InferenceResponse(error=pb_utils.TritonError(str(error)))
                    responses.append(out)
                elif mode == "final-first":
                    sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
            return responses
    """

ORDINARY_CONFIG = {"name": "ordinary", "input": [{"name": "MODE", "data_type": "TYPE_STRING", "dims": [1]}],
                   "output": [{"name": "OUT", "data_type": "TYPE_INT32", "dims": [1]}]}


def mode(text, request_id=None):
    return Req([tensor_in("MODE", [text.encode()], "BYTES")], ["OUT"], request_id=request_id)


def test_an_ordinary_model_may_answer_through_its_sender(start):
    worker, responses = start_decoupled(start, ORDINARY, ORDINARY_CONFIG, pool_size=0, decoupled=False)
    worker.server.send(wire.EXECUTE, wire.execute_payload([mode("return"), mode("send"), mode("later")]))
    returned, sent, later = result(worker)
    assert returned.output("OUT").value() == [6]
    assert sent.output("OUT").value() == [4]  # sent before execute() returned: in RESULT
    assert later.pending
    (response,) = responses.until_final(1)[3]
    assert response.final and response.outputs[0].value() == [5]  # no pool for ordinary models


def test_an_ordinary_model_s_sender_errors_are_triton_s(start):
    worker, responses = start_decoupled(start, ORDINARY, ORDINARY_CONFIG, pool_size=0, decoupled=False)
    worker.server.send(wire.EXECUTE, wire.execute_payload([mode("twice")]))
    kind, payload = worker.server.receive()
    # The model returned a response for a request whose sender already
    # holds one: as in Triton the batch fails.
    assert kind == wire.ERROR
    assert "Non-decoupled model cannot send more than one response" in wire.parse_error(payload)[1] or \
        "Unable to send response" in wire.parse_error(payload)[1]
    worker.server.send(wire.EXECUTE, wire.execute_payload([mode("final-first")]))
    kind, payload = worker.server.receive()
    assert kind == wire.ERROR
    assert "Non-decoupled model cannot send complete final before sending a response" in wire.parse_error(payload)[1]


# Calls a decoupled model (TARGET) and answers with the sum of every OUT it
# streamed and the number of responses, through exec or async_exec.
AGGREGATE = """\
    import numpy as np
    import triton_python_backend_utils as pb_utils


    class TritonPythonModel:
        async def execute(self, requests):
            responses = []
            for request in requests:
                how = pb_utils.get_input_tensor_by_name(request, "HOW").as_numpy()[0].decode()
                call = pb_utils.InferenceRequest(model_name="square", requested_output_names=["OUT"],
                                                 inputs=[pb_utils.Tensor("IN", np.array([3], np.int32))])
                stream = call.exec(decoupled=True) if how == "sync" else await call.async_exec(decoupled=True)
                total, count, last_empty = 0, 0, False
                for response in stream:
                    if response.has_error():
                        raise pb_utils.TritonModelException(response.error().message())
                    count += 1
                    out = pb_utils.get_output_tensor_by_name(response, "OUT")
                    last_empty = out is None
                    if out is not None:
                        total += int(out.as_numpy()[0])
                again = sum(1 for _ in stream)  # iterating again starts over, as in Triton
                responses.append(pb_utils.InferenceResponse([pb_utils.Tensor(
                    "SUM", np.array([total, count, int(last_empty), again], np.int32))]))
            return responses
    """


@pytest.mark.parametrize("how", ["sync", "async"])
def test_bls_to_a_decoupled_model_iterates_its_responses(start, how):
    worker, model_file = start(AGGREGATE)
    worker.server.send_json(wire.INIT, init_payload(model_file, {"name": "aggregate"}))
    assert worker.server.receive()[0] == wire.READY
    worker.server.send(wire.EXECUTE, wire.execute_payload([
        Req([tensor_in("HOW", [how.encode()], "BYTES")], ["SUM"])]))
    kind, payload = worker.server.receive()
    assert kind == wire.BLS_REQUEST
    call = wire.parse_bls_request(payload)
    assert call.decoupled and call.model_name == "square"
    for _ in range(3):
        worker.server.send(wire.BLS_RESPONSE, wire.bls_response_payload(
            call.id, [tensor_in("OUT", np.array([3], np.int32), "INT32")], final=False))
    worker.server.send(wire.BLS_RESPONSE, wire.bls_response_payload(call.id, none=True))
    (response,) = result(worker)
    assert response.output("SUM").value().tolist() == [9, 4, 1, 4]
