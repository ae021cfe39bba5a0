"""Saver, the checkpoint files (safetensors + index) and the 'checkpoint' state file."""

import json
import os
import struct
import zlib

import numpy as np
import pytest

import distflow as tf
from distflow.ops import io_ops


def make_vars():
    a = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="a")
    with tf.device("/gpu:0"):
        b = tf.Variable(np.int64(7), name="b")
    return a, b


@pytest.mark.parametrize("sharded", [False, True])
def test_save_and_restore_round_trip(tmp_path, sharded):
    a, b = make_vars()
    saver = tf.train.Saver(sharded=sharded)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, str(tmp_path / "model.ckpt"), global_step=3)
        assert path == str(tmp_path / "model.ckpt-3")
        sess.run([tf.assign(a, tf.zeros([2, 3])), tf.assign(b, 0)])
        saver.restore(sess, path)
        np.testing.assert_array_equal(sess.run(a), np.arange(6).reshape(2, 3))
        assert sess.run(b) == 7
    shards = 2 if sharded else 1
    assert sorted(os.listdir(tmp_path)) == sorted(
        ["checkpoint", "model.ckpt-3.index", "model.ckpt-3.meta"] + [f"model.ckpt-3.data-{i:05d}-of-{shards:05d}" for i in range(shards)])


def test_files_are_safetensors_with_a_json_index(tmp_path):
    a, b = make_vars()
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, str(tmp_path / "m"))
    raw = (tmp_path / "m.data-00000-of-00001").read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    assert header["a"]["dtype"] == "F32" and header["a"]["shape"] == [2, 3]
    assert header["b"]["dtype"] == "I64" and header["b"]["shape"] == []
    begin, end = header["a"]["data_offsets"]
    np.testing.assert_array_equal(np.frombuffer(raw[8 + n + begin:8 + n + end], "<f4"), np.arange(6))
    index = json.loads((tmp_path / "m.index").read_text())
    checksum = f"{zlib.crc32(raw[8 + n + begin:8 + n + end]):08x}"  # of the tensor's bytes, in both places
    assert header["__metadata__"]["crc32:a"] == checksum
    assert index["tensors"]["a"] == {"shard": 0, "dtype": "F32", "shape": [2, 3], "crc32": checksum}
    assert tf.train.list_variables(path) == [("a", [2, 3]), ("b", [])]
    np.testing.assert_array_equal(tf.train.load_variable(path, "a"), np.arange(6).reshape(2, 3))
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    loaded = safetensors_numpy.load_file(str(tmp_path / "m.data-00000-of-00001"))
    np.testing.assert_array_equal(loaded["a"], np.arange(6).reshape(2, 3))


def test_var_list_as_dict_renames_and_list_selects(tmp_path):
    a, b = make_vars()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        tf.train.Saver({"renamed": a}).save(sess, str(tmp_path / "d"))
        tf.train.Saver([b]).save(sess, str(tmp_path / "l"))
    assert tf.train.list_variables(str(tmp_path / "d")) == [("renamed", [2, 3])]
    assert tf.train.list_variables(str(tmp_path / "l")) == [("b", [])]
    with pytest.raises(ValueError, match="same name"):
        tf.train.Saver([a, a])


def test_max_to_keep_and_the_state_file(tmp_path):
    make_vars()
    saver = tf.train.Saver(max_to_keep=2)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(4):
            saver.save(sess, str(tmp_path / "model.ckpt"), global_step=step)
    assert saver.last_checkpoints == [str(tmp_path / "model.ckpt-2"), str(tmp_path / "model.ckpt-3")]
    assert not os.path.exists(tmp_path / "model.ckpt-1.index")
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert state.model_checkpoint_path == str(tmp_path / "model.ckpt-3")
    assert state.all_model_checkpoint_paths == saver.last_checkpoints
    text = (tmp_path / "checkpoint").read_text()
    assert 'model_checkpoint_path: "model.ckpt-3"' in text  # TF's text format, relative paths
    assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "model.ckpt-3")
    assert tf.train.latest_checkpoint(str(tmp_path / "nowhere")) is None


def test_keep_checkpoint_every_n_hours_keeps_old_ones(tmp_path):
    make_vars()
    saver = tf.train.Saver(max_to_keep=1, keep_checkpoint_every_n_hours=0.0)  # every one is "old enough"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(3):
            saver.save(sess, str(tmp_path / "m"), global_step=step)
    assert all(os.path.exists(tmp_path / f"m-{s}.index") for s in range(3))


def test_restore_errors_name_what_is_wrong(tmp_path):
    a, _ = make_vars()
    saver = tf.train.Saver()
    with tf.Session() as sess:
        with pytest.raises(ValueError, match="not a valid checkpoint"):
            saver.restore(sess, str(tmp_path / "missing"))
        with pytest.raises(ValueError, match="None"):
            saver.restore(sess, None)
        sess.run(tf.global_variables_initializer())
        tf.train.Saver([a]).save(sess, str(tmp_path / "only_a"))
        with pytest.raises(tf.errors.NotFoundError, match="Key b not found"):
            saver.restore(sess, str(tmp_path / "only_a"))
    (tmp_path / "only_a.data-00000-of-00001").write_bytes(b"\x05")
    with pytest.raises(tf.errors.DataLossError, match="damaged"):
        io_ops.load_checkpoint(str(tmp_path / "only_a"))


