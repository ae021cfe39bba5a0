"""Files that TensorFlow wrote (tests/data/tensorflow, made by make_tf_files.py there with
TensorFlow 2.21, and make_tf_loops.py): checkpoints listed, read and restored by a TF 1.x program, any damage a
DataLossError naming the file; SavedModels and meta graphs loaded, trained and saved again;
frozen graphs of TF 1.x conds and loops imported and run. The values are TensorFlow's (written in)."""

import os
import shutil

import numpy as np
import pytest

import distflow as tf
from distflow.platform import crc32c as crc
from tf_figures import trains_as_tensorflow_did

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tensorflow")

# The values TensorFlow saved (its Adam, two steps at 0.1)
KERNEL = [[-0.19837814569473267, 0.4011024236679077, 0.3002791106700897],
          [0.5516218543052673, 1.1511024236679077, 1.050279140472412]]
BIAS = [0.30162185430526733, -1.3488975763320923, 2.050279140472412]
BIAS_M = [0.4150000810623169, -0.035000063478946686, 1.4600002765655518]
BIAS_V = [0.009853622876107693, 0.00025974653544835746, 0.11869446933269501]


@pytest.fixture
def ckpt(tmp_path):
    """A copy of the folder (so that a test may damage it)."""
    shutil.copytree(HERE, tmp_path / "ckpt")
    return tmp_path / "ckpt"


def test_its_variables_dtypes_and_values_are_listed_and_read(ckpt):
    assert tf.train.latest_checkpoint(str(ckpt)) == str(ckpt / "model.ckpt-2")
    names = dict(tf.train.list_variables(str(ckpt)))
    assert names == {"beta1_power": [], "beta2_power": [], "big": [1000], "dense/bias": [3], "dense/bias/Adam": [3],
                     "dense/bias/Adam_1": [3], "dense/kernel": [2, 3], "dense/kernel/Adam": [2, 3],
                     "dense/kernel/Adam_1": [2, 3], "double": [1, 2], "flags": [3], "global_step": [], "half": [2],
                     "scalar": [], "small": [2], "words": [3]}
    reader = tf.train.NewCheckpointReader(str(ckpt / "model.ckpt-2"))
    kinds = reader.get_variable_to_dtype_map()
    assert [kinds[n] for n in ("double", "flags", "global_step", "half", "small", "words")] == \
        [tf.float64, tf.bool, tf.int64, tf.float16, tf.int8, tf.string]
    np.testing.assert_array_equal(reader.get_tensor("dense/kernel"), np.array(KERNEL, np.float32))
    np.testing.assert_array_equal(reader.get_tensor("dense/bias/Adam_1"), np.array(BIAS_V, np.float32))
    assert reader.get_tensor("global_step") == 2 and reader.get_tensor("global_step").dtype == np.int64
    np.testing.assert_array_equal(reader.get_tensor("double"), [[1e-300, -2.5]])
    assert reader.get_tensor("flags").tolist() == [True, False, True]
    assert reader.get_tensor("words").tolist() == [b"alpha", b"", b"a longer word \x00\xff"]
    assert reader.get_tensor("half").tolist() == [1.5, -0.25] and reader.get_tensor("small").tolist() == [-3, 7]
    np.testing.assert_array_equal(reader.get_tensor("big"), (np.arange(1000, dtype=np.float32) % 97) / 7)
    assert reader.get_tensor("beta1_power") == np.float32(0.7289999127388)
    np.testing.assert_array_equal(tf.train.load_variable(str(ckpt / "sharded" / "model.ckpt"), "c"), [[3, 4]])


