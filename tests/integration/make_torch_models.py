# SPDX-License-Identifier: Apache-2.0
"""Writes TorchScript test models for tests/integration/test_pytorch.py.

Run with Debian's /usr/bin/python3 and its python3-torch 1.13 (the release
of libtorch-dev the backend links), never with the virtualenv (its numpy
conflicts with Debian's torch):

    /usr/bin/python3 tests/integration/make_torch_models.py OUT

OUT/models is a model repository, OUT/thread_models another (served by its own
server with a fixed --cpu-cores); OUT/expected/<model>/<tensor>.npy holds the
inputs the test sends and the outputs the same scripted module gives for them
when run here, in-process, by python3-torch. numpy here has no bfloat16: BF16
tensors are saved as their int16 bit patterns.
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


class Bf16(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        return x * 2, x.to(torch.float32)


# Exactly representable in bfloat16; twice the last one overflows to +inf.
BF16_VALUES = [1.0, -2.5, 0.15625, 256.0, -0.0, 1.9921875, 2.0**-10, 2.0**127]

# ATen's all-reduce sum of a float tensor splits the tensor into one shard per
# intra-op thread (at::parallel_for, grain 32768) and adds the shards' sums in
# order, so the float32 rounding of the result depends on the thread count.
THREADS_N = 8 * 32768  # 8 shards of one grain: counts 1..8 are told apart
THREADS_ROLLS = 8


class Threads(torch.nn.Module):
    """Returns sums of rotations of a fixed tensor: a fingerprint of the
    intra-op thread count forward() ran with (torch.get_num_threads() is not
    scriptable in 1.13)."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(1)
        # Wide magnitudes make the rounding differ between shardings.
        data = (torch.randn(THREADS_N, generator=g) *
                torch.pow(2.0, torch.randint(-20, 21, (THREADS_N,), generator=g).float()))
        self.register_buffer("data", data)
        self.rolls = THREADS_ROLLS

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        sums: List[torch.Tensor] = []
        for j in range(self.rolls):
            sums.append(torch.roll(self.data, j * 9973).sum())
        return torch.stack(sums) + x


def thread_fingerprints(scripted, x):
    """Row k-1: the module's output when ATen runs it with k intra-op threads."""
    before = torch.get_num_threads()
    rows = []
    try:
        for k in range(1, 9):
            torch.set_num_threads(k)
            assert torch.get_num_threads() == k
            rows.append(scripted(x))
    finally:
        torch.set_num_threads(before)
    table = torch.stack(rows)
    distinct = {tuple(row.tolist()) for row in table}
    assert len(distinct) == len(rows), "thread fingerprints collide; change the seed"
    return table


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


def save(out, name, module, cfg, inputs, call, repo="models"):
    """Scripts `module` into <repo>/<name>, writes the config and the expected
    tensors: the inputs (dict name -> array) and call(scripted, tensors)'s
    outputs (dict name -> tensor)."""
    scripted = torch.jit.script(module.eval())
    version = out / repo / name / "1"
    version.mkdir(parents=True)
    scripted.save(str(version / "model.pt"))
    (out / repo / name / "config.pbtxt").write_text(cfg)
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

    # BF16 in and out; the bits travel as int16 (see the module docstring).
    save(out, "bf16", Bf16(),
         config("bf16", [("INPUT__0", "BF16", [8])],
                [("OUTPUT__0", "BF16", [8]), ("OUTPUT__1", "FP32", [8])]),
         {"INPUT__0": torch.tensor(BF16_VALUES, dtype=torch.bfloat16).view(torch.int16).numpy()},
         lambda m, t: dict(zip(["OUTPUT__0", "OUTPUT__1"],
                               [o.view(torch.int16) if o.dtype == torch.bfloat16 else o
                                for o in m(t["INPUT__0"].view(torch.bfloat16))])))

    # Served with --cpu-cores 6: unset gives each instance 6 / instances.
    for name, count, parameter in [
            ("threads_unset", 1, None),
            ("threads_unset_two_instances", 2, None),
            ("threads_two", 1, ("intra_op_thread_count", "2")),
            ("threads_one", 1, ("intra_op_thread_count", "1")),
            ("threads_four_triton_key", 1, ("INTRA_OP_THREAD_COUNT", "4"))]:
        extra = f"instance_group [ {{ count: {count} kind: KIND_CPU }} ]"
        if parameter is not None:
            extra += (f'\nparameters {{ key: "{parameter[0]}" '
                      f'value {{ string_value: "{parameter[1]}" }} }}')
        save(out, name, Threads(),
             config(name, [("INPUT__0", "FP32", [1])], [("OUTPUT__0", "FP32", [THREADS_ROLLS])],
                    extra=extra),
             {"INPUT__0": np.zeros(1, dtype=np.float32)},
             lambda m, t: {"fingerprints": thread_fingerprints(m, t["INPUT__0"])},
             repo="thread_models")

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
