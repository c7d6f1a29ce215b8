# SPDX-License-Identifier: Apache-2.0
"""Builds examples/models/silero_vad/1/model.onnx: Silero VAD v6 (the upstream
silero_vad.onnx, unchanged inside) wrapped so that the server can batch many
streams and keep everything a stream needs as implicit state.

The upstream graph takes
    input  FLOAT [batch, 576]     64 samples of context + a 512-sample chunk (16 kHz)
    state  FLOAT [2, batch, 128]  the recurrent state: batch on axis 1
    sr     INT64 []               the sample rate (a scalar)
and gives output FLOAT [batch, 1] (speech probability) and stateN [2, batch, 128].
A sequence batcher stacks per-sequence state along axis 0 and cannot stack a
tensor whose batch axis is 1, a scalar cannot be batched at all, and carrying
the context by hand is the part every client gets wrong. The wrapper therefore
takes
    audio       FLOAT [batch, 512]     the chunk, nothing else
    state_in    FLOAT [batch, 2, 128]  implicit state (server-kept)
    context_in  FLOAT [batch, 64]      implicit state (server-kept): the previous
                                       chunk's last 64 samples, zeros at the start
and gives
    probability FLOAT [batch, 1]
    state_out   FLOAT [batch, 2, 128]  = stateN transposed back
    context_out FLOAT [batch, 64]      = audio[:, -64:]
with these nodes around the untouched upstream graph:
    state   = Transpose(state_in, perm [1, 0, 2])
    input   = Concat(context_in, audio, axis 1)
    sr      = Constant 16000
    ... the upstream nodes (If on sr, its two branches) ...
    probability = Identity(output)
    state_out   = Transpose(stateN, perm [1, 0, 2])
    context_out = Slice(audio, -64:, axis 1)
Transpose, Concat, Slice and Identity copy values exactly, so the wrapper's
outputs are the upstream model's bit for bit (checked below on every build, and
by tests/python/test_vad_core.py on real speech). See
examples/models/silero_vad/README.md.

  .venv/bin/python examples/silero_vad/make_model.py --upstream silero_vad.onnx \
      --output examples/models/silero_vad/1/model.onnx
"""
import argparse
import os
import pathlib

import numpy as np
import onnx
from onnx import TensorProto, helper

SAMPLE_RATE = 16000
CHUNK = 512      # samples per chunk at 16 kHz (the only size Silero v5+ takes)
CONTEXT = 64     # samples of the previous chunk the model sees first
STATE_SHAPE = (2, 128)
UPSTREAM_NAMES = {"input": "audio with context", "state": "state", "sr": "sample rate",
                  "output": "probability", "stateN": "next state"}
WRAPPER_INPUTS = ("audio", "state_in", "context_in")
WRAPPER_OUTPUTS = ("probability", "state_out", "context_out")


def names_used(graph):
    """Every tensor name a graph and its subgraphs define or read."""
    used = {v.name for v in list(graph.input) + list(graph.output) + list(graph.value_info)}
    used |= {t.name for t in graph.initializer}
    for node in graph.node:
        used |= set(node.input) | set(node.output)
        for attribute in node.attribute:
            for sub in ([attribute.g] if attribute.HasField("g") else []) + list(attribute.graphs):
                used |= names_used(sub)
    return used


def check_upstream(model):
    graph = model.graph
    inputs = {v.name: v.type.tensor_type.elem_type for v in graph.input}
    outputs = {v.name: v.type.tensor_type.elem_type for v in graph.output}
    want_in = {"input": TensorProto.FLOAT, "state": TensorProto.FLOAT, "sr": TensorProto.INT64}
    want_out = {"output": TensorProto.FLOAT, "stateN": TensorProto.FLOAT}
    if inputs != want_in or outputs != want_out:
        raise SystemExit(f"not the expected Silero VAD graph: inputs {inputs}, outputs {outputs}")
    clash = names_used(graph) & set(WRAPPER_INPUTS + WRAPPER_OUTPUTS)
    if clash:
        raise SystemExit(f"the upstream graph already uses the wrapper's names {sorted(clash)}")


