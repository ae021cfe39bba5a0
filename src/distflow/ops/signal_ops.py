"""``tf.signal``'s audio features: real FFTs, windows, framing, the short-time Fourier
transform and its inverse, mel filterbanks, DCTs and MFCCs, as TF 1.13-1.15 computes them.

Everything is built from graph ops (FFT, gathers, segment sums, matrix products), so the
gradients are those ops'. The DCT is a product with its cosine matrix (the signal's length
must be known when the graph is built).
"""

from __future__ import annotations

import math

import numpy as np

from ..framework import dtypes, ops
from . import array_ops, complex_ops, manip_ops, math_ops, segment_ops, slicing_ops


def _length(x, axis=-1):
    x = ops.convert_to_tensor(x)
    static = x.shape[axis].value if x.shape.ndims is not None else None
    return static


def rfft(input_tensor, fft_length=None, name=None):
    """The FFT of a real signal's last axis (padded or cut to ``fft_length``): its
    ``fft_length // 2 + 1`` non-negative frequencies."""
    x = ops.convert_to_tensor(input_tensor)
    n = int(fft_length[0]) if fft_length is not None else _length(x)
    if n is None:
        raise ValueError("rfft needs fft_length, or a signal whose last dimension is known")
    have = _length(x)
    if have is not None and have != n:
        x = x[..., :n] if have > n else array_ops.pad(x, [[0, 0]] * (x.shape.ndims - 1) + [[0, n - have]])
    complex_dtype = dtypes.complex128 if x.dtype.base_dtype == dtypes.float64 else dtypes.complex64
    spectrum = complex_ops.fft(math_ops.cast(x, complex_dtype))
    return spectrum[..., :n // 2 + 1]


def irfft(input_tensor, fft_length=None, name=None):
    """The real signal (``fft_length`` samples) whose ``rfft`` is ``input_tensor``."""
    spectrum = ops.convert_to_tensor(input_tensor)
    bins = _length(spectrum)
    n = int(fft_length[0]) if fft_length is not None else 2 * (bins - 1)
    if bins is None:
        raise ValueError("irfft needs the last dimension of its input known")
    kept = spectrum[..., :n // 2 + 1]
    if bins < n // 2 + 1:
        kept = array_ops.pad(kept, [[0, 0]] * (spectrum.shape.ndims - 1) + [[0, n // 2 + 1 - bins]])
    mirrored = manip_ops.reverse(complex_ops.conj(kept[..., 1:(n + 1) // 2]), [-1])
    full = slicing_ops.concat([kept, mirrored], -1)
    real_dtype = dtypes.float64 if spectrum.dtype.base_dtype == dtypes.complex128 else dtypes.float32
    return math_ops.cast(complex_ops.real_part(complex_ops.ifft(full)), real_dtype)


def _fitted(x, axis: int, n: int):
    """``x`` cut or zero-padded to ``n`` entries along ``axis`` (negative)."""
    have = _length(x, axis)
    if have is None:
        raise ValueError(f"the FFT needs dimension {axis} of its input known, got shape {x.shape}")
    if have > n:
        return slicing_ops.slice(x, [0] * x.shape.ndims, [-1] * (x.shape.ndims + axis) + [n] + [-1] * (-axis - 1))
    if have < n:
        pads = [[0, 0] for _ in range(x.shape.ndims)]
        pads[axis] = [0, n - have]
        return array_ops.pad(x, pads)
    return x


def _along(transform, x, axis: int):
    """A last-axis transform (fft, ifft) applied along ``axis`` (negative) instead."""
    if axis == -1:
        return transform(x)
    rank = x.shape.ndims
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    return array_ops.transpose(transform(array_ops.transpose(x, perm)), perm)


def _lengths(x, fft_length, k: int, what: str):
    x = ops.convert_to_tensor(x)
    if x.shape.ndims is None or x.shape.ndims < k:
        raise ValueError(f"{what} needs an input of known rank at least {k}, got shape {x.shape}")
    if fft_length is None:
        return x, [_length(x, a) for a in range(-k, 0)]
    lengths = [int(n) for n in np.reshape(fft_length, [-1])]
    if len(lengths) != k:
        raise ValueError(f"{what}: fft_length must have {k} entries, got {lengths}")
    return x, lengths


def _rfftn(input_tensor, fft_length, k: int, what: str):
    x, lengths = _lengths(input_tensor, fft_length, k, what)
    for axis, n in zip(range(-k, -1), lengths[:-1]):
        x = _fitted(x, axis, n)
    spectrum = rfft(x, lengths[-1:])
    for axis in range(-2, -k - 1, -1):
        spectrum = _along(complex_ops.fft, spectrum, axis)
    return spectrum


def _irfftn(input_tensor, fft_length, k: int, what: str):
    spectrum, lengths = _lengths(input_tensor, fft_length, k, what)
    if fft_length is None:
        lengths[-1] = 2 * (lengths[-1] - 1)
    for axis, n in zip(range(-k, -1), lengths[:-1]):
        spectrum = _along(complex_ops.ifft, _fitted(spectrum, axis, n), axis)
    return irfft(spectrum, lengths[-1:])


def rfft2d(input_tensor, fft_length=None, name=None):
    """The 2-D FFT of a real signal's last two axes: the last one's non-negative frequencies."""
    return _rfftn(input_tensor, fft_length, 2, "rfft2d")


def rfft3d(input_tensor, fft_length=None, name=None):
    return _rfftn(input_tensor, fft_length, 3, "rfft3d")


def irfft2d(input_tensor, fft_length=None, name=None):
    """The real signal whose ``rfft2d`` is ``input_tensor`` (``fft_length``: its last two dimensions)."""
    return _irfftn(input_tensor, fft_length, 2, "irfft2d")


def irfft3d(input_tensor, fft_length=None, name=None):
    return _irfftn(input_tensor, fft_length, 3, "irfft3d")


def _raised_cosine(window_length, periodic, dtype, a, b):
    length = int(window_length)
    if length == 1:
        return array_ops.ones([1], dtype=dtype)
    denominator = length if periodic else length - 1
    values = a - b * np.cos(2.0 * math.pi * np.arange(length) / denominator)
    return array_ops.constant(values.astype(dtypes.as_dtype(dtype).as_numpy_dtype))


def hann_window(window_length, periodic=True, dtype=dtypes.float32, name=None):
    return _raised_cosine(window_length, periodic, dtype, 0.5, 0.5)


def hamming_window(window_length, periodic=True, dtype=dtypes.float32, name=None):
    return _raised_cosine(window_length, periodic, dtype, 0.54, 0.46)


def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
    """The overlapping frames of ``signal`` along ``axis``: [..., frames, frame_length, ...]."""
    signal = ops.convert_to_tensor(signal)
    rank = signal.shape.ndims
    axis = axis % rank
    length = signal.shape[axis].value
    if length is None:
        raise ValueError("frame needs the length of the framed axis known")
    frame_length, frame_step = int(frame_length), int(frame_step)
    if pad_end:
        frames = -(-length // frame_step)
        padded = (frames - 1) * frame_step + frame_length
        if padded > length:
            pads = [[0, 0]] * rank
            pads[axis] = [0, padded - length]
            signal = array_ops.pad(signal, pads, constant_values=pad_value)
    else:
        frames = max(0, 1 + (length - frame_length) // frame_step)
    index = np.arange(frame_length)[None, :] + frame_step * np.arange(frames)[:, None]
    return slicing_ops.gather(signal, array_ops.constant(index.astype(np.int32)), axis=axis)


def overlap_and_add(signal, frame_step, name=None):
    """Frames ([..., frames, frame_length]) added back together, ``frame_step`` apart."""
    signal = ops.convert_to_tensor(signal)
    rank = signal.shape.ndims
    frames, frame_length = signal.shape[-2].value, signal.shape[-1].value
    if frames is None or frame_length is None:
        raise ValueError("overlap_and_add needs the number and length of the frames known")
    step = int(frame_step)
    positions = (np.arange(frame_length)[None, :] + step * np.arange(frames)[:, None]).reshape(-1)
    flat = array_ops.reshape(signal, slicing_ops.concat([array_ops.shape(signal)[:-2], [frames * frame_length]], 0))
    moved = array_ops.transpose(flat, [rank - 2] + list(range(rank - 2)))
    summed = segment_ops.unsorted_segment_sum(moved, array_ops.constant(positions.astype(np.int32)),
                                              (frames - 1) * step + frame_length)
    return array_ops.transpose(summed, list(range(1, rank - 1)) + [0])


def _fft_length(frame_length):
    return 2 ** int(math.ceil(math.log2(frame_length)))


def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window, pad_end=False, name=None):
    """The short-time Fourier transform: each frame, windowed, through ``rfft``
    ([..., frames, fft_length // 2 + 1])."""
    signals = ops.convert_to_tensor(signals)
    fft_length = int(fft_length) if fft_length is not None else _fft_length(int(frame_length))
    framed = frame(signals, frame_length, frame_step, pad_end=pad_end)
    if window_fn is not None:
        framed = framed * window_fn(int(frame_length), dtype=signals.dtype.base_dtype)
    return rfft(framed, [fft_length])


def inverse_stft(stfts, frame_length, frame_step, fft_length=None, window_fn=hann_window, name=None):
    """The signal back from ``stft`` (with ``inverse_stft_window_fn`` as ``window_fn`` for
    a perfect reconstruction)."""
    fft_length = int(fft_length) if fft_length is not None else _fft_length(int(frame_length))
    frames = irfft(stfts, [fft_length])[..., :int(frame_length)]
    if window_fn is not None:
        frames = frames * window_fn(int(frame_length), dtype=frames.dtype.base_dtype)
    return overlap_and_add(frames, frame_step)


def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """The window that makes ``inverse_stft`` undo ``stft`` with ``forward_window_fn``."""
    def window_fn(frame_length, dtype):
        forward = np.asarray(_constant_of(forward_window_fn(frame_length, dtype=dtype)), np.float64)
        step = int(frame_step)
        overlaps = -(-frame_length // step)
        squares = np.pad(forward ** 2, [0, overlaps * step - frame_length]).reshape(overlaps, step)
        denominator = np.tile(squares.sum(0), overlaps)[:frame_length]
        return array_ops.constant((forward / denominator).astype(dtypes.as_dtype(dtype).as_numpy_dtype))

    return window_fn


def _constant_of(t):
    from .op_util import constant_value  # noqa: PLC0415

    value = constant_value(t)
    if value is None:
        raise ValueError("inverse_stft_window_fn needs a window of constants")
    return value


def _hertz_to_mel(frequencies):
    return 1127.0 * np.log(1.0 + np.asarray(frequencies, np.float64) / 700.0)


def linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129, sample_rate=8000, lower_edge_hertz=125.0,
                                upper_edge_hertz=3800.0, dtype=dtypes.float32, name=None):
    """[num_spectrogram_bins, num_mel_bins]: each mel band's triangle over the linear bins (HTK
    mel scale; the zero-frequency bin weighs nothing), as TF's."""
    if num_mel_bins <= 0 or lower_edge_hertz < 0 or lower_edge_hertz >= upper_edge_hertz or \
            upper_edge_hertz > sample_rate / 2:
        raise ValueError(f"linear_to_mel_weight_matrix: need num_mel_bins > 0 and 0 <= lower_edge_hertz < "
                         f"upper_edge_hertz <= sample_rate / 2, got {num_mel_bins}, {lower_edge_hertz}, "
                         f"{upper_edge_hertz}, {sample_rate}")
    linear = np.linspace(0.0, sample_rate / 2.0, num_spectrogram_bins)[1:]
    bins = _hertz_to_mel(linear)[:, None]
    edges = np.linspace(_hertz_to_mel(lower_edge_hertz), _hertz_to_mel(upper_edge_hertz), num_mel_bins + 2)
    lower, center, upper = edges[:-2][None], edges[1:-1][None], edges[2:][None]
    weights = np.maximum(0.0, np.minimum((bins - lower) / (center - lower), (upper - bins) / (upper - center)))
    weights = np.concatenate([np.zeros((1, num_mel_bins)), weights], 0)
    return array_ops.constant(weights.astype(dtypes.as_dtype(dtype).as_numpy_dtype))


def _dct_matrix(n: int, kind: int, norm) -> np.ndarray:
    """M with dct(x) = x @ M, for a signal of length n."""
    k, j = np.meshgrid(np.arange(n), np.arange(n))  # (j: the input index, k: the output's)
    if kind == 2:
        m = 2.0 * np.cos(math.pi * k * (2 * j + 1) / (2.0 * n))
        if norm == "ortho":
            m[:, 0] *= math.sqrt(1.0 / (4 * n))
            m[:, 1:] *= math.sqrt(1.0 / (2 * n))
        return m
    if kind == 3:
        m = 2.0 * np.cos(math.pi * j * (2 * k + 1) / (2.0 * n))
        m[0, :] = 1.0
        if norm == "ortho":
            m[0, :] *= math.sqrt(1.0 / n)
            m[1:, :] *= math.sqrt(1.0 / (2 * n))
        return m
    m = 2.0 * np.cos(math.pi * j * k / (n - 1))  # (type 1)
    m[0, :] = 1.0
    m[-1, :] = np.where(k[-1] % 2 == 0, 1.0, -1.0)
    return m


def dct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002 - TF's names
    """The discrete cosine transform (types 1, 2, 3; ``norm`` None or "ortho") of the last axis."""
    x = ops.convert_to_tensor(input)
    if axis not in (-1, x.shape.ndims - 1) or n is not None:
        raise ValueError("dct: only the last axis, whole (n=None), is supported")
    if type not in (1, 2, 3) or (type == 1 and norm is not None) or norm not in (None, "ortho"):
        raise ValueError(f"dct: type must be 1, 2 or 3 (1 without norm), norm None or 'ortho'; got {type}, {norm}")
    length = _length(x)
    if length is None:
        raise ValueError("dct needs the length of the last axis known")
    matrix = array_ops.constant(_dct_matrix(length, type, norm).astype(x.dtype.base_dtype.as_numpy_dtype))
    return segment_ops.tensordot(x, matrix, [[x.shape.ndims - 1], [0]])


def idct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002
    """The inverse (up to 2 * length without ``norm``) of ``dct`` of that type."""
    return dct(input, {1: 1, 2: 3, 3: 2}[type], n, axis, norm, name)


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None):
    """The mel-frequency cepstral coefficients: the orthonormal-scaled DCT-II of each frame."""
    x = ops.convert_to_tensor(log_mel_spectrograms)
    bins = _length(x)
    return dct(x, type=2) * math_ops.rsqrt(ops.convert_to_tensor(bins * 2.0, dtype=x.dtype.base_dtype))


def fftshift(x, axes=None, name=None):
    x = ops.convert_to_tensor(x)
    axes = list(range(x.shape.ndims)) if axes is None else ([axes] if isinstance(axes, int) else list(axes))
    shifts = [x.shape[a].value // 2 for a in axes]
    return manip_ops.roll(x, shifts, axes)


def ifftshift(x, axes=None, name=None):
    x = ops.convert_to_tensor(x)
    axes = list(range(x.shape.ndims)) if axes is None else ([axes] if isinstance(axes, int) else list(axes))
    shifts = [-(x.shape[a].value // 2) for a in axes]
    return manip_ops.roll(x, shifts, axes)
