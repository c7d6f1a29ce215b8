# SPDX-License-Identifier: Apache-2.0
"""Server and Model: the Python face of the embedding C API."""

import asyncio
import atexit
import json
import threading
import weakref
from typing import Any, AsyncIterator, Callable, Dict, Iterable, Optional, Union

from . import _inferd
from ._tensors import from_output, to_input
from .errors import InferdError

_MODES = {"none": 0, "poll": 1, "explicit": 2}

# Servers still open when the interpreter exits are closed first: their
# threads call into Python (callbacks, input releases) until they stop.
_open_servers: "weakref.WeakSet[Server]" = weakref.WeakSet()


@atexit.register
def _close_open_servers() -> None:
    for server in list(_open_servers):
        server.close()


class InferResult(dict):
    """The outputs of one response by name (numpy arrays, read-only, sharing
    the server's memory), with the model, version and request id that
    answered. An array keeps the response's memory alive as long as it
    lives."""

    def __init__(self, response):
        super().__init__(
            (name, from_output(datatype, shape, array))
            for name, datatype, shape, array in response.outputs()
        )
        self.model_name: str = response.model_name
        self.model_version: int = response.model_version
        self.id: str = response.id


def _error(error) -> InferdError:
    code, message = error
    return InferdError(message, code)


class Model:
    """A model of a Server; `version` -1 (the default) is the newest ready
    version. Cheap to make: nothing is looked up until it is used."""

    def __init__(self, server: "Server", name: str, version: int = -1):
        self.server = server
        self.name = name
        self.version = version

    def __repr__(self) -> str:
        return f"Model({self.name!r}, version={self.version})"

    def is_ready(self) -> bool:
        return self.server._native().model_is_ready(self.name, self.version)

    def metadata(self) -> dict:
        """{"name","versions","platform","inputs","outputs"} as GET /v2/models/<m> answers."""
        return json.loads(self.server._native().model_metadata(self.name, self.version))

    def config(self) -> dict:
        """The completed model configuration, as GET /v2/models/<m>/config answers."""
        return json.loads(self.server._native().model_config(self.name, self.version))

    def statistics(self) -> dict:
        """{"model_stats": [...]} for this model (every ready version for -1)."""
        return json.loads(self.server._native().statistics(self.name, self.version))

    def _request(self, inputs, outputs, id, parameters, timeout_us):
        if not isinstance(inputs, dict):
            raise TypeError("inputs must be a dict of name -> numpy array")
        tensors = [to_input(name, value) for name, value in inputs.items()]
        return (
            self.name,
            self.version,
            tensors,
            list(outputs or ()),
            id or "",
            dict(parameters or {}),
            int(timeout_us),
        )

    def infer(
        self,
        inputs: Dict[str, Any],
        outputs: Optional[Iterable[str]] = None,
        *,
        id: Optional[str] = None,
        parameters: Optional[Dict[str, Union[bool, int, str]]] = None,
        timeout_us: int = 0,
    ) -> InferResult:
        """Runs one request and waits for its response.

        `inputs` maps input names to numpy arrays (C-contiguous native
        arrays are lent without a copy until the server is done with them;
        a value may be (array, "DATATYPE"), e.g. BF16 bit patterns as
        uint16). `outputs` names the outputs to return (default: all).
        `parameters` are request parameters (e.g. "sequence_id",
        "priority"); `timeout_us` fails a request still queued after it
        (DEADLINE_EXCEEDED). Raises InferdError; a decoupled model is
        refused (UNSUPPORTED): use stream()."""
        request = self._request(inputs, outputs, id, parameters, timeout_us)
        return InferResult(self.server._native().infer(*request))

    def infer_with_callback(
        self,
        inputs: Dict[str, Any],
        callback: Callable[[Optional[InferResult], Optional[InferdError], bool], None],
        outputs: Optional[Iterable[str]] = None,
        *,
        id: Optional[str] = None,
        parameters: Optional[Dict[str, Union[bool, int, str]]] = None,
        timeout_us: int = 0,
    ) -> None:
        """Sends one request; `callback(result, error, final)` runs on a
        server thread for every response: once for an ordinary model (final
        True), once per response for a decoupled model, the last with final
        True (result and error may both be None then: the final flag
        alone). Keep it short; it must not close the server, load or
        unload, or call infer() (InferdError UNSUPPORTED)."""
        request = self._request(inputs, outputs, id, parameters, timeout_us)

        def on_response(response, error, final):
            callback(
                InferResult(response) if response is not None else None,
                _error(error) if error is not None else None,
                final,
            )

        self.server._native().infer_async(*request, on_response)

    async def infer_async(
        self,
        inputs: Dict[str, Any],
        outputs: Optional[Iterable[str]] = None,
        *,
        id: Optional[str] = None,
        parameters: Optional[Dict[str, Union[bool, int, str]]] = None,
        timeout_us: int = 0,
    ) -> InferResult:
        """infer() for asyncio: awaits the response without blocking the
        event loop. Cancelling the awaiting task does not stop the request
        in the server; its result is then dropped."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()

        def settle(result, error):
            if future.done():
                return
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(result)

        def callback(result, error, final):
            if final or error is not None:
                loop.call_soon_threadsafe(settle, result, error)

        self.infer_with_callback(
            inputs, callback, outputs, id=id, parameters=parameters, timeout_us=timeout_us
        )
        return await future

    async def stream(
        self,
        inputs: Dict[str, Any],
        outputs: Optional[Iterable[str]] = None,
        *,
        id: Optional[str] = None,
        parameters: Optional[Dict[str, Union[bool, int, str]]] = None,
        timeout_us: int = 0,
    ) -> AsyncIterator[InferResult]:
        """Every response of a request, as they come: a decoupled model's
        many (the final flag alone is not yielded), an ordinary model's one.
        An error response raises InferdError at that point."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue()

        def callback(result, error, final):
            loop.call_soon_threadsafe(queue.put_nowait, (result, error, final))

        self.infer_with_callback(
            inputs, callback, outputs, id=id, parameters=parameters, timeout_us=timeout_us
        )
        while True:
            result, error, final = await queue.get()
            if error is not None:
                raise error
            if result is not None:
                yield result
            if final:
                return