def build_wrapper(upstream):
    check_upstream(upstream)
    graph = upstream.graph
    batch = "batch"
    inputs = [
        helper.make_tensor_value_info("audio", TensorProto.FLOAT, [batch, CHUNK]),
        helper.make_tensor_value_info("state_in", TensorProto.FLOAT, [batch, *STATE_SHAPE]),
        helper.make_tensor_value_info("context_in", TensorProto.FLOAT, [batch, CONTEXT]),
    ]
    outputs = [
        helper.make_tensor_value_info("probability", TensorProto.FLOAT, [batch, 1]),
        helper.make_tensor_value_info("state_out", TensorProto.FLOAT, [batch, *STATE_SHAPE]),
        helper.make_tensor_value_info("context_out", TensorProto.FLOAT, [batch, CONTEXT]),
    ]
    before = [
        helper.make_node("Transpose", ["state_in"], ["state"], perm=[1, 0, 2], name="wrap_state_in"),
        helper.make_node("Concat", ["context_in", "audio"], ["input"], axis=1, name="wrap_context"),
        helper.make_node("Constant", [], ["sr"], name="wrap_sample_rate",
                         value=helper.make_tensor("sr_value", TensorProto.INT64, [], [SAMPLE_RATE])),
    ]
    after = [
        helper.make_node("Identity", ["output"], ["probability"], name="wrap_probability"),
        helper.make_node("Transpose", ["stateN"], ["state_out"], perm=[1, 0, 2], name="wrap_state_out"),
        helper.make_node("Constant", [], ["context_start"], name="wrap_context_start",
                         value=helper.make_tensor("context_start_value", TensorProto.INT64, [1], [-CONTEXT])),
        helper.make_node("Constant", [], ["context_end"], name="wrap_context_end",
                         value=helper.make_tensor("context_end_value", TensorProto.INT64, [1], [CHUNK])),
        helper.make_node("Constant", [], ["context_axis"], name="wrap_context_axis",
                         value=helper.make_tensor("context_axis_value", TensorProto.INT64, [1], [1])),
        helper.make_node("Slice", ["audio", "context_start", "context_end", "context_axis"],
                         ["context_out"], name="wrap_context_out"),
    ]
    wrapped = helper.make_graph(before + list(graph.node) + after, "silero_vad_stream", inputs, outputs,
                                initializer=list(graph.initializer), value_info=list(graph.value_info))
    model = helper.make_model(wrapped, opset_imports=list(upstream.opset_import),
                              producer_name="inferd-examples (silero_vad wrapper)")
    model.ir_version = upstream.ir_version
    model.doc_string = ("Silero VAD v6 (MIT, Silero Team), batch-major with server-kept state and "
                        "context: see examples/silero_vad/make_model.py")
    onnx.checker.check_model(model, full_check=True)
    return model


def check_exact(upstream_path, wrapper_bytes, streams=3, chunks=40):
    """Runs both models with onnxruntime on the same synthetic audio: the wrapper
    fed `streams` streams as one batch, the upstream model fed each stream alone
    with state and context carried by hand. Returns the largest difference."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    upstream = ort.InferenceSession(str(upstream_path), options, providers=["CPUExecutionProvider"])
    wrapper = ort.InferenceSession(wrapper_bytes, options, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(7)
    t = np.arange(chunks * CHUNK) / SAMPLE_RATE
    audio = np.stack([(0.3 * np.sin(2 * np.pi * (150 + 90 * s) * t) * (np.sin(2 * np.pi * 2 * t) > 0)
                       + 0.02 * rng.standard_normal(t.size)).astype(np.float32) for s in range(streams)])
    state = np.zeros((streams, *STATE_SHAPE), np.float32)
    context = np.zeros((streams, CONTEXT), np.float32)
    by_hand = [(np.zeros((2, 1, 128), np.float32), np.zeros((1, CONTEXT), np.float32))
               for _ in range(streams)]
    worst = 0.0
    for c in range(chunks):
        chunk = audio[:, c * CHUNK:(c + 1) * CHUNK]
        prob, state, context = wrapper.run(None, {"audio": chunk, "state_in": state, "context_in": context})
        for s in range(streams):
            h, ctx = by_hand[s]
            x = np.concatenate([ctx, chunk[s:s + 1]], axis=1)
            p, h = upstream.run(None, {"input": x, "state": h, "sr": np.array(SAMPLE_RATE, np.int64)})
            by_hand[s] = (h, x[:, -CONTEXT:])
            worst = max(worst, float(abs(p[0, 0] - prob[s, 0])),
                        float(np.abs(h[:, 0, :] - state[s]).max()))
            if not np.array_equal(by_hand[s][1][0], context[s]):
                raise SystemExit("the wrapper's context differs from the one carried by hand")
    return worst


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--upstream", required=True, type=pathlib.Path, help="upstream silero_vad.onnx")
    parser.add_argument("--output", required=True, type=pathlib.Path)
    parser.add_argument("--tolerance", type=float, default=1e-6,
                        help="largest difference allowed between the wrapper and the upstream model")
    args = parser.parse_args()
    model = build_wrapper(onnx.load(str(args.upstream)))
    data = model.SerializeToString()
    worst = check_exact(args.upstream, data)
    if worst > args.tolerance:
        raise SystemExit(f"the wrapper differs from the upstream model by {worst:g}")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.output.with_suffix(".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, args.output)
    print(f"{args.output}: wrapper written; largest difference from the upstream model {worst:g}")


if __name__ == "__main__":
    main()
