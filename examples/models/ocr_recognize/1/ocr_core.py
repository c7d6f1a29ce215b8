# SPDX-License-Identifier: Apache-2.0
"""The OCR pipeline's algorithms, with no Triton (or inferd) import: image
decoding and the detector's input, DB post-processing of the detector's
probability map, cropping the text lines, the classifier's and recogniser's
inputs, and CTC decoding.

The Python models ocr_det_pre and ocr_recognize call these functions (the
models themselves run in the server: ocr_det, ocr_cls, ocr_rec); so do
bench/ocr_inprocess.py, with onnxruntime in one process, and the unit tests.
The three network calls are passed in as functions (`Networks`), so the same
code serves both.

The models are PaddleOCR's PP-OCRv4 detector and recogniser and its mobile
v2.0 direction classifier; the numbers below (sizes, thresholds, means) are
the ones PaddleOCR uses with them, except where a comment says why not.

Works with numpy 1.24 (Debian 12, the workers' interpreter) and 2.x, and with
Pillow 9.4 (Debian) and newer.
"""
from __future__ import annotations

import dataclasses
import io
import math
from typing import Callable, List, Optional, Sequence, Tuple

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

# --- detector input ----------------------------------------------------------------

# The longer side is scaled down to at most this (never up): PaddleOCR's
# default for PP-OCRv4's detector. Its time grows with the area: 150 ms for
# a 960 × 608 input, 9 ms for 224 × 224, on one core here.
DET_LIMIT_SIDE = 960
# Sides must be multiples of 32: the detector downsamples five times.
DET_MULTIPLE = 32
# ImageNet statistics, which the detector was trained with. PaddleOCR trains
# on OpenCV's BGR pixels with these (RGB-ordered) values, so blue gets red's
# mean; DET_CHANNELS reproduces that order. Measured on coloured text (red on
# cyan, yellow on blue, ...), BGR and RGB give box scores within 0.01 of each
# other, so a mistake here would be nearly invisible: BGR is kept because it
# is what the models saw in training.
DET_MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
DET_STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)
BGR = (2, 1, 0)
DET_CHANNELS = BGR
# The classifier and recogniser were also trained on BGR pixels.
REC_CHANNELS = BGR


def decode_image(data: bytes) -> Image.Image:
    """PNG, JPEG or anything else Pillow reads → an RGB image, upright.

    The EXIF orientation is applied (a phone's portrait JPEG is stored
    sideways), and transparency is flattened onto white, since text is
    usually dark on a light page. Raises ValueError for undecodable data.
    """
    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except UnidentifiedImageError as error:
        raise ValueError(f"cannot decode the image ({len(data)} bytes): "
                         "not PNG, JPEG or another format Pillow reads") from error
    except Exception as error:  # truncated or corrupt data: OSError, SyntaxError, ...
        raise ValueError(f"cannot decode the image ({len(data)} bytes): {error}") from error
    image = ImageOps.exif_transpose(image)
    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        image = Image.alpha_composite(white, rgba)
    return image.convert("RGB")


def det_input_size(width: int, height: int, limit: int = DET_LIMIT_SIDE) -> Tuple[int, int]:
    """The detector's (width, height): the longer side at most `limit`, the
    aspect kept, both rounded to a multiple of 32 (at least 32)."""
    ratio = min(1.0, limit / max(width, height))

    def side(n):
        return max(DET_MULTIPLE, int(round(n * ratio / DET_MULTIPLE)) * DET_MULTIPLE)

    return side(width), side(height)