def test_a_tensor_a_checkpoint_cannot_hold_is_refused_and_nothing_is_half_written(tmp_path):
    with pytest.raises(tf.errors.InvalidArgumentError, match="numeric, bool and string"):
        io_ops.write_safetensors(str(tmp_path / "s"), {"c": np.array([1j], np.complex64)})
    with pytest.raises(tf.errors.InvalidArgumentError, match="an element is int, not bytes"):
        io_ops.write_safetensors(str(tmp_path / "s"), {"s": np.array([b"x", 3], dtype=object)})
    assert os.listdir(tmp_path) == []  # nothing half-written left behind


def test_a_damaged_tensor_is_data_loss_naming_the_file_and_the_tensor(tmp_path):
    a, b = make_vars()
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, str(tmp_path / "m"))
        data = tmp_path / "m.data-00000-of-00001"
        raw = bytearray(data.read_bytes())
        raw[-9] ^= 0x01  # one bit of a's last element (b, an int64, is the last 8 bytes)
        data.write_bytes(bytes(raw))
        with pytest.raises(tf.errors.DataLossError, match=r"m\.data-00000-of-00001 is damaged: the bytes of tensor a"):
            saver.restore(sess, path)


def test_training_resumes_from_the_newest_intact_checkpoint(tmp_path, caplog):
    """The newest checkpoint is damaged: a MonitoredTrainingSession restores the one before
    it, with a warning, instead of starting from step 0."""
    _three_checkpoints(tmp_path)
    _flip_last_byte(tmp_path / "model.ckpt-3.data-00000-of-00001")
    assert _resume_step_and_v(tmp_path, caplog) == [2, 2.0]
    assert any("Restored" in r.getMessage() and "model.ckpt-2" in r.getMessage() and "model.ckpt-3" in r.getMessage()
               for r in caplog.records)


def test_a_damaged_state_file_falls_back_to_the_newest_checkpoint_in_the_folder(tmp_path, caplog):
    with tf.Graph().as_default():
        v = tf.Variable(0.0, name="v")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for i in range(2):
                sess.run(tf.assign_add(v, 1.0))
                saver.save(sess, str(tmp_path / "model.ckpt"), global_step=i + 1)
    (tmp_path / "checkpoint").write_bytes(b"\x00 not a checkpoint state {{{")
    with caplog.at_level("WARNING", logger="distflow"):
        assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "model.ckpt-2")
    assert any("state file is not understood" in r.getMessage() for r in caplog.records)


def test_checkpoints_saved_while_other_threads_update_the_variables_are_all_readable(tmp_path):
    """Asynchronous training: steps update the variables in place while the chief saves.
    Each tensor's checksum must be of the bytes written, so every checkpoint reads back."""
    import threading

    with tf.Graph().as_default() as g:
        step = tf.train.get_or_create_global_step()
        w = tf.Variable(tf.zeros([1 << 20]), name="w")
        train = tf.train.GradientDescentOptimizer(0.01).minimize(tf.reduce_sum(tf.square(w - 1.0)), global_step=step)
        saver = tf.train.Saver(max_to_keep=None)
        init = tf.global_variables_initializer()
    sess = tf.Session(graph=g)
    sess.run(init)
    stop = threading.Event()
    steps = []

    def work():
        n = 0
        while not stop.is_set():
            sess.run(train)
            n += 1
        steps.append(n)

    workers = [threading.Thread(target=work, daemon=True) for _ in range(2)]
    for t in workers:
        t.start()
    try:
        paths = [saver.save(sess, str(tmp_path / "model.ckpt"), global_step=i) for i in range(30)]
    finally:
        stop.set()
        for t in workers:
            t.join(30)
    assert sum(steps) > 0
    for path in paths:
        values = io_ops.load_checkpoint(path)  # a DataLossError here is the defect
        assert values["w"].shape == (1 << 20,)
    sess.close()


def _three_checkpoints(tmp_path):
    """model.ckpt-1..3 of a global step and a variable v that count the steps."""
    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        v = tf.Variable(0.0, name="v")
        bump = tf.group(tf.assign_add(v, 1.0), tf.assign_add(step, 1))
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for i in range(3):
                sess.run(bump)
                saver.save(sess, str(tmp_path / "model.ckpt"), global_step=i + 1)


def _flip_last_byte(path):
    raw = bytearray(path.read_bytes())
    raw[-1] ^= 0xFF
    path.write_bytes(bytes(raw))


