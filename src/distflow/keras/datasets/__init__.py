"""``tf.keras.datasets``: the classic data sets, read from Keras's cache (``~/.keras/datasets``,
or ``$KERAS_HOME/datasets``) where an earlier Keras or TensorFlow install downloaded them.

distflow never reaches the network: a file that is not in the cache is an error that says
where to put it (the URL Keras downloads it from, and the path it is read from). MNIST,
Fashion-MNIST and Boston housing are plain arrays. IMDB, Reuters and CIFAR are pickles,
read by a loader that builds nothing but arrays, lists, dicts, numbers and strings
(``pickled.py``): a file that names anything else to call is refused. CIFAR is read from the
directory Keras extracted, or from its ``.tar.gz`` where only that is in the cache.

IMDB and Reuters follow TF 2's Keras where TF 1.x's was wrong: ``maxlen`` drops long
sequences from each split on its own (TF 1.x filtered the two together and then cut at the
training set's old length, so that test reviews moved into the training set), and the
shuffle does not reseed NumPy's global generator. The shuffles are TF 1.x's (the same
``seed`` gives the same order).
"""

from __future__ import annotations

import gzip
import json
import os
import tarfile

import numpy as np

from . import pickled

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


def _remove_long_seq(maxlen, seqs, labels):
    kept = [(x, y) for x, y in zip(seqs, labels) if len(x) < maxlen]
    return [x for x, _ in kept], [y for _, y in kept]


def _words(xs, labels, maxlen, start_char, index_from):
    """Keras's first steps for IMDB and Reuters, on lists of word indices: the start mark,
    the index offset and the length filter (the vocabulary is cut after, over all splits)."""
    if start_char is not None:
        xs = [[start_char] + [w + index_from for w in x] for x in xs]
    else:  # (Keras left the array of lists here, which its `x_train + x_test` then refused)
        xs = [[w + index_from for w in x] for x in xs]
    labels = list(labels)
    if maxlen:
        xs, labels = _remove_long_seq(maxlen, xs, labels)
    return xs, labels


def _cut_vocabulary(xs, num_words, skip_top, oov_char):
    if not num_words:
        num_words = max(max(x) for x in xs if len(x))
    if oov_char is not None:
        return [[w if skip_top <= w < num_words else oov_char for w in x] for x in xs]
    return [[w for w in x if skip_top <= w < num_words] for x in xs]


def _sequences(values):
    out = np.empty(len(values), dtype=object)
    out[:] = [list(v) for v in values]
    return out


def _imdb(path="imdb.npz", num_words=None, skip_top=0, maxlen=None, seed=113, start_char=1, oov_char=2,
          index_from=3, **kwargs):
    """25,000 training and 25,000 test movie reviews as lists of word indices (most frequent
    word first), labelled 1 (positive) or 0; Keras's ``imdb.load_data``."""
    if "nb_words" in kwargs:
        num_words = kwargs.pop("nb_words")
    if kwargs:
        raise TypeError(f"Unrecognized keyword arguments: {kwargs}")
    f = pickled.load_npz(_cached("imdb.npz", path))
    rng = np.random.RandomState(seed)
    splits = []
    for x_key, y_key in (("x_train", "y_train"), ("x_test", "y_test")):
        order = np.arange(len(f[x_key]))
        rng.shuffle(order)
        splits.append(_words(f[x_key][order], f[y_key][order], maxlen, start_char, index_from))
    (x_train, y_train), (x_test, y_test) = splits
    if maxlen and (not x_train or not x_test):
        raise ValueError(f"After filtering for sequences shorter than maxlen={maxlen}, no sequence was kept. "
                         "Increase maxlen.")
    xs = _cut_vocabulary(x_train + x_test, num_words, skip_top, oov_char)
    n = len(x_train)
    labels = np.concatenate([np.asarray(y_train), np.asarray(y_test)])
    return (_sequences(xs[:n]), labels[:n]), (_sequences(xs[n:]), labels[n:])


def _reuters(path="reuters.npz", num_words=None, skip_top=0, maxlen=None, test_split=0.2, seed=113, start_char=1,
             oov_char=2, index_from=3, **kwargs):
    """11,228 Reuters newswires as lists of word indices, labelled with one of 46 topics;
    Keras's ``reuters.load_data``."""
    if "nb_words" in kwargs:
        num_words = kwargs.pop("nb_words")
    if kwargs:
        raise TypeError(f"Unrecognized keyword arguments: {kwargs}")
    f = pickled.load_npz(_cached("reuters.npz", path))
    order = np.arange(len(f["x"]))
    np.random.RandomState(seed).shuffle(order)
    xs, labels = _words(f["x"][order], f["y"][order], maxlen, start_char, index_from)
    xs = _cut_vocabulary(xs, num_words, skip_top, oov_char)
    cut = int(len(xs) * (1 - test_split))
    return (_sequences(xs[:cut]), np.array(labels[:cut])), (_sequences(xs[cut:]), np.array(labels[cut:]))