def det_preprocess(image: Image.Image, limit: int = DET_LIMIT_SIDE) -> Tuple[np.ndarray, np.ndarray]:
    """The detector's input x [1, 3, H, W] FP32, and `shape` [4] FP32: the
    original height and width and the input's, which map boxes back."""
    width, height = det_input_size(image.width, image.height, limit)
    resized = image.resize((width, height), Image.Resampling.BILINEAR)
    # Reordered to CHW while still bytes, then (p / 255 - mean) / std written
    # straight into the output as one multiply and one subtract per channel:
    # fewer passes than converting the HWC image to floats first (3.8 rather
    # than 5.4 ms for 960 × 608 with numpy 2; 3.8 rather than 4.2 with 1.24).
    planes = np.asarray(resized).transpose(2, 0, 1)[list(DET_CHANNELS)]
    x = np.empty((1, 3, height, width), dtype=np.float32)
    scale = 1.0 / (255.0 * DET_STD)
    offset = DET_MEAN / DET_STD
    for c in range(3):
        np.multiply(planes[c], scale[c], out=x[0, c], casting="unsafe")
        x[0, c] -= offset[c]
    shape = np.array([image.height, image.width, height, width], dtype=np.float32)
    return x, shape


# --- DB post-processing ------------------------------------------------------------

@dataclasses.dataclass
class DbParams:
    """Differentiable Binarization's post-processing settings: PaddleOCR's
    defaults for PP-OCRv4 but for unclip_ratio."""
    threshold: float = 0.3       # a map pixel is text when its probability exceeds this
    box_threshold: float = 0.6   # a box is kept when the mean probability inside exceeds this
    # The shrunk text kernel grows back by area * ratio / perimeter. PaddleOCR
    # uses 1.5; on our test renderings (tests/integration/ocr_images.py, 32 per
    # case) 1.8 keeps the word spaces that tight crops lose (DejaVu Sans 36:
    # 27 of 32 images read exactly at 1.5, 32 at 1.8; 2.0 hurts bold text).
    unclip_ratio: float = 1.8
    min_size: float = 3.0        # boxes whose shorter side (map pixels) is below this are noise
    max_candidates: int = 1000   # at most this many components are considered


