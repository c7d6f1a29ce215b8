# SPDX-License-Identifier: Apache-2.0
"""word_stream: splits a sentence into words and streams them back, one
response per word (WORD, and its INDEX in the sentence), then the final
flag alone. Written against Triton's Python backend API, so the same file
runs on Triton.

Each request is answered from a thread of its own, so execute() returns at
once and the instance takes the next batch while earlier requests are still
streaming. The optional request parameter "delay_ms" spaces the words out
(to watch them arrive one by one); a client that goes away stops its stream
early (sender.is_cancelled()).
"""
import json
import threading
import time

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        config = json.loads(args["model_config"])
        if not pb_utils.using_decoupled_model_transaction_policy(config):
            raise pb_utils.TritonModelException(
                "word_stream answers with one response per word: set model_transaction_policy { decoupled: true }")

    def execute(self, requests):
        for request in requests:
            text = pb_utils.get_input_tensor_by_name(request, "TEXT").as_numpy().reshape(-1)[0]
            words = text.decode("utf-8", "replace").split()
            delay_ms = float(json.loads(request.parameters()).get("delay_ms", 0))
            sender = request.get_response_sender()
            threading.Thread(target=self.stream, args=(sender, words, delay_ms), daemon=True).start()
        return None  # a decoupled model answers through its senders only

    def stream(self, sender, words, delay_ms):
        try:
            for index, word in enumerate(words):
                if sender.is_cancelled():
                    break
                if delay_ms and index:
                    time.sleep(delay_ms / 1000.0)
                sender.send(pb_utils.InferenceResponse(output_tensors=[
                    pb_utils.Tensor("WORD", np.array([word.encode("utf-8")], dtype=np.object_)),
                    pb_utils.Tensor("INDEX", np.array([index], dtype=np.int32)),
                ]))
        finally:
            sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