def test_a_tf1_program_restores_what_tensorflow_trained_and_trains_on():
    w = tf.get_variable("dense/kernel", [2, 3])
    b = tf.get_variable("dense/bias", [3])
    step = tf.train.get_or_create_global_step()
    loss = tf.reduce_sum(tf.square(tf.matmul(tf.ones([1, 2]), w) + b))
    train = tf.train.AdamOptimizer(0.1).minimize(loss, global_step=step, var_list=[w, b])
    saver = tf.train.Saver()  # (every variable the program has: the checkpoint holds more)
    with tf.Session() as sess:
        saver.restore(sess, tf.train.latest_checkpoint(HERE))
        np.testing.assert_array_equal(sess.run(w), np.array(KERNEL, np.float32))
        np.testing.assert_array_equal(sess.run(b), np.array(BIAS, np.float32))
        assert sess.run(step) == 2
        # (the optimizer's slots are restored by TF's names for them)
        m = [v for v in tf.global_variables() if v.op.name == "dense/bias/Adam"][0]
        np.testing.assert_array_equal(sess.run(m), np.array(BIAS_M, np.float32))
        sess.run(train)  # Adam goes on from TensorFlow's moments: a third step, NumPy's way
        x = np.ones([1, 2], np.float32)
        grad_b = 2 * (x @ np.array(KERNEL, np.float32) + np.array(BIAS, np.float32))[0]
        m3 = 0.9 * np.array(BIAS_M, np.float32) + 0.1 * grad_b
        v3 = 0.999 * np.array(BIAS_V, np.float32) + 0.001 * grad_b ** 2
        lr = 0.1 * np.sqrt(1 - 0.999 ** 3) / (1 - 0.9 ** 3)
        np.testing.assert_allclose(sess.run(b), np.array(BIAS, np.float32) - lr * m3 / (np.sqrt(v3) + 1e-8),
                                   rtol=1e-5)  # (float32 arithmetic against float64)
        assert sess.run(step) == 3


def test_a_monitored_session_resumes_tensorflows_training_from_its_step(ckpt):
    w = tf.get_variable("dense/kernel", [2, 3])
    b = tf.get_variable("dense/bias", [3])
    step = tf.train.get_or_create_global_step()
    loss = tf.reduce_sum(tf.square(tf.matmul(tf.ones([1, 2]), w) + b))
    train = tf.train.AdamOptimizer(0.1).minimize(loss, global_step=step, var_list=[w, b])
    for name, shape, dtype in (("double", [1, 2], tf.float64), ("flags", [3], tf.bool), ("small", [2], tf.int8),
                               ("half", [2], tf.float16), ("scalar", [], tf.float32), ("big", [1000], tf.float32)):
        tf.get_variable(name, shape, dtype)
    tf.Variable(["", "", ""], name="words")
    with tf.train.MonitoredTrainingSession(checkpoint_dir=str(ckpt), save_checkpoint_steps=None,
                                           save_checkpoint_secs=None, save_summaries_steps=None) as sess:
        assert sess.run(step) == 2  # (not step 0: TensorFlow's model_dir is taken up where it stopped)
        sess.run(train)
        assert sess.run(step) == 3


def test_init_from_checkpoint_and_a_sharded_checkpoint():
    with tf.variable_scope("pretrained"):
        kernel = tf.get_variable("kernel", [2, 3])
    a = tf.get_variable("a", [2])
    c = tf.get_variable("c", [1, 2], dtype=tf.int64)
    tf.train.init_from_checkpoint(HERE, {"dense/kernel": "pretrained/kernel"})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(kernel), np.array(KERNEL, np.float32))
        tf.train.Saver([a, c]).restore(sess, os.path.join(HERE, "sharded", "model.ckpt"))
        assert sess.run(a).tolist() == [1.0, 2.0] and sess.run(c).tolist() == [[3, 4]]


def _flip(path, at):
    data = bytearray(path.read_bytes())
    data[at] ^= 0x01
    path.write_bytes(bytes(data))


