# SPDX-License-Identifier: Apache-2.0
"""What the OCR tests share: the paths of the example models, ocr_core and
the test images imported from where they live, and onnxruntime sessions of
the three networks (one thread each, as the benchmark runs them)."""
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODELS = ROOT / "examples" / "models"
CORE_DIR = MODELS / "ocr_recognize" / "1"
KEYS = CORE_DIR / "ppocr_keys_v1.txt"
for folder in (CORE_DIR, ROOT / "tests" / "integration"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

import ocr_core  # noqa: E402
import ocr_images  # noqa: E402

NETWORKS = {"ocr_det": "sigmoid_0.tmp_0", "ocr_cls": "softmax_0.tmp_0", "ocr_rec": "softmax_11.tmp_0"}


def require_models():
    missing = [m for m in NETWORKS if not (MODELS / m / "1" / "model.onnx").exists()]
    if missing or not KEYS.exists():
        pytest.fail(f"OCR models missing ({', '.join(missing) or KEYS.name}): "
                    "run scripts/fetch_models.sh (make setup)")


def session(name):
    """An onnxruntime session of examples/models/<name>, as a function x → output."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    s = ort.InferenceSession(str(MODELS / name / "1" / "model.onnx"), options,
                             providers=["CPUExecutionProvider"])
    output = NETWORKS[name]
    return lambda x: s.run([output], {"x": x})[0]
