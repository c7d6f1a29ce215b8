# SPDX-License-Identifier: Apache-2.0
"""Tiny stateful ONNX models and Triton-written `sequence_batching` configs
for tests/integration/test_sequence.py, built into a folder at test time.

- accumulator: OUTPUT = INPUT + STATE_IN, STATE_OUT = OUTPUT, with the state
  kept by the server (implicit state), direct strategy, 2 instances of 4 slots.
- accumulator_init: the same with an initial_state read from
  initial_state/<file> (100), one instance of 1 slot, a short idle timeout.
- accumulator_auto: no input/output in the config: auto-complete must leave
  the state tensors out of them.
- controls: echoes the control tensors the server adds (START, END, READY,
  CORRID uint64), oldest strategy; its warm-up needs those tensors too.
- controls_string: the same with a TYPE_STRING CORRID.
"""
import pathlib

import numpy as np
from onnx import TensorProto, helper


def _save(graph, path):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(model.SerializeToString())


def _accumulator_onnx(path):
    batch = ["batch", 1]
    graph = helper.make_graph(
        [helper.make_node("Add", ["INPUT", "STATE_IN"], ["OUTPUT"]),
         helper.make_node("Identity", ["OUTPUT"], ["STATE_OUT"])],
        "accumulator",
        [helper.make_tensor_value_info("INPUT", TensorProto.INT32, batch),
         helper.make_tensor_value_info("STATE_IN", TensorProto.INT32, batch)],
        [helper.make_tensor_value_info("OUTPUT", TensorProto.INT32, batch),
         helper.make_tensor_value_info("STATE_OUT", TensorProto.INT32, batch)])
    _save(graph, path)


def _controls_onnx(path, corrid_type):
    batch = ["batch", 1]
    names = ["START", "END", "READY"]
    nodes = [helper.make_node("Identity", [n], [f"OUT_{n}"]) for n in names + ["CORRID"]]
    nodes.append(helper.make_node("Identity", ["INPUT"], ["OUTPUT"]))
    inputs = [helper.make_tensor_value_info("INPUT", TensorProto.INT32, batch)]
    inputs += [helper.make_tensor_value_info(n, TensorProto.INT32, batch) for n in names]
    inputs.append(helper.make_tensor_value_info("CORRID", corrid_type, batch))
    outputs = [helper.make_tensor_value_info("OUTPUT", TensorProto.INT32, batch)]
    outputs += [helper.make_tensor_value_info(f"OUT_{n}", TensorProto.INT32, batch) for n in names]
    outputs.append(helper.make_tensor_value_info("OUT_CORRID", corrid_type, batch))
    _save(helper.make_graph(nodes, "controls", inputs, outputs), path)


ACCUMULATOR = """
name: "accumulator"
backend: "onnxruntime"
max_batch_size: 4
input [ { name: "INPUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "OUTPUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
sequence_batching {
  max_sequence_idle_microseconds: 30000000
  direct { }
  state [ { input_name: "STATE_IN" output_name: "STATE_OUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
}
instance_group [ { count: 2 kind: KIND_CPU } ]
"""

ACCUMULATOR_INIT = """
name: "accumulator_init"
backend: "onnxruntime"
max_batch_size: 1
input [ { name: "INPUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "OUTPUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
sequence_batching {
  max_sequence_idle_microseconds: 300000
  state [ {
    input_name: "STATE_IN" output_name: "STATE_OUT" data_type: TYPE_INT32 dims: [ 1 ]
    initial_state { name: "hundred" data_type: TYPE_INT32 dims: [ 1 ] data_file: "hundred.bin" }
  } ]
}
instance_group [ { count: 1 kind: KIND_CPU } ]
"""

ACCUMULATOR_AUTO = """
name: "accumulator_auto"
backend: "onnxruntime"
max_batch_size: 4
sequence_batching {
  state [ { input_name: "STATE_IN" output_name: "STATE_OUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
}
instance_group [ { count: 1 kind: KIND_CPU } ]
"""

CONTROLS = """
name: "{name}"
backend: "onnxruntime"
max_batch_size: 2
input [ { name: "INPUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [
  { name: "OUTPUT" data_type: TYPE_INT32 dims: [ 1 ] },
  { name: "OUT_START" data_type: TYPE_INT32 dims: [ 1 ] },
  { name: "OUT_END" data_type: TYPE_INT32 dims: [ 1 ] },
  { name: "OUT_READY" data_type: TYPE_INT32 dims: [ 1 ] },
  { name: "OUT_CORRID" data_type: {corrid} dims: [ 1 ] }
]
sequence_batching {
  oldest { max_candidate_sequences: 4 }
  control_input [
    { name: "START" control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] },
    { name: "END" control [ { kind: CONTROL_SEQUENCE_END int32_false_true: [ 0, 1 ] } ] },
    { name: "READY" control [ { kind: CONTROL_SEQUENCE_READY int32_false_true: [ 0, 1 ] } ] },
    { name: "CORRID" control [ { kind: CONTROL_SEQUENCE_CORRID data_type: {corrid} } ] }
  ]
}
instance_group [ { count: 1 kind: KIND_CPU } ]
model_warmup [ { name: "w" batch_size: 2 inputs { key: "INPUT" value { data_type: TYPE_INT32 dims: [ 1 ] zero_data: true } } } ]
"""


def build(root):
    """Writes every model above under `root` (a model repository)."""
    root = pathlib.Path(root)
    for name, config in [("accumulator", ACCUMULATOR), ("accumulator_init", ACCUMULATOR_INIT),
                         ("accumulator_auto", ACCUMULATOR_AUTO)]:
        (root / name).mkdir(parents=True, exist_ok=True)
        (root / name / "config.pbtxt").write_text(config)
        _accumulator_onnx(root / name / "1" / "model.onnx")
    (root / "accumulator_init" / "initial_state").mkdir(exist_ok=True)
    np.array([100], dtype=np.int32).tofile(root / "accumulator_init" / "initial_state" / "hundred.bin")
    for name, corrid, onnx_type in [("controls", "TYPE_UINT64", TensorProto.UINT64),
                                    ("controls_string", "TYPE_STRING", TensorProto.STRING)]:
        (root / name).mkdir(parents=True, exist_ok=True)
        (root / name / "config.pbtxt").write_text(
            CONTROLS.replace("{name}", name).replace("{corrid}", corrid))
        _controls_onnx(root / name / "1" / "model.onnx", onnx_type)
    return root
