#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the small ONNX models the ONNX Runtime backend unit test runs.

Usage: make_test_models.py OUTPUT_DIR

Pinned to IR version 8 and opset 13 so that any ONNX Runtime since 1.10 loads
them, whatever version of the `onnx` package writes them.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

IR_VERSION = 8
OPSET = 13


def save(graph, path, **kwargs):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model)
    onnx.save(model, path, **kwargs)


def add_sub(elem_type, name):
    """OUTPUT0 = INPUT0 + INPUT1, OUTPUT1 = INPUT0 - INPUT1, all [batch, 16]."""
    shape = ["batch", 16]
    inputs = [helper.make_tensor_value_info(n, elem_type, shape) for n in ("INPUT0", "INPUT1")]
    outputs = [helper.make_tensor_value_info(n, elem_type, shape) for n in ("OUTPUT0", "OUTPUT1")]
    nodes = [
        helper.make_node("Add", ["INPUT0", "INPUT1"], ["OUTPUT0"]),
        helper.make_node("Sub", ["INPUT0", "INPUT1"], ["OUTPUT1"]),
    ]
    return helper.make_graph(nodes, name, inputs, outputs)


def identity(elem_type, name, shape):
    return helper.make_graph(
        [helper.make_node("Identity", ["INPUT0"], ["OUTPUT0"])], name,
        [helper.make_tensor_value_info("INPUT0", elem_type, shape)],
        [helper.make_tensor_value_info("OUTPUT0", elem_type, shape)])


def add_default():
    """OUTPUT0 = INPUT0 + BIAS, where BIAS is an input with a default (an
    initializer of the same name), so a request may leave it out."""
    bias = helper.make_tensor("BIAS", TensorProto.FLOAT, [4], [10.0, 20.0, 30.0, 40.0])
    return helper.make_graph(
        [helper.make_node("Add", ["INPUT0", "BIAS"], ["OUTPUT0"])], "add_default",
        [helper.make_tensor_value_info("INPUT0", TensorProto.FLOAT, ["batch", 4]),
         helper.make_tensor_value_info("BIAS", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("OUTPUT0", TensorProto.FLOAT, ["batch", 4])],
        initializer=[bias])


def external_weights():
    """OUTPUT0 = INPUT0 + W with W = 0..15 stored in a separate file."""
    # from_array stores raw_data, which is what onnx moves to external files.
    weights = numpy_helper.from_array(np.arange(16, dtype=np.float32), "W")
    return helper.make_graph(
        [helper.make_node("Add", ["INPUT0", "W"], ["OUTPUT0"])], "external",
        [helper.make_tensor_value_info("INPUT0", TensorProto.FLOAT, ["batch", 16])],
        [helper.make_tensor_value_info("OUTPUT0", TensorProto.FLOAT, ["batch", 16])],
        initializer=[weights])


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    save(add_sub(TensorProto.INT32, "add_sub_int32"), os.path.join(out, "add_sub_int32.onnx"))
    save(add_sub(TensorProto.FLOAT, "add_sub_fp32"), os.path.join(out, "add_sub_fp32.onnx"))
    save(identity(TensorProto.STRING, "identity_bytes", ["batch", None]),
         os.path.join(out, "identity_bytes.onnx"))
    for suffix, elem_type in (("fp16", TensorProto.FLOAT16), ("bf16", TensorProto.BFLOAT16),
                              ("bool", TensorProto.BOOL), ("uint64", TensorProto.UINT64)):
        save(identity(elem_type, "identity_" + suffix, ["batch", 4]),
             os.path.join(out, "identity_%s.onnx" % suffix))
    save(add_default(), os.path.join(out, "add_default.onnx"))
    external_dir = os.path.join(out, "external")
    os.makedirs(external_dir, exist_ok=True)
    save(external_weights(), os.path.join(external_dir, "model.onnx"),
         save_as_external_data=True, all_tensors_to_one_file=True, location="weights.bin",
         size_threshold=0)


if __name__ == "__main__":
    main()