def test_damage_is_a_data_loss_error_naming_the_file(ckpt, caplog):
    data = ckpt / "model.ckpt-2.data-00000-of-00001"
    _flip(data, 100)  # (inside beta or big's bytes)
    reader = tf.train.NewCheckpointReader(str(ckpt / "model.ckpt-2"))
    damaged = [n for n, _ in tf.train.list_variables(str(ckpt)) if _raises(reader, n)]
    assert len(damaged) == 1
    with pytest.raises(tf.errors.DataLossError, match=f"{data}.*{damaged[0]}.*checksum"):
        reader.get_tensor(damaged[0])
    _flip(data, 100)
    _flip(ckpt / "model.ckpt-2.index", 60)  # a byte of a block: its checksum
    with pytest.raises(tf.errors.DataLossError, match=r"model.ckpt-2.index is damaged"):
        tf.train.list_variables(str(ckpt / "model.ckpt-2"))
    # latest_checkpoint skips a damaged one for none (there is no other here), with a warning
    assert tf.train.latest_checkpoint(str(ckpt)) is None
    assert "damaged" in caplog.text
    _flip(ckpt / "model.ckpt-2.index", 60)
    data.unlink()
    with pytest.raises(tf.errors.DataLossError, match="data file .* is missing"):
        tf.train.NewCheckpointReader(str(ckpt / "model.ckpt-2")).get_tensor("scalar")
    string_damage = ckpt / "model.ckpt-2.data-00000-of-00001"
    shutil.copy(os.path.join(HERE, "model.ckpt-2.data-00000-of-00001"), string_damage)
    _flip(string_damage, string_damage.stat().st_size - 2)  # (the last bytes: the words)
    with pytest.raises(tf.errors.DataLossError, match="string tensor words"):
        tf.train.NewCheckpointReader(str(ckpt / "model.ckpt-2")).get_tensor("words")


def _raises(reader, name):
    try:
        reader.get_tensor(name)
    except tf.errors.DataLossError:
        return True
    return False


def test_the_crc32c_of_long_inputs_is_the_byte_by_byte_one():
    assert crc.crc32c(b"123456789") == 0xE3069283  # (the check value of CRC-32C)
    rng = np.random.default_rng(3)
    for size in (0, 1, 2, 3, 4, 5, 63, 64, 65, 1023, 1024, 1025, 65535, 65536, 65537, 4096 * 23 + 7, 300_001):
        data = rng.integers(0, 256, size, dtype=np.uint8).tobytes()
        assert crc.crc32c(data) == crc._bytewise(data), size
        cut = size // 3
        assert crc.crc32c(data[cut:], crc.crc32c(data[:cut])) == crc._bytewise(data), size
    assert crc.unmask(crc.masked_crc32c(b"abc")) == crc.crc32c(b"abc")
    messages = [rng.integers(0, 256, int(n), dtype=np.uint8).tobytes() for n in rng.integers(0, 3000, 700)]
    messages += [rng.integers(0, 256, n, dtype=np.uint8).tobytes() for n in (0, 1, 3, 4, 5, 63, 64, 65, 70_000)]
    assert crc.crc32c_many(messages) == [crc._bytewise(m) for m in messages]


