"""tf.keras.datasets' pickled data sets (IMDB, Reuters, CIFAR-10 and -100), read from Keras's
cache through a loader that builds only arrays, lists, dicts, numbers and strings. The
oracle is Keras's algorithm written the obvious way over the same synthetic files."""

import io
import json
import os
import pickle
import tarfile

import numpy as np
import pytest

import distflow as tf

rng = np.random.RandomState(0)


def sequences(n, low, high):
    out = np.empty(n, dtype=object)
    out[:] = [[int(w) for w in rng.randint(low, high, size=rng.randint(2, 40))] for _ in range(n)]
    return out


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    (tmp_path / "datasets").mkdir()
    return tmp_path / "datasets"


def keras_words(xs, maxlen, num_words, skip_top, start_char=1, oov_char=2, index_from=3):
    xs = [[start_char] + [w + index_from for w in x] for x in xs]
    keep = [i for i, x in enumerate(xs) if not maxlen or len(x) < maxlen]
    return keep, [[w if skip_top <= w < num_words else oov_char for w in xs[i]] for i in keep]


def test_imdb_shuffles_marks_filters_and_cuts_each_split_as_keras_does(cache):
    # training words below 300, test words from 300: a review that changed splits would show
    x_train, x_test = sequences(60, 1, 300), sequences(40, 300, 400)
    y_train, y_test = rng.randint(0, 2, 60), rng.randint(0, 2, 40)
    np.savez(cache / "imdb.npz", x_train=x_train, y_train=y_train, x_test=x_test, y_test=y_test)
    (got_x, got_y), (got_tx, got_ty) = tf.keras.datasets.imdb.load_data(num_words=350, skip_top=4, maxlen=30)
    order = np.random.RandomState(113)
    train_order = np.arange(60)
    order.shuffle(train_order)
    test_order = np.arange(40)
    order.shuffle(test_order)
    keep, want = keras_words(x_train[train_order], 30, 350, 4)
    assert [list(x) for x in got_x] == want
    np.testing.assert_array_equal(got_y, y_train[train_order][keep])
    keep, want = keras_words(x_test[test_order], 30, 350, 4)
    assert [list(x) for x in got_tx] == want and got_tx.dtype == object
    np.testing.assert_array_equal(got_ty, y_test[test_order][keep])
    assert all(w == 2 or w >= 303 for x in got_tx for w in x[1:])  # (every test review stayed a test review)
    # no num_words: the largest index is the vocabulary; start_char None keeps the offset only
    (got_x, _), _ = tf.keras.datasets.imdb.load_data(start_char=None, index_from=0)
    assert sorted(map(tuple, got_x)) == sorted(map(tuple, x_train))
    with pytest.raises(ValueError, match="no sequence was kept. Increase maxlen"):
        tf.keras.datasets.imdb.load_data(maxlen=1)
    with pytest.raises(TypeError, match="Unrecognized keyword arguments"):
        tf.keras.datasets.imdb.load_data(nb_word=3)
    (cache / "imdb_word_index.json").write_text(json.dumps({"the": 1, "film": 2}))
    assert tf.keras.datasets.imdb.get_word_index() == {"the": 1, "film": 2}


def test_reuters_splits_the_shuffled_wires_at_test_split(cache):
    xs, ys = sequences(50, 1, 100), rng.randint(0, 46, 50)
    np.savez(cache / "reuters.npz", x=xs, y=ys)
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.reuters.load_data(num_words=60, test_split=0.3)
    order = np.arange(50)
    np.random.RandomState(113).shuffle(order)
    _, want = keras_words(xs[order], None, 60, 0)
    assert [list(x) for x in x_train] == want[:35] and [list(x) for x in x_test] == want[35:]
    np.testing.assert_array_equal(np.r_[y_train, y_test], ys[order])


def cifar_batch(n, label_key, labels_of):
    return {b"batch_label": b"synthetic", label_key.encode(): [int(v) for v in rng.randint(0, labels_of, n)],
            b"data": rng.randint(0, 256, (n, 3072)).astype(np.uint8)}


