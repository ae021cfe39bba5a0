"""``tf.spectral``: the discrete Fourier transforms (TF 1.x's older home of ``tf.signal``)."""

from ._namespace import missing
from .ops.complex_ops import fft, fft2d, fft3d, ifft, ifft2d, ifft3d  # noqa: F401

from .ops.signal_ops import dct, idct, irfft, rfft  # noqa: F401

from .ops.signal_ops import irfft2d, irfft3d, rfft2d, rfft3d  # noqa: F401

__getattr__ = missing("tf.spectral")
