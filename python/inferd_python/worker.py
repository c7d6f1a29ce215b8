# SPDX-License-Identifier: Apache-2.0
"""The worker process: `python -m inferd_python.worker`.

The server starts one per Python model instance, with its end of a socket
pair on descriptor INFERD_PYTHON_CONTROL_FD (3), and drives it with the
messages of python/PROTOCOL.md: INIT (or AUTO_COMPLETE), REGION, EXECUTE one
at a time, FINALIZE. The model's own failures are answered with ERROR and
the worker goes on; a broken protocol ends the worker, which the server
treats as a dead worker and replaces. While initialize() or execute() runs,
the model may call other models (BLS, _bls.py); `async def execute` runs on
an asyncio event loop kept for the worker's life. Response senders
(_responses.py) write to a second socket, RESPONSE_SOCKET, from any thread
and at any time: a decoupled model's responses, and an ordinary model's one
response when it sends it instead of returning it.
"""
from __future__ import annotations

import asyncio
import inspect
import json
import os
import socket
import sys
import threading
import time
from typing import Any, Callable, Optional

from . import _bls
from . import _protocol as protocol
from . import _responses
from ._channel import Channel, Message
from ._loader import ModelLoadError, describe_exception, load_model_class
from ._protocol import ProtocolError
from ._region import OutputArena, Region
from .config import ModelConfig
from .errors import TritonError, TritonModelException
from .logger import Logger, set_prefix
from .response import InferenceResponse

CONTROL_FD_VARIABLE = "INFERD_PYTHON_CONTROL_FD"
_WITH_DESCRIPTOR = frozenset((protocol.REGION, protocol.RESPONSE_SOCKET, protocol.RESPONSE_POOL))
PARENT_POLL_SECONDS = 1.0


