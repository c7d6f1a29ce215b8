# SPDX-License-Identifier: Apache-2.0
"""BLS, the worker's side: InferenceRequest.exec() and async_exec() send a
BLS_REQUEST to the server and get the BLS_RESPONSE with the same id
(python/PROTOCOL.md "BLS").

A model may have many calls outstanding (async_exec with asyncio.gather,
exec from several threads), and their responses come in any order. One
reader thread receives them all and hands each to its caller, so a caller
never reads the socket itself: an event loop is never blocked, and the
worker always drains its socket while the server may be writing a large
response (both sides writing large messages at once cannot deadlock).

The reader reads only while a call is outstanding, and the worker answers
an EXECUTE only once every call it made is answered, so the main loop and
the reader never read the socket at the same time.
"""
from __future__ import annotations

import asyncio
import itertools
import os
import sys
import threading
from typing import Any, Optional

from . import _protocol as protocol
from ._channel import Channel
from ._region import OutputArena
from .errors import TritonError, TritonModelException
from .logger import Logger
from .response import InferenceResponse

_client: Optional["BlsClient"] = None


def install(client: Optional["BlsClient"]) -> None:
    """Makes `client` the one InferenceRequest.exec() uses (the worker's)."""
    global _client
    _client = client


def client() -> "BlsClient":
    """The worker's BLS client; raises outside a worker (a model imported
    into a plain interpreter, e.g. by its unit tests)."""
    if _client is None:
        raise TritonModelException("BLS (InferenceRequest.exec) works only inside the inferd Python worker")
    return _client


class _SyncWaiter:
    """Blocks one thread until its response arrives."""

    __slots__ = ("_lock", "response")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._lock.acquire()
        self.response: Optional[InferenceResponse] = None

    def deliver(self, response: InferenceResponse) -> None:
        self.response = response
        self._lock.release()

    def wait(self) -> InferenceResponse:
        self._lock.acquire()
        return self.response


class _AsyncWaiter:
    """Resolves an asyncio future on its own loop's thread."""

    __slots__ = ("_loop", "future")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self.future = loop.create_future()

    def deliver(self, response: InferenceResponse) -> None:
        try:
            self._loop.call_soon_threadsafe(_resolve, self.future, response)
        except RuntimeError:  # the loop is closed: nobody awaits this any more
            pass


def _resolve(future: asyncio.Future, response: Any) -> None:
    if not future.done():
        future.set_result(response)


class ResponseIterator:
    """The responses of exec(decoupled=True), in the order the target sent
    them, each as it arrives (iterating blocks until the next one). The
    last one ends the call; it is an empty response when the target sent
    the final flag alone. Once all have arrived, iterating again starts over
    (as Triton's does)."""

    def __init__(self) -> None:
        self._lock = threading.Condition(threading.Lock())
        self._responses: list[InferenceResponse] = []
        self._finished = False
        self._index = 0

    def _deliver(self, response: InferenceResponse, final: bool) -> None:
        with self._lock:
            self._responses.append(response)
            self._finished = self._finished or final
            self._lock.notify_all()

    def __iter__(self) -> "ResponseIterator":
        with self._lock:
            if self._finished and self._index >= len(self._responses):
                self._index = 0
        return self

    def __next__(self) -> InferenceResponse:
        with self._lock:
            while self._index >= len(self._responses) and not self._finished:
                self._lock.wait()
            if self._index >= len(self._responses):
                raise StopIteration
            response = self._responses[self._index]
            self._index += 1
            return response


class _StreamWaiter:
    """Feeds the iterator of a decoupled call; for async_exec, also resolves
    the future with the iterator at the first response."""

    __slots__ = ("iterator", "_loop", "future")

    def __init__(self, loop: Optional[asyncio.AbstractEventLoop]) -> None:
        self.iterator = ResponseIterator()
        self._loop = loop
        self.future = loop.create_future() if loop is not None else None

    def deliver(self, response: InferenceResponse, final: bool) -> None:
        first = not self.iterator._responses
        self.iterator._deliver(response, final)
        if first and self._loop is not None:
            try:
                self._loop.call_soon_threadsafe(_resolve, self.future, self.iterator)
            except RuntimeError:  # the loop is closed: nobody awaits this any more
                pass


