"""Keras's pickled data sets read without running what a pickle names.

IMDB and Reuters are ``.npz`` files whose sequences are NumPy object arrays (pickled
lists of word indices), and CIFAR's batches are pickled dictionaries of a uint8 array and
a list of labels. A pickle can name any function for the loader to call; this one builds
only what those files hold: NumPy arrays and dtypes, lists, tuples, dicts, numbers, strings
and bytes. A pickle that names anything else is refused with an error naming it, before
anything it names is looked up.
"""

from __future__ import annotations

import codecs
import io
import pickle
import zipfile

import numpy as np

try:  # (NumPy 2 keeps its internals under numpy._core)
    from numpy._core import multiarray as _multiarray
except ImportError:  # pragma: no cover (NumPy 1)
    from numpy.core import multiarray as _multiarray


class RefusedPickle(pickle.UnpicklingError):
    """A data set's pickle named something this loader does not build."""


def _latin1_bytes(text, encoding="latin1"):
    """``_codecs.encode`` as Python 3 pickles bytes for protocol 2: latin-1 only."""
    if codecs.lookup(encoding).name != "iso8859-1":
        raise RefusedPickle(f"a pickle asked for bytes in {encoding!r}; only latin-1 is read")
    return text.encode("latin1")


def _from_buffer(buffer, dtype, shape, order):
    """``numpy._core.numeric._frombuffer``: an array over the bytes of a pickle (protocol 5)."""
    if np.dtype(dtype).hasobject:
        raise RefusedPickle("a pickled buffer of Python objects")
    return np.frombuffer(buffer, dtype=dtype).reshape(shape, order=order)


_ALLOWED = {}
for _module in ("numpy.core.multiarray", "numpy._core.multiarray"):
    _ALLOWED[(_module, "_reconstruct")] = _multiarray._reconstruct
    _ALLOWED[(_module, "scalar")] = _multiarray.scalar
for _module in ("numpy.core.numeric", "numpy._core.numeric"):
    _ALLOWED[(_module, "_frombuffer")] = _from_buffer
_ALLOWED[("numpy", "ndarray")] = np.ndarray
_ALLOWED[("numpy", "dtype")] = np.dtype
_ALLOWED[("_codecs", "encode")] = _latin1_bytes


class _ArraysOnly(pickle.Unpickler):
    def __init__(self, file, what):
        super().__init__(file, encoding="bytes")  # (Python 2's str as bytes, as Keras reads CIFAR)
        self._what = what

    def find_class(self, module, name):
        if (module, name) in _ALLOWED:
            return _ALLOWED[(module, name)]
        raise RefusedPickle(
            f"{self._what}: the pickle names {module}.{name}; distflow reads only NumPy arrays, lists, dicts, "
            "numbers and strings from a data set's pickle, and calls nothing else a file names")

    def persistent_load(self, pid):
        raise RefusedPickle(f"{self._what}: the pickle refers to an object outside it ({pid!r})")


def load_pickle(data: bytes, what: str):
    """The object a data set's pickle holds (``what`` names the file in errors)."""
    try:
        return _ArraysOnly(io.BytesIO(data), what).load()
    except RefusedPickle:
        raise
    except Exception as e:
        raise ValueError(f"{what} is not a pickle of a data set ({type(e).__name__}: {e})") from None


def load_npz(path: str) -> dict:
    """The arrays of an ``.npz`` file, object arrays (pickled) included, as ``np.load`` with
    ``allow_pickle=True`` gives them, but through :func:`load_pickle`."""
    out = {}
    with zipfile.ZipFile(path) as z:
        for member in z.namelist():
            if not member.endswith(".npy"):
                continue
            raw = io.BytesIO(z.read(member))
            version = np.lib.format.read_magic(raw)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(raw)
            else:
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(raw)
            what = f"{path}:{member}"
            if dtype.hasobject:
                value = load_pickle(raw.read(), what)
                if not isinstance(value, np.ndarray) or value.shape != tuple(shape):
                    raise ValueError(f"{what}: the header says an array of shape {tuple(shape)}; the pickle holds "
                                     f"{type(value).__name__} {getattr(value, 'shape', '')}")
            else:
                raw.seek(0)
                value = np.lib.format.read_array(raw, allow_pickle=False)
            out[member[:-len(".npy")]] = value
    return out