@pytest.mark.parametrize("layout", ["channels_last", "channels_first"])
def test_cifar10_reads_keras_extracted_batches_in_either_image_layout(cache, layout):
    directory = cache / "cifar-10-batches-py"
    directory.mkdir()
    batches = {f"data_batch_{i}": cifar_batch(4, "labels", 10) for i in range(1, 6)}
    batches["test_batch"] = cifar_batch(3, "labels", 10)
    for i, (name, batch) in enumerate(batches.items()):
        (directory / name).write_bytes(pickle.dumps(batch, protocol=2 + i % 3))  # (2: bytes as _codecs.encode)
    before = tf.keras.backend.image_data_format()
    tf.keras.backend.set_image_data_format(layout)
    try:
        (x_train, y_train), (x_test, y_test) = tf.keras.datasets.cifar10.load_data()
    finally:
        tf.keras.backend.set_image_data_format(before)
    images = np.concatenate([batches[f"data_batch_{i}"][b"data"] for i in range(1, 6)]).reshape(20, 3, 32, 32)
    if layout == "channels_last":
        images = images.transpose(0, 2, 3, 1)
    np.testing.assert_array_equal(x_train, images)
    assert x_train.dtype == np.uint8 and y_train.dtype == np.uint8 and y_train.shape == (20, 1)
    assert y_train[:, 0].tolist() == sum((batches[f"data_batch_{i}"][b"labels"] for i in range(1, 6)), [])
    assert x_test.shape[0] == 3 and y_test.dtype == np.uint8
    assert y_test[:, 0].tolist() == batches["test_batch"][b"labels"]


def test_cifar100_reads_the_downloaded_archive_in_place_with_fine_or_coarse_labels(cache):
    batches = {name: {**cifar_batch(n, "fine_labels", 100), **{b"coarse_labels": list(range(n))}}
               for name, n in (("train", 5), ("test", 2))}
    with tarfile.open(cache / "cifar-100-python.tar.gz", "w:gz") as tar:
        for name, batch in batches.items():
            data = pickle.dumps(batch, protocol=2)
            info = tarfile.TarInfo(f"cifar-100-python/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    (x_train, y_fine), (x_test, _) = tf.keras.datasets.cifar100.load_data()
    np.testing.assert_array_equal(x_train, batches["train"][b"data"].reshape(5, 3, 32, 32).transpose(0, 2, 3, 1))
    assert y_fine[:, 0].tolist() == batches["train"][b"fine_labels"] and x_test.shape == (2, 32, 32, 3)
    (_, y_coarse), _ = tf.keras.datasets.cifar100.load_data(label_mode="coarse")
    assert y_coarse[:, 0].tolist() == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match="label_mode"):
        tf.keras.datasets.cifar100.load_data(label_mode="medium")
    assert not os.path.exists(cache / "cifar-100-python")  # (read in place, nothing extracted)


def test_a_python_2_pickle_with_str_keys_reads_as_keras_reads_it(cache):
    directory = cache / "cifar-100-python"
    directory.mkdir()
    # protocol 0 as Python 2 wrote it: S'...' strings (bytes here), lists of ints
    body = (b"(dS'data'\n(l(l" + b"I7\na" * 3072 + b"as"  # {'data': [[7] * 3072],
            b"S'fine_labels'\n(lI42\nas"  # 'fine_labels': [42],
            b"S'coarse_labels'\n(lI1\nas.")  # 'coarse_labels': [1]}
    for name in ("train", "test"):
        (directory / name).write_bytes(body)
    (x, y), _ = tf.keras.datasets.cifar100.load_data()
    assert x.shape == (1, 32, 32, 3) and (x == 7).all() and y.tolist() == [[42]]


class Boom:
    def __reduce__(self):
        return os.system, ("echo owned > owned.txt",)


def test_a_pickle_that_names_anything_else_is_refused_and_nothing_runs(cache, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    evil = np.empty(2, dtype=object)
    evil[:] = [[1, 2], Boom()]
    np.savez(cache / "imdb.npz", x_train=evil, y_train=np.zeros(2), x_test=evil, y_test=np.zeros(2))
    with pytest.raises(pickle.UnpicklingError, match=r"imdb.npz:x_train.*names (posix|os)\.system"):
        tf.keras.datasets.imdb.load_data()
    directory = cache / "cifar-10-batches-py"
    directory.mkdir()
    (directory / "data_batch_1").write_bytes(pickle.dumps({b"data": Boom()}))
    with pytest.raises(pickle.UnpicklingError, match="data_batch_1: the pickle names"):
        tf.keras.datasets.cifar10.load_data()
    assert not (tmp_path / "owned.txt").exists()
    (directory / "data_batch_1").write_bytes(pickle.dumps(b"x".decode("latin1"), protocol=2)[:5])
    with pytest.raises(ValueError, match="data_batch_1 is not a pickle of a data set"):
        tf.keras.datasets.cifar10.load_data()


def test_a_data_set_missing_from_the_cache_says_where_to_put_it(cache):
    with pytest.raises(FileNotFoundError, match=r"cifar-10-batches-py.tar.gz is not in Keras's cache .*"
                                                r"cifar-10-python.tar.gz"):
        tf.keras.datasets.cifar10.load_data()
    with pytest.raises(FileNotFoundError, match="reuters.npz is not in Keras's cache"):
        tf.keras.datasets.reuters.load_data()