class Worker:
    """Serves one model instance over one channel."""

    def __init__(self, channel: Channel) -> None:
        self._channel = channel
        self._region: Optional[Region] = None
        self._model: Any = None
        self._execute: Optional[Callable[[list], Any]] = None
        self._model_file = ""
        self._bf16_outputs: frozenset = frozenset()
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._bls = _bls.BlsClient(channel, lambda: self._region)
        _bls.install(self._bls)
        self._responses: Optional[_responses.ResponseChannel] = None
        self._decoupled = False
        self._instance_name = ""

    def serve(self) -> int:
        """Answers messages until FINALIZE or the end of the socket; returns
        the exit status. Raises ProtocolError on a message it cannot follow."""
        receive = self._channel.receive
        while True:
            message = receive()
            if message is None:
                return 0
            kind = message.type
            if message.fd is not None and kind not in _WITH_DESCRIPTOR:
                os.close(message.fd)
                raise ProtocolError(f"message type {kind} carries a descriptor")
            if kind == protocol.EXECUTE:
                self._on_execute(message.payload)
            elif kind == protocol.REGION:
                self._on_region(message)
            elif kind == protocol.RESPONSE_SOCKET:
                self._on_response_socket(message)
            elif kind == protocol.RESPONSE_POOL:
                self._on_response_pool(message)
            elif kind == protocol.INIT:
                self._on_init(message.payload)
            elif kind == protocol.AUTO_COMPLETE:
                self._on_auto_complete(message.payload)
            elif kind == protocol.FINALIZE:
                self._on_finalize()
                return 0
            else:
                raise ProtocolError(f"unknown message type {kind}")

    def _send_error(self, code: int, message: str) -> None:
        self._channel.send(protocol.ERROR, protocol.encode_error(code, message))

    # -- INIT and AUTO_COMPLETE ------------------------------------------------

    def _on_init(self, payload: bytearray) -> None:
        """Imports model.py, creates the model and calls initialize(args);
        answers READY, or ERROR UNAVAILABLE (the model cannot load)."""
        try:
            init = protocol.decode_json(payload)
        except ProtocolError as error:
            self._send_error(TritonError.UNAVAILABLE, f"malformed INIT: {error}")
            return
        if init.get("protocol") != protocol.PROTOCOL_VERSION:
            self._send_error(
                TritonError.UNAVAILABLE,
                f"the server speaks worker protocol {init.get('protocol')!r}, this worker "
                f"{protocol.PROTOCOL_VERSION}: install the inferd-python package of the same inferd release")
            return
        set_prefix(str(init.get("log_prefix", "")))
        self._model_file = str(init.get("model_file", ""))
        args = init.get("args") or {}
        self._decoupled = init.get("decoupled") is True
        self._instance_name = str(args.get("model_instance_name", ""))
        if self._decoupled and self._responses is None:
            self._send_error(TritonError.UNAVAILABLE,
                             "the model is decoupled, but the server sent no response socket (RESPONSE_SOCKET)")
            return
        try:
            model_class = load_model_class(self._model_file)
        except ModelLoadError as error:
            self._send_error(TritonError.UNAVAILABLE, str(error))
            return
        try:
            model = model_class()
        except (Exception, SystemExit) as error:
            self._send_error(TritonError.UNAVAILABLE,
                             describe_exception(f"{model_class.__name__}()", error, self._model_file))
            return
        execute = getattr(model, "execute", None)
        if not callable(execute):
            self._send_error(TritonError.UNAVAILABLE, f"{model_class.__name__} in {self._model_file} has no execute() method")
            return
        initialize = getattr(model, "initialize", None)
        if initialize is not None:
            self._bls.begin(None)  # BLS inputs travel inline: INIT has no output range
            failure = None
            try:
                self._run(initialize, args)
            except (Exception, SystemExit) as error:
                failure = describe_exception("initialize()", error, self._model_file)
            # Every BLS call is answered before INIT is.
            self._bls.end()
            if failure is not None:
                self._send_error(TritonError.UNAVAILABLE, failure)
                return
        self._model = model
        self._execute = execute
        self._bf16_outputs = _bf16_outputs(args.get("model_config"))
        if self._responses is not None:
            self._responses.model_name = str(args.get("model_name", ""))
            self._responses.decoupled = self._decoupled
            self._responses.bf16_outputs = self._bf16_outputs
        self._channel.send(protocol.READY, protocol.encode_json({"pid": os.getpid(), "python": sys.version}))

    def _on_auto_complete(self, payload: bytearray) -> None:
        """Imports model.py and lets its auto_complete_config() complete the
        config; answers CONFIG, or ERROR UNAVAILABLE."""
        try:
            request = protocol.decode_json(payload)
        except ProtocolError as error:
            self._send_error(TritonError.UNAVAILABLE, f"malformed AUTO_COMPLETE: {error}")
            return
        model_file = str(request.get("model_file", ""))
        config = request.get("config")
        if not isinstance(config, dict):
            self._send_error(TritonError.UNAVAILABLE, "malformed AUTO_COMPLETE: 'config' is not an object")
            return
        try:
            model_class = load_model_class(model_file)
        except ModelLoadError as error:
            self._send_error(TritonError.UNAVAILABLE, str(error))
            return
        model_config = ModelConfig(config)
        auto_complete = getattr(model_class, "auto_complete_config", None)
        if auto_complete is not None:
            try:
                completed = auto_complete(model_config)
            except (Exception, SystemExit) as error:
                self._send_error(TritonError.UNAVAILABLE, describe_exception("auto_complete_config()", error, model_file))
                return
            if not isinstance(completed, ModelConfig):
                self._send_error(
                    TritonError.UNAVAILABLE,
                    f"auto_complete_config() returned {type(completed).__name__}, not the ModelConfig it was given")
                return
            model_config = completed
        try:
            answer = protocol.encode_json({"config": model_config.as_dict()})
        except (TypeError, ValueError) as error:
            self._send_error(TritonError.UNAVAILABLE, f"the config auto_complete_config() made is not JSON: {error}")
            return
        self._channel.send(protocol.CONFIG, answer)

    # -- REGION and EXECUTE -------------------------------------------------------

    def _on_region(self, message: Message) -> None:
        """Maps the new region in place of the old one. When it cannot be
        mapped, the error is logged and outputs go inline until the next
        REGION."""
        if message.fd is None:
            raise ProtocolError("REGION without a descriptor")
        try:
            size = protocol.decode_region(message.payload)
        except ProtocolError:
            os.close(message.fd)
            raise
        old, self._region = self._region, None
        if old is not None:
            old.release()
        try:
            self._region = Region(message.fd, size)
        except (OSError, ValueError) as error:
            Logger.log_error(f"cannot map the shared memory region of {size} bytes ({error}); tensors go inline")

    def _on_response_socket(self, message: Message) -> None:
        """The socket response senders write to (and ask is_cancelled on)."""
        if message.fd is None:
            raise ProtocolError("RESPONSE_SOCKET without a descriptor")
        if self._responses is not None:
            os.close(message.fd)
            raise ProtocolError("a second RESPONSE_SOCKET")
        self._responses = _responses.ResponseChannel(socket.socket(fileno=message.fd), "", False)
        _responses.install(self._responses)

    def _on_response_pool(self, message: Message) -> None:
        """The shared memory the tensors of RESPONSEs go through. When it
        cannot be mapped, the error is logged and they go inline."""
        if message.fd is None:
            raise ProtocolError("RESPONSE_POOL without a descriptor")
        try:
            size = protocol.decode_region(message.payload)
        except ProtocolError:
            os.close(message.fd)
            raise
        if self._responses is None or self._responses.pool is not None:
            os.close(message.fd)
            raise ProtocolError("RESPONSE_POOL before RESPONSE_SOCKET, or twice")
        try:
            self._responses.pool = _responses.ResponsePool(message.fd, size)
        except (OSError, ValueError) as error:
            Logger.log_error(f"cannot map the response pool of {size} bytes ({error}); responses go inline")

    def _on_execute(self, payload: bytearray) -> None:
        """Runs execute() on one batch; answers RESULT, or ERROR INTERNAL for
        the whole batch when execute fails or answers wrongly."""
        execute = self._execute
        if execute is None:
            self._send_error(TritonError.UNAVAILABLE, "EXECUTE before the model was initialized")
            return
        region = self._region
        try:
            output_offset, output_size, requests = protocol.decode_execute(payload, region)
        except ProtocolError as error:
            self._send_error(TritonError.INTERNAL, str(error))
            return
        arena = None
        if region is not None and output_size and output_offset + output_size <= region.size:
            arena = OutputArena(output_offset, output_size)
        channel = self._responses
        if self._decoupled:
            for request in requests:
                request._state = _responses._ResponseState(channel, request._server_id,
                                                           request._requested_output_names)
        # BLS inputs take the start of the output range; the outputs follow.
        self._bls.begin(arena)
        failure = None
        responses = None
        try:
            responses = self._run(execute, requests)
        except Exception as error:
            failure = describe_exception("execute()", error, self._model_file)
        # Every BLS call is answered before this EXECUTE is.
        self._bls.end()
        try:
            if self._decoupled:
                self._finish_decoupled(requests, responses, failure, region, arena)
            else:
                self._finish(requests, responses, failure, region, arena)
        finally:
            if channel is not None:
                channel.flush()

    def _finish(self, requests: list, responses: Any, failure: Optional[str], region: Optional[Region],
                arena: Optional[OutputArena]) -> None:
        """An ordinary model's RESULT (or ERROR): one response per request,
        the returned one or the one its sender sent; None in the list leaves
        the request to its sender (RESULT_PENDING)."""
        channel = self._responses
        if responses is None and failure is None and channel is not None:
            responses = [None] * len(requests)  # every request answered through its sender
        problem = failure if failure is not None else _check_responses(responses, len(requests), channel is not None)
        if problem is not None:
            self._fail_batch(requests, problem, region, arena)
            return
        entries = []
        try:
            for request, returned in zip(requests, responses):
                state = request._state
                if state is None and returned is None:
                    request.get_response_sender()  # a thread may still answer through it
                    state = request._state
                entries.append(channel.settle(state, returned) if state is not None else returned)
        except TritonModelException as error:
            self._fail_batch(requests, f"execute() returned a response its sender cannot send: {error}",
                             region, arena)
            return
        try:
            result = protocol.encode_result(entries, requests, region, arena, self._bf16_outputs)
        except Exception as error:
            self._send_error(TritonError.INTERNAL,
                             f"the outputs execute() returned cannot be sent: {type(error).__name__}: {error}")
            return
        self._channel.send(protocol.RESULT, result)

    def _fail_batch(self, requests: list, message: str, region: Optional[Region],
                    arena: Optional[OutputArena]) -> None:
        """ERROR for the whole batch; but a request whose sender already sent
        its response keeps it (RESULT, the others failing with `message`)."""
        channel = self._responses
        kept = [channel.close_with_result(request._state) if request._state is not None else None
                for request in requests]
        if all(response is None for response in kept):
            self._send_error(TritonError.INTERNAL, message)
            return
        entries = [response if response is not None else InferenceResponse(error=TritonError(message))
                   for response in kept]
        try:
            result = protocol.encode_result(entries, requests, region, arena, self._bf16_outputs)
        except Exception as error:
            self._send_error(TritonError.INTERNAL,
                             f"the outputs execute() returned cannot be sent: {type(error).__name__}: {error}")
            return
        self._channel.send(protocol.RESULT, result)

    def _finish_decoupled(self, requests: list, responses: Any, failure: Optional[str], region: Optional[Region],
                          arena: Optional[OutputArena]) -> None:
        """A decoupled model's RESULT: every request is its senders' (RESULT_PENDING).
        When execute() raised or returned something other than None, each
        request still open ends with that error, as in Triton."""
        if failure is None and responses is not None:
            failure = (f"Python model '{self._instance_name}' is using the decoupled mode and the execute "
                       "function must return None.")
        if failure is not None:
            Logger.log_error(failure)
            for request in requests:
                self._responses.end_with_error(request._state, failure)
        result = protocol.encode_result([None] * len(requests), requests, region, arena)
        self._channel.send(protocol.RESULT, result)

    def _run(self, method: Callable[[Any], Any], argument: Any) -> Any:
        """method(argument); a coroutine it returns (async def) runs to its
        end on the worker's event loop."""
        result = method(argument)
        if not inspect.isawaitable(result):
            return result
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
            asyncio.set_event_loop(self._loop)
        return self._loop.run_until_complete(result)

    # -- FINALIZE ---------------------------------------------------------------------

    def _on_finalize(self) -> None:
        """Calls finalize() (a failure is logged: the model is going away
        anyway) and answers FINALIZED."""
        finalize = getattr(self._model, "finalize", None) if self._model is not None else None
        if finalize is not None:
            try:
                finalize()
            except Exception as error:
                Logger.log_error(describe_exception("finalize()", error, self._model_file))
        self._channel.send(protocol.FINALIZED)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _check_responses(responses: Any, request_count: int, senders: bool = True) -> Optional[str]:
    """Why `responses` is not one InferenceResponse per request (or None,
    for a request its response sender answers, when `senders`), or None."""
    if not isinstance(responses, (list, tuple)):
        return (f"execute() returned {type(responses).__name__}, expected a list of "
                f"{_plural(request_count, 'InferenceResponse')}")
    if len(responses) != request_count:
        return f"execute() returned {_plural(len(responses), 'response')} for {_plural(request_count, 'request')}"
    for index, response in enumerate(responses):
        if response is None and senders:
            continue
        if not isinstance(response, InferenceResponse):
            return f"execute() returned a {type(response).__name__} as response {index}, not an InferenceResponse"
    return None


