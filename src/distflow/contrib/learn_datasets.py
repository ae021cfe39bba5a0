"""``tf.contrib.learn.datasets``: the MNIST reader of TF 1.x's tutorials
(``tensorflow.examples.tutorials.mnist.input_data``, which is this module's ``mnist``), and
``base``: the CSV readers, ``Datasets`` and ``maybe_download``.

``read_data_sets(train_dir)`` reads the four gzipped IDX files (``train-images-idx3-ubyte.gz``
...) from ``train_dir``, as TensorFlow did after downloading them there. distflow never
reaches the network: a file that is not there is an error that says where to fetch it
from and where to put it.

``DataSet.next_batch`` hands out batches as TensorFlow's: the rows in a shuffled order,
shuffled again at each epoch, and a batch that crosses the end of an epoch made of the
epoch's last rows and the next epoch's first. One thing is done better: TF 1.x seeded
NumPy's global generator when it made each DataSet (``numpy.random.seed``) and shuffled with
it, so that building the data sets changed what the rest of the program drew. Here each
DataSet shuffles with a generator of its own, seeded as TensorFlow seeded the global one
(the graph's seed, or ``seed``): the same seed gives TensorFlow's order, as long as the
program draws nothing from NumPy's global generator between making the data sets and
taking batches; without a seed the order is fresh each run, as in TensorFlow.
"""

from __future__ import annotations

import collections
import gzip
import os

import numpy as np

from ..framework import dtypes, random_seed
from .learn_estimators import Dataset, load_csv_with_header, load_csv_without_header

DEFAULT_SOURCE_URL = "https://storage.googleapis.com/cvdf-datasets/mnist/"

Datasets = collections.namedtuple("Datasets", ["train", "validation", "test"])


def maybe_download(filename, work_directory, source_url):
    """The path of ``filename`` in ``work_directory``; it must be there already: distflow
    does not download (the error says from where)."""
    path = os.path.join(work_directory, filename)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{filename} is not in {work_directory!r}, and distflow does not download: fetch "
                                f"{source_url} and save it as {path}")
    return path


def _read32(stream) -> int:
    return int(np.frombuffer(stream.read(4), dtype=">u4")[0])


def _idx(f, magic: int, what: str):
    """The gzipped IDX file ``f``'s stream after its magic number (checked)."""
    print("Extracting", f.name)
    stream = gzip.GzipFile(fileobj=f)
    found = _read32(stream)
    if found != magic:
        raise ValueError(f"Invalid magic number {found} in MNIST {what} file: {f.name}")
    return stream


def extract_images(f) -> np.ndarray:
    """The images of the gzipped IDX file ``f`` (an open file) as uint8 [index, y, x, 1]."""
    with _idx(f, 2051, "image") as stream:
        count, rows, cols = _read32(stream), _read32(stream), _read32(stream)
        data = np.frombuffer(stream.read(rows * cols * count), dtype=np.uint8)
    return data.reshape(count, rows, cols, 1)


def dense_to_one_hot(labels_dense, num_classes):
    """Class labels as one-hot rows (float64, as TensorFlow's)."""
    labels_dense = np.asarray(labels_dense)
    one_hot = np.zeros((labels_dense.shape[0], num_classes))
    one_hot[np.arange(labels_dense.shape[0]), labels_dense.ravel()] = 1
    return one_hot


def extract_labels(f, one_hot=False, num_classes=10):
    """The labels of the gzipped IDX file ``f`` (an open file): uint8, or one-hot rows."""
    with _idx(f, 2049, "label") as stream:
        labels = np.frombuffer(stream.read(_read32(stream)), dtype=np.uint8)
    return dense_to_one_hot(labels, num_classes) if one_hot else labels


