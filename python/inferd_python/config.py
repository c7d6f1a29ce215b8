# SPDX-License-Identifier: Apache-2.0
"""Model configuration helpers: lookups in the parsed config and the
ModelConfig object `auto_complete_config` edits."""
from __future__ import annotations

import json
from typing import Any, Optional, Union


def _find_by_name(entries: Any, name: str) -> Optional[dict]:
    for entry in entries or ():
        if entry.get("name") == name:
            return entry
    return None


def get_input_config_by_name(model_config: dict, name: str) -> Optional[dict]:
    """The config entry of input `name` (a dict with "data_type", "dims", ...)
    from the parsed model config, or None."""
    return _find_by_name(model_config.get("input"), name)


def get_output_config_by_name(model_config: dict, name: str) -> Optional[dict]:
    """The config entry of output `name` from the parsed model config, or None."""
    return _find_by_name(model_config.get("output"), name)


def using_decoupled_model_transaction_policy(model_config: dict) -> bool:
    """Whether the parsed model config sets model_transaction_policy
    { decoupled: true }: the model answers through response senders."""
    policy = model_config.get("model_transaction_policy") or {}
    return bool(policy.get("decoupled", False))


def _dims(value: Any) -> list[int]:
    """Dims as ints: the config JSON may spell int64 values as strings."""
    return [int(d) for d in value or ()]


