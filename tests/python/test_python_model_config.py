# SPDX-License-Identifier: Apache-2.0
"""ModelConfig, the object auto_complete_config() edits."""
import json

import pytest

from inferd_python import ModelConfig


def config(**fields):
    base = {"name": "m", "input": [], "output": [], "max_batch_size": 0}
    base.update(fields)
    return ModelConfig(base)


def test_accepts_json_text_and_fills_missing_lists():
    from_text = ModelConfig(json.dumps({"name": "m"}))
    assert from_text.as_dict() == {"name": "m", "input": [], "output": [], "max_batch_size": 0}
    assert from_text.max_batch_size() == 0


def test_add_input_and_output():
    cfg = config()
    cfg.add_input({"name": "IN", "data_type": "TYPE_FP32", "dims": [4], "optional": True})
    cfg.add_output({"name": "OUT", "data_type": "TYPE_FP32", "dims": [4]})
    assert cfg.as_dict()["input"] == [{"name": "IN", "data_type": "TYPE_FP32", "dims": [4], "optional": True}]
    assert cfg.as_dict()["output"] == [{"name": "OUT", "data_type": "TYPE_FP32", "dims": [4]}]


def test_add_completes_an_entry_the_config_named():
    cfg = config(input=[{"name": "IN"}], output=[{"name": "OUT", "data_type": "TYPE_INVALID", "dims": []}])
    cfg.add_input({"name": "IN", "data_type": "TYPE_INT32", "dims": [2]})
    cfg.add_output({"name": "OUT", "data_type": "TYPE_STRING", "dims": [-1]})
    assert cfg.as_dict()["input"] == [{"name": "IN", "data_type": "TYPE_INT32", "dims": [2]}]
    assert cfg.as_dict()["output"] == [{"name": "OUT", "data_type": "TYPE_STRING", "dims": [-1]}]


def test_add_agreeing_entry_is_accepted_with_string_dims():
    cfg = config(input=[{"name": "IN", "data_type": "TYPE_FP32", "dims": ["4"]}])
    cfg.add_input({"name": "IN", "data_type": "TYPE_FP32", "dims": [4]})
    assert len(cfg.as_dict()["input"]) == 1


@pytest.mark.parametrize("existing,added,match", [
    ({"name": "IN", "data_type": "TYPE_FP32", "dims": [4]}, {"name": "IN", "data_type": "TYPE_INT32", "dims": [4]},
     "expects datatype TYPE_FP32"),
    ({"name": "IN", "data_type": "TYPE_FP32", "dims": [4]}, {"name": "IN", "data_type": "TYPE_FP32", "dims": [5]},
     "dims"),
    ({"name": "IN", "data_type": "TYPE_FP32", "dims": [4], "optional": False},
     {"name": "IN", "data_type": "TYPE_FP32", "dims": [4], "optional": True}, "optional"),
])
def test_add_input_conflicts_raise(existing, added, match):
    cfg = config(input=[existing])
    with pytest.raises(ValueError, match=match):
        cfg.add_input(added)


def test_add_output_conflict_raises():
    cfg = config(output=[{"name": "OUT", "data_type": "TYPE_FP32", "dims": [4]}])
    with pytest.raises(ValueError, match="TYPE_FP32"):
        cfg.add_output({"name": "OUT", "data_type": "TYPE_FP16", "dims": [4]})


@pytest.mark.parametrize("method,entry,match", [
    ("add_input", {"data_type": "TYPE_FP32", "dims": [1]}, "missing 'name'"),
    ("add_input", {"name": "X", "dims": [1]}, "missing 'data_type'"),
    ("add_output", {"name": "X", "data_type": "TYPE_FP32"}, "missing 'dims'"),
    ("add_input", {"name": "X", "data_type": "TYPE_FP32", "dims": [1], "shape": [1]}, "properties other than"),
    ("add_output", {"name": "X", "data_type": "TYPE_FP32", "dims": [1], "optional": True}, "properties other than"),
])
def test_add_validates_properties(method, entry, match):
    with pytest.raises(ValueError, match=match):
        getattr(config(), method)(entry)


def test_max_batch_size():
    cfg = config()
    cfg.set_max_batch_size(8)
    assert cfg.max_batch_size() == 8
    configured = config(max_batch_size=4)
    configured.set_max_batch_size(8)  # the model allows more than the config asks: fine
    assert configured.max_batch_size() == 8
    with pytest.raises(ValueError, match="max_batch_size 16"):
        config(max_batch_size=16).set_max_batch_size(8)
    with pytest.raises(ValueError):
        cfg.set_max_batch_size(-1)


def test_dynamic_batching():
    cfg = config()
    cfg.set_dynamic_batching()
    assert cfg.as_dict()["dynamic_batching"] == {}
    kept = config(dynamic_batching={"max_queue_delay_microseconds": 100})
    kept.set_dynamic_batching()
    assert kept.as_dict()["dynamic_batching"] == {"max_queue_delay_microseconds": 100}
    with pytest.raises(ValueError, match="sequence_batching"):
        config(sequence_batching={}).set_dynamic_batching()


def test_model_warmup():
    cfg = config()
    warmup = {"name": "w", "batch_size": 1, "inputs": {"IN": {"data_type": "TYPE_FP32", "dims": [4], "zero_data": True}}}
    cfg.add_model_warmup(warmup)
    assert cfg.as_dict()["model_warmup"] == [warmup]
    with pytest.raises(ValueError, match="missing 'inputs'"):
        cfg.add_model_warmup({"name": "w", "batch_size": 1})
    with pytest.raises(ValueError, match="properties other than"):
        cfg.add_model_warmup({"name": "w", "batch_size": 1, "inputs": {}, "extra": 1})


def test_model_transaction_policy():
    cfg = config()
    cfg.set_model_transaction_policy({"decoupled": False})
    assert cfg.as_dict()["model_transaction_policy"] == {"decoupled": False}
    with pytest.raises(ValueError, match="decoupled"):
        cfg.set_model_transaction_policy({"decoupled": True})
    with pytest.raises(ValueError, match="other than 'decoupled'"):
        cfg.set_model_transaction_policy({"other": 1})
