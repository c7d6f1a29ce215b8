# SPDX-License-Identifier: Apache-2.0
"""Fixtures of the in-process Python API tests (the `inferd` package of
python/inferd_embed, installed into .venv by `make test-embed`).

`server` serves `simple` (examples/models) and the decoupled `repeat_int32`
(examples/backends/repeat/models) in this process, explicit model control.
"""
import pathlib

import pytest

inferd = pytest.importorskip(
    "inferd", reason="the inferd package is not installed: run `make test-embed`"
)

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "models"
REPEAT_MODELS = ROOT / "examples" / "backends" / "repeat" / "models"


def make_server(*load_models, **options):
    options.setdefault("model_control_mode", "explicit")
    options.setdefault("cpu_cores", 2)
    options.setdefault("log_level", "warn")
    return inferd.Server([EXAMPLES, REPEAT_MODELS], load_models=list(load_models), **options)


@pytest.fixture(scope="module")
def server():
    with make_server("simple", "repeat_int32") as s:
        yield s
