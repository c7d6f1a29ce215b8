# SPDX-License-Identifier: Apache-2.0
"""examples/silero_vad without a server: the segment finder on made-up
probabilities, the server's wrapper model against the upstream model on real
speech (bit for bit, many streams in one batch), and the in-process reference's
segments on the pocketsphinx recordings (fetched by make setup)."""
import pathlib
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples" / "silero_vad"))
import vad_core  # noqa: E402
from vad_core import CHUNK, SAMPLE_RATE, Segment, SegmentFinder, find_segments  # noqa: E402

MS = SAMPLE_RATE // 1000  # samples per millisecond
PAD = 30 * MS


def probs(*runs):
    """Per-chunk probabilities from (value, chunks) runs."""
    return [value for value, count in runs for _ in range(count)]


# --- the segment finder ---------------------------------------------------------------


def test_silence_gives_no_segment():
    assert find_segments([0.0] * 100) == []
    assert find_segments([0.49] * 100) == []  # just under the threshold
    assert find_segments([]) == []


def test_one_burst_is_one_padded_segment():
    found = find_segments(probs((0.01, 20), (0.9, 20), (0.01, 20)))
    assert found == [Segment(20 * CHUNK - PAD, 40 * CHUNK + PAD)]
    assert found[0].start_s == pytest.approx((20 * CHUNK - PAD) / SAMPLE_RATE)


def test_speech_shorter_than_min_speech_is_dropped():
    # 7 chunks = 224 ms < 250 ms; 8 chunks = 256 ms is kept
    assert find_segments(probs((0.0, 10), (0.9, 7), (0.0, 10))) == []
    assert len(find_segments(probs((0.0, 10), (0.9, 8), (0.0, 10)))) == 1


def test_a_short_pause_does_not_split_speech():
    # 3 chunks below the off threshold = 96 ms < min_silence 100 ms
    found = find_segments(probs((0.0, 5), (0.9, 10), (0.1, 3), (0.9, 10), (0.0, 10)))
    assert found == [Segment(5 * CHUNK - PAD, 28 * CHUNK + PAD)]
    # 4 chunks = 128 ms splits it
    found = find_segments(probs((0.0, 5), (0.9, 10), (0.1, 4), (0.9, 10), (0.0, 10)))
    assert found == [Segment(5 * CHUNK - PAD, 15 * CHUNK + PAD), Segment(19 * CHUNK - PAD, 29 * CHUNK + PAD)]


def test_hysteresis_keeps_speech_between_the_two_thresholds():
    # 0.4 is below the threshold (0.5) but above threshold - hysteresis (0.35)
    found = find_segments(probs((0.0, 5), (0.9, 10), (0.4, 20), (0.9, 2), (0.0, 10)))
    assert found == [Segment(5 * CHUNK - PAD, 37 * CHUNK + PAD)]
    # and does not start speech
    assert find_segments(probs((0.4, 40))) == []


def test_padding_never_goes_outside_the_audio():
    found = find_segments(probs((0.9, 20)), total_samples=20 * CHUNK - 100)
    assert found == [Segment(0, 20 * CHUNK - 100)]


def test_speech_running_to_the_end_closes_at_the_end():
    found = find_segments(probs((0.0, 10), (0.9, 15)), total_samples=25 * CHUNK - 300)
    assert found == [Segment(10 * CHUNK - PAD, 25 * CHUNK - 300)]
    # a pause still open at the end ends the segment where it began
    found = find_segments(probs((0.0, 10), (0.9, 15), (0.0, 2)))
    assert found == [Segment(10 * CHUNK - PAD, 25 * CHUNK + PAD)]


def test_segments_whose_padding_touches_merge():
    p = probs((0.0, 10), (0.9, 10), (0.0, 5), (0.9, 10), (0.0, 20))  # 160 ms apart
    assert len(find_segments(p)) == 2
    assert find_segments(p, pad_ms=100) == [Segment(10 * CHUNK - 100 * MS, 35 * CHUNK + 100 * MS)]


def test_streaming_reports_a_segment_once_it_is_final():
    finder = SegmentFinder()
    out = []
    for p in probs((0.0, 10), (0.9, 10)):
        assert finder.push(p) == []
    for i, p in enumerate(probs((0.0, 10))):
        got = finder.push(p)
        out += got
        if got:
            # final only after min_silence (4 chunks) and past its padded end
            assert i >= 3
    assert out == [Segment(10 * CHUNK - PAD, 20 * CHUNK + PAD)]
    assert finder.finish() == []
    # pushed one by one or all at once: the same segments
    p = list(np.random.default_rng(3).random(400) ** 2)
    streamed = []
    finder = SegmentFinder()
    for x in p:
        streamed += finder.push(x)
    assert streamed + finder.finish() == find_segments(p)


@pytest.mark.parametrize("options", [{"threshold": 0.0}, {"threshold": 1.5}, {"hysteresis": 0.5}])
def test_bad_options_are_refused(options):
    with pytest.raises(ValueError):
        SegmentFinder(**options)