def _word_index(fname):
    def get_word_index(path=fname):
        """The words' indices (a dict from each word to its index, 1 the most frequent)."""
        with open(_cached(fname, path), encoding="utf-8") as f:
            return json.load(f)
    return get_word_index


class _CifarFiles:
    """The batches of a CIFAR data set: the directory Keras extracts (``cifar-10-batches-py``),
    or the ``.tar.gz`` it downloads when only that is in the cache (read in place)."""

    def __init__(self, dirname, origin):
        self.dirname = dirname
        directory = cache_path(dirname)
        if os.path.isdir(directory):
            self.directory, self.tar = directory, None
        else:
            self.directory, self.tar = None, _cached(dirname + ".tar.gz", origin=origin)

    def batch(self, name, label_key):
        if self.directory is not None:
            where = os.path.join(self.directory, name)
            if not os.path.exists(where):
                raise FileNotFoundError(f"{where} is missing: Keras's CIFAR directory {self.directory} is incomplete")
            with open(where, "rb") as f:
                data = f.read()
        else:
            where = f"{self.tar}:{self.dirname}/{name}"
            with tarfile.open(self.tar, "r:gz") as tar:
                try:
                    member = tar.getmember(f"{self.dirname}/{name}")
                except KeyError:
                    raise FileNotFoundError(f"{self.tar} has no {self.dirname}/{name}") from None
                data = tar.extractfile(member).read()
        d = pickled.load_pickle(data, where)
        if not isinstance(d, dict):
            raise ValueError(f"{where} holds a {type(d).__name__}, not a CIFAR batch's dict")
        d = {k.decode("utf8") if isinstance(k, bytes) else k: v for k, v in d.items()}
        if "data" not in d or label_key not in d:
            raise ValueError(f"{where} has no {'data' if 'data' not in d else label_key!r} (it has {sorted(d)})")
        images = np.asarray(d["data"], dtype=np.uint8)
        return images.reshape(images.shape[0], 3, 32, 32), np.asarray(d[label_key])


def _cifar_layout(x_train, y_train, x_test, y_test):
    from .. import backend

    y_train, y_test = y_train.reshape(-1, 1), y_test.reshape(-1, 1)
    if backend.image_data_format() == "channels_last":
        x_train, x_test = x_train.transpose(0, 2, 3, 1), x_test.transpose(0, 2, 3, 1)
    return (x_train, y_train), (x_test.astype(x_train.dtype), y_test.astype(y_train.dtype))


def _cifar10():
    """50,000 training and 10,000 test 32x32 colour images in 10 classes, uint8; Keras's
    ``cifar10.load_data`` (channels last unless the backend's image data format says first)."""
    files = _CifarFiles("cifar-10-batches-py", "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz")
    parts = [files.batch(f"data_batch_{i}", "labels") for i in range(1, 6)]
    x_train = np.concatenate([x for x, _ in parts])
    y_train = np.concatenate([y for _, y in parts]).astype(np.uint8)
    x_test, y_test = files.batch("test_batch", "labels")
    return _cifar_layout(x_train, y_train, x_test, y_test)


def _cifar100(label_mode="fine"):
    """50,000 training and 10,000 test 32x32 colour images in 100 classes (``"fine"``) or 20
    superclasses (``"coarse"``); Keras's ``cifar100.load_data``."""
    if label_mode not in ("fine", "coarse"):
        raise ValueError(f'`label_mode` must be one of `"fine"`, `"coarse"`. Received: label_mode={label_mode}.')
    files = _CifarFiles("cifar-100-python", "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz")
    x_train, y_train = files.batch("train", label_mode + "_labels")
    x_test, y_test = files.batch("test", label_mode + "_labels")
    return _cifar_layout(x_train, y_train, x_test, y_test)


mnist = _Module("mnist", _mnist)
fashion_mnist = _Module("fashion_mnist", _fashion)
boston_housing = _Module("boston_housing", _boston)
imdb = _Module("imdb", _imdb, get_word_index=_word_index("imdb_word_index.json"))
reuters = _Module("reuters", _reuters, get_word_index=_word_index("reuters_word_index.json"))
cifar10 = _Module("cifar10", _cifar10)
cifar100 = _Module("cifar100", _cifar100)
