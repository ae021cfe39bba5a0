"""``tf.keras.datasets``: the classic data sets, read from Keras's cache (``~/.keras/datasets``,
or ``$KERAS_HOME/datasets``) where an earlier Keras or TensorFlow install downloaded them.

distflow never reaches the network: a file that is not in the cache is an error that says
where to put it (the URL Keras downloads it from, and the path it is read from). Only the
data sets stored as plain arrays are read (MNIST, Fashion-MNIST, Boston housing); IMDB,
Reuters and CIFAR are pickled objects, which distflow does not unpickle.
"""

from __future__ import annotations

import gzip
import os

import numpy as np

_BASE = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"


def cache_path(fname: str, cache_subdir: str = "datasets") -> str:
    root = os.environ.get("KERAS_HOME") or os.path.join(os.path.expanduser("~"), ".keras")
    return os.path.join(root, cache_subdir, fname)


def _cached(fname: str, path: str | None = None, origin: str | None = None) -> str:
    where = os.path.expanduser(path) if path and os.path.isabs(os.path.expanduser(path)) else \
        cache_path(path or fname)
    if not os.path.exists(where):
        raise FileNotFoundError(
            f"{fname} is not in Keras's cache ({where}), and distflow does not download: fetch "
            f"{origin or _BASE + fname} and save it there (or pass path= to its location)")
    return where


def _load_npz(fname, path, keys=("x_train", "y_train", "x_test", "y_test")):
    with np.load(_cached(fname, path), allow_pickle=False) as f:
        x_train, y_train, x_test, y_test = (f[k] for k in keys)
    return (x_train, y_train), (x_test, y_test)


class _Module:
    """A namespace of one data set's ``load_data`` (``tf.keras.datasets.mnist.load_data()``)."""

    def __init__(self, name, load_data, **extra):
        self.__name__ = f"tf.keras.datasets.{name}"
        self.load_data = load_data
        for key, value in extra.items():
            setattr(self, key, value)


def _mnist(path="mnist.npz"):
    """60,000 training and 10,000 test images of 28x28 digits, uint8, with uint8 labels."""
    return _load_npz("mnist.npz", path)


def _boston(path="boston_housing.npz", test_split=0.2, seed=113):
    with np.load(_cached("boston_housing.npz", path), allow_pickle=False) as f:
        x, y = f["x"], f["y"]
    order = np.random.RandomState(seed).permutation(len(x))
    x, y = x[order], y[order]
    cut = int(len(x) * (1 - test_split))
    return (x[:cut], y[:cut]), (x[cut:], y[cut:])


def _fashion(path=None):
    """Zalando's Fashion-MNIST from its four gzipped IDX files (Keras's cache: datasets/fashion-mnist/)."""
    base = "fashion-mnist"
    files = ["train-labels-idx1-ubyte.gz", "train-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz",
             "t10k-images-idx3-ubyte.gz"]
    found = [_cached(f, os.path.join(path or base, f), _BASE + "fashion-mnist/" + f) for f in files]

    def read(name, offset):
        with gzip.open(name, "rb") as g:
            return np.frombuffer(g.read(), np.uint8, offset=offset)

    y_train, y_test = read(found[0], 8), read(found[2], 8)
    x_train = read(found[1], 16).reshape(len(y_train), 28, 28)
    x_test = read(found[3], 16).reshape(len(y_test), 28, 28)
    return (x_train, y_train), (x_test, y_test)


mnist = _Module("mnist", _mnist)
fashion_mnist = _Module("fashion_mnist", _fashion)
boston_housing = _Module("boston_housing", _boston)