class Server:
    """An inferd server running in this process.

    `model_repository` is a folder (or a list of folders) in Triton's
    layout. Options, with inferd serve's defaults:
      backend_directory      folder of <backend>/libinferd_<backend>.so
                             (default: backends/ beside libinferd.so)
      model_control_mode     "none" (load every model), "poll", "explicit"
      load_models            explicit mode: models to load at start-up ("*": all)
      strict_readiness       ready only when every model that should load did
      cpu_cores              cores the thread counts are sized for (0: all)
      model_load_threads     threads that load models (0: min(4, cores))
      auto_complete_config   complete config.pbtxt from the model file
      repository_poll_secs   poll mode: seconds between scans
      exit_timeout_secs      how long close()/stop() wait for requests
      log_level              "trace" ... "error", "off" (process-wide)
    The constructor returns once the start-up models have loaded (or
    failed; see model_index()). Use it as a context manager, or call
    close(): both drain the requests in flight and unload every model.
    """

    def __init__(
        self,
        model_repository: Union[str, Iterable[str]],
        *,
        backend_directory: Optional[str] = None,
        model_control_mode: str = "none",
        load_models: Iterable[str] = (),
        strict_readiness: bool = True,
        cpu_cores: int = 0,
        model_load_threads: int = 0,
        auto_complete_config: bool = True,
        repository_poll_secs: float = 15.0,
        exit_timeout_secs: float = 30.0,
        log_level: Optional[str] = None,
    ):
        repositories = (
            [str(model_repository)]
            if isinstance(model_repository, (str, bytes)) or hasattr(model_repository, "__fspath__")
            else [str(r) for r in model_repository]
        )
        if model_control_mode not in _MODES:
            raise InferdError(
                f"model_control_mode must be one of {sorted(_MODES)}, got {model_control_mode!r}",
                "INVALID_ARG",
            )
        self._lock = threading.Lock()
        self._server = _inferd.Server(
            repositories,
            None if backend_directory is None else str(backend_directory),
            _MODES[model_control_mode],
            [str(m) for m in load_models],
            bool(strict_readiness),
            int(cpu_cores),
            int(model_load_threads),
            bool(auto_complete_config),
            float(repository_poll_secs),
            float(exit_timeout_secs),
            log_level,
        )
        _open_servers.add(self)

    def _native(self):
        server = self._server
        if server is None:
            raise InferdError("the server is closed", "UNAVAILABLE")
        return server

    def __enter__(self) -> "Server":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Drains the requests in flight (up to exit_timeout_secs), unloads
        every model and frees the server. Idempotent."""
        with self._lock:
            server, self._server = self._server, None
        if server is not None:
            server.close()
            _open_servers.discard(self)

    def stop(self) -> None:
        """Stops serving (readiness false, new requests UNAVAILABLE), waits
        for the accepted requests and unloads every model; close() still
        frees the server."""
        self._native().stop()

    def is_live(self) -> bool:
        return self._native().is_live()

    def is_ready(self) -> bool:
        return self._native().is_ready()

    def metadata(self) -> dict:
        """{"name","version","extensions"} as GET /v2 answers."""
        return json.loads(self._native().metadata())

    def model_index(self, ready_only: bool = False) -> list:
        """[{"name","version","state","reason"}] as POST /v2/repository/index answers."""
        return json.loads(self._native().model_index(bool(ready_only)))

    def model(self, name: str, version: int = -1) -> Model:
        return Model(self, name, version)

    def statistics(self, model: Optional[str] = None, version: int = -1) -> dict:
        """{"model_stats": [...]}: every ready model's, or one model's."""
        return json.loads(self._native().statistics(model or "", version))

    def load_model(self, name: str, config: Optional[Union[dict, str]] = None) -> Model:
        """Explicit mode: loads (or reloads) `name` and waits until it
        serves; `config` (a dict or JSON text) replaces its config.pbtxt."""
        if isinstance(config, dict):
            config = json.dumps(config)
        self._native().load_model(name, config)
        return Model(self, name)

    def unload_model(self, name: str, unload_dependents: bool = False) -> None:
        """Explicit mode: unloads every version of `name` and waits until
        they are released."""
        self._native().unload_model(name, bool(unload_dependents))