def test_threads_checking_records_at_once_build_the_crc_tables_once(monkeypatch):
    """The lookup tables are built on first use; threads that got there together once built
    them twice over, and every CRC after was wrong (files read as corrupt)."""
    import sys
    import threading

    rng = np.random.default_rng(4)
    messages = [rng.integers(0, 256, n, dtype=np.uint8).tobytes() for n in (700, 5000, 70_000, 200_000, 1500)]
    want = [crc._bytewise(m) for m in messages] * 2
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # (threads trade the interpreter as often as they can)
    try:
        for _ in range(20):
            monkeypatch.setattr(crc, "_carries", [])
            monkeypatch.setattr(crc, "_fans", {})
            monkeypatch.setattr(crc, "_positions", None)
            results = []

            def check():
                results.append(crc.crc32c_many(messages) + [crc.crc32c(m) for m in messages])

            threads = [threading.Thread(target=check) for _ in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(60)
            assert results == [want] * 4
    finally:
        sys.setswitchinterval(switch)


def test_tfrecords_are_checked_in_batches_and_give_every_record_before_a_damaged_one(tmp_path):
    path = tmp_path / "r.tfrecord"
    records = [bytes([i % 256]) * (i * 37 % 3000) for i in range(400)]
    with tf.python_io.TFRecordWriter(str(path)) as writer:
        for record in records:
            writer.write(record)
    assert list(tf.python_io.tf_record_iterator(str(path))) == records
    data = bytearray(path.read_bytes())
    offset = sum(len(r) + 16 for r in records[:250]) + 12  # (the first byte of record 250's data)
    data[offset] ^= 0xFF
    path.write_bytes(bytes(data))
    got = []
    with pytest.raises(tf.errors.DataLossError, match="corrupted record data"):
        for record in tf.python_io.tf_record_iterator(str(path)):
            got.append(record)
    assert got == records[:250]


@pytest.mark.parametrize("compression", ["", "GZIP", "ZLIB"])
def test_tfrecords_cut_short_or_with_a_damaged_length_give_the_records_before(tmp_path, compression):
    from distflow.platform import tf_record

    records = [bytes([i % 256]) * (i * 53 % 2500) for i in range(60)]
    plain = b"".join(tf_record.encode_record(r) for r in records)
    options = tf.python_io.TFRecordOptions(compression) if compression else None

    def read(data: bytes):
        path = tmp_path / "r.tfrecord"
        if compression == "GZIP":
            import gzip
            path.write_bytes(gzip.compress(data))
        elif compression == "ZLIB":
            import zlib
            path.write_bytes(zlib.compress(data))
        else:
            path.write_bytes(data)
        got = []
        try:
            for record in tf.python_io.tf_record_iterator(str(path), options):
                got.append(record)
        except tf.errors.DataLossError as e:
            return got, str(e)
        return got, None

    assert read(plain) == (records, None)
    ends = np.cumsum([len(r) + 16 for r in records])
    cut = int(ends[30]) + 7  # (in record 31's header)
    assert read(plain[:cut]) == (records[:31], f"truncated record header in {tmp_path / 'r.tfrecord'}")
    got, error = read(plain[:int(ends[40]) + 20])  # (in record 41's data)
    assert got == records[:41] and error.startswith("truncated record in")
    damaged = bytearray(plain)
    damaged[int(ends[50]) + 2] ^= 0x40  # (record 51's length)
    got, error = read(bytes(damaged))
    assert got == records[:51] and error.startswith("corrupted record length")


def test_a_saved_model_tensorflow_wrote_loads_and_serves_its_values():
    with tf.Session(graph=tf.Graph()) as sess:
        meta = tf.saved_model.loader.load(sess, [tf.saved_model.tag_constants.SERVING], os.path.join(HERE, "saved_model"))
        signature = meta.signature_def["serving_default"]
        got = sess.run(signature.outputs["y"].name, {signature.inputs["x"].name: [[1.0, 2.0, 3.0]]})
    np.testing.assert_allclose(got, [[0.010986942797899246, 0.9890130758285522]], rtol=1e-6)  # (TensorFlow's)


def test_a_meta_graph_tensorflow_wrote_is_imported_restored_trained_and_saved_again(tmp_path):
    feed = {"x:0": [[1, 2, 3], [0.5, -1, 2]], "y:0": [1, 0]}
    folder = os.path.join(HERE, "meta")
    with tf.Session(graph=tf.Graph()) as sess:
        saver = tf.train.import_meta_graph(os.path.join(folder, "model.ckpt-1.meta"))
        saver.restore(sess, tf.train.latest_checkpoint(folder))
        sess.run(tf.get_collection("train_op")[0], feed)  # (TensorFlow's own training ops)
        loss, w = sess.run(["loss:0", "w:0"], feed)
        # TensorFlow's values after the same second step
        assert loss == pytest.approx(0.33158368, abs=1e-6)
        np.testing.assert_allclose(w, [[-0.18942145, 0.2940864], [0.00361978, 0.4940865], [0.21318737, 0.6940865]],
                                   atol=1e-6)
        path = saver.save(sess, str(tmp_path / "model.ckpt"), global_step=2)  # (TensorFlow's SaveV2 node)
    np.testing.assert_array_equal(tf.train.load_variable(path, "w"), w)
    assert tf.train.load_variable(path, "global_step") == 2


def test_a_sharded_savers_graph_from_tensorflow_saves_its_shards_and_merges_them(tmp_path):
    folder = os.path.join(HERE, "meta_sharded")
    with tf.Session(graph=tf.Graph(), config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        saver = tf.train.import_meta_graph(os.path.join(folder, "model.ckpt.meta"))
        saver.restore(sess, os.path.join(folder, "model.ckpt"))
        sess.run("inc")
        path = saver.save(sess, str(tmp_path / "model.ckpt"))
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "model.ckpt.data-00000-of-00002",
                                            "model.ckpt.data-00001-of-00002", "model.ckpt.index", "model.ckpt.meta"]
    assert tf.train.load_variable(path, "a").tolist() == [2.0, 3.0]
    assert tf.train.load_variable(path, "c").tolist() == [[4, 5]]


# TensorFlow's outputs of conds.pb for x = [[1, 2, 3], [4, 5, -6]], by (p, q)
CONDS = {(True, True): [[25.999500274658203, 41.999000549316406, 59.99850082397461],
                        [79.99800109863281, 101.99750518798828, -29.99700164794922]],
         (True, False): [[21.999500274658203, 28.999000549316406, 37.99850082397461],
                         [48.99800109863281, 61.997501373291016, 29.00299835205078]],
         (False, True): [[8.999500274658203, 12.999000549316406, 16.99850082397461],
                         [20.998001098632812, 24.997501373291016, -18.99700164794922]]}
CONDS[(False, False)] = CONDS[(False, True)]


def _graph_def(name):
    with open(os.path.join(HERE, name), "rb") as f:
        return tf.GraphDef.FromString(f.read())


def test_a_frozen_graph_of_tf1_conds_imports_as_if_ops_and_runs_as_tensorflow_ran_it():
    tf.import_graph_def(_graph_def("conds.pb"), name="frozen")
    graph = tf.get_default_graph()
    assert not [op for op in graph.get_operations() if op.type in ("Switch", "Merge")]
    conds = sorted(op.name for op in graph.get_operations() if op.type == "If")
    assert conds == ["frozen/bn/cond", "frozen/bn/cond_1", "frozen/drop/cond", "frozen/nested", "frozen/nested/cond",
                     "frozen/pair", "frozen/simple"]
    # the nested cond is an op of its outer cond's then branch
    assert "frozen/nested/cond" in graph.get_operation_by_name("frozen/nested").get_attr("then_branch").ops
    x = np.array([[1, 2, 3], [4, 5, -6]], np.float32)
    with tf.Session() as sess:
        for (p, q), want in CONDS.items():
            got = sess.run("frozen/out:0", {"frozen/x:0": x, "frozen/p:0": p, "frozen/q:0": q})
            np.testing.assert_allclose(got, want, rtol=1e-6)
        # training: the batch normalization takes the batch's moments (and dropout keeps half)
        got = sess.run("frozen/bn/batchnorm/add_1:0", {"frozen/x:0": x, "frozen/training:0": True})
        np.testing.assert_allclose(got, (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-3), rtol=1e-5, atol=1e-6)
        dropped = sess.run("frozen/drop/cond:0", {"frozen/x:0": x, "frozen/training:0": True})
        kept = dropped != 0
        np.testing.assert_allclose(dropped[kept], 2 * got[kept], rtol=1e-6)
    # exported again, the graph holds If ops that import as they are
    with tf.Graph().as_default():
        tf.import_graph_def(graph.as_graph_def(), name="")
        with tf.Session() as sess:
            got = sess.run("frozen/out:0", {"frozen/x:0": x, "frozen/p:0": True, "frozen/q:0": False})
        np.testing.assert_allclose(got, CONDS[(True, False)], rtol=1e-6)


def test_a_frozen_keras_model_switching_on_its_learning_phase_gives_tensorflows_predictions():
    tf.import_graph_def(_graph_def("keras_frozen.pb"), name="")
    x = np.arange(40, dtype=np.float32).reshape(10, 4)[:2] / 10
    with tf.Session() as sess:
        got = sess.run("dense_1/Softmax:0", {"dense_input:0": x, "keras_learning_phase:0": False})
        np.testing.assert_allclose(got, [[0.32565537095069885, 0.35143807530403137, 0.3229065537452698],
                                         [0.32497918605804443, 0.363355815410614, 0.31166499853134155]], rtol=1e-5)
        training = sess.run("dense_1/Softmax:0", {"dense_input:0": x, "keras_learning_phase:0": True})
        np.testing.assert_allclose(training.sum(1), [1.0, 1.0], rtol=1e-6)  # (dropout and batch moments: a draw)


def _loops():
    """loops.pb imported, and TensorFlow's feeds and outputs for it."""
    tf.import_graph_def(_graph_def("loops.pb"), name="")
    data = np.load(os.path.join(HERE, "loops.npz"))
    feeds = {f"{k[5:]}:0": data[k] for k in data.files if k.startswith("feed_")}
    return feeds, {k[4:]: data[k] for k in data.files if k.startswith("out_")}


LOOP_OUTPUTS = {"count": "count_out", "nested": "nested_out", "switching": "switching_out", "capped": "capped_out",
                "power": "power_out", "mapped": "mapped_out", "scanned": "scanned_out", "rnn": "rnn_out",
                "rnn_c": "rnn_c", "rnn_h": "rnn_h"}


def test_frozen_tf1_loops_import_as_while_ops_and_give_tensorflows_values():
    feeds, want = _loops()
    graph = tf.get_default_graph()
    assert not [op for op in graph.get_operations() if op.type in (
        "Enter", "Exit", "Merge", "Switch", "NextIteration", "LoopCond")]
    loops = sorted(op.name for op in graph.get_operations() if op.type == "While")
    assert loops == ["capped", "count", "mapped/while", "maybe/grow", "nested", "nested/inner", "power", "rnn/while",
                     "scanned/while", "switching"]
    # nesting: a loop in a loop's body, a cond in a loop's body, a loop in a cond's branch
    assert "nested/inner" in graph.get_operation_by_name("nested").get_attr("body").ops
    assert "switching/pick" in graph.get_operation_by_name("switching").get_attr("body").ops
    assert "maybe/grow" in graph.get_operation_by_name("maybe").get_attr("then_branch").ops
    with tf.Session() as sess:
        got = sess.run({k: f"{v}:0" for k, v in LOOP_OUTPUTS.items()}, dict(feeds, **{"p:0": True}))
        for key, value in got.items():
            np.testing.assert_allclose(value, want[key], rtol=1e-5, atol=1e-7, err_msg=key)
        for p in (True, False):
            got = sess.run("looped_in_cond_out:0", dict(feeds, **{"p:0": p}))
            np.testing.assert_allclose(got, want[f"looped_in_cond_{p}"], rtol=1e-6)
        # the loops run as often as their feeds say (none at all, here)
        assert sess.run(["count_out:0", "nested_out:0"], {"n:0": 0}) == [0, 0.0]
        np.testing.assert_allclose(sess.run("mapped_out:0", {"x:0": np.zeros((0, 3), np.float32)}), np.zeros(0))


def test_an_imported_tf1_loop_is_differentiated_and_exported_again():
    feeds, want = _loops()
    graph = tf.get_default_graph()
    x, y = graph.get_tensor_by_name("x64:0"), graph.get_tensor_by_name("power_out:0")
    weights = np.array([1.0, 2.0, 3.0])
    dx = tf.gradients(tf.reduce_sum(y * weights), x)[0]
    x0 = feeds["x64:0"]
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(y, {x: x0}), want["power"], rtol=1e-12)

        def f(v):
            return float(sess.run(y, {x: v}) @ weights)
        eps = 1e-6
        numeric = [(f(x0 + eps * e) - f(x0 - eps * e)) / (2 * eps) for e in np.eye(3)]
        np.testing.assert_allclose(sess.run(dx, {x: x0}), numeric, rtol=1e-6)
    with tf.Graph().as_default():
        tf.import_graph_def(graph.as_graph_def(), name="")  # (While nodes import as they are)
        with tf.Session() as sess:
            got = sess.run(["rnn_h:0", "nested_out:0"], {"seq:0": feeds["seq:0"], "lengths:0": feeds["lengths:0"],
                                                         "n:0": feeds["n:0"]})
        np.testing.assert_allclose(got[0], want["rnn_h"], rtol=1e-5, atol=1e-7)
        assert got[1] == want["nested"]


