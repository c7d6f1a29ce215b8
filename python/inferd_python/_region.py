# SPDX-License-Identifier: Apache-2.0
"""The shared memory region: the worker's mapping of it, and the allocator
that places outputs in the range each EXECUTE reserves.

Inputs are numpy views straight into the mapping (no copy); outputs are
copied once, numpy -> region, and the server sends them from there.
"""
from __future__ import annotations

import mmap
import os
from typing import Optional

ALIGNMENT = 64


class Region:
    """A read-write shared mapping of the descriptor REGION sent.

    Input arrays view `buffer`; outputs are copied into slices of it.
    """

    __slots__ = ("size", "buffer")

    def __init__(self, fd: int, size: int) -> None:
        """Maps `size` bytes of `fd` and closes `fd`: the mapping keeps the
        memory, and the worker must not pile up descriptors."""
        try:
            if size <= 0:
                raise ValueError(f"REGION size must be > 0, got {size}")
            self.buffer: mmap.mmap = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        finally:
            os.close(fd)
        self.size = size

    def release(self) -> None:
        """Drops the mapping. A model may (against the rules) still hold an
        input array that views it; then mmap.close() raises BufferError and
        the memory is unmapped only when the last such array goes away."""
        try:
            self.buffer.close()
        except BufferError:
            pass
        self.buffer = None


class OutputArena:
    """Bump allocator over the output range [offset, offset + size) of one
    EXECUTE: blocks are 64-byte aligned (offsets from the region start) and
    packed from the start, so the server can free what follows `used`."""

    __slots__ = ("_start", "_end", "_cursor")

    def __init__(self, offset: int, size: int) -> None:
        self._start = offset
        self._end = offset + size
        self._cursor = offset

    def place(self, nbytes: int) -> Optional[int]:
        """The region offset of a new block of `nbytes`, or None when it does
        not fit (the tensor then goes inline)."""
        offset = (self._cursor + ALIGNMENT - 1) & -ALIGNMENT
        end = offset + nbytes
        if end > self._end:
            return None
        self._cursor = end
        return offset

    @property
    def used(self) -> int:
        """Bytes used from the start of the range, alignment padding included."""
        return self._cursor - self._start
