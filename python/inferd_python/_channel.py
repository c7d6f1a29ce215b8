# SPDX-License-Identifier: Apache-2.0
"""The control socket: framed messages to and from the server."""
from __future__ import annotations

import array
import os
import socket
import threading
from typing import NamedTuple, Optional

from ._protocol import HEADER

_FD_SPACE = socket.CMSG_SPACE(array.array("i").itemsize)


class Message(NamedTuple):
    """One message from the server. `fd` is the descriptor attached to it
    (REGION), or None; the receiver owns it and must close it."""

    type: int
    payload: bytearray
    fd: Optional[int]


class Channel:
    """Reads and writes framed messages on the worker's end of the socket
    pair.

    The header is read with recvmsg so that a descriptor attached to it is
    taken; the payload with exactly `length` bytes, so a read never reaches
    into the next message (and its descriptor).

    One thread receives at a time (the main loop, or the BLS reader while
    BLS calls are outstanding); sends may come from several threads (BLS
    calls from model threads or an event loop) and are serialized.
    """

    __slots__ = ("_socket", "_send_lock")

    def __init__(self, sock: socket.socket) -> None:
        self._socket = sock
        self._send_lock = threading.Lock()

    @classmethod
    def from_fd(cls, fd: int) -> "Channel":
        """The channel on inherited descriptor `fd` (a Unix stream socket)."""
        return cls(socket.socket(fileno=fd))

    def receive(self) -> Optional[Message]:
        """The next message, or None when the server closed the socket (also
        in the middle of a message: a cut message is as good as none)."""
        try:
            header = bytearray()
            fd: Optional[int] = None
            while len(header) < HEADER.size:
                data, ancillary, _flags, _address = self._socket.recvmsg(HEADER.size - len(header), _FD_SPACE)
                for received in _descriptors(ancillary):
                    if fd is None:
                        fd = received
                    else:
                        _close(received)
                if not data:
                    _close(fd)
                    return None
                header += data
            length, message_type = HEADER.unpack(header)
            payload = bytearray(length)
            if length and not self._read_exactly(memoryview(payload)):
                _close(fd)
                return None
        except ConnectionResetError:
            return None
        return Message(message_type, payload, fd)

    def _read_exactly(self, view: memoryview) -> bool:
        """Fills `view` from the socket; False on EOF before it is full."""
        received = 0
        total = len(view)
        while received < total:
            count = self._socket.recv_into(view[received:], total - received, socket.MSG_WAITALL)
            if count == 0:
                return False
            received += count
        return True

    def send(self, message_type: int, payload: bytes = b"") -> None:
        """Sends one message: header and payload in one sendmsg (no copy to
        join them); a partial send, when the socket buffer is full, goes on
        with sendall."""
        with self._send_lock:
            self._send(message_type, payload)

    def _send(self, message_type: int, payload: bytes) -> None:
        header = HEADER.pack(len(payload), message_type)
        sent = self._socket.sendmsg((header, payload))
        total = len(header) + len(payload)
        if sent < total:
            if sent < len(header):
                self._socket.sendall(header[sent:])
                sent = len(header)
            with memoryview(payload) as rest:
                self._socket.sendall(rest[sent - len(header):])

    def close(self) -> None:
        """Closes the socket."""
        self._socket.close()


def _descriptors(ancillary: list) -> list[int]:
    """The descriptors in recvmsg's ancillary data (SCM_RIGHTS)."""
    descriptors: list[int] = []
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds = array.array("i")
            fds.frombytes(data[:len(data) - len(data) % fds.itemsize])
            descriptors.extend(fds)
    return descriptors


def _close(fd: Optional[int]) -> None:
    if fd is not None:
        os.close(fd)