def test_a_tf1_training_graph_with_loops_and_their_gradient_loops_trains_as_tensorflow_trained():
    # an LSTM by dynamic_rnn and a loop of a variable, differentiated by TF 1.x (gradient loops
    # fed by stacks, TensorArray gradients), imported with its Saver, restored and trained
    folder = os.path.join(HERE, "loops_train")
    data = np.load(os.path.join(folder, "steps.npz"))
    saver = tf.train.import_meta_graph(os.path.join(folder, "model.ckpt.meta"))
    graph = tf.get_default_graph()
    kinds = {op.type for op in graph.get_operations()}
    assert {"While", "StackPushV2", "StackPopV2", "TensorArrayGradV3"} <= kinds and "Enter" not in kinds
    with tf.Session() as sess:
        saver.restore(sess, os.path.join(folder, "model.ckpt"))
        trains_as_tensorflow_did(sess, data, lambda name: sess.run(f"{name}:0"))


def test_a_tf1_loop_that_adds_to_a_variable_through_a_ref_enter_gives_tensorflows_values():
    tf.train.import_meta_graph(os.path.join(HERE, "loop_assign.meta"))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run("out:0", {"n:0": 3}) == 15.0  # (TensorFlow's values: 3 + 5 + 7, and v = 7)
        assert sess.run("v:0") == 7.0


