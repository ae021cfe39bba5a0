"""Complex numbers and discrete Fourier transforms.

Gradients follow TensorFlow's convention for a real loss L of complex z = x + iy: the
gradient passed back is dL/dx + i dL/dy, so ``Real`` sends g back as g + 0i, ``Imag`` as 0 + gi,
a product uses the conjugate of the other factor, and the FFT's gradient is the unnormalised
inverse transform of g (``ifft(g) * n``).
"""

from __future__ import annotations

import numpy as np

from ..framework import dtypes, ops
from ..framework.registry import register_gradient, register_op
from .array_ops import shape, unbroadcast, zeros_like
from .math_ops import cast
from .op_util import binary_shape, make_tensor
from .reduction_ops import reduce_prod
from .special_math_ops import div_no_nan

_REAL_OF = {dtypes.complex64: dtypes.float32, dtypes.complex128: dtypes.float64}
_COMPLEX_OF = {dtypes.float32: dtypes.complex64, dtypes.float64: dtypes.complex128}


def _complex_input(op_type, x):
    x = ops.convert_to_tensor(x)
    if not x.dtype.base_dtype.is_complex:
        raise TypeError(f"'{op_type}' needs a complex64 or complex128 input, got {x.dtype.name}")
    return x


def _same_shape(op):
    return op.inputs[0].shape


def _real_dtype(op):
    return _REAL_OF[op.inputs[0].dtype.base_dtype]


@register_op("Complex", shape=binary_shape, dtype=lambda op: op._attr("Tout"))  # (broadcast, as TF's)
def _complex_kernel(xp, real, imag, *, Tout):  # noqa: N803
    return (real + 1j * imag).astype(Tout.as_numpy_dtype)


@register_op("Real", shape=_same_shape, dtype=_real_dtype)
def _real_kernel(xp, x):
    return np.array(x.real)  # (a copy of its own; ascontiguousarray would make a scalar 1-D)


@register_op("Imag", shape=_same_shape, dtype=_real_dtype)
def _imag_kernel(xp, x):
    return np.array(x.imag)


@register_op("Conj", shape=_same_shape)
def _conj_kernel(xp, x):
    return np.conj(x)


@register_op("Angle", shape=_same_shape, dtype=_real_dtype)
def _angle_kernel(xp, x):
    return np.angle(x).astype(x.real.dtype)


@register_gradient("Complex")
def _complex_grad(op, grad):
    real, imag = op.inputs
    return unbroadcast(real_part(grad), real), unbroadcast(imag_part(grad), imag)


@register_gradient("Real")
def _real_grad(op, grad):
    return (complex_(grad, ops.convert_to_tensor(np.zeros((), grad.dtype.base_dtype.as_numpy_dtype))),)


@register_gradient("Imag")
def _imag_grad(op, grad):
    return (complex_(ops.convert_to_tensor(np.zeros((), grad.dtype.base_dtype.as_numpy_dtype)), grad),)


@register_gradient("Conj")
def _conj_grad(op, grad):
    return (conj(grad),)


@register_gradient("ComplexAbs")
def _complex_abs_grad(op, grad):
    # grad * x / |x| (0 where x is 0)
    x, magnitude = op.inputs[0], op.outputs[0]
    return (complex_(grad * div_no_nan(real_part(x), magnitude), grad * div_no_nan(imag_part(x), magnitude)),)


@register_gradient("Angle")
def _angle_grad(op, grad):
    # d angle / dx = -y / |z|^2, d angle / dy = x / |z|^2, sent back as (dx + i dy) * grad
    re, im = real_part(op.inputs[0]), imag_part(op.inputs[0])
    norm = re * re + im * im
    return (complex_(div_no_nan(-im, norm) * grad, div_no_nan(re, norm) * grad),)


def complex_(real, imag, name=None):
    """real + i * imag: complex64 from float32 parts, complex128 from float64."""
    real = ops.convert_to_tensor(real)
    imag = ops.convert_to_tensor(imag, dtype=real.dtype.base_dtype)
    if real.dtype.base_dtype not in _COMPLEX_OF:
        raise TypeError(f"tf.complex needs float32 or float64 parts, got {real.dtype.name}")
    return make_tensor("Complex", [real, imag], {"Tout": _COMPLEX_OF[real.dtype.base_dtype]}, name or "Complex")


