# SPDX-License-Identifier: Apache-2.0
"""Response senders, the worker's side: request.get_response_sender().send()
as in Triton (python/PROTOCOL.md "Response senders").

A decoupled model sends any number of responses per request, from any
thread, also after execute() returned; each send is one RESPONSE message on
the response socket, its tensors in one block of the response pool (shared
memory the server sends from without a copy) or inline. An ordinary model
may answer through the sender too, with exactly one response: sent before
execute() returns it rides in RESULT, after that in a RESPONSE.

Every request has one _ResponseState, shared by the request and its sender.
It ends exactly once: with the final flag, with the error that ends a
failed execute(), or, when the model let go of both request and sender
without sending the final flag, with an error (the client is answered
rather than left waiting).
"""
from __future__ import annotations

import bisect
import collections
import mmap
import os
import socket
import struct
import threading
from typing import Any, Optional

from . import _protocol as protocol
from .errors import TritonError, TritonModelException
from .response import InferenceResponse

FINAL = protocol.FLAG_FINAL  # TRITONSERVER_RESPONSE_COMPLETE_FINAL

_HEADER = protocol.HEADER
_U64 = struct.Struct("<Q")
_BLOCK_HEADER = 64  # the first byte of a block is its owner: 1 the server, 0 the worker
_ALIGNMENT = 64

DROPPED_MESSAGE = ("the model let go of the request and its response sender without sending the final flag "
                   "(pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)")


_channel: Optional["ResponseChannel"] = None


def install(channel: Optional["ResponseChannel"]) -> None:
    """Makes `channel` the one response senders use (the worker's)."""
    global _channel
    _channel = channel


def channel() -> Optional["ResponseChannel"]:
    """The worker's response channel; None outside a worker or before the
    server sent RESPONSE_SOCKET."""
    return _channel


class ResponsePool:
    """The worker's view of the response pool: it allocates blocks, the
    server gives each back by clearing the block's first byte once the
    response holding it was sent (so no message is needed to free one).
    First fit over a free list; blocks are reclaimed when allocating."""

    def __init__(self, fd: int, size: int) -> None:
        try:
            if size <= _BLOCK_HEADER:
                raise ValueError(f"RESPONSE_POOL size must be > {_BLOCK_HEADER}, got {size}")
            self.buffer: mmap.mmap = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        finally:
            os.close(fd)
        self.size = size
        self._free: list[list[int]] = [[0, size]]  # [offset, size], sorted, coalesced
        self._lent: dict[int, int] = {}  # block offset -> size, owned by the server

    def allocate(self, sizes: list[int]) -> Optional[tuple[int, list[Optional[int]]]]:
        """A block for tensors of `sizes` bytes: (block offset, each tensor's
        pool offset or None for an empty one), or None without room. The
        block belongs to the server from now on."""
        offsets: list[Optional[int]] = []
        total = _BLOCK_HEADER
        for size in sizes:
            if size:
                offsets.append(total)
                total += (size + _ALIGNMENT - 1) & -_ALIGNMENT
            else:
                offsets.append(None)
        block = self._take(total)
        if block is None:
            self._reclaim()
            block = self._take(total)
            if block is None:
                return None
        self.buffer[block] = 1
        self._lent[block] = total
        return block, [None if offset is None else block + offset for offset in offsets]

    def _take(self, size: int) -> Optional[int]:
        for index, (offset, free) in enumerate(self._free):
            if free >= size:
                if free == size:
                    del self._free[index]
                else:
                    self._free[index] = [offset + size, free - size]
                return offset
        return None

    def _reclaim(self) -> None:
        """Takes back every block whose owner byte the server cleared."""
        buffer = self.buffer
        returned = [offset for offset in self._lent if buffer[offset] == 0]
        for offset in returned:
            self._give(offset, self._lent.pop(offset))

    def _give(self, offset: int, size: int) -> None:
        free = self._free
        index = bisect.bisect(free, [offset, size])
        if index < len(free) and offset + size == free[index][0]:
            size += free[index][1]
            del free[index]
        if index > 0 and free[index - 1][0] + free[index - 1][1] == offset:
            free[index - 1][1] += size
        else:
            free.insert(index, [offset, size])

    @property
    def lent_blocks(self) -> int:
        """Blocks the server holds (as far as the worker knows)."""
        return len(self._lent)