class BlsClient:
    """Sends the worker's BLS requests and routes the responses.

    The worker opens a window (begin) around initialize() and each
    execute(); calls outside it are refused, and closing it (end) waits
    until every call made in it is answered.
    """

    def __init__(self, channel: Channel, region_of: Any) -> None:
        self._channel = channel
        self._region_of = region_of  # () -> the worker's current Region or None
        self._lock = threading.Condition(threading.Lock())
        self._pending: dict[int, Any] = {}
        self._ids = itertools.count(1)
        self._open = False
        self._arena: Optional[OutputArena] = None
        self._reader: Optional[threading.Thread] = None

    # -- the worker's side ------------------------------------------------------

    def begin(self, arena: Optional[OutputArena]) -> None:
        """Allows calls from now on; their inputs may use `arena` (the
        EXECUTE's output range), which RESULT then continues to fill."""
        with self._lock:
            self._open = True
            self._arena = arena

    def end(self) -> None:
        """Refuses new calls and waits until every outstanding one is
        answered (the server answers each, a timeout included)."""
        with self._lock:
            self._open = False
            self._arena = None
            while self._pending:
                self._lock.wait()

    # -- the model's side -------------------------------------------------------

    def call(self, request: Any, decoupled: bool = False) -> Any:
        """exec(): sends and waits for the response (decoupled: returns the
        iterator over the responses at once)."""
        if decoupled:
            stream = _StreamWaiter(None)
            self._send(request, stream, True)
            return stream.iterator
        waiter = _SyncWaiter()
        self._send(request, waiter, False)
        return waiter.wait()

    def call_async(self, request: Any, decoupled: bool = False) -> "asyncio.Future[Any]":
        """async_exec(): sends now; the future resolves on the running loop
        (decoupled: with the iterator, at the first response)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            raise TritonModelException(
                "async_exec() needs a running asyncio event loop: await it inside 'async def execute'") from None
        waiter = _StreamWaiter(loop) if decoupled else _AsyncWaiter(loop)
        self._send(request, waiter, decoupled)
        return waiter.future

    def _send(self, request: Any, waiter: Any, decoupled: bool) -> None:
        with self._lock:
            if not self._open:
                raise TritonModelException(
                    "BLS requests can be made only while initialize() or execute() runs")
            call_id = next(self._ids)
            try:
                payload = protocol.encode_bls_request(
                    call_id, request._model_name, request._model_version, request._timeout,
                    request._wire_parameters(), request._requested_output_names, request._inputs,
                    self._region_of(), self._arena, decoupled)
            except (TypeError, ValueError, OverflowError) as error:
                raise TritonModelException(f"the BLS request cannot be sent: {error}") from error
            self._pending[call_id] = waiter
            if self._reader is None:
                self._reader = threading.Thread(target=self._read, name="inferd-bls-reader", daemon=True)
                self._reader.start()
            self._lock.notify_all()
        self._channel.send(protocol.BLS_REQUEST, payload)

    # -- the reader thread --------------------------------------------------------

    def _read(self) -> None:
        try:
            self._read_forever()
        except Exception as error:  # noqa: BLE001 - the worker cannot go on without it
            _die(f"the BLS reader failed: {type(error).__name__}: {error}", 1)

    def _read_forever(self) -> None:
        receive = self._channel.receive
        while True:
            with self._lock:
                while not self._pending:
                    self._lock.wait()
            message = receive()
            if message is None:
                _die("the server closed the socket", 0)
            if message.type != protocol.BLS_RESPONSE or message.fd is not None:
                _die(f"protocol error: message type {message.type} while BLS calls are outstanding", 1)
            call_id = protocol.bls_response_id(message.payload)
            try:
                _, flags, error, outputs = protocol.decode_bls_response(message.payload, self._region_of())
                response = InferenceResponse._from_bls(outputs or [], None if error is None else _error(*error))
                final = bool(flags & protocol.FLAG_FINAL)
            except protocol.ProtocolError as problem:
                response = InferenceResponse._from_bls([], TritonError(str(problem), TritonError.INTERNAL))
                final = True
            with self._lock:
                waiter = self._pending.pop(call_id, None) if final else self._pending.get(call_id)
            if waiter is None:
                _die(f"protocol error: BLS_RESPONSE for call {call_id}, which is not outstanding", 1)
            if isinstance(waiter, _StreamWaiter):
                waiter.deliver(response, final)
            elif final:
                waiter.deliver(response)
            else:
                _die(f"protocol error: a BLS_RESPONSE without the final flag for call {call_id}, not decoupled", 1)
            if final:
                with self._lock:
                    if not self._pending:
                        self._lock.notify_all()  # end() may be waiting


def _error(code: int, message: str) -> TritonError:
    if not TritonError.UNKNOWN <= code <= TritonError.DEADLINE_EXCEEDED:
        code = TritonError.UNKNOWN
    return TritonError(message, code)


def _die(why: str, status: int) -> None:
    """Ends the worker from the reader thread: without it, calls would hang."""
    if status:
        Logger.log_error(why + "; the worker exits")
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
