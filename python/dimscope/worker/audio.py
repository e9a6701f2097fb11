# SPDX-License-Identifier: GPL-3.0-or-later
"""Audio files for the `record` request (issue 21: "for speech, an audio file (WAV read
with Python's standard library, no extra dependency)"). A WAV file is read with the
`wave` module into one float32 channel in [-1, 1), the input a transformers feature
extractor takes. Every refusal is a `bad_audio` failure naming the prompt's place and
the file: a missing or unreadable file, a file that is not PCM WAV, a sample width
other than 8, 16, 24 or 32 bits, no samples, or another sampling rate than the
feature extractor's (nothing is resampled behind the user's back)."""

import wave

from .errors import WorkerError

# Bytes per sample -> the sample value that stands for 1.0. 8-bit WAV is unsigned
# (0..255, 128 is silence); the wider widths are signed little-endian.
_WIDTHS = {1: 128.0, 2: 32768.0, 3: 8388608.0, 4: 2147483648.0}


def _fail(b, p, path, problem, **extra):
    field = "audio[%d][%d]" % (b, p)
    return WorkerError("bad_audio", "%s %s: %s" % (field, path, problem), field=field, batch=b, prompt=p,
                       file=path, **extra)


def _read_frames(path, b, p, frames=True):
    """(channels, sample width, rate, the frames' bytes, or their count when not `frames`)."""
    try:
        with wave.open(path, "rb") as w:
            data = w.readframes(w.getnframes()) if frames else w.getnframes()
            return w.getnchannels(), w.getsampwidth(), w.getframerate(), data
    except FileNotFoundError as e:
        raise _fail(b, p, path, "no such file") from e
    except IsADirectoryError as e:
        raise _fail(b, p, path, "is a folder, not a WAV file") from e
    except OSError as e:
        raise _fail(b, p, path, "cannot read the file: %s" % (e.strerror or e)) from e
    except (wave.Error, EOFError, ValueError) as e:
        # wave.Error: "file does not start with RIFF id", "unknown format: 3" (float), …
        raise _fail(b, p, path, "not a PCM WAV file the standard library's wave module reads: %s"
                    % (e or type(e).__name__)) from e


def _samples(frames, width):
    """The frames as float32 in [-1, 1), one column per channel interleaved."""
    import numpy as np

    scale = _WIDTHS[width]
    if width == 1:
        return (np.frombuffer(frames, np.uint8).astype(np.float32) - 128.0) / scale
    if width == 3:  # no numpy dtype: assemble the little-endian bytes and sign-extend
        raw = np.frombuffer(frames, np.uint8).reshape(-1, 3).astype(np.int32)
        value = raw[:, 0] | (raw[:, 1] << 8) | (raw[:, 2] << 16)
        value = (value ^ 0x800000) - 0x800000
        return value.astype(np.float32) / scale
    return np.frombuffer(frames, "<i%d" % width).astype(np.float32) / scale


def check_files(audio):
    """Before the model loads: every file of `audio` (a list per batch) is a PCM WAV file
    with samples of a width dimscope reads. The sampling rate is checked once the
    feature extractor is known (read_wav)."""
    for b, paths in enumerate(audio):
        for p, path in enumerate(paths):
            _check_format(path, b, p, *_read_frames(path, b, p, frames=False))


def _check_format(path, b, p, channels, width, rate, frames):
    if width not in _WIDTHS:
        raise _fail(b, p, path, "sample width %d bytes (%d-bit): dimscope reads 8-, 16-, 24- and 32-bit PCM"
                    % (width, 8 * width), sample_width=width)
    if channels < 1 or not frames:
        raise _fail(b, p, path, "holds no samples")


def read_wav(path, b, p, sampling_rate, log):
    """One channel of float32 samples of the WAV file at `path` (prompt `p` of batch `b`),
    checked against the feature extractor's `sampling_rate` (None: any). Several
    channels are averaged into one (logged)."""
    channels, width, rate, frames = _read_frames(path, b, p)
    _check_format(path, b, p, channels, width, rate, frames)
    if sampling_rate is not None and rate != sampling_rate:
        raise _fail(b, p, path, "sampled at %d Hz; the model's feature extractor takes %d Hz (resample the file "
                    "to %d Hz first: dimscope does not resample)" % (rate, sampling_rate, sampling_rate),
                    rate=rate, expected_rate=sampling_rate)
    samples = _samples(frames[:len(frames) - len(frames) % (width * channels)], width)
    if channels > 1:
        log("audio[%d][%d] %s: %d channels, averaged into one" % (b, p, path, channels))
        samples = samples.reshape(-1, channels).mean(axis=1)
    return samples
