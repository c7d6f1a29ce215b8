# SPDX-License-Identifier: Apache-2.0
"""examples/models/ocr_recognize/1/ocr_core.py: the OCR pipeline's algorithms
piece by piece, and the whole pipeline in one process with onnxruntime on the
rendered test images (every line read exactly)."""
import io
import json
import subprocess

import numpy as np
import pytest
from PIL import Image, ImageDraw

from ocr_support import CORE_DIR, KEYS, ocr_core, ocr_images, require_models, session


@pytest.fixture(scope="module")
def networks():
    require_models()
    return ocr_core.Networks(session("ocr_det"), session("ocr_cls"), session("ocr_rec"))


@pytest.fixture(scope="module")
def charset():
    require_models()
    return ocr_core.load_charset(str(KEYS))


# --- the whole pipeline ----------------------------------------------------------------

@pytest.mark.parametrize("rec_batch_lines", [1, 0], ids=["line_by_line", "all_lines_at_once"])
@pytest.mark.parametrize("image", ocr_images.all_images(), ids=lambda im: im.name)
def test_pipeline_reads_every_line_exactly(image, rec_batch_lines, networks, charset):
    result = ocr_core.run_ocr(image.data, networks, charset, rec_batch_lines=rec_batch_lines)
    assert result.text == image.lines
    assert result.boxes.shape == (len(image.lines), 4, 2) and result.boxes.dtype == np.float32
    assert result.scores.shape == (len(image.lines),) and result.scores.dtype == np.float32
    assert (result.scores > 0.8).all(), result.scores
    width, height = image.size
    for box, centre in zip(result.boxes, image.centres):
        # each box holds its line's centre, inside the image, corners clockwise
        # from top-left
        assert _inside(box, centre), (box, centre)
        assert (box[:, 0] >= 0).all() and (box[:, 0] <= width).all()
        assert (box[:, 1] >= 0).all() and (box[:, 1] <= height).all()
        tl, tr, br, bl = box
        assert tl[0] < tr[0] and bl[0] < br[0] and tl[1] < bl[1] and tr[1] < br[1]


def _inside(box, point):
    crosses = [(q[0] - p[0]) * (point[1] - p[1]) - (q[1] - p[1]) * (point[0] - p[0])
               for p, q in zip(box, np.roll(box, -1, axis=0))]
    return all(c >= 0 for c in crosses)  # clockwise on screen: every cross product ≥ 0


def test_blank_image_finds_no_text(networks, charset):
    blank = io.BytesIO()
    Image.new("RGB", (200, 120), (250, 250, 250)).save(blank, format="PNG")
    result = ocr_core.run_ocr(blank.getvalue(), networks, charset)
    assert result.text == [] and result.boxes.shape == (0, 4, 2) and result.scores.shape == (0,)


def test_upside_down_line_is_turned_by_the_classifier(networks, charset):
    """A line rotated by 180° is read right, thanks to ocr_cls."""
    image = ocr_images.render("flipped", ["Hello world 42"], "DejaVuSans.ttf", 40, 180.0, "PNG")
    assert ocr_core.run_ocr(image.data, networks, charset).text == ["Hello world 42"]


def test_charset_matches_the_recogniser(networks, charset):
    assert len(charset) == 6625  # blank + 6623 dictionary lines + space
    assert charset[0] == "<blank>" and charset[-1] == " "
    probabilities = networks.recognise(np.zeros((1, 3, 48, 320), dtype=np.float32))
    assert probabilities.shape == (1, 40, 6625)  # a step per 8 columns


# --- decoding and the detector's input ---------------------------------------------------

def test_det_input_size_is_multiples_of_32_within_the_limit():
    assert ocr_core.det_input_size(454, 277) == (448, 288)   # small: rounded, not scaled
    assert ocr_core.det_input_size(1920, 1080) == (960, 544)
    assert ocr_core.det_input_size(10, 3000) == (32, 960)    # never below 32
    for w, h in [(1, 1), (33, 47), (4000, 3000), (961, 100)]:
        dw, dh = ocr_core.det_input_size(w, h)
        assert dw % 32 == 0 and dh % 32 == 0 and max(dw, dh) <= 960