def real_part(input, name=None):  # noqa: A002
    """The real part (a real tensor is returned as it is)."""
    x = ops.convert_to_tensor(input)
    if not x.dtype.base_dtype.is_complex:
        return x
    return make_tensor("Real", [x], None, name or "Real")


def imag_part(input, name=None):  # noqa: A002
    """The imaginary part (zeros for a real tensor)."""
    x = ops.convert_to_tensor(input)
    if not x.dtype.base_dtype.is_complex:
        return zeros_like(x)
    return make_tensor("Imag", [x], None, name or "Imag")


def conj(x, name=None):
    """The complex conjugate (a real tensor is returned as it is)."""
    x = ops.convert_to_tensor(x)
    if not x.dtype.base_dtype.is_complex:
        if not (x.dtype.base_dtype.is_floating or x.dtype.base_dtype.is_integer):
            raise TypeError(f"Expected numeric or variant tensor, got dtype {x.dtype.base_dtype.name} "
                            f"('{x.name}')")
        return x
    return make_tensor("Conj", [x], None, name or "Conj")


def angle(input, name=None):  # noqa: A002
    """The argument atan2(imag, real) (0 or pi for a real tensor, as numpy.angle)."""
    x = ops.convert_to_tensor(input)
    if not x.dtype.base_dtype.is_complex:
        x = complex_(x, ops.convert_to_tensor(np.zeros((), x.dtype.base_dtype.as_numpy_dtype)))
    return make_tensor("Angle", [x], None, name or "Angle")


def to_complex64(x, name="ToComplex64"):
    return cast(x, dtypes.complex64, name=name)


def to_complex128(x, name="ToComplex128"):
    return cast(x, dtypes.complex128, name=name)


# ---------------------------------------------------------------------------
# Fourier transforms over the innermost 1, 2 or 3 dimensions

_FFTS = {"FFT": (np.fft.fftn, 1), "IFFT": (np.fft.ifftn, 1), "FFT2D": (np.fft.fftn, 2), "IFFT2D": (np.fft.ifftn, 2),
         "FFT3D": (np.fft.fftn, 3), "IFFT3D": (np.fft.ifftn, 3)}


def _register_fft(op_type, fn, rank):
    @register_op(op_type, shape=_same_shape)
    def kernel(xp, x):
        return fn(x, axes=tuple(range(-rank, 0))).astype(x.dtype)

    inverse = op_type[1:] if op_type.startswith("I") else "I" + op_type

    @register_gradient(op_type)
    def grad_fn(op, grad):
        n = cast(reduce_prod(shape(grad)[-rank:]), grad.dtype.base_dtype)
        back = make_tensor(inverse, [grad])
        return (back * n if not op_type.startswith("I") else back / n,)

    return kernel, grad_fn


for _op_type, (_fn, _rank) in _FFTS.items():
    _register_fft(_op_type, _fn, _rank)


def _fft(op_type, x, name):
    x = _complex_input(op_type, x)
    rank = _FFTS[op_type][1]
    if x.shape.ndims is not None and x.shape.ndims < rank:
        raise ValueError(f"'{op_type}' needs an input of rank >= {rank}, got shape {x.shape}")
    return make_tensor(op_type, [x], None, name or op_type)


def fft(input, name=None):  # noqa: A002
    """The discrete Fourier transform of the innermost dimension."""
    return _fft("FFT", input, name)


def ifft(input, name=None):  # noqa: A002
    return _fft("IFFT", input, name)


def fft2d(input, name=None):  # noqa: A002
    """The 2-D discrete Fourier transform of the innermost two dimensions."""
    return _fft("FFT2D", input, name)


def ifft2d(input, name=None):  # noqa: A002
    return _fft("IFFT2D", input, name)


def fft3d(input, name=None):  # noqa: A002
    return _fft("FFT3D", input, name)


def ifft3d(input, name=None):  # noqa: A002
    return _fft("IFFT3D", input, name)