def test_chunks_pad_the_last_chunk_with_zeros():
    c = vad_core.chunks(np.arange(1, CHUNK + 11, dtype=np.float32))
    assert c.shape == (2, CHUNK)
    assert c[1, 9] == CHUNK + 10 and (c[1, 10:] == 0).all()
    assert vad_core.chunks(np.zeros(0)).shape == (0, CHUNK)


# --- the model ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fetched():
    if not vad_core.available():
        pytest.fail("the Silero VAD model or the recordings are missing: run make setup "
                    "(scripts/fetch_models.sh, scripts/fetch_testdata.sh)")


@pytest.fixture(scope="module")
def reference(fetched):
    return vad_core.Reference()


def test_the_wav_reader_refuses_other_formats(tmp_path):
    import wave
    path = tmp_path / "stereo.wav"
    with wave.open(str(path), "wb") as f:
        f.setnchannels(2)
        f.setsampwidth(2)
        f.setframerate(SAMPLE_RATE)
        f.writeframes(b"\0" * 400)
    with pytest.raises(ValueError, match="16 kHz mono 16-bit"):
        vad_core.read_wav(path)


def test_the_wrapper_equals_the_upstream_model_on_speech(reference):
    """Every recording as one stream of a batch (plus silence and noise), through the
    wrapper the server runs, against each stream alone through the upstream model."""
    import onnx
    import onnxruntime as ort

    import make_model

    wrapper = make_model.build_wrapper(onnx.load(str(vad_core.UPSTREAM_MODEL))).SerializeToString()
    served = ROOT / "examples" / "models" / "silero_vad" / "1" / "model.onnx"
    if served.exists():  # what make setup wrote is what this generator makes now
        assert served.read_bytes() == wrapper, "examples/models/silero_vad is stale: run make setup"
    session = ort.InferenceSession(wrapper, providers=["CPUExecutionProvider"])
    streams = [vad_core.recording(name)[0] for name in vad_core.RECORDINGS]
    streams += [np.zeros(SAMPLE_RATE, np.float32),
                (0.05 * np.random.default_rng(1).standard_normal(2 * SAMPLE_RATE)).astype(np.float32)]
    n = max(s.size for s in streams)
    batch = np.stack([vad_core.chunks(np.pad(s, (0, n - s.size))) for s in streams], axis=1)
    state = np.zeros((len(streams), 2, 128), np.float32)
    context = np.zeros((len(streams), vad_core.CONTEXT), np.float32)
    served_probs = []
    for chunk in batch:
        p, state, context = session.run(None, {"audio": chunk, "state_in": state, "context_in": context})
        served_probs.append(p[:, 0])
    served_probs = np.array(served_probs).T
    for i, samples in enumerate(streams):
        alone = reference.probabilities(np.pad(samples, (0, n - samples.size)))
        np.testing.assert_allclose(served_probs[i], alone, rtol=0, atol=1e-6)


@pytest.mark.parametrize("name", vad_core.RECORDINGS)
def test_reference_segments_match_the_recordings(reference, name):
    samples, words = vad_core.recording(name)
    assert words  # the package's transcription of the clip
    seconds = samples.size / SAMPLE_RATE
    probabilities = reference.probabilities(samples)
    assert probabilities.shape == (-(-samples.size // CHUNK),)
    assert ((probabilities >= 0) & (probabilities <= 1)).all()
    segments = find_segments(probabilities, samples.size)
    assert segments, name
    # the clips are one utterance each: speech over most of it, quiet at both edges
    speech = vad_core.speech_seconds(segments)
    assert speech >= 0.6 * seconds, segments
    assert segments[0].start_s >= 0.1 and segments[-1].end_s <= seconds - 0.05, segments
    # every segment is where the signal is loud: its mean level well above the
    # level of the quietest chunks (the recording's noise floor)
    level = vad_core.frame_energy_db(samples)
    floor = np.percentile(level, 5)
    for s in segments:
        inside = level[s.start // CHUNK:-(-s.end // CHUNK)]
        assert inside.mean() > floor + 15, (s, inside.mean(), floor)
    # and the loud chunks are inside segments
    loud = np.flatnonzero(level > floor + 20)
    assert loud.size >= 0.3 * level.size
    covered = [any(s.start <= i * CHUNK + CHUNK // 2 < s.end for s in segments) for i in loud]
    assert np.mean(covered) >= 0.95


def test_no_speech_in_silence_or_noise(reference):
    rng = np.random.default_rng(5)
    for samples in (np.zeros(3 * SAMPLE_RATE, np.float32),
                    (0.003 * rng.standard_normal(3 * SAMPLE_RATE)).astype(np.float32),
                    (0.1 * np.sin(2 * np.pi * 1000 * np.arange(3 * SAMPLE_RATE) / SAMPLE_RATE))
                    .astype(np.float32)):
        p = reference.probabilities(samples)
        assert find_segments(p, samples.size) == [], p.max()