class ResponseChannel:
    """The worker's end of the response socket (RESPONSE_SOCKET), and the
    response pool (RESPONSE_POOL) when the server sent one.

    Sends come from any thread and are serialized, each with its state
    change, by one lock: the order of the RESPONSEs of a request is the
    order of its sends. CANCELLED answers are the only messages the server
    writes here, one per IS_CANCELLED, so a caller reads its own answer.
    """

    def __init__(self, sock: socket.socket, model_name: str, decoupled: bool) -> None:
        self._socket = sock
        self.model_name = model_name
        self.decoupled = decoupled
        self.pool: Optional[ResponsePool] = None
        self.bf16_outputs: frozenset = frozenset()
        self._lock = threading.Lock()
        self._query_lock = threading.Lock()
        # Ends of requests whose state was collected while the lock was
        # held (a __del__ cannot wait for it): sent by the next holder.
        self._dropped: collections.deque = collections.deque()

    # -- sending ------------------------------------------------------------------

    def send(self, state: "_ResponseState", response: Optional[InferenceResponse], flags: int) -> None:
        """sender.send(): Triton's rules, then a RESPONSE (or, for an ordinary
        model still in execute(), the response kept for RESULT). A response
        that cannot be encoded raises and changes nothing."""
        final = flags == FINAL
        with self._lock:
            try:
                if not self.decoupled:
                    if response is not None and state.sent > 0:
                        raise TritonModelException(
                            "Unable to send response. Non-decoupled model cannot send more than one response.")
                    if response is None and final and state.sent == 0:
                        raise TritonModelException(
                            "Unable to send response. Non-decoupled model cannot send complete final before "
                            "sending a response.")
                if state.closed:
                    raise TritonModelException("Unable to send response. Response sender has been closed.")
                if self.decoupled:
                    self._write(self._encode(state, response, flags))
                elif final and state.pending:
                    # execute() returned: the one response goes now.
                    self._write(self._encode(state, response if response is not None else state.held, FINAL))
                    state.held = None
                elif response is not None:
                    state.held = response  # RESULT (or the final flag) carries it
                if final:
                    state.closed = True
                state.sent += 1
            finally:
                self._flush_dropped_locked()

    def end_with_error(self, state: "_ResponseState", message: str) -> bool:
        """Ends an open request with an error final (a failed execute() of a
        decoupled model); False when its sender had already ended it."""
        with self._lock:
            try:
                if state.closed:
                    return False
                state.closed = True
                self._send_locked(state, InferenceResponse(error=TritonError(message)), FINAL)
                return True
            finally:
                self._flush_dropped_locked()

    def settle(self, state: "_ResponseState", returned: Any) -> Any:
        """An ordinary model's RESULT entry for one request, decided under
        the lock so that no send slips between: the response execute()
        returned, the one the sender holds (sent and closed), or None (the
        sender answers later: RESULT_PENDING). `returned` is the list entry
        (None or an InferenceResponse, already checked)."""
        with self._lock:
            if returned is not None:
                # As Triton: the returned response is one more send, final.
                if state.sent > 0:
                    raise TritonModelException(
                        "Unable to send response. Non-decoupled model cannot send more than one response.")
                state.closed = True
                state.sent += 1
                return returned
            if state.closed:
                held, state.held = state.held, None
                return held
            state.pending = True
            return None

    def close_with_result(self, state: "_ResponseState") -> Optional[InferenceResponse]:
        """An ordinary model's failed batch: the response this request's
        sender already completed (it is still sent), or None (the request
        gets the batch's error); either way nothing more can be sent."""
        with self._lock:
            if state.closed:
                held, state.held = state.held, None
                return held
            state.closed = True
            return None

    def dropped(self, state: "_ResponseState") -> None:
        """From _ResponseState.__del__ (any thread, any moment): ends the
        request with an error, now if the lock is free, else through the
        lock's current holder."""
        self._dropped.append(state.request_id)
        if self._lock.acquire(blocking=False):
            try:
                self._flush_dropped_locked()
            finally:
                self._lock.release()

    def flush(self) -> None:
        """Sends the ends of requests collected while the lock was held."""
        if self._dropped:
            with self._lock:
                self._flush_dropped_locked()

    def _flush_dropped_locked(self) -> None:
        while self._dropped:
            request_id = self._dropped.popleft()
            response = InferenceResponse(error=TritonError(DROPPED_MESSAGE))
            try:
                self._write(protocol.encode_response(request_id, FINAL, response, None, None))
            except TritonModelException:
                return  # the server is gone: nobody waits for these any more

    def _encode(self, state: "_ResponseState", response: Optional[InferenceResponse], flags: int) -> bytearray:
        try:
            return protocol.encode_response(state.request_id, flags, response, state.requested, self.pool,
                                            self.bf16_outputs)
        except (TypeError, ValueError, OverflowError, KeyError) as error:
            raise TritonModelException(f"the response cannot be sent: {type(error).__name__}: {error}") from error

    def _send_locked(self, state: "_ResponseState", response: Optional[InferenceResponse], flags: int) -> None:
        self._write(self._encode(state, response, flags))

    def _write(self, payload: bytes) -> None:
        try:
            self._socket.sendall(_HEADER.pack(len(payload), protocol.RESPONSE))
            self._socket.sendall(payload)
        except OSError as error:
            raise TritonModelException(f"the server's response socket is closed ({error})") from error

    # -- cancellation -------------------------------------------------------------------

    def is_cancelled(self, request_id: int) -> bool:
        """Asks the server whether the client cancelled the request."""
        with self._query_lock:
            with self._lock:
                payload = _U64.pack(request_id)
                try:
                    self._socket.sendall(_HEADER.pack(len(payload), protocol.IS_CANCELLED) + payload)
                except OSError as error:
                    raise TritonModelException(f"the server's response socket is closed ({error})") from error
            header = self._read(_HEADER.size)
            length, message_type = _HEADER.unpack(header)
            payload = self._read(length)
            if message_type != protocol.CANCELLED:
                raise protocol.ProtocolError(f"message type {message_type} on the response socket")
            answered, cancelled = protocol.decode_cancelled(payload)
            if answered != request_id:
                raise protocol.ProtocolError(f"CANCELLED for request {answered}, asked about {request_id}")
            return cancelled

    def _read(self, count: int) -> bytearray:
        data = bytearray()
        while len(data) < count:
            chunk = self._socket.recv(count - len(data))
            if not chunk:
                raise TritonModelException("the server closed the response socket")
            data += chunk
        return data


