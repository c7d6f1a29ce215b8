# SPDX-License-Identifier: Apache-2.0
"""Tests of the Python backend's Python side (python/inferd_python).

The package is imported from the source tree (no install needed); the
end-to-end tests in test_python_worker.py start the worker with PYTHONPATH
set to it.
"""
import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PYTHON_DIR = ROOT / "python"
sys.path.insert(0, str(PYTHON_DIR))


@pytest.fixture
def memfd_region():
    """A factory of inferd_python Regions over fresh memfds, with the test's
    own mapping of the same memory to check what the worker wrote."""
    import mmap

    from inferd_python._region import Region

    made = []

    def make(size: int):
        fd = os.memfd_create("inferd-test")
        os.ftruncate(fd, size)
        ours = mmap.mmap(fd, size)
        region = Region(os.dup(fd), size)
        os.close(fd)
        made.append(region)
        return region, ours

    yield make
    for region in made:
        if region.buffer is not None:
            region.release()
