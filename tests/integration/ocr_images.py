# SPDX-License-Identifier: Apache-2.0
"""Test images for the OCR pipeline, rendered at test time with Pillow and a
Debian font (fonts-dejavu-core), so that no image file is kept in git and the
expected text is known exactly.

Each image holds a few lines of English text and digits, lightly rotated
(within ±3°) and with mild noise, encoded as PNG or JPEG. Every call with the
same arguments gives the same bytes (seeded noise).
"""
from __future__ import annotations

import dataclasses
import io
import math
from typing import List, Sequence, Tuple

import numpy as np
from PIL import Image, ImageDraw, ImageFont

FONT_DIR = "/usr/share/fonts/truetype/dejavu"


@dataclasses.dataclass
class OcrImage:
    name: str
    data: bytes                 # the encoded image
    lines: List[str]            # the text drawn, top to bottom
    centres: List[Tuple[float, float]]  # each line's centre in the final image (x, y)
    size: Tuple[int, int]       # (width, height) of the final image


# (name, lines, font file, font size, angle in degrees, format). PP-OCRv4's
# recogniser drops word spaces in small or heavy bold sans text under JPEG
# noise (about half the time in our renderings of DejaVu Sans Bold 32 and
# Sans 24): those are left out, since every test line must match exactly.
CASES: Sequence[Tuple[str, Sequence[str], str, int, float, str]] = (
    ("sans_png", ("INFERD 2026", "Hello world 42", "The quick brown fox"),
     "DejaVuSans.ttf", 36, 2.0, "PNG"),
    ("serif_jpeg", ("Invoice 58213", "Total 1999", "Thank you"),
     "DejaVuSerif.ttf", 40, -3.0, "JPEG"),
    ("mono_png", ("batch size 8", "latency 12 ms", "GRPC and HTTP"),
     "DejaVuSansMono.ttf", 34, 3.0, "PNG"),
    # wider than the detector's 960: its input is scaled down
    ("large_jpeg", ("Inference requests per second 1250", "Median latency 8 ms at batch 4",
                    "Models load in 35 ms from disk", "Version 2 replaces version 1",
                    "Ensembles chain three models", "Text found in 6 lines"),
     "DejaVuSans.ttf", 52, -1.0, "JPEG"),
    ("small_serif_png", ("Room 305", "Gate B 17", "Seat 22 A"),
     "DejaVuSerif.ttf", 28, 1.5, "PNG"),
)


def render(name: str, lines: Sequence[str], font_file: str, font_size: int, angle: float,
           fmt: str, seed: int = 0) -> OcrImage:
    """One image: dark text on a light background, left-aligned lines with a
    margin, rotated by `angle` (counter-clockwise), noise of σ 6 grey levels."""
    font = ImageFont.truetype(f"{FONT_DIR}/{font_file}", font_size)
    margin, spacing = 40, font_size // 2 + 8
    # Line heights from the font's metrics, not the text, so that every line
    # takes the same room whatever its letters.
    ascent, descent = font.getmetrics()
    line_height = ascent + descent
    widths = [font.getbbox(line)[2] for line in lines]
    width = max(widths) + 2 * margin
    height = len(lines) * line_height + (len(lines) - 1) * spacing + 2 * margin
    background = (244, 242, 236)
    canvas = Image.new("RGB", (width, height), background)
    draw = ImageDraw.Draw(canvas)
    centres = []
    y = margin
    for line, line_width in zip(lines, widths):
        draw.text((margin, y), line, font=font, fill=(24, 24, 32))
        centres.append((margin + line_width / 2, y + line_height / 2))
        y += line_height + spacing
    rotated = canvas.rotate(angle, resample=Image.Resampling.BICUBIC, expand=True,
                            fillcolor=background)
    centres = [_rotate_point(c, angle, canvas.size, rotated.size) for c in centres]

    rng = np.random.default_rng(seed)
    pixels = np.asarray(rotated, dtype=np.float32)
    pixels = pixels + rng.normal(0.0, 6.0, pixels.shape).astype(np.float32)
    noisy = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))

    out = io.BytesIO()
    if fmt == "JPEG":
        noisy.save(out, format="JPEG", quality=85)
    else:
        noisy.save(out, format="PNG")
    return OcrImage(name, out.getvalue(), list(lines), centres, noisy.size)


def _rotate_point(point, angle, old_size, new_size):
    """Where `point` of the canvas lands after Image.rotate(angle, expand=True):
    a counter-clockwise turn about the centre, in image coordinates (y down)."""
    theta = math.radians(angle)
    dx, dy = point[0] - old_size[0] / 2, point[1] - old_size[1] / 2
    x = dx * math.cos(theta) + dy * math.sin(theta)
    y = -dx * math.sin(theta) + dy * math.cos(theta)
    return (x + new_size[0] / 2, y + new_size[1] / 2)


def all_images() -> List[OcrImage]:
    """Every case of CASES, rendered."""
    return [render(*case, seed=i) for i, case in enumerate(CASES)]