class DataSet:
    """Images and labels handed out in batches (``next_batch``). ``dtype`` float32 scales the
    images to [0, 1]; uint8 leaves them as they are. ``reshape`` flattens each image."""

    def __init__(self, images, labels, fake_data=False, one_hot=False, dtype=dtypes.float32, reshape=True,
                 seed=None):
        seed1, seed2 = random_seed.get_seed(seed)
        self._rng = np.random.RandomState(seed1 if seed is None else seed2)
        dtype = dtypes.as_dtype(dtype).base_dtype
        if dtype not in (dtypes.uint8, dtypes.float32):
            raise TypeError(f"Invalid image dtype {dtype!r}, expected uint8 or float32")
        if fake_data:
            self._num_examples = 10000
            self.one_hot = one_hot
        else:
            images, labels = np.asarray(images), np.asarray(labels)
            if images.shape[0] != labels.shape[0]:
                raise ValueError(f"images.shape: {images.shape} labels.shape: {labels.shape}: one label an image")
            self._num_examples = images.shape[0]
            if reshape:
                if images.ndim != 4 or images.shape[3] != 1:
                    raise ValueError(f"reshape=True flattens images of shape [index, y, x, 1], got {images.shape}")
                images = images.reshape(images.shape[0], images.shape[1] * images.shape[2])
            if dtype == dtypes.float32:
                images = images.astype(np.float32) * np.float32(1.0 / 255.0)
        self._images = images
        self._labels = labels
        self._epochs_completed = 0
        self._index_in_epoch = 0

    @property
    def images(self):
        return self._images

    @property
    def labels(self):
        return self._labels

    @property
    def num_examples(self):
        return self._num_examples

    @property
    def epochs_completed(self):
        return self._epochs_completed

    def _shuffle(self) -> None:
        order = np.arange(self._num_examples)
        self._rng.shuffle(order)
        self._images, self._labels = self._images[order], self._labels[order]

    def next_batch(self, batch_size, fake_data=False, shuffle=True):
        """The next ``batch_size`` images and labels (module docstring)."""
        if fake_data:
            image, label = [1] * 784, ([1] + [0] * 9 if self.one_hot else 0)
            return [image for _ in range(batch_size)], [label for _ in range(batch_size)]
        start = self._index_in_epoch
        if self._epochs_completed == 0 and start == 0 and shuffle:
            self._shuffle()
        if start + batch_size <= self._num_examples:
            self._index_in_epoch += batch_size
            return self._images[start:start + batch_size], self._labels[start:start + batch_size]
        self._epochs_completed += 1
        images_rest, labels_rest = self._images[start:], self._labels[start:]
        if shuffle:
            self._shuffle()
        self._index_in_epoch = batch_size - len(images_rest)
        end = self._index_in_epoch
        return (np.concatenate((images_rest, self._images[:end]), axis=0),
                np.concatenate((labels_rest, self._labels[:end]), axis=0))


def read_data_sets(train_dir, fake_data=False, one_hot=False, dtype=dtypes.float32, reshape=True,
                   validation_size=5000, seed=None, source_url=DEFAULT_SOURCE_URL):
    """MNIST from ``train_dir`` as ``Datasets(train, validation, test)``: the first
    ``validation_size`` training images are the validation set."""
    if fake_data:
        return Datasets(*[DataSet([], [], fake_data=True, one_hot=one_hot, dtype=dtype, seed=seed) for _ in range(3)])
    source_url = source_url or DEFAULT_SOURCE_URL
    parts = []
    for name, extract in (("train-images-idx3-ubyte.gz", extract_images), ("train-labels-idx1-ubyte.gz", None),
                          ("t10k-images-idx3-ubyte.gz", extract_images), ("t10k-labels-idx1-ubyte.gz", None)):
        with open(maybe_download(name, train_dir, source_url + name), "rb") as f:
            parts.append(extract(f) if extract else extract_labels(f, one_hot=one_hot))
    train_images, train_labels, test_images, test_labels = parts
    if not 0 <= validation_size <= len(train_images):
        raise ValueError(f"Validation size should be between 0 and {len(train_images)}. Received: {validation_size}.")
    options = dict(dtype=dtype, reshape=reshape, seed=seed)
    return Datasets(train=DataSet(train_images[validation_size:], train_labels[validation_size:], **options),
                    validation=DataSet(train_images[:validation_size], train_labels[:validation_size], **options),
                    test=DataSet(test_images, test_labels, **options))


def load_mnist(train_dir="MNIST-data"):
    return read_data_sets(train_dir)


class _Namespace:
    def __init__(self, name, **members):
        self.__name__ = name
        self.__dict__.update(members)


mnist = _Namespace("tf.contrib.learn.datasets.mnist", read_data_sets=read_data_sets, load_mnist=load_mnist,
                   DataSet=DataSet, extract_images=extract_images, extract_labels=extract_labels,
                   dense_to_one_hot=dense_to_one_hot, DEFAULT_SOURCE_URL=DEFAULT_SOURCE_URL)
base = _Namespace("tf.contrib.learn.datasets.base", load_csv_with_header=load_csv_with_header,
                  load_csv_without_header=load_csv_without_header, Dataset=Dataset, Datasets=Datasets,
                  maybe_download=maybe_download)


def load_dataset(name, size="small", test_with_fake_data=False):
    """``load_dataset('mnist')``: the MNIST data sets from ``MNIST-data`` (TF's default)."""
    if name != "mnist":
        raise ValueError(f"distflow's tf.contrib.learn.datasets.load_dataset reads 'mnist' only (from MNIST-data), "
                         f"not {name!r}")
    return read_data_sets("MNIST-data", fake_data=test_with_fake_data)
