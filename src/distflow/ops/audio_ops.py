"""``tf.audio``: 16-bit PCM WAV files to float samples and back, as TensorFlow's wav codec
reads and writes them (samples scaled by 2^15, rounded and clamped to int16)."""

from __future__ import annotations

import struct

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import TensorShape
from .op_util import make_op

_SCALE = 32768.0


def wav_bytes(samples: np.ndarray, sample_rate: int) -> bytes:
    """[frames, channels] floats in [-1, 1] as the bytes of a 16-bit PCM WAV file."""
    frames, channels = samples.shape
    pcm = np.clip(np.round(np.asarray(samples, np.float64) * _SCALE), -32768, 32767).astype("<i2").tobytes()
    header = struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", 36 + len(pcm), b"WAVE", b"fmt ", 16, 1, channels,
                         sample_rate, sample_rate * channels * 2, channels * 2, 16, b"data", len(pcm))
    return header + pcm


def _bad(message: str):
    return errors.InvalidArgumentError(None, None, f"DecodeWav: {message}")


def _parse_wav(data: bytes) -> tuple[np.ndarray, int]:
    """The samples [frames, channels] (float32) and the sample rate of a PCM WAV file."""
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise _bad(f"expected a RIFF/WAVE header, got {bytes(data[:12])!r}")
    fmt = None
    pos = 12
    while pos + 8 <= len(data):
        kind, size = struct.unpack_from("<4sI", data, pos)
        body = data[pos + 8:pos + 8 + size]
        if len(body) < size:
            raise _bad(f"the '{kind.decode('latin-1')}' chunk claims {size} bytes; {len(body)} are left")
        if kind == b"fmt ":
            if size < 16:
                raise _bad(f"the format chunk has {size} bytes; at least 16 expected")
            fmt = struct.unpack_from("<HHIIHH", body)
        elif kind == b"data":
            if fmt is None:
                raise _bad("the data chunk comes before the format chunk")
            encoding, channels, rate, _, _, bits = fmt
            if encoding != 1 or bits != 16:
                raise _bad(f"only 16-bit PCM is decoded; this file has format {encoding} with {bits}-bit samples")
            if channels < 1:
                raise _bad("the file has no channels")
            pcm = np.frombuffer(body[:len(body) - len(body) % (2 * channels)], "<i2")
            return (pcm.reshape(-1, channels) / _SCALE).astype(np.float32), rate
        pos += 8 + size + (size & 1)  # (chunks are padded to even lengths)
    raise _bad("no data chunk found" if fmt is not None else "no format chunk found")


def _decode_wav_shape(op):
    samples, channels = op._attr("desired_samples"), op._attr("desired_channels")
    return [TensorShape([samples if samples >= 0 else None, channels if channels >= 0 else None]), TensorShape([])]


@register_op("DecodeWav", list_output=True, shape=_decode_wav_shape, dtype=lambda op: [dtypes.float32, dtypes.int32])
def _decode_wav_kernel(xp, contents, *, desired_channels, desired_samples):
    contents = np.asarray(contents, dtype=object)
    if contents.shape != ():
        raise _bad(f"contents must be a scalar string, got shape {list(contents.shape)}")
    audio, rate = _parse_wav(bytes(contents[()]))
    if desired_channels >= 0:
        # (more channels than the file has repeat its last one; fewer drop the rest)
        audio = audio[:, np.minimum(np.arange(desired_channels), audio.shape[1] - 1)]
    if desired_samples >= 0:
        audio = np.pad(audio[:desired_samples], [(0, max(0, desired_samples - len(audio))), (0, 0)])
    return audio, np.int32(rate)


@register_op("EncodeWav", shape=lambda op: TensorShape([]), dtype=lambda op: dtypes.string)
def _encode_wav_kernel(xp, audio, sample_rate):
    audio = np.asarray(audio)
    if audio.ndim != 2:
        raise errors.InvalidArgumentError(None, None, f"EncodeWav: audio must be [samples, channels], got shape "
                                          f"{list(audio.shape)}")
    rate = np.asarray(sample_rate)
    if rate.shape != () or not 0 < int(rate) < 2 ** 31:
        raise errors.InvalidArgumentError(None, None, f"EncodeWav: sample_rate must be a positive scalar, got {rate}")
    return np.asarray(wav_bytes(audio, int(rate)), dtype=object)


not_differentiable("DecodeWav")
not_differentiable("EncodeWav")


def decode_wav(contents, desired_channels=-1, desired_samples=-1, name=None):
    """The samples of a 16-bit PCM WAV file as float32 [samples, channels] in [-1, 1), and
    its sample rate. ``desired_channels``/``desired_samples`` (when not -1) fix the shape:
    channels repeat the file's last one or are dropped, samples are cut or padded with zeros."""
    contents = ops.convert_to_tensor(contents, dtype=dtypes.string)
    op = make_op("DecodeWav", [contents], {"desired_channels": int(desired_channels),
                                           "desired_samples": int(desired_samples)}, name or "DecodeWav")
    return op.outputs[0], op.outputs[1]


def encode_wav(audio, sample_rate, name=None):
    """float32 samples [samples, channels] (in [-1, 1]) as the bytes of a 16-bit PCM WAV file."""
    audio = ops.convert_to_tensor(audio, dtype=dtypes.float32)
    sample_rate = ops.convert_to_tensor(sample_rate, dtype=dtypes.int32)
    return make_op("EncodeWav", [audio, sample_rate], {}, name or "EncodeWav").outputs[0]