def test_det_preprocess_normalises_bgr_with_imagenet_statistics():
    image = Image.new("RGB", (64, 32), (255, 128, 0))
    x, shape = ocr_core.det_preprocess(image)
    assert x.shape == (1, 3, 32, 64) and x.dtype == np.float32 and x.flags.c_contiguous
    assert shape.tolist() == [32, 64, 32, 64]
    bgr = np.array([0, 128, 255]) / 255.0
    expected = (bgr - [0.485, 0.456, 0.406]) / [0.229, 0.224, 0.225]
    np.testing.assert_allclose(x[0, :, 5, 5], expected, rtol=1e-5)


def test_decode_flattens_transparency_onto_white_and_applies_exif_orientation():
    rgba = Image.new("RGBA", (20, 10), (0, 0, 0, 0))
    ImageDraw.Draw(rgba).rectangle([0, 0, 4, 4], fill=(0, 0, 0, 255))
    data = io.BytesIO()
    rgba.save(data, format="PNG")
    decoded = ocr_core.decode_image(data.getvalue())
    assert decoded.mode == "RGB" and decoded.getpixel((15, 5)) == (255, 255, 255)
    assert decoded.getpixel((2, 2)) == (0, 0, 0)

    exif = Image.Exif()
    exif[0x0112] = 6  # Orientation: stored turned 90°, to be shown rotated
    jpeg = io.BytesIO()
    Image.new("RGB", (40, 20), (9, 9, 9)).save(jpeg, format="JPEG", exif=exif)
    assert ocr_core.decode_image(jpeg.getvalue()).size == (20, 40)


@pytest.mark.parametrize("data", [b"", b"not an image", ocr_images.all_images()[0].data[:2000]])
def test_undecodable_data_is_a_value_error(data):
    with pytest.raises(ValueError, match="cannot decode the image"):
        ocr_core.decode_image(data)


# --- DB post-processing -------------------------------------------------------------------

def _flood_fill_components(mask):
    """Reference labelling: a plain 8-connected flood fill."""
    labels = -np.ones(mask.shape, dtype=int)
    count = 0
    for start in zip(*np.nonzero(mask)):
        if labels[start] >= 0:
            continue
        stack = [start]
        labels[start] = count
        while stack:
            y, x = stack.pop()
            for dy in (-1, 0, 1):
                for dx in (-1, 0, 1):
                    ny, nx = y + dy, x + dx
                    if 0 <= ny < mask.shape[0] and 0 <= nx < mask.shape[1] \
                            and mask[ny, nx] and labels[ny, nx] < 0:
                        labels[ny, nx] = count
                        stack.append((ny, nx))
        count += 1
    return labels


def _partition(labels_by_pixel):
    """A labelling as a set of frozensets of pixels (label values do not matter)."""
    groups = {}
    for pixel, label in labels_by_pixel:
        groups.setdefault(label, set()).add(pixel)
    return {frozenset(g) for g in groups.values()}


@pytest.mark.parametrize("seed", range(6))
def test_label_runs_matches_a_flood_fill(seed):
    rng = np.random.default_rng(seed)
    mask = rng.random((40, 57)) < [0.3, 0.45, 0.55, 0.6, 0.35, 0.5][seed]
    row, start, end, label = ocr_core.label_runs(mask)
    ours = [((r, c), lab) for r, s, e, lab in zip(row, start, end, label) for c in range(s, e)]
    reference = _flood_fill_components(mask)
    theirs = [((r, c), reference[r, c]) for r, c in zip(*np.nonzero(mask))]
    assert _partition(ours) == _partition(theirs)