def label_runs(mask: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """8-connected components of a boolean image, computed on horizontal runs
    of True pixels rather than on pixels (text maps have few, long runs).

    Returns (row, start, end, label) per run: the run covers columns
    start..end-1 of row; runs with the same label form one component.
    Labels are arbitrary integers. Vectorised: no Python loop over pixels,
    runs or edges.
    """
    height, width = mask.shape
    padded = np.zeros((height, width + 2), dtype=np.int8)
    padded[:, 1:-1] = mask
    steps = np.diff(padded, axis=1)
    # nonzero() walks row-major, so starts and ends pair up in order
    row, start = np.nonzero(steps == 1)
    _, end = np.nonzero(steps == -1)
    n = len(row)
    if n == 0:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty, empty, empty
    # A key orders runs row by row; within a row runs are disjoint and sorted,
    # so both their starts and their ends increase along the key.
    stride = width + 2
    start_key = row * stride + start
    end_key = row * stride + end
    # Run i touches run j of the next row (8-connectivity) when
    # start_j <= end_i and end_j >= start_i: a contiguous range of j.
    first = np.searchsorted(end_key, (row + 1) * stride + start, side="left")
    last = np.searchsorted(start_key, (row + 1) * stride + end, side="right")
    counts = np.maximum(last - first, 0)
    a = np.repeat(np.arange(n), counts)
    offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    b = np.repeat(first, counts) + offsets
    return row, start, end, _union_labels(n, a, b)


def _union_labels(n: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Connected components of the graph with edges a[k]-b[k]: each node's
    label is the smallest node of its component. Hooking every edge's larger
    root under the smaller one, then halving paths until all are roots, takes
    a handful of rounds (about log n) of array operations."""
    parent = np.arange(n)
    while len(a):
        pa, pb = parent[a], parent[b]
        low = np.minimum(pa, pb)
        np.minimum.at(parent, pa, low)
        np.minimum.at(parent, pb, low)
        while True:
            grand = parent[parent]
            if np.array_equal(grand, parent):
                break
            parent = grand
        merged = parent[a] == parent[b]
        if merged.all():
            break
        a, b = a[~merged], b[~merged]
    return parent


def convex_hull(points: np.ndarray) -> np.ndarray:
    """Andrew's monotone chain: the hull's vertices, counter-clockwise in a
    y-up frame, of an (n, 2) array; collinear points dropped."""
    pts = np.unique(points, axis=0)  # sorted by x, then y
    if len(pts) <= 2:
        return pts.astype(np.float64)
    pts = pts.tolist()

    def half(sequence):
        chain = []
        for p in sequence:
            while len(chain) >= 2:
                (ox, oy), (ax, ay) = chain[-2], chain[-1]
                if (ax - ox) * (p[1] - oy) - (ay - oy) * (p[0] - ox) > 0:
                    break
                chain.pop()
            chain.append(p)
        return chain

    lower, upper = half(pts), half(reversed(pts))
    return np.array(lower[:-1] + upper[:-1], dtype=np.float64)


def min_area_rect(hull: np.ndarray) -> Tuple[np.ndarray, float, float]:
    """The smallest-area rectangle around a convex polygon: one of its sides
    lies along a hull edge, so each edge direction is tried (all at once).
    Returns (centre (2,), axis (2, 2) unit vectors, (width, height) along them)."""
    if len(hull) == 1:
        return hull[0], np.eye(2), (0.0, 0.0)
    edges = np.roll(hull, -1, axis=0) - hull
    lengths = np.hypot(edges[:, 0], edges[:, 1])
    keep = lengths > 0
    u = edges[keep] / lengths[keep, None]
    v = np.stack([-u[:, 1], u[:, 0]], axis=1)
    pu = u @ hull.T  # (edges, points): projections on each candidate axis
    pv = v @ hull.T
    extent_u = pu.max(axis=1) - pu.min(axis=1)
    extent_v = pv.max(axis=1) - pv.min(axis=1)
    best = int(np.argmin(extent_u * extent_v))
    mid_u = (pu[best].max() + pu[best].min()) / 2
    mid_v = (pv[best].max() + pv[best].min()) / 2
    centre = u[best] * mid_u + v[best] * mid_v
    return centre, np.stack([u[best], v[best]]), (float(extent_u[best]), float(extent_v[best]))


def rect_corners(centre: np.ndarray, axes: np.ndarray, size: Tuple[float, float]) -> np.ndarray:
    """The 4 corners of a rotated rectangle, (4, 2)."""
    hu = axes[0] * (size[0] / 2)
    hv = axes[1] * (size[1] / 2)
    return np.array([centre - hu - hv, centre + hu - hv, centre + hu + hv, centre - hu + hv])


def order_clockwise(corners: np.ndarray) -> np.ndarray:
    """Corners as top-left, top-right, bottom-right, bottom-left (clockwise on
    screen, y down). The two leftmost are the left side; for a tie in angle
    (an exactly 45° box) the choice is stable but arbitrary."""
    by_x = corners[np.lexsort((corners[:, 1], corners[:, 0]))]
    left, right = by_x[:2], by_x[2:]
    tl, bl = left[np.argsort(left[:, 1], kind="stable")]
    tr, br = right[np.argsort(right[:, 1], kind="stable")]
    return np.array([tl, tr, br, bl])


def polygon_mean(prob: np.ndarray, polygon: np.ndarray) -> float:
    """Mean of `prob` over the pixels whose centres lie inside a convex
    polygon (its vertices in either turning order)."""
    height, width = prob.shape
    x0 = int(np.clip(np.floor(polygon[:, 0].min()), 0, width - 1))
    x1 = int(np.clip(np.ceil(polygon[:, 0].max()), 0, width - 1))
    y0 = int(np.clip(np.floor(polygon[:, 1].min()), 0, height - 1))
    y1 = int(np.clip(np.ceil(polygon[:, 1].max()), 0, height - 1))
    ys, xs = np.mgrid[y0:y1 + 1, x0:x1 + 1]
    inside_pos = np.ones(xs.shape, dtype=bool)
    inside_neg = np.ones(xs.shape, dtype=bool)
    for p, q in zip(polygon, np.roll(polygon, -1, axis=0)):
        cross = (q[0] - p[0]) * (ys - p[1]) - (q[1] - p[1]) * (xs - p[0])
        inside_pos &= cross >= 0
        inside_neg &= cross <= 0
    inside = inside_pos | inside_neg
    if not inside.any():
        return 0.0
    return float(prob[y0:y1 + 1, x0:x1 + 1][inside].mean())


def db_postprocess(prob: np.ndarray, shape: Sequence[float],
                   params: Optional[DbParams] = None) -> Tuple[np.ndarray, np.ndarray]:
    """The detector's probability map → text boxes in original-image pixels.

    prob: [H, W] (or [1, 1, H, W]) probabilities; shape: det_preprocess's
    (original height, original width, input height, input width).
    Returns boxes (n, 4, 2) FP32, corners clockwise from top-left, and their
    scores (n,) FP32, in reading order (see reading_order).
    """
    params = params or DbParams()
    prob = np.asarray(prob, dtype=np.float32).reshape(prob.shape[-2:])
    orig_h, orig_w = float(shape[0]), float(shape[1])
    map_h, map_w = prob.shape
    row, start, end, label = label_runs(prob > params.threshold)
    boxes, scores = [], []
    if len(row):
        order = np.argsort(label, kind="stable")
        cuts = np.flatnonzero(np.diff(label[order])) + 1
        groups = np.split(order, cuts)
        # the biggest components first, when there are too many
        if len(groups) > params.max_candidates:
            sizes = np.array([(end[g] - start[g]).sum() for g in groups])
            groups = [groups[i] for i in np.argsort(-sizes, kind="stable")[:params.max_candidates]]
        for runs in groups:
            box = _component_box(prob, row[runs], start[runs], end[runs], params)
            if box is None:
                continue
            corners, score = box
            corners[:, 0] = np.clip(corners[:, 0] * (orig_w / map_w), 0, orig_w)
            corners[:, 1] = np.clip(corners[:, 1] * (orig_h / map_h), 0, orig_h)
            boxes.append(order_clockwise(corners))
            scores.append(score)
    if not boxes:
        return np.zeros((0, 4, 2), dtype=np.float32), np.zeros(0, dtype=np.float32)
    boxes = np.array(boxes, dtype=np.float32)
    scores = np.array(scores, dtype=np.float32)
    order = reading_order(boxes)
    return boxes[order], scores[order]


def _component_box(prob, rows, starts, ends, params):
    """One component's expanded box (map pixels) and score, or None."""
    # Cheap rejection first: a component whose bounding box is already too
    # thin cannot give a big enough rectangle.
    if rows.max() - rows.min() + 1 < params.min_size or \
            ends.max() - starts.min() < params.min_size:
        return None
    # Only each run's two end pixels can be on the hull (pixel centres).
    points = np.concatenate([np.stack([starts, rows], axis=1),
                             np.stack([ends - 1, rows], axis=1)]).astype(np.float64)
    hull = convex_hull(points)
    if len(hull) < 3:
        return None
    centre, axes, (w, h) = min_area_rect(hull)
    if min(w, h) < params.min_size:
        return None
    score = polygon_mean(prob, rect_corners(centre, axes, (w, h)))
    if score < params.box_threshold:
        return None
    # DB trains on text regions shrunk by a margin of area * (1 - r²) /
    # perimeter; growing the kernel back by area * ratio / perimeter on every
    # side restores the full line. For a rectangle the offset polygon's
    # bounding rectangle is the same rectangle grown by that distance.
    distance = w * h * params.unclip_ratio / (2 * (w + h))
    w, h = w + 2 * distance, h + 2 * distance
    if min(w, h) < params.min_size + 2:
        return None
    return rect_corners(centre, axes, (w, h)), score


def reading_order(boxes: np.ndarray) -> np.ndarray:
    """Indices that put boxes top to bottom, and left to right within a line:
    boxes whose vertical centres are within half a box height of a line's
    first box belong to that line."""
    if len(boxes) == 0:
        return np.zeros(0, dtype=np.intp)
    centre_y = boxes[:, :, 1].mean(axis=1)
    left_x = boxes[:, :, 0].min(axis=1)
    heights = boxes[:, :, 1].max(axis=1) - boxes[:, :, 1].min(axis=1)
    order = list(np.argsort(centre_y, kind="stable"))
    lines: List[List[int]] = []
    for i in order:
        if lines and abs(centre_y[i] - centre_y[lines[-1][0]]) < heights[lines[-1][0]] / 2:
            lines[-1].append(i)
        else:
            lines.append([i])
    return np.array([i for line in lines for i in sorted(line, key=lambda k: left_x[k])],
                    dtype=np.intp)


# --- cropping ----------------------------------------------------------------------

# A crop at least this much taller than wide is a vertical line: it is turned
# 90° (counter-clockwise) to read as a horizontal one.
TALL_RATIO = 1.5


def perspective_coefficients(quad: np.ndarray, width: int, height: int) -> Tuple[float, ...]:
    """Pillow's PERSPECTIVE data: the 8 coefficients of the homography that
    takes the output rectangle's corners (0,0), (w,0), (w,h), (0,h) to the
    quadrilateral's (input pixels); solved as an 8×8 linear system."""
    target = [(0, 0), (width, 0), (width, height), (0, height)]
    rows, rhs = [], []
    for (x, y), (u, v) in zip(target, quad.astype(np.float64)):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rhs.append(u)
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        rhs.append(v)
    return tuple(np.linalg.solve(np.array(rows), np.array(rhs)).tolist())


def crop_box(image: Image.Image, box: np.ndarray) -> Image.Image:
    """The text inside a box (corners clockwise from top-left, image pixels),
    straightened into an upright rectangle of the box's own size; tall crops
    are turned 90° to lie horizontally."""
    tl, tr, br, bl = box.astype(np.float64)
    width = max(1, int(round(max(np.hypot(*(tr - tl)), np.hypot(*(br - bl))))))
    height = max(1, int(round(max(np.hypot(*(bl - tl)), np.hypot(*(br - tr))))))
    crop = image.transform((width, height), Image.Transform.PERSPECTIVE,
                           perspective_coefficients(box, width, height),
                           resample=Image.Resampling.BICUBIC)
    if height >= TALL_RATIO * width:
        crop = crop.transpose(Image.Transpose.ROTATE_90)
    return crop


# --- classifier and recogniser inputs ------------------------------------------------

CLS_HEIGHT, CLS_WIDTH = 48, 192
# A crop is turned 180° only when the classifier is at least this sure.
CLS_THRESHOLD = 0.9
REC_HEIGHT = 48
# The recogniser's narrowest batch width: PaddleOCR's 320 (a 6.7:1 line).
REC_MIN_WIDTH = 320
# Lines longer than this are squeezed to it: the recogniser's cost grows with
# the width, and a 48 × 3200 crop (a 66:1 line) is already a whole page row.
REC_MAX_WIDTH = 3200
# A recogniser batch holds at most this many pixel columns (crops × padded
# width), so that a page with many long lines is split into several calls of
# bounded memory: about 1.4 MiB of input per 2048 columns.
REC_BATCH_COLUMNS = 8192
# ... and at most this many lines. On a CPU, batching does not pay: with ONNX
# Runtime 1.30 on one thread a line costs 17 ms alone at width 320 and 24-27
# ms in a batch of 2-6 (46 vs 52-54 ms at 640), on top of the padding to the
# batch's widest line. So by default every line is its own call; a GPU
# deployment would raise this (ocr_recognize's rec_batch_lines parameter).
REC_BATCH_LINES = 1


def _normalise_pm1(image: Image.Image) -> np.ndarray:
    """RGB image → CHW FP32 in [-1, 1], channels in the order the
    classifier and recogniser were trained with."""
    pixels = np.asarray(image, dtype=np.float32)[:, :, REC_CHANNELS]
    return (pixels * (2.0 / 255.0) - 1.0).transpose(2, 0, 1)


def _resize_to_height(image: Image.Image, height: int, max_width: int) -> Image.Image:
    width = min(max_width, max(1, int(math.ceil(height * image.width / image.height))))
    return image.resize((width, height), Image.Resampling.BILINEAR)


def cls_batch(crops: Sequence[Image.Image]) -> np.ndarray:
    """The direction classifier's input [N, 3, 48, 192]: each crop scaled to
    height 48 (aspect kept, at most 192 wide), left-aligned, zero-padded."""
    x = np.zeros((len(crops), 3, CLS_HEIGHT, CLS_WIDTH), dtype=np.float32)
    for i, crop in enumerate(crops):
        resized = _resize_to_height(crop, CLS_HEIGHT, CLS_WIDTH)
        x[i, :, :, :resized.width] = _normalise_pm1(resized)
    return x


def apply_cls(crops: Sequence[Image.Image], probabilities: np.ndarray,
              threshold: float = CLS_THRESHOLD) -> List[Image.Image]:
    """Turns the crops the classifier finds upside down (class 1, "180") by
    at least `threshold`."""
    out = []
    for crop, p in zip(crops, np.asarray(probabilities)):
        if int(np.argmax(p)) == 1 and p[1] >= threshold:
            crop = crop.transpose(Image.Transpose.ROTATE_180)
        out.append(crop)
    return out


def rec_batches(crops: Sequence[Image.Image],
                max_lines: int = REC_BATCH_LINES) -> List[Tuple[np.ndarray, np.ndarray]]:
    """The recogniser's inputs: a list of (indices into crops, x [n, 3, 48, W]).

    Crops are sorted by aspect so that each batch pads little; each is
    scaled to height 48 and padded with zeros to its batch's widest (at least
    320, at most REC_MAX_WIDTH), and a batch ends before it would exceed
    REC_BATCH_COLUMNS columns or `max_lines` lines (0: no line limit)."""
    if not crops:
        return []
    widths = [min(REC_MAX_WIDTH, max(1, int(math.ceil(REC_HEIGHT * c.width / c.height))))
              for c in crops]
    order = np.argsort(widths, kind="stable")
    batches, current = [], []
    for i in order:
        padded = max(REC_MIN_WIDTH, widths[i])  # widths grow along the order
        if current and ((len(current) + 1) * padded > REC_BATCH_COLUMNS
                        or 0 < max_lines <= len(current)):
            batches.append(current)
            current = []
        current.append(int(i))
    batches.append(current)
    out = []
    for indices in batches:
        batch_width = max(REC_MIN_WIDTH, max(widths[i] for i in indices))
        x = np.zeros((len(indices), 3, REC_HEIGHT, batch_width), dtype=np.float32)
        for row, i in enumerate(indices):
            resized = crops[i].resize((widths[i], REC_HEIGHT), Image.Resampling.BILINEAR)
            x[row, :, :, :widths[i]] = _normalise_pm1(resized)
        out.append((np.array(indices, dtype=np.intp), x))
    return out


# --- CTC decoding --------------------------------------------------------------------

def load_charset(path: str) -> np.ndarray:
    """The recogniser's classes: 0 is CTC's blank, then one per line of the
    dictionary file, then a space (PaddleOCR's use_space_char)."""
    with open(path, encoding="utf-8") as f:
        chars = f.read().split("\n")
    if chars and chars[-1] == "":
        chars.pop()  # a final newline ends the last line; it is no character
    return np.array(["<blank>"] + chars + [" "], dtype=object)


def ctc_decode(probabilities: np.ndarray, charset: np.ndarray) -> List[Tuple[str, float]]:
    """Greedy CTC decoding of [N, T, C] probabilities: the best class per
    step, repeats merged, blanks dropped. A line's score is the mean of the
    kept steps' probabilities (0 for an empty line)."""
    probabilities = np.asarray(probabilities)
    if probabilities.shape[-1] != len(charset):
        raise ValueError(f"the recogniser gives {probabilities.shape[-1]} classes, "
                         f"the dictionary has {len(charset)}")
    best = probabilities.argmax(axis=2)
    best_p = probabilities.max(axis=2)
    previous = np.concatenate([np.full((len(best), 1), -1), best[:, :-1]], axis=1)
    keep = (best != 0) & (best != previous)
    out = []
    for n in range(len(best)):
        kept = best[n][keep[n]]
        text = "".join(charset[kept].tolist())
        score = float(best_p[n][keep[n]].mean()) if len(kept) else 0.0
        out.append((text, score))
    return out


# --- the whole pipeline --------------------------------------------------------------

# Lines the recogniser is less sure of than this are dropped (PaddleOCR's
# drop_score): they are mostly noise that the detector took for text.
DROP_SCORE = 0.5


@dataclasses.dataclass
class Networks:
    """The three models, as functions of their input x to their output:
    onnxruntime sessions in one process, or BLS calls into the server."""
    detect: Optional[Callable[[np.ndarray], np.ndarray]]   # [1,3,H,W] → [1,1,H,W]
    classify: Callable[[np.ndarray], np.ndarray]            # [N,3,48,192] → [N,2]
    recognise: Callable[[np.ndarray], np.ndarray]           # [N,3,48,W] → [N,T,C]


@dataclasses.dataclass
class OcrResult:
    text: List[str]
    boxes: np.ndarray   # (n, 4, 2) FP32
    scores: np.ndarray  # (n,) FP32

    @staticmethod
    def empty() -> "OcrResult":
        return OcrResult([], np.zeros((0, 4, 2), dtype=np.float32), np.zeros(0, dtype=np.float32))


def recognise_lines(image: Image.Image, prob: np.ndarray, shape: Sequence[float],
                    networks: Networks, charset: np.ndarray,
                    db: Optional[DbParams] = None, drop_score: float = DROP_SCORE,
                    rec_batch_lines: int = REC_BATCH_LINES) -> OcrResult:
    """Everything after the detector (ocr_recognize's work): boxes from the
    map, crops, direction, recognition."""
    if (int(shape[0]), int(shape[1])) != (image.height, image.width):
        raise ValueError(f"the detector saw a {int(shape[1])}x{int(shape[0])} image, "
                         f"this one is {image.width}x{image.height}")
    boxes, _ = db_postprocess(prob, shape, db)
    if len(boxes) == 0:
        return OcrResult.empty()
    crops = [crop_box(image, box) for box in boxes]
    crops = apply_cls(crops, networks.classify(cls_batch(crops)))
    texts: List[Tuple[str, float]] = [("", 0.0)] * len(crops)
    for indices, x in rec_batches(crops, rec_batch_lines):
        for i, decoded in zip(indices, ctc_decode(networks.recognise(x), charset)):
            texts[i] = decoded
    keep = [i for i, (text, score) in enumerate(texts) if text.strip() and score >= drop_score]
    return OcrResult([texts[i][0] for i in keep], boxes[keep],
                     np.array([texts[i][1] for i in keep], dtype=np.float32))


def run_ocr(data: bytes, networks: Networks, charset: np.ndarray,
            limit: int = DET_LIMIT_SIDE, rec_batch_lines: int = REC_BATCH_LINES) -> OcrResult:
    """The whole pipeline in one call (the in-process benchmark, the tests)."""
    image = decode_image(data)
    x, shape = det_preprocess(image, limit)
    return recognise_lines(image, networks.detect(x), shape, networks, charset,
                           rec_batch_lines=rec_batch_lines)
