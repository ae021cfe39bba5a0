"""Partitioned variables: parts made by a partitioner, used as one tensor, trained, looked up
as shards, placed on the ps tasks in turn, and saved under the full name."""

import numpy as np
import pytest

import distflow as tf

RNG = np.random.default_rng(3)


def test_a_partitioner_cuts_one_axis_into_parts_that_act_as_one_variable():
    full = RNG.standard_normal((10, 4)).astype(np.float32)
    with tf.Graph().as_default():
        with tf.variable_scope("layer", partitioner=tf.fixed_size_partitioner(3)):
            w = tf.get_variable("w", [10, 4])
        assert isinstance(w, tf.PartitionedVariable) and len(w) == 3 and w.shape.as_list() == [10, 4]
        assert [(p.op.name, p.shape.as_list()) for p in w] == [
            ("layer/w/part_0", [4, 4]), ("layer/w/part_1", [3, 4]), ("layer/w/part_2", [3, 4])]
        assert w._get_partitions() == [3, 1]
        assert [v.op.name for v in tf.trainable_variables()] == ["layer/w/part_0", "layer/w/part_1", "layer/w/part_2"]
        with tf.variable_scope("layer", reuse=True, partitioner=tf.fixed_size_partitioner(3)):
            assert tf.get_variable("w", [10, 4]) is w
        with pytest.raises(ValueError, match="already exists"):
            with tf.variable_scope("layer", partitioner=tf.fixed_size_partitioner(3)):
                tf.get_variable("w", [10, 4])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(w.assign(full))
            np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(w)), full)
            np.testing.assert_array_equal(sess.run(w.as_tensor()), full)
            np.testing.assert_array_equal(sess.run(list(w))[1], full[4:7])


def _train(partitioner, full, x, y, steps=3):
    with tf.Graph().as_default():
        w = tf.get_variable("w", full.shape, partitioner=partitioner)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=tf.matmul(x, w)))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(w.assign(full))
            for _ in range(steps):
                sess.run(train)
            return sess.run(tf.convert_to_tensor(w))


def test_each_part_is_trained_where_it_lies_as_the_whole_would_be():
    full = RNG.standard_normal((10, 3)).astype(np.float32)
    x, y = RNG.standard_normal((16, 10)).astype(np.float32), RNG.integers(0, 3, 16)
    np.testing.assert_allclose(_train(tf.fixed_size_partitioner(4), full, x, y), _train(None, full, x, y),
                               rtol=1e-6, atol=1e-7)


def test_a_saver_writes_the_full_variable_and_restores_any_partitioning(tmp_path):
    full = RNG.standard_normal((9, 2)).astype(np.float32)
    with tf.Graph().as_default():
        w = tf.get_variable("emb", [9, 2], partitioner=tf.fixed_size_partitioner(3))
        tf.get_variable("other", [2], initializer=tf.ones_initializer())  # (saved beside it)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(w.assign(full))
            path = tf.train.Saver().save(sess, str(tmp_path / "model.ckpt"))
    assert sorted(name for name, _ in tf.train.list_variables(path)) == ["emb", "other"]
    np.testing.assert_array_equal(tf.train.load_variable(path, "emb"), full)
    for partitioner in (tf.fixed_size_partitioner(2), None):
        with tf.Graph().as_default():
            w = tf.get_variable("emb", [9, 2], partitioner=partitioner, initializer=tf.zeros_initializer())
            saver = tf.train.Saver([w] if partitioner else {"emb": w})
            with tf.Session() as sess:
                saver.restore(sess, path)
                np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(w)), full)


