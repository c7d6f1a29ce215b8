# SPDX-License-Identifier: Apache-2.0
"""Entry point of a Python backend worker: `python -m inferd_python_worker`.

A top-level module, apart from the inferd_python package, because importing
that package imports numpy: when the chosen interpreter has no numpy, this
module still starts and tells the server why in an ERROR message (python/
PROTOCOL.md), which becomes the model's UNAVAILABLE reason, instead of dying
with a traceback only the server's log shows.
"""
import os
import struct
import sys

_ERROR = 102  # message type ERROR
_UNAVAILABLE = 4  # INFERD_ERROR_UNAVAILABLE


def _refuse(message: str) -> int:
    payload = bytes([_UNAVAILABLE]) + message.encode("utf-8", "replace")
    fd = int(os.environ.get("INFERD_PYTHON_CONTROL_FD", "3"))
    try:
        os.write(fd, struct.pack("<IB3x", len(payload), _ERROR) + payload)
    except OSError:
        pass
    return 1


def _name_process(argv: list) -> None:
    """Names the process after its model and instance (`--model M --instance I`
    from the server), for ps -o comm, top and /proc/PID/comm; the full
    command line already shows them. Linux keeps 15 bytes: the instance
    suffix is kept, the model name cut."""
    try:
        model = argv[argv.index("--model") + 1]
        instance = argv[argv.index("--instance") + 1]
    except (ValueError, IndexError):
        return
    suffix = f"#{instance}"
    name = (model[: max(1, 15 - len(suffix))] + suffix).encode("utf-8", "replace")[:15]
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_name = 15
        libc.prctl(pr_set_name, ctypes.c_char_p(name), 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux, or no libc symbol: the command line still tells


def main() -> int:
    _name_process(sys.argv)
    try:
        import numpy  # noqa: F401  (checked before the package needs it)
    except ImportError as error:
        return _refuse(
            f"numpy is not installed for {sys.executable} ({error}): install it "
            "(Debian: apt-get install python3-numpy; or pip install numpy), or choose an "
            "interpreter that has it with INFERD_PYTHON or the model's EXECUTION_ENV_PATH")
    from inferd_python.worker import run
    return run()


if __name__ == "__main__":
    sys.exit(main())
