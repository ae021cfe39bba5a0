"""The MNIST reader of TF 1.x's tutorials (input_data.read_data_sets): IDX files written
here, read back against their bytes decoded with NumPy, and next_batch's order against
TensorFlow's algorithm (a shuffled epoch, a batch across an epoch's end)."""

import gzip
import struct

import numpy as np
import pytest

import distflow as tf
from distflow.examples.tutorials.mnist import input_data

rng = np.random.RandomState(11)


def write_idx(directory, prefix, images, labels):
    with gzip.open(directory / f"{prefix}-images-idx3-ubyte.gz", "wb") as f:
        f.write(struct.pack(">IIII", 2051, *images.shape) + images.tobytes())
    with gzip.open(directory / f"{prefix}-labels-idx1-ubyte.gz", "wb") as f:
        f.write(struct.pack(">II", 2049, len(labels)) + labels.tobytes())


@pytest.fixture()
def mnist_dir(tmp_path):
    train = rng.randint(0, 256, (30, 28, 28)).astype(np.uint8), rng.randint(0, 10, 30).astype(np.uint8)
    test = rng.randint(0, 256, (8, 28, 28)).astype(np.uint8), rng.randint(0, 10, 8).astype(np.uint8)
    write_idx(tmp_path, "train", *train)
    write_idx(tmp_path, "t10k", *test)
    return tmp_path, train, test


def test_read_data_sets_gives_the_files_images_and_labels(mnist_dir):
    path, (train_x, train_y), (test_x, test_y) = mnist_dir
    data = input_data.read_data_sets(str(path), one_hot=True, validation_size=5)
    assert (data.train.num_examples, data.validation.num_examples, data.test.num_examples) == (25, 5, 8)
    assert data.train.images.dtype == np.float32 and data.train.images.shape == (25, 784)
    np.testing.assert_allclose(data.train.images, train_x[5:].reshape(25, 784) / 255.0, rtol=1e-6)
    np.testing.assert_array_equal(data.validation.labels, np.eye(10)[train_y[:5]])
    assert data.test.labels.dtype == np.float64  # (TensorFlow's one-hot rows)
    raw = tf.contrib.learn.datasets.mnist.read_data_sets(str(path), dtype=tf.uint8, reshape=False, validation_size=0)
    np.testing.assert_array_equal(raw.test.images, test_x[..., None])
    np.testing.assert_array_equal(raw.test.labels, test_y)
    assert raw.validation.num_examples == 0
    with pytest.raises(ValueError, match="Validation size should be between 0 and 30"):
        input_data.read_data_sets(str(path), validation_size=31)
    with pytest.raises(TypeError, match="Invalid image dtype"):
        input_data.read_data_sets(str(path), dtype=tf.float16, validation_size=0)


def test_files_that_are_missing_or_not_mnist_are_clear_errors(mnist_dir, tmp_path_factory):
    empty = tmp_path_factory.mktemp("empty")
    with pytest.raises(FileNotFoundError, match="does not download: fetch https://storage.googleapis.com/cvdf-datasets/"
                                                "mnist/train-images-idx3-ubyte.gz and save it as"):
        input_data.read_data_sets(str(empty))
    path = mnist_dir[0]
    with gzip.open(path / "train-labels-idx1-ubyte.gz", "wb") as f:
        f.write(struct.pack(">II", 2051, 3) + bytes(3))
    with pytest.raises(ValueError, match="Invalid magic number 2051 in MNIST label file"):
        input_data.read_data_sets(str(path), validation_size=0)


def test_next_batch_shuffles_each_epoch_and_joins_the_epochs_ends(mnist_dir):
    path, (train_x, train_y), _ = mnist_dir
    np.random.seed(0)
    before = np.random.get_state()[1].copy()
    data = input_data.read_data_sets(str(path), validation_size=0, seed=3, dtype=tf.uint8)
    order = np.arange(30)
    generator = np.random.RandomState(3)  # (TF seeded NumPy with the op seed; here a generator of its own)
    generator.shuffle(order)
    images, labels = data.train.next_batch(12)
    np.testing.assert_array_equal(labels, train_y[order[:12]])
    np.testing.assert_array_equal(images, train_x[order[:12]].reshape(12, 784))
    data.train.next_batch(12)
    assert data.train.epochs_completed == 0
    images, labels = data.train.next_batch(12)  # (the epoch's last 6, then the next epoch's first 6)
    second = np.arange(30)
    generator.shuffle(second)
    np.testing.assert_array_equal(labels, np.concatenate([train_y[order[24:]], train_y[order][second][:6]]))
    assert data.train.epochs_completed == 1
    np.testing.assert_array_equal(np.random.get_state()[1], before)  # (NumPy's global generator untouched)

    plain = input_data.read_data_sets(str(path), validation_size=0, dtype=tf.uint8)
    seen = np.concatenate([plain.train.next_batch(7, shuffle=False)[1] for _ in range(5)])
    np.testing.assert_array_equal(seen, np.concatenate([train_y, train_y[:5]]))


def test_fake_data_sets():
    data = input_data.read_data_sets("unused", fake_data=True, one_hot=True)
    images, labels = data.train.next_batch(4, fake_data=True)
    assert data.train.num_examples == 10000 and len(images) == 4 and len(images[0]) == 784
    assert labels[0] == [1] + [0] * 9
