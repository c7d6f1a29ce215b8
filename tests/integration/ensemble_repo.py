# SPDX-License-Identifier: Apache-2.0
"""Builds model repositories for the ensemble tests: the example `simple`
ONNX model (INT32 [batch,16]: OUTPUT0 = INPUT0 + INPUT1, OUTPUT1 = INPUT0 -
INPUT1), small Python models, and ensembles wired over them, written as a
Triton user writes them."""
import pathlib
import shutil
import textwrap

ROOT = pathlib.Path(__file__).resolve().parents[2]
SIMPLE = ROOT / "examples" / "models" / "simple"


def add_simple(repo, name="simple", versions=(1,)):
    folder = repo / name
    folder.mkdir(parents=True, exist_ok=True)
    config = (SIMPLE / "config.pbtxt").read_text().replace('name: "simple"', f'name: "{name}"')
    (folder / "config.pbtxt").write_text(config)
    for v in versions:
        (folder / str(v)).mkdir(exist_ok=True)
        shutil.copy(SIMPLE / "1" / "model.onnx", folder / str(v) / "model.onnx")
    return folder


def tensor(name, dtype="TYPE_INT32", dims="[ 16 ]"):
    return f'{{ name: "{name}" data_type: {dtype} dims: {dims} }}'


def step(model, inputs, outputs, version=-1):
    maps = "".join(f' input_map {{ key: "{k}" value: "{v}" }}' for k, v in inputs.items())
    maps += "".join(f' output_map {{ key: "{k}" value: "{v}" }}' for k, v in outputs.items())
    return f'{{ model_name: "{model}" model_version: {version}{maps} }}'


def add_ensemble(repo, name, inputs, outputs, steps, max_batch_size=8):
    folder = repo / name
    (folder / "1").mkdir(parents=True, exist_ok=True)
    (folder / "config.pbtxt").write_text(
        f'name: "{name}"\nplatform: "ensemble"\nmax_batch_size: {max_batch_size}\n'
        f'input [ {", ".join(inputs)} ]\noutput [ {", ".join(outputs)} ]\n'
        f'ensemble_scheduling {{ step [ {", ".join(steps)} ] }}\n')
    return folder


# A Python model: OUT = IN, after sleeping `delay_ms` (config parameter);
# a negative first element fails the request with a TritonError.
CHECKED_IDENTITY = textwrap.dedent('''
    import json
    import time
    import triton_python_backend_utils as pb_utils

    class TritonPythonModel:
        def initialize(self, args):
            params = json.loads(args["model_config"]).get("parameters", {})
            self.delay = float(params.get("delay_ms", {}).get("string_value", "0")) / 1000

        def execute(self, requests):
            if self.delay:
                time.sleep(self.delay)
            responses = []
            for request in requests:
                data = pb_utils.get_input_tensor_by_name(request, "IN").as_numpy()
                if data.flat[0] < 0:
                    responses.append(pb_utils.InferenceResponse(
                        error=pb_utils.TritonError("negative input: " + str(data.flat[0]))))
                    continue
                responses.append(pb_utils.InferenceResponse(
                    output_tensors=[pb_utils.Tensor("OUT", data)]))
            return responses
''')


def add_checked_identity(repo, name="checked", delay_ms=0, max_batch_size=8):
    folder = repo / name
    (folder / "1").mkdir(parents=True, exist_ok=True)
    (folder / "1" / "model.py").write_text(CHECKED_IDENTITY)
    (folder / "config.pbtxt").write_text(
        f'name: "{name}"\nbackend: "python"\nmax_batch_size: {max_batch_size}\n'
        f'input [ {tensor("IN")} ]\noutput [ {tensor("OUT")} ]\n'
        f'parameters {{ key: "delay_ms" value: {{ string_value: "{delay_ms}" }} }}\n'
        'instance_group [ { count: 1 kind: KIND_CPU } ]\n')
    return folder


def add_chain(repo, name="chain", model="simple"):
    """(a, b) -> simple -> (a+b, a-b) -> simple -> (2a, 2b)."""
    return add_ensemble(
        repo, name, [tensor("A"), tensor("B")], [tensor("TWICE_A"), tensor("TWICE_B")],
        [step(model, {"INPUT0": "A", "INPUT1": "B"}, {"OUTPUT0": "sum", "OUTPUT1": "diff"}),
         step(model, {"INPUT0": "sum", "INPUT1": "diff"},
              {"OUTPUT0": "TWICE_A", "OUTPUT1": "TWICE_B"})])


def add_diamond(repo, name="diamond"):
    """Two independent branches that meet: left = a+b, right = a+a, then
    out = left + right = 3a + b and left - right = b - a."""
    return add_ensemble(
        repo, name, [tensor("A"), tensor("B")], [tensor("SUM"), tensor("DIFF")],
        [step("simple", {"INPUT0": "left", "INPUT1": "right"},
              {"OUTPUT0": "SUM", "OUTPUT1": "DIFF"}),  # listed first: data-flow order wins
         step("simple", {"INPUT0": "A", "INPUT1": "B"}, {"OUTPUT0": "left"}),
         step("simple", {"INPUT0": "A", "INPUT1": "A"}, {"OUTPUT0": "right"})])