def test_a_frozen_tf1_loop_that_does_not_pair_as_tf_while_loop_makes_is_refused_by_name():
    graph_def = _graph_def("loop.pb")
    assert tf.import_graph_def(graph_def, name="whole") is None
    with tf.Session() as sess:
        assert sess.run("whole/total:0", {"whole/n:0": 5}) == 10
    kept = [node for node in graph_def.node if node.name != "loop/NextIteration_1"]
    del graph_def.node[:]
    graph_def.node.extend(kept)
    with pytest.raises(tf.errors.UnimplementedError, match="node 'loop/Merge_1': a Merge of the loop 'loop/"
                       "while_context' that does not join an Enter and a NextIteration"):
        tf.import_graph_def(graph_def, name="broken")


def test_a_checkpoint_of_tf1s_first_format_is_read_its_slices_assembled(ckpt):
    folder = ckpt / "v1"
    prefix = str(folder / "model.ckpt")  # (one table file, no index beside it)
    assert tf.train.latest_checkpoint(str(folder)) == prefix and tf.train.checkpoint_exists(prefix)
    assert dict(tf.train.list_variables(prefix)) == {"double": [2], "emb": [6, 2], "flags": [2], "half": [2],
                                                     "neg": [3], "step": [], "w": [2, 3], "words": [2]}
    reader = tf.train.NewCheckpointReader(prefix)
    assert reader.get_tensor("neg").tolist() == [-3, 7, -2147483648] and reader.get_tensor("neg").dtype == np.int32
    assert reader.get_tensor("step") == -5 and reader.get_tensor("words").tolist() == [b"ab", b""]
    assert reader.get_tensor("half").tolist() == [1.5, -0.25] and reader.get_tensor("flags").tolist() == [True, False]
    np.testing.assert_array_equal(reader.get_tensor("double"), [1e-300, -2.5])
    # "emb" was a variable of two parts, saved as two slices of one tensor: restored whole, into
    # a variable of three parts
    emb = tf.get_variable("emb", [6, 2], partitioner=tf.fixed_size_partitioner(3))
    w = tf.get_variable("w", [2, 3])
    with tf.Session() as sess:
        tf.train.Saver({"w": w, "emb": emb}).restore(sess, prefix)
        np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(emb)), np.arange(12).reshape(6, 2))
        np.testing.assert_array_equal(sess.run(w), np.arange(6, dtype=np.float32).reshape(2, 3) / 4)
    data = bytearray((folder / "model.ckpt").read_bytes())
    data[60] ^= 1
    (folder / "model.ckpt").write_bytes(bytes(data))
    with pytest.raises(tf.errors.DataLossError, match="model.ckpt is damaged"):
        tf.train.list_variables(prefix)