def test_an_embedding_lookup_takes_the_parts_as_shards_by_tfs_strategies():
    full = np.arange(14, dtype=np.float32).reshape(7, 2)
    ids = np.array([0, 6, 3, 4, 1, 1])
    with tf.Graph().as_default():
        emb = tf.get_variable("emb", [7, 2], partitioner=tf.fixed_size_partitioner(3))
        by_mod = tf.nn.embedding_lookup(emb, ids)  # (TF's default: id i in part i % 3, row i // 3)
        by_div = tf.nn.embedding_lookup(emb, ids, partition_strategy="div")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(emb.assign(full))
            got_mod, got_div = sess.run([by_mod, by_div])
    np.testing.assert_array_equal(got_div, full[ids])  # (contiguous parts: the concatenation's rows)
    parts = np.split(full, [3, 5])
    np.testing.assert_array_equal(got_mod, [parts[i % 3][i // 3] for i in ids])


def test_parts_go_to_the_ps_tasks_in_turn():
    with tf.Graph().as_default():
        with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
            w = tf.get_variable("w", [6, 2], partitioner=tf.fixed_size_partitioner(3))
        assert [p.device for p in w] == ["/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:0"]


def test_the_partitioners_size_parts_as_tensorflows_do():
    shape = tf.TensorShape([100, 8])
    assert tf.fixed_size_partitioner(4)(shape=shape, dtype=tf.float32) == [4, 1]
    assert tf.fixed_size_partitioner(5, axis=1)(shape=tf.TensorShape([3, 2]), dtype=tf.float32) == [1, 2]
    # 3,200 bytes in slices of at least 1 KB: 4 parts, unless fewer are allowed
    assert tf.min_max_variable_partitioner(8, min_slice_size=1 << 10)(shape=shape, dtype=tf.float32) == [4, 1]
    assert tf.min_max_variable_partitioner(2, min_slice_size=1 << 10)(shape=shape, dtype=tf.float32) == [2, 1]
    # rows of 32 bytes, at most 1,000 bytes a part: 31 rows a part, 4 parts
    assert tf.variable_axis_size_partitioner(1000)(shape=shape, dtype=tf.float32) == [4, 1]
    assert tf.variable_axis_size_partitioner(1000, max_shards=3)(shape=shape, dtype=tf.float32) == [3, 1]
    with tf.Graph().as_default():
        parts = tf.create_partitioned_variables([6, 2], [3, 1], tf.zeros_initializer(), name="made")
        assert [p.op.name for p in parts] == ["made/part_0", "made/part_1", "made/part_2"]
        with pytest.raises(ValueError, match="can only slice one dimension"):
            tf.get_variable("w", [4, 4], partitioner=lambda shape, dtype: [2, 2])
        with pytest.raises(ValueError, match="one entry per dimension"):
            tf.get_variable("v", [4, 4], partitioner=lambda shape, dtype: [2])


def test_a_partitioned_variable_warm_starts_as_a_whole_from_any_partitioning(tmp_path):
    full = np.arange(12, dtype=np.float32).reshape(6, 2)  # rows of "a" to "f"
    with tf.Graph().as_default():
        w = tf.get_variable("emb", [6, 2], partitioner=tf.fixed_size_partitioner(3))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(w.assign(full))
            path = tf.train.Saver().save(sess, str(tmp_path / "model.ckpt"))
    with tf.Graph().as_default():
        same = tf.get_variable("emb", [6, 2], partitioner=tf.fixed_size_partitioner(2))
        remapped = tf.get_variable("words", [4, 2], partitioner=tf.fixed_size_partitioner(2))
        tf.train.warm_start(path, vars_to_warm_start=[same, remapped],
                            var_name_to_prev_var_name={"words": "emb"},
                            var_name_to_vocab_info={"words": tf.train.VocabInfo(
                                ["f", "z", "b", "a"], 4, 0, list("abcdef"),
                                backup_initializer=tf.constant_initializer(-1.0))})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got_same, got_remapped = sess.run([tf.convert_to_tensor(same), tf.convert_to_tensor(remapped)])
    np.testing.assert_array_equal(got_same, full)
    np.testing.assert_array_equal(got_remapped, [full[5], [-1.0, -1.0], full[1], full[0]])


def test_an_optimizers_slots_of_the_parts_are_saved_under_the_full_slot_name(tmp_path):
    with tf.Graph().as_default():
        w = tf.get_variable("w", [5, 2], partitioner=tf.fixed_size_partitioner(2))
        train = tf.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(tf.square(tf.matmul(tf.ones([1, 5]), w))))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            path = tf.train.Saver().save(sess, str(tmp_path / "model.ckpt"))
    names = {name: shape for name, shape in tf.train.list_variables(path)}
    assert names["w"] == [5, 2] and names["w/Adam"] == [5, 2] and names["w/Adam_1"] == [5, 2], names
    assert not any("part_" in name for name in names), names


def test_init_from_checkpoint_fills_the_parts_of_a_partitioned_variable(tmp_path):
    full = np.arange(10, dtype=np.float32).reshape(5, 2)
    with tf.Graph().as_default():
        old = tf.Variable(full, name="old/emb")
        with tf.Session() as sess:
            sess.run(old.initializer)
            path = tf.train.Saver([old]).save(sess, str(tmp_path / "model.ckpt"))
    for target in ("new/emb", "object"):
        with tf.Graph().as_default():
            with tf.variable_scope("new"):
                w = tf.get_variable("emb", [5, 2], partitioner=tf.fixed_size_partitioner(2))
            tf.train.init_from_checkpoint(path, {"old/emb": w if target == "object" else target})
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(w)), full)


def test_a_parts_initializer_is_told_of_the_whole_variable_and_scales_by_it():
    seen = []

    def recording(shape, dtype=None, partition_info=None):
        seen.append((list(shape), partition_info.full_shape, partition_info.var_offset,
                     partition_info.single_slice_dim(shape), partition_info.single_offset(shape)))
        return tf.zeros(shape, dtype)

    with tf.Graph().as_default():
        tf.get_variable("recorded", [10, 4], initializer=recording, partitioner=tf.fixed_size_partitioner(3))
        eye = tf.get_variable("eye", [6, 4], initializer=tf.initializers.identity(gain=2.0),
                              partitioner=tf.fixed_size_partitioner(2))
        wide = tf.get_variable("wide", [2000, 10], initializer=tf.glorot_uniform_initializer(seed=1),
                               partitioner=tf.fixed_size_partitioner(10))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got_eye, got_wide = sess.run([tf.convert_to_tensor(eye), tf.convert_to_tensor(wide)])
    assert seen == [([4, 4], [10, 4], [0, 0], 0, 0), ([3, 4], [10, 4], [4, 0], 0, 4), ([3, 4], [10, 4], [7, 0], 0, 7)]
    np.testing.assert_array_equal(got_eye, 2.0 * np.eye(6, 4))  # (each part its slice of the whole)
    limit = np.sqrt(6.0 / (2000 + 10))  # (the whole's fans, as TF's; a part's would give sqrt(6 / 210))
    assert limit * 0.95 < np.abs(got_wide).max() <= limit


def test_initializers_of_real_values_refuse_other_dtypes():
    for make in (tf.random_normal_initializer, tf.truncated_normal_initializer, tf.orthogonal_initializer,
                 tf.uniform_unit_scaling_initializer, tf.glorot_uniform_initializer, tf.initializers.identity):
        with pytest.raises(ValueError, match="Expected floating point type, got string"):
            make(dtype=tf.string)
    assert tf.random_uniform_initializer(0, 10, dtype=tf.int32).dtype == tf.int32  # (integers are uniform's)
    with pytest.raises(ValueError, match="can only be used for 2D matrices"):
        tf.initializers.identity()([5, 7, 7])