class ModelConfig:
    """The model configuration handed to `auto_complete_config`.

    A model fills in what its config.pbtxt left out (inputs, outputs,
    max_batch_size, the dynamic batcher) and returns this object; the server
    uses the result. The methods raise ValueError where the model contradicts
    what the config file says, as Triton's do, so that a mismatch is found
    at load time rather than on the first request.
    """

    _INPUT_PROPERTIES = ("name", "data_type", "dims", "optional")
    _OUTPUT_PROPERTIES = ("name", "data_type", "dims")
    _WARMUP_PROPERTIES = ("name", "batch_size", "inputs", "count")
    _WARMUP_REQUIRED = ("name", "batch_size", "inputs")

    def __init__(self, model_config: Union[dict, str]) -> None:
        self._model_config = json.loads(model_config) if isinstance(model_config, str) else model_config
        self._model_config.setdefault("input", [])
        self._model_config.setdefault("output", [])
        self._model_config.setdefault("max_batch_size", 0)

    def _model_name(self) -> str:
        return str(self._model_config.get("name", ""))

    def as_dict(self) -> dict:
        """The configuration as a dict (read it; change it with the methods)."""
        return self._model_config

    def max_batch_size(self) -> int:
        """The configured max_batch_size (0: the model does not batch)."""
        return int(self._model_config["max_batch_size"])

    def set_max_batch_size(self, max_batch_size: int) -> None:
        """Sets max_batch_size. A config that already names a larger value is
        an error: the model says it cannot batch that much. (A smaller one is
        raised to the model's value, as in Triton.)"""
        if isinstance(max_batch_size, bool) or not isinstance(max_batch_size, int) or max_batch_size < 0:
            raise ValueError(f"max_batch_size must be an int >= 0, got {max_batch_size!r}")
        configured = self.max_batch_size()
        if configured > max_batch_size:
            raise ValueError(
                f"configuration specified max_batch_size {configured}, but auto_complete_config of model "
                f"'{self._model_name()}' specified max_batch_size {max_batch_size}")
        self._model_config["max_batch_size"] = max_batch_size

    def set_dynamic_batching(self) -> None:
        """Chooses the dynamic batcher (default settings) unless the config
        already has it; another scheduler in the config is an error."""
        for scheduler in ("sequence_batching", "ensemble_scheduling"):
            if scheduler in self._model_config:
                raise ValueError(
                    f"configuration specified scheduling_choice '{scheduler}', but auto_complete_config of model "
                    f"'{self._model_name()}' tries to set 'dynamic_batching'")
        self._model_config.setdefault("dynamic_batching", {})

    def add_input(self, input: dict) -> None:
        """Adds an input ({"name", "data_type", "dims"[, "optional"]}), or
        completes the config's input of that name."""
        self._add_tensor("input", input, self._INPUT_PROPERTIES)

    def add_output(self, output: dict) -> None:
        """Adds an output ({"name", "data_type", "dims"}), or completes the
        config's output of that name."""
        self._add_tensor("output", output, self._OUTPUT_PROPERTIES)

    def _add_tensor(self, kind: str, tensor: dict, properties: tuple[str, ...]) -> None:
        """Shared rules of add_input/add_output: known properties only; name,
        data_type and dims required; an entry of the same name must agree on
        whatever it already sets."""
        model = self._model_name()
        if not isinstance(tensor, dict):
            raise ValueError(f"{kind} in auto_complete_config of model '{model}' must be a dict")
        if "name" not in tensor:
            raise ValueError(f"{kind} in auto_complete_config of model '{model}' is missing 'name' property")
        name = tensor["name"]
        unknown = [key for key in tensor if key not in properties]
        if unknown:
            raise ValueError(
                f"{kind} '{name}' in auto_complete_config of model '{model}' has properties other than "
                f"{', '.join(repr(p) for p in properties)}: {', '.join(map(repr, unknown))}")
        for required in ("data_type", "dims"):
            if required not in tensor:
                raise ValueError(f"{kind} '{name}' in auto_complete_config of model '{model}' is missing '{required}' property")

        existing = _find_by_name(self._model_config[kind], name)
        if existing is None:
            self._model_config[kind].append(tensor)
            return
        configured_type = existing.get("data_type", "TYPE_INVALID")
        if configured_type not in ("", "TYPE_INVALID") and configured_type != tensor["data_type"]:
            raise ValueError(
                f"unable to load model '{model}', configuration expects datatype {configured_type} for {kind} "
                f"'{name}', model provides {tensor['data_type']}")
        configured_dims = _dims(existing.get("dims"))
        if configured_dims and configured_dims != _dims(tensor["dims"]):
            raise ValueError(
                f"model '{model}', tensor '{name}': the model expects dims {list(tensor['dims'])} but the model "
                f"configuration specifies dims {configured_dims}")
        if "optional" in existing and "optional" in tensor and bool(existing["optional"]) != bool(tensor["optional"]):
            raise ValueError(
                f"model '{model}', tensor '{name}': the model expects optional {tensor['optional']} but the model "
                f"configuration specifies optional {existing['optional']}")
        existing.update(tensor)

    def add_model_warmup(self, model_warmup: dict) -> None:
        """Adds a warm-up sample ({"name", "batch_size", "inputs"[, "count"]})."""
        model = self._model_name()
        if not isinstance(model_warmup, dict):
            raise ValueError(f"model_warmup in auto_complete_config of model '{model}' must be a dict")
        unknown = [key for key in model_warmup if key not in self._WARMUP_PROPERTIES]
        if unknown:
            raise ValueError(
                f"model_warmup in auto_complete_config of model '{model}' has properties other than "
                f"{', '.join(repr(p) for p in self._WARMUP_PROPERTIES)}: {', '.join(map(repr, unknown))}")
        for required in self._WARMUP_REQUIRED:
            if required not in model_warmup:
                raise ValueError(f"model_warmup in auto_complete_config of model '{model}' is missing '{required}' property")
        self._model_config.setdefault("model_warmup", []).append(model_warmup)

    def set_model_transaction_policy(self, transaction_policy_dict: dict) -> None:
        """Sets model_transaction_policy ({"decoupled": bool}); changing a
        decoupled setting the config already has is an error."""
        model = self._model_name()
        unknown = [key for key in transaction_policy_dict if key != "decoupled"]
        if unknown:
            raise ValueError(
                f"model_transaction_policy in auto_complete_config of model '{model}' has properties other than "
                f"'decoupled': {', '.join(map(repr, unknown))}")
        policy = self._model_config.setdefault("model_transaction_policy", {})
        if "decoupled" in transaction_policy_dict:
            wanted = transaction_policy_dict["decoupled"]
            if "decoupled" in policy and bool(policy["decoupled"]) != bool(wanted):
                raise ValueError(
                    f"auto_complete_config of model '{model}' tries to change decoupled, which the configuration "
                    f"sets to {policy['decoupled']}")
            policy["decoupled"] = wanted