def test_a_partitioned_variable_tensorflow_saved_in_slices_is_read_whole(ckpt):
    prefix = str(ckpt / "sliced" / "model.ckpt")
    assert dict(tf.train.list_variables(prefix)) == {"emb": [5, 2], "whole": [2]}
    np.testing.assert_array_equal(tf.train.load_variable(prefix, "emb"), np.arange(10).reshape(5, 2))
    emb = tf.get_variable("emb", [5, 2], partitioner=tf.fixed_size_partitioner(3))
    with tf.Session() as sess:
        tf.train.Saver({"emb": emb}).restore(sess, prefix)
        np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(emb)), np.arange(10).reshape(5, 2))
    data = ckpt / "sliced" / "model.ckpt.data-00000-of-00001"
    _flip(data, 4)  # (a byte of the first slice)
    with pytest.raises(tf.errors.DataLossError, match="emb do not match their checksum"):
        tf.train.load_variable(prefix, "emb")


def test_a_checkpoint_written_in_tensorflows_format_holds_tensorflows_own_bytes(tmp_path):
    """Every tensor of TensorFlow's checkpoint, written again by distflow: the data file is
    TensorFlow's byte for byte, and the index lists the same entries (dtype, shape, offset,
    size and checksum) for TensorFlow's reader."""
    from distflow.platform import tensor_bundle

    prefix = os.path.join(HERE, "model.ckpt-2")
    values = {name: tf.train.load_variable(prefix, name) for name, _ in tf.train.list_variables(prefix)}
    out = str(tmp_path / "again")
    tensor_bundle.write_bundle(out, values)
    with open(prefix + ".data-00000-of-00001", "rb") as theirs, open(out + ".data-00000-of-00001", "rb") as ours:
        assert ours.read() == theirs.read()

    def entries(p):
        with open(p + ".index", "rb") as f:
            return tensor_bundle.read_index(p, f.read(), p + ".index")

    assert entries(out) == entries(prefix)


