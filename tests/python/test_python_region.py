# SPDX-License-Identifier: Apache-2.0
"""The shared memory mapping and the output allocator."""
import os

import numpy as np
import pytest

from inferd_python._region import ALIGNMENT, OutputArena, Region


def test_arena_packs_aligned_from_the_start():
    arena = OutputArena(256, 1000)
    assert arena.used == 0
    assert arena.place(10) == 256
    assert arena.used == 10
    assert arena.place(64) == 320
    assert arena.place(1) == 384
    assert arena.used == 385 - 256


def test_arena_aligns_an_unaligned_range_start():
    arena = OutputArena(100, 200)
    assert arena.place(8) == 128
    assert arena.used == 36  # padding before the block counts as used


def test_arena_refuses_what_does_not_fit_and_goes_on():
    arena = OutputArena(0, 128)
    assert arena.place(100) == 0
    assert arena.place(64) is None       # 128 + 64 > 128
    assert arena.used == 100             # a refusal uses nothing
    assert arena.place(0) == 128         # an empty block fits at the very end
    assert OutputArena(0, 0).place(1) is None


def test_arena_exact_fit():
    arena = OutputArena(64, 128)
    assert arena.place(64) == 64
    assert arena.place(64) == 128
    assert arena.place(1) is None
    assert arena.used == 128


@pytest.mark.parametrize("start", [0, 64, 4096])
def test_arena_offsets_are_aligned(start):
    arena = OutputArena(start, 1 << 20)
    offsets = [arena.place(n) for n in (1, 7, 63, 64, 65, 1000, 3)]
    assert all(o % ALIGNMENT == 0 for o in offsets)
    assert offsets == sorted(offsets)


def test_region_maps_shared_memory_and_closes_the_descriptor(memfd_region):
    region, ours = memfd_region(4096)
    assert region.size == 4096
    region.buffer[10:13] = b"\x01\x02\x03"
    assert ours[10:13] == b"\x01\x02\x03"
    ours[20] = 9
    assert region.buffer[20] == 9


def test_region_takes_ownership_of_the_descriptor():
    fd = os.memfd_create("t")
    os.ftruncate(fd, 64)
    region = Region(fd, 64)
    with pytest.raises(OSError):
        os.fstat(fd)
    region.release()


def test_region_rejects_size_zero_and_still_closes():
    fd = os.memfd_create("t")
    with pytest.raises(ValueError):
        Region(fd, 0)
    with pytest.raises(OSError):
        os.fstat(fd)


def test_release_with_live_views_just_drops_the_mapping(memfd_region):
    region, ours = memfd_region(4096)
    ours[0:4] = np.array([42], dtype=np.int32).tobytes()
    kept = np.frombuffer(region.buffer, dtype=np.int32, count=1)  # a model that kept an input
    region.release()                                             # no BufferError escapes
    assert region.buffer is None
    assert kept[0] == 42                                         # still mapped while referenced