def test_label_runs_joins_diagonal_neighbours_and_handles_edges():
    mask = np.array([[1, 0, 0, 1],
                     [0, 1, 0, 1],
                     [0, 0, 0, 0],
                     [1, 1, 1, 1]], dtype=bool)
    row, start, end, label = ocr_core.label_runs(mask)
    by_run = {(int(r), int(s)): int(lab) for r, s, lab in zip(row, start, label)}
    assert by_run[(0, 0)] == by_run[(1, 1)]        # diagonal: one component
    assert by_run[(0, 3)] == by_run[(1, 3)] != by_run[(0, 0)]
    assert by_run[(3, 0)] not in (by_run[(0, 0)], by_run[(0, 3)])
    assert len(ocr_core.label_runs(np.zeros((5, 5), dtype=bool))[0]) == 0


def test_min_area_rect_of_a_rotated_rectangle():
    angle = np.radians(20)
    axes = np.array([[np.cos(angle), np.sin(angle)], [-np.sin(angle), np.cos(angle)]])
    corners = ocr_core.rect_corners(np.array([50.0, 40.0]), axes, (60.0, 10.0))
    inner = np.array([[50.0, 40.0], [55.0, 41.0]])  # points inside do not matter
    hull = ocr_core.convex_hull(np.concatenate([corners, inner]))
    assert len(hull) == 4
    centre, found_axes, (w, h) = ocr_core.min_area_rect(hull)
    np.testing.assert_allclose(centre, [50, 40], atol=1e-9)
    np.testing.assert_allclose(sorted([w, h]), [10, 60], atol=1e-9)
    np.testing.assert_allclose(w * h, 600, atol=1e-6)


def test_order_clockwise_from_top_left():
    box = np.array([[10, 30], [110, 35], [12, 10], [112, 14]], dtype=float)  # any order
    ordered = ocr_core.order_clockwise(box)
    np.testing.assert_array_equal(ordered, [[12, 10], [112, 14], [110, 35], [10, 30]])


def test_db_postprocess_finds_rectangles_maps_them_back_and_drops_noise():
    prob = np.zeros((64, 128), dtype=np.float32)
    prob[10:20, 10:90] = 0.9      # a text kernel
    prob[40:50, 20:60] = 0.9      # another
    prob[30, 100] = 0.99          # a speck: too small
    prob[55:60, 100:120] = 0.45   # above the pixel threshold, below the box threshold
    # the original image was twice the size of the map
    boxes, scores = ocr_core.db_postprocess(prob, [128, 256, 64, 128])
    assert boxes.shape == (2, 4, 2)
    np.testing.assert_allclose(scores, [0.9, 0.9], atol=1e-6)
    first = boxes[0]
    # the kernel spans pixel centres 10..89 × 10..19; grown by
    # distance = w·h·1.8 / (2(w + h)) on each side, then scaled by 2
    w, h = 79.0, 9.0
    d = w * h * 1.8 / (2 * (w + h))
    np.testing.assert_allclose(first[0], [(10 - d) * 2, (10 - d) * 2], atol=1e-3)
    np.testing.assert_allclose(first[2], [(89 + d) * 2, (19 + d) * 2], atol=1e-3)
    assert boxes[1][0][1] > first[2][1]  # reading order: top line first


def test_db_postprocess_of_an_empty_map():
    boxes, scores = ocr_core.db_postprocess(np.zeros((1, 1, 32, 32), np.float32), [32, 32, 32, 32])
    assert boxes.shape == (0, 4, 2) and scores.shape == (0,)


def test_reading_order_is_top_to_bottom_then_left_to_right():
    def box(x, y, w=40, h=20):
        return [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]
    # two words on one line (the right one a little higher), then a lower line
    boxes = np.array([box(100, 52), box(10, 100), box(10, 55), box(60, 102)], dtype=np.float32)
    assert ocr_core.reading_order(boxes).tolist() == [2, 0, 1, 3]


# --- crops, classifier and recogniser inputs, CTC -------------------------------------------

