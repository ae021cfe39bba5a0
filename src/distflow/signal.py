"""``tf.signal``: the discrete Fourier transforms, and the audio features built on them
(ops/signal_ops.py)."""

from ._namespace import missing
from .ops.complex_ops import fft, fft2d, fft3d, ifft, ifft2d, ifft3d  # noqa: F401

from .ops.signal_ops import (dct, fftshift, frame, hamming_window, hann_window, idct, ifftshift,  # noqa: F401
                             inverse_stft, inverse_stft_window_fn, irfft, linear_to_mel_weight_matrix,
                             mfccs_from_log_mel_spectrograms, overlap_and_add, rfft, stft)

from .ops.signal_ops import irfft2d, irfft3d, rfft2d, rfft3d  # noqa: F401

__getattr__ = missing("tf.signal")