def test_the_convert_checkpoint_command_writes_what_tensorflow_restores(tmp_path, capsys):
    from distflow.tools import cli

    v = tf.Variable([[1.0, 2.0]], name="v")
    n = tf.Variable(np.int64(7), name="n")
    words = tf.Variable([b"a", b"bc"], name="words")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        tf.train.Saver().save(sess, str(tmp_path / "model.ckpt"), global_step=3)
    (tmp_path / "tf").mkdir()
    assert cli.main(["convert-checkpoint", str(tmp_path), str(tmp_path / "tf" / "model.ckpt")]) == 0
    assert "wrote 3 tensors" in capsys.readouterr().out
    with open(tmp_path / "tf" / "model.ckpt.index", "rb") as f:
        assert f.read().endswith((0xdb4775248b80fb57).to_bytes(8, "little"))  # (TensorFlow's table)
    reader = tf.train.NewCheckpointReader(str(tmp_path / "tf" / "model.ckpt"))
    assert reader.get_tensor("v").tolist() == [[1.0, 2.0]] and reader.get_tensor("n") == 7
    assert reader.get_tensor("words").tolist() == [b"a", b"bc"]
    with pytest.raises(SystemExit):
        cli.main(["convert-checkpoint", str(tmp_path), str(tmp_path / "nowhere" / "model.ckpt")])
    assert "Parent directory" in capsys.readouterr().err
    del v, n, words


def test_keras_weights_tensorflow_saved_in_its_object_based_format_load_by_graph_name():
    """Keras's save_weights in TF's format keys each variable by its object path
    ("layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE"); the checkpoint's object graph
    names its graph name, by which distflow's model finds it (as TF 1.x's Saver does)."""
    tf.keras.backend.clear_session()  # (layer names as a fresh program's: dense, batch_normalization, dense_1)
    model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu", input_shape=(3,)),
                                 tf.keras.layers.BatchNormalization(), tf.keras.layers.Dense(2)])
    model.load_weights(os.path.join(HERE, "keras", "weights"))
    xs = np.arange(6, dtype=np.float32).reshape(2, 3) / 10
    np.testing.assert_allclose(model.predict(xs), [[-0.011080058291554451, 0.029702970758080482],
                                                   [-0.06666296720504761, 0.0791696310043335]], rtol=1e-5, atol=1e-7)
    assert "layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE" in dict(
        tf.train.list_variables(os.path.join(HERE, "keras")))  # (listed by their keys, as TF lists them)
    assert tf.train.load_variable(os.path.join(HERE, "keras", "weights"), "batch_normalization/gamma").shape == (4,)