def test_crop_box_straightens_a_rotated_rectangle():
    image = Image.new("RGB", (200, 200), (255, 255, 255))
    angle = np.radians(10)
    axes = np.array([[np.cos(angle), np.sin(angle)], [-np.sin(angle), np.cos(angle)]])
    corners = ocr_core.rect_corners(np.array([100.0, 100.0]), axes, (120.0, 30.0))
    ImageDraw.Draw(image).polygon([tuple(p) for p in corners], fill=(0, 0, 0))
    crop = ocr_core.crop_box(image, ocr_core.order_clockwise(corners))
    assert crop.size == (120, 30)
    inner = np.asarray(crop)[3:-3, 3:-3]
    assert inner.max() < 60  # all black inside: the rectangle was straightened


def test_tall_crops_are_turned_to_lie_flat():
    image = Image.new("RGB", (100, 200), (255, 255, 255))
    box = np.array([[40, 20], [60, 20], [60, 180], [40, 180]], dtype=np.float32)
    assert ocr_core.crop_box(image, box).size == (160, 20)


def test_cls_batch_scales_to_height_48_and_pads_with_zeros():
    crops = [Image.new("RGB", (100, 20), (255, 255, 255)), Image.new("RGB", (1000, 20), (0, 0, 0))]
    x = ocr_core.cls_batch(crops)
    assert x.shape == (2, 3, 48, 192) and x.dtype == np.float32
    assert np.allclose(x[0, :, :, :240], 1.0)   # white → 1, 100×20 scaled to 240×48
    assert np.allclose(x[0, :, :, 240:], 0.0)   # padding (none here: 240 > 192)
    assert np.allclose(x[1], -1.0)              # black, squeezed to 192 wide
    narrow = ocr_core.cls_batch([Image.new("RGB", (40, 24), (255, 255, 255))])
    assert np.allclose(narrow[0, :, :, :80], 1.0) and np.allclose(narrow[0, :, :, 80:], 0.0)


def test_apply_cls_turns_only_confident_180s():
    crops = [Image.new("RGB", (4, 2)) for _ in range(3)]
    for crop in crops:
        crop.putpixel((0, 0), (255, 0, 0))
    out = ocr_core.apply_cls(crops, np.array([[0.95, 0.05], [0.05, 0.95], [0.2, 0.8]]))
    assert [c.getpixel((0, 0)) for c in out] == [(255, 0, 0), (0, 0, 0), (255, 0, 0)]
    assert out[1].getpixel((3, 1)) == (255, 0, 0)


def test_rec_batches_default_to_one_line_each():
    crops = [Image.new("RGB", (w, 24), (255, 255, 255)) for w in (1000, 100, 300)]
    batches = ocr_core.rec_batches(crops)
    assert [(i.tolist(), x.shape) for i, x in batches] == [
        ([1], (1, 3, 48, 320)), ([2], (1, 3, 48, 600)), ([0], (1, 3, 48, 2000))]
    assert [len(i) for i, _ in ocr_core.rec_batches(crops, max_lines=2)] == [2, 1]


def test_rec_batches_sort_pad_and_split():
    crops = [Image.new("RGB", (w, 24), (255, 255, 255)) for w in (1000, 100, 300, 4000, 120)]
    batches = ocr_core.rec_batches(crops, max_lines=0)
    seen = np.concatenate([indices for indices, _ in batches])
    assert sorted(seen.tolist()) == [0, 1, 2, 3, 4]
    widths = {0: 2000, 1: 200, 2: 600, 3: 3200, 4: 240}  # height 48; 4000 → capped
    for indices, x in batches:
        assert x.shape[:3] == (len(indices), 3, 48) and x.dtype == np.float32
        assert x.shape[3] == max(320, max(widths[i] for i in indices))
        assert len(indices) * x.shape[3] <= ocr_core.REC_BATCH_COLUMNS or len(indices) == 1
        for row, i in enumerate(indices):
            assert np.allclose(x[row, :, :, :widths[i]], 1.0)
            assert np.allclose(x[row, :, :, widths[i]:], 0.0)
    assert ocr_core.rec_batches([]) == []


