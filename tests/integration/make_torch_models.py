# SPDX-License-Identifier: Apache-2.0
"""Writes TorchScript test models for tests/integration/test_pytorch.py.

Run with Debian's /usr/bin/python3 and its python3-torch 1.13 (the release
of libtorch-dev the backend links), never with the virtualenv (its numpy
conflicts with Debian's torch):

    /usr/bin/python3 tests/integration/make_torch_models.py OUT

OUT/models is a model repository; OUT/expected/<model>/<tensor>.npy holds the
inputs the test sends and the outputs the same scripted module gives for them
when run here, in-process, by python3-torch.
"""
import pathlib
import sys
from typing import Dict, List, Tuple

import numpy as np
import torch


class AddSub(torch.nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        return a + b, a - b


class Named(torch.nn.Module):
    """Bound by the forward() argument names; the config lists them reversed."""

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return x - 2.0 * y


class DictOut(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> Dict[str, torch.Tensor]:
        return {"doubled": x * 2.0, "negated": -x}


class DictIn(torch.nn.Module):
    def forward(self, inputs: Dict[str, torch.Tensor]) -> torch.Tensor:
        return inputs["a"] + 10 * inputs["b"]


class Int64(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> List[torch.Tensor]:
        return [x * 3 + 1, x.sum(dim=0, keepdim=True)]


class Batched(torch.nn.Module):
    """Row-wise, so each request's slice of a batch is its own answer."""

    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 3)

    def forward(self, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        return torch.relu(self.linear(x)), x.sum(dim=1, keepdim=True)


class Raises(torch.nn.Module):
    """Fails inside forward() for a negative input."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if bool(x.min() < 0):
            raise ValueError("negative input is not allowed")
        return x.sqrt()


class Types(torch.nn.Module):
    """One input and output per data type the test sends."""

    def forward(self, b: torch.Tensor, u8: torch.Tensor, i8: torch.Tensor, i16: torch.Tensor,
                i32: torch.Tensor, i64: torch.Tensor, f16: torch.Tensor, f32: torch.Tensor,
                f64: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor,
                                            torch.Tensor, torch.Tensor, torch.Tensor,
                                            torch.Tensor, torch.Tensor, torch.Tensor]:
        return (torch.logical_not(b), u8 + 1, i8 - 1, i16 * 2, i32 * 3, i64 * 4, f16 * 0.5,
                f32 * 0.25, f64 / 3.0)


TYPES = [("b", "BOOL", np.bool_), ("u8", "UINT8", np.uint8), ("i8", "INT8", np.int8),
         ("i16", "INT16", np.int16), ("i32", "INT32", np.int32), ("i64", "INT64", np.int64),
         ("f16", "FP16", np.float16), ("f32", "FP32", np.float32), ("f64", "FP64", np.float64)]


def tensor_config(name, datatype, dims):
    return f'  {{ name: "{name}" data_type: TYPE_{datatype} dims: [ {", ".join(map(str, dims))} ] }}'


def config(name, inputs, outputs, max_batch_size=0, extra="", platform=True):
    kind = 'platform: "pytorch_libtorch"' if platform else 'backend: "pytorch"'
    return "\n".join([
        f'name: "{name}"', kind, f"max_batch_size: {max_batch_size}",
        "input [", ",\n".join(tensor_config(*t) for t in inputs), "]",
        "output [", ",\n".join(tensor_config(*t) for t in outputs), "]",
        extra, ""])


def save(out, name, module, cfg, inputs, call):
    """Scripts `module` into models/<name>, writes the config and the expected
    tensors: the inputs (dict name -> array) and call(scripted, tensors)'s
    outputs (dict name -> tensor)."""
    scripted = torch.jit.script(module.eval())
    version = out / "models" / name / "1"
    version.mkdir(parents=True)
    scripted.save(str(version / "model.pt"))
    (out / "models" / name / "config.pbtxt").write_text(cfg)
    expected = out / "expected" / name
    expected.mkdir(parents=True)
    tensors = {k: torch.from_numpy(v) for k, v in inputs.items()}
    with torch.no_grad():
        outputs = call(scripted, tensors)
    for k, v in inputs.items():
        np.save(expected / f"{k}.npy", v)
    for k, v in outputs.items():
        np.save(expected / f"{k}.npy", v.numpy())


def main(out):
    out = pathlib.Path(out)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)

    fp16 = [16]
    save(out, "add_sub", AddSub(),
         config("add_sub", [("INPUT__0", "FP32", fp16), ("INPUT__1", "FP32", fp16)],
                [("OUTPUT__0", "FP32", fp16), ("OUTPUT__1", "FP32", fp16)],
                # The second instance loads its own module from the file.
                extra="instance_group [ { count: 2 kind: KIND_CPU } ]"),
         {"INPUT__0": rng.standard_normal(16).astype(np.float32),
          "INPUT__1": rng.standard_normal(16).astype(np.float32)},
         lambda m, t: dict(zip(["OUTPUT__0", "OUTPUT__1"], m(t["INPUT__0"], t["INPUT__1"]))))

    save(out, "named", Named(),
         config("named", [("y", "FP32", [5]), ("x", "FP32", [5])], [("out", "FP32", [5])],
                extra='parameters { key: "INFERENCE_MODE" value { string_value: "false" } }',
                platform=False),
         {"x": rng.standard_normal(5).astype(np.float32),
          "y": rng.standard_normal(5).astype(np.float32)},
         lambda m, t: {"out": m(t["x"], t["y"])})

    save(out, "dict_out", DictOut(),
         config("dict_out", [("INPUT__0", "FP32", [3])],
                [("negated", "FP32", [3]), ("doubled", "FP32", [3])]),
         {"INPUT__0": rng.standard_normal(3).astype(np.float32)},
         lambda m, t: m(t["INPUT__0"]))

    save(out, "dict_in", DictIn(),
         config("dict_in", [("b", "INT32", [2]), ("a", "INT32", [2])],
                [("OUTPUT__0", "INT32", [2])]),
         {"a": np.array([1, 2], dtype=np.int32), "b": np.array([30, 40], dtype=np.int32)},
         lambda m, t: {"OUTPUT__0": m({"a": t["a"], "b": t["b"]})})

    save(out, "int64", Int64(),
         config("int64", [("INPUT__0", "INT64", [4])],
                [("OUTPUT__0", "INT64", [4]), ("OUTPUT__1", "INT64", [1])]),
         {"INPUT__0": np.array([1, -2, 2**40, 7], dtype=np.int64)},
         lambda m, t: dict(zip(["OUTPUT__0", "OUTPUT__1"], m(t["INPUT__0"]))))

    save(out, "types", Types(),
         config("types", [(f"INPUT__{i}", dt, [6]) for i, (_, dt, _) in enumerate(TYPES)],
                [(f"OUTPUT__{i}", dt, [6]) for i, (_, dt, _) in enumerate(TYPES)],
                extra='parameters { key: "intra_op_thread_count" value { string_value: "1" } }'),
         {f"INPUT__{i}": (rng.integers(0, 2, 6).astype(bool) if np_type is np.bool_ else
                          (rng.integers(-50, 50, 6) if np.dtype(np_type).kind == "i" else
                           rng.integers(0, 200, 6) if np.dtype(np_type).kind == "u" else
                           rng.standard_normal(6)).astype(np_type))
          for i, (_, _, np_type) in enumerate(TYPES)},
         lambda m, t: dict(zip([f"OUTPUT__{i}" for i in range(len(TYPES))],
                               m(*[t[f"INPUT__{i}"] for i in range(len(TYPES))]))))

    # 8 rows the test splits into requests of 1..4 rows.
    save(out, "batched", Batched(),
         config("batched", [("INPUT__0", "FP32", [4])],
                [("OUTPUT__0", "FP32", [3]), ("OUTPUT__1", "FP32", [1])], max_batch_size=8,
                extra="dynamic_batching { max_queue_delay_microseconds: 60000000 }\n"
                      'parameters { key: "INTRA_OP_THREAD_COUNT" value { string_value: "2" } }'),
         {"INPUT__0": rng.standard_normal((8, 4)).astype(np.float32)},
         lambda m, t: dict(zip(["OUTPUT__0", "OUTPUT__1"], m(t["INPUT__0"]))))

    save(out, "raises", Raises(),
         config("raises", [("INPUT__0", "FP32", [2])], [("OUTPUT__0", "FP32", [2])]),
         {"INPUT__0": np.array([4.0, 9.0], dtype=np.float32)},
         lambda m, t: {"OUTPUT__0": m(t["INPUT__0"])})

    # A valid model with an invalid thread count.
    save(out, "bad_threads", AddSub(),
         config("bad_threads", [("INPUT__0", "FP32", fp16), ("INPUT__1", "FP32", fp16)],
                [("OUTPUT__0", "FP32", fp16)],
                extra='parameters { key: "intra_op_thread_count" value { string_value: "many" } }'),
         {}, lambda m, t: {})

    # Not a TorchScript file: LibTorch refuses it.
    corrupt = out / "models" / "corrupt"
    (corrupt / "1").mkdir(parents=True)
    (corrupt / "1" / "model.pt").write_bytes(b"this is not a TorchScript zip archive\n" * 4)
    (corrupt / "config.pbtxt").write_text(
        config("corrupt", [("INPUT__0", "FP32", [1])], [("OUTPUT__0", "FP32", [1])]))


if __name__ == "__main__":
    main(sys.argv[1])