class _ResponseState:
    """What one request's responses have done so far (guarded by the
    channel's lock)."""

    __slots__ = ("channel", "request_id", "requested", "closed", "sent", "held", "pending", "__weakref__")

    def __init__(self, channel: ResponseChannel, request_id: int, requested: list[str]) -> None:
        self.channel = channel
        self.request_id = request_id
        self.requested = requested
        self.closed = False
        self.sent = 0
        self.held: Optional[InferenceResponse] = None
        self.pending = False  # an ordinary model's RESULT left it to the sender

    def __del__(self) -> None:
        # Request and sender are gone: nobody can end the request any more.
        if not self.closed and (self.channel.decoupled or self.pending):
            self.closed = True
            try:
                self.channel.dropped(self)
            except Exception:  # noqa: BLE001 - a __del__ must not raise; the server may be gone
                pass


class InferenceResponseSender:
    """Triton's InferenceResponseSender: sends the responses of one request
    (request.get_response_sender())."""

    __slots__ = ("_state",)

    def __init__(self, state: _ResponseState) -> None:
        self._state = state

    def send(self, response: Optional[InferenceResponse] = None, flags: int = 0) -> None:
        """Sends `response`; flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL
        makes it the last (response may then be None: the final flag alone).
        Raises TritonModelException as Triton does: after the final flag,
        with other flags, or for a second response of an ordinary model."""
        if flags != FINAL and flags != 0:
            raise TritonModelException("Unable to send response. Unsupported flag provided.")
        if flags == 0 and response is None:
            raise TritonModelException(
                "Inference Response object must be provided when the response flags is set to zero.")
        if response is not None and not isinstance(response, InferenceResponse):
            raise TypeError(f"send() takes an InferenceResponse, got {type(response).__name__}")
        self._state.channel.send(self._state, response, flags)

    def is_cancelled(self) -> bool:
        """Whether the client cancelled the request (asks the server)."""
        return self._state.channel.is_cancelled(self._state.request_id)