def _resume_step_and_v(checkpoint_dir, caplog, initial_v=0.0):
    """[global step, v] as a MonitoredTrainingSession restores them from checkpoint_dir."""
    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        v = tf.Variable(initial_v, name="v")
        with caplog.at_level("WARNING", logger="distflow"), \
                tf.train.MonitoredTrainingSession(checkpoint_dir=str(checkpoint_dir), save_checkpoint_steps=None,
                                                  save_checkpoint_secs=None) as sess:
            return sess.run([step, v])


def _flip_in_header(path, text: bytes):
    raw = bytearray(path.read_bytes())
    at = raw.index(text)
    raw[at + 1] ^= 0x01  # ("global_step" -> "flobal_step"): the JSON still parses
    path.write_bytes(bytes(raw))


def _rewrite_index(path, change):
    index = json.loads(path.read_text())
    change(index)
    path.write_text(json.dumps(index))


DAMAGE = {
    "a flipped byte in a data file's header": (
        "model.ckpt-3.data-00000-of-00001", lambda p: _flip_in_header(p, b'"global_step"')),
    "a deleted data file": ("model.ckpt-3.data-00000-of-00001", lambda p: p.unlink()),
    "an index that names 2 shards": (
        "model.ckpt-3.index", lambda p: _rewrite_index(p, lambda i: i.update(num_shards=2))),
    "a flipped byte in the index": ("model.ckpt-3.index", lambda p: _flip_in_header(p, b'"global_step"')),
    "a deleted index": ("model.ckpt-3.index", lambda p: p.unlink()),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_any_damage_to_a_checkpoint_is_data_loss_naming_the_file(tmp_path, damage):
    _three_checkpoints(tmp_path)
    name, do = DAMAGE[damage]
    do(tmp_path / name)
    with tf.Graph().as_default():
        tf.train.get_or_create_global_step()
        tf.Variable(0.0, name="v")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            with pytest.raises(tf.errors.DataLossError) as caught:
                saver.restore(sess, str(tmp_path / "model.ckpt-3"))
    assert str(tmp_path / name) in caught.value.message  # the damaged file, by its path


STATE_DAMAGE = {
    "a state file naming a missing checkpoint": lambda d: (d / "checkpoint").write_text(
        'model_checkpoint_path: "model.ckpt-9"\nall_model_checkpoint_paths: "model.ckpt-2"\n'
        'all_model_checkpoint_paths: "model.ckpt-9"\n'),
    "a garbage state file": lambda d: (d / "checkpoint").write_bytes(bytes(range(256)) * 4),
    "an empty state file": lambda d: (d / "checkpoint").write_bytes(b""),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE) + sorted(STATE_DAMAGE))
def test_training_resumes_from_the_newest_intact_checkpoint_whatever_the_damage(tmp_path, damage, caplog):
    _three_checkpoints(tmp_path)
    if damage in DAMAGE:
        name, do = DAMAGE[damage]
        do(tmp_path / name)
    else:
        (tmp_path / "model.ckpt-3.index").unlink()  # (so that the newest whole one is model.ckpt-2)
        STATE_DAMAGE[damage](tmp_path)
    assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "model.ckpt-2")
    assert _resume_step_and_v(tmp_path, caplog) == [2, 2.0]
    assert any("model.ckpt-2" in r.getMessage() for r in caplog.records if r.levelname == "WARNING")


def test_with_no_intact_checkpoint_training_starts_from_step_0_and_says_so(tmp_path, caplog):
    _three_checkpoints(tmp_path)
    for i in (1, 2, 3):
        _flip_last_byte(tmp_path / f"model.ckpt-{i}.data-00000-of-00001")
    assert _resume_step_and_v(tmp_path, caplog, initial_v=5.0) == [0, 5.0]
    assert any("No intact checkpoint" in r.getMessage() and "step 0" in r.getMessage() for r in caplog.records)


def test_string_variables_are_saved_and_restored_and_their_damage_is_named(tmp_path):
    # (safetensors holds numbers: a string tensor goes in as bytes, U8, its shape in the metadata)
    words = tf.Variable([[b"a", b""], ["caf\u00e9".encode(), b"\x00\xff"]], name="words")
    empty = tf.Variable("", name="empty")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = tf.train.Saver().save(sess, str(tmp_path / "model.ckpt"))
        sess.run([tf.assign(words, [[b"x", b"y"], [b"z", b"w"]]), tf.assign(empty, "changed")])
        tf.train.Saver().restore(sess, path)
        assert sess.run(words).tolist() == [[b"a", b""], ["caf\u00e9".encode(), b"\x00\xff"]]
        assert sess.run(empty) == b""
    reader = tf.train.NewCheckpointReader(path)
    assert reader.get_variable_to_dtype_map()["words"] == tf.string
    assert dict(tf.train.list_variables(path)) == {"empty": [], "words": [2, 2]}
    data = tmp_path / "model.ckpt.data-00000-of-00001"
    raw = bytearray(data.read_bytes())
    raw[-1] ^= 0xFF  # (the last byte of the last string)
    data.write_bytes(bytes(raw))
    with pytest.raises(tf.errors.DataLossError, match="words do not match their checksum"):
        tf.train.NewCheckpointReader(path).get_tensor("words")