def test_ctc_decode_merges_repeats_and_drops_blanks():
    charset = np.array(["<blank>", "a", "b", " "], dtype=object)

    def steps(*classes):
        p = np.full((len(classes), 4), 0.02, dtype=np.float32)
        for t, c in enumerate(classes):
            p[t, c] = 0.94
        return p

    # "a a _ a b b _ space b" → "aab b"; a blank separates the repeated a
    probabilities = np.stack([steps(1, 1, 0, 1, 2, 2, 0, 3, 2), steps(0, 0, 0, 0, 0, 0, 0, 0, 0)])
    probabilities[0, 4, 2] = 0.5  # the first b is less sure: the score is the mean of kept steps
    (text, score), (empty, empty_score) = ocr_core.ctc_decode(probabilities, charset)
    assert text == "aab b" and empty == "" and empty_score == 0.0
    assert score == pytest.approx((0.94 * 4 + 0.5) / 5)
    with pytest.raises(ValueError, match="classes"):
        ocr_core.ctc_decode(np.zeros((1, 2, 5), np.float32), charset)


def test_load_charset_reads_the_dictionary(tmp_path):
    keys = tmp_path / "keys.txt"
    keys.write_text("x\ny\n", encoding="utf-8")
    assert ocr_core.load_charset(str(keys)).tolist() == ["<blank>", "x", "y", " "]


# --- Debian's interpreter -----------------------------------------------------------------

DEBIAN_PYTHON = "/usr/bin/python3"

CHECK_ON_DEBIAN = r"""
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import ocr_core
data = np.load(sys.argv[2])
image = ocr_core.decode_image(data["image"].tobytes())
x, shape = ocr_core.det_preprocess(image)
boxes, scores = ocr_core.db_postprocess(data["prob"], shape)
crops = [ocr_core.crop_box(image, b) for b in boxes]
batches = ocr_core.rec_batches(crops)
print(json.dumps({"numpy": np.__version__, "x": float(np.abs(x - data["x"]).max()),
                  "boxes": boxes.tolist(), "cls": ocr_core.cls_batch(crops).shape,
                  "rec": [b[1].shape for b in batches]}))
"""


def test_core_runs_on_debians_python_and_numpy(tmp_path, networks):
    """The workers run Debian's python3 (numpy 1.24, Pillow 9.4): the same
    steps there give the same detector input and boxes as here."""
    import os
    if not os.path.exists(DEBIAN_PYTHON):
        pytest.skip("no /usr/bin/python3")
    probe = subprocess.run([DEBIAN_PYTHON, "-c", "import numpy, PIL"], capture_output=True)
    if probe.returncode != 0:
        pytest.fail("Debian's python3 lacks numpy or Pillow: install python3-numpy python3-pil "
                    "(scripts/setup.sh)")
    image = ocr_images.all_images()[0]
    decoded = ocr_core.decode_image(image.data)
    x, shape = ocr_core.det_preprocess(decoded)
    prob = networks.detect(x)
    boxes, _ = ocr_core.db_postprocess(prob, shape)
    saved = tmp_path / "inputs.npz"
    np.savez(saved, image=np.frombuffer(image.data, dtype=np.uint8), prob=prob, x=x)
    out = subprocess.run([DEBIAN_PYTHON, "-c", CHECK_ON_DEBIAN, str(CORE_DIR), str(saved)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    theirs = json.loads(out.stdout)
    assert theirs["x"] < 0.05  # Pillow versions may round a resized pixel differently
    np.testing.assert_allclose(np.array(theirs["boxes"]), boxes, atol=1e-3)
    assert theirs["cls"] == [len(boxes), 3, 48, 192] and len(theirs["rec"]) >= 1
