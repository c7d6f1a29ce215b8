# SPDX-License-Identifier: Apache-2.0
"""Generates the small ONNX models of the example repository with onnx.helper.

simple           Triton's classic example: OUTPUT0 = INPUT0 + INPUT1 and
                 OUTPUT1 = INPUT0 - INPUT1, INT32, shape [batch, 16].
string_identity  OUTPUT0 = INPUT0 on a string (BYTES) tensor, shape [batch, n].

Each model goes to <output>/<name>/1/model.onnx; the config.pbtxt beside each is
kept in git. Run by scripts/fetch_models.sh with the project's .venv python.
"""

import argparse
import os
import pathlib

import onnx
from onnx import TensorProto, helper

# Opset 13 and IR 8 are read by every ONNX Runtime release we may meet (>= 1.10)
# and by Debian's python3-onnx 1.12.
OPSET = 13
IR_VERSION = 8


def make_simple() -> onnx.GraphProto:
    shape = ["batch", 16]
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT32, shape)
              for n in ("INPUT0", "INPUT1")]
    outputs = [helper.make_tensor_value_info(n, TensorProto.INT32, shape)
               for n in ("OUTPUT0", "OUTPUT1")]
    nodes = [
        helper.make_node("Add", ["INPUT0", "INPUT1"], ["OUTPUT0"], name="add"),
        helper.make_node("Sub", ["INPUT0", "INPUT1"], ["OUTPUT1"], name="sub"),
    ]
    return helper.make_graph(nodes, "simple", inputs, outputs)


def make_string_identity() -> onnx.GraphProto:
    shape = ["batch", "n"]
    inputs = [helper.make_tensor_value_info("INPUT0", TensorProto.STRING, shape)]
    outputs = [helper.make_tensor_value_info("OUTPUT0", TensorProto.STRING, shape)]
    nodes = [helper.make_node("Identity", ["INPUT0"], ["OUTPUT0"], name="identity")]
    return helper.make_graph(nodes, "string_identity", inputs, outputs)


MODELS = {
    "simple": make_simple,
    "string_identity": make_string_identity,
}


def write_model(graph: onnx.GraphProto, path: pathlib.Path) -> None:
    model = helper.make_model(graph, producer_name="inferd-examples",
                              opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model, full_check=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    onnx.save(model, str(tmp))
    os.replace(tmp, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=pathlib.Path,
                        default=pathlib.Path(__file__).resolve().parent / "models",
                        help="model repository to write into (default: examples/models)")
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"models to make, of {', '.join(MODELS)} (default: all)")
    args = parser.parse_args()
    for name in args.names:
        if name not in MODELS:
            parser.error(f"unknown model {name!r}; known: {', '.join(MODELS)}")
    for name in args.names or MODELS:
        write_model(MODELS[name](), args.output / name / "1" / "model.onnx")
        print(f"wrote {args.output / name / '1' / 'model.onnx'}")


if __name__ == "__main__":
    main()
