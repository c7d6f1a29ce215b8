# SPDX-License-Identifier: Apache-2.0
"""inferd in this Python process: a thin layer over the embedding C API
(libinferd.so, include/inferd/inferd.h). See docs/embedding.md.

    import numpy as np, inferd
    with inferd.Server(model_repository="examples/models") as server:
        simple = server.model("simple")
        a = np.arange(16, dtype=np.int32).reshape(1, 16)
        out = simple.infer({"INPUT0": a, "INPUT1": np.ones_like(a)})
        print(out["OUTPUT0"], out["OUTPUT1"])
"""

from ._server import InferResult, Model, Server
from .errors import InferdError
from ._inferd import api_version, version

__all__ = ["Server", "Model", "InferResult", "InferdError", "api_version", "version"]
