# SPDX-License-Identifier: Apache-2.0
"""`import triton_python_backend_utils as pb_utils`, for Triton model.py
files: the public API of inferd_python under Triton's module name."""
from inferd_python import *  # noqa: F401,F403 - the whole public API, by design
from inferd_python import __all__  # noqa: F401
