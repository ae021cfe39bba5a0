"""``tf.signal``: the discrete Fourier transforms."""

from ._namespace import missing
from .ops.complex_ops import fft, fft2d, fft3d, ifft, ifft2d, ifft3d  # noqa: F401

__getattr__ = missing("tf.signal")