def _bf16_outputs(model_config: Any) -> frozenset:
    """Names of the outputs the config declares TYPE_BF16: the model returns
    those as uint16 bit patterns, and they are sent as BF16."""
    try:
        config = json.loads(model_config) if isinstance(model_config, str) else model_config
        outputs = config.get("output") or []
        return frozenset(output["name"] for output in outputs if output.get("data_type") == "TYPE_BF16")
    except (AttributeError, KeyError, TypeError, ValueError):
        return frozenset()


def _watch_parent() -> None:
    """Exits when the parent process changes: a safety net should the server
    die without closing the socket (it normally closes, which ends us)."""
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(PARENT_POLL_SECONDS)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="inferd-parent-watch", daemon=True).start()


def main() -> int:
    """Runs the worker on the inherited control socket; returns the exit
    status."""
    _watch_parent()
    # The server's stdout may be a pipe or a file: print() from the model
    # should reach its log line by line, not when a block buffer fills.
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(line_buffering=True)
    channel = Channel.from_fd(int(os.environ.get(CONTROL_FD_VARIABLE, "3")))
    try:
        return Worker(channel).serve()
    except ProtocolError as error:
        Logger.log_error(f"protocol error, the worker exits: {error}")
        return 1


def run() -> int:
    """main(), then the process ends at once: threads the model left running
    must not keep it alive."""
    status = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


if __name__ == "__main__":
    run()
