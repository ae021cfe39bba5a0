"""tf.contrib.framework's helpers: shape checks now and at run time, reduce_sum_n, squeezing,
graph and name-scope helpers, the deprecation decorators, print_op; tf.sort's edge cases."""

import logging

import numpy as np
import pytest

import distflow as tf

fw = tf.contrib.framework


def test_with_shape_checks_known_shapes_at_once_and_others_when_run():
    with tf.Graph().as_default(), tf.Session() as sess:
        t = tf.constant([[1.0, 2.0]])
        assert fw.with_shape([1, 2], t) is t
        with pytest.raises(ValueError, match="Invalid shape"):
            fw.with_shape([2, 1], t)
        with pytest.raises(ValueError, match="Invalid dtype"):
            fw.with_shape([1.5], t)
        with pytest.raises(ValueError, match="Invalid rank"):
            fw.with_shape([[1], [2]], t)
        checked = fw.with_shape(tf.constant([1, 2]), t)
        np.testing.assert_array_equal(sess.run(checked), [[1.0, 2.0]])
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Wrong shape for Const:0 .*\[2 1\] \[1 2\]"):
            sess.run(fw.with_shape(tf.constant([2, 1]), t))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Wrong shape"):  # (another rank)
            sess.run(fw.with_shape(tf.constant([2]), t))
        p = tf.placeholder(tf.float32, [None, 2])
        partial = fw.with_shape([3, 2], p)
        assert partial.shape.as_list() == [3, 2]
        assert sess.run(partial, {p: np.ones((3, 2))}).shape == (3, 2)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Wrong shape"):
            sess.run(partial, {p: np.ones((4, 2))})
        model = tf.placeholder(tf.float32)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Wrong shape"):
            sess.run(fw.with_same_shape(model, t), {model: np.ones((2, 2))})


def test_reduce_sum_n_squeezing_and_scalar_int_checks():
    with tf.Graph().as_default(), tf.Session() as sess:
        assert sess.run(fw.reduce_sum_n([tf.ones([2, 3]), tf.constant([4.0])])) == 10.0
        with pytest.raises(ValueError, match="No tensors provided"):
            fw.reduce_sum_n([])
        predictions, labels = fw.remove_squeezable_dimensions(tf.zeros([4, 1]), tf.zeros([4]))
        assert predictions.shape.as_list() == [4] and labels.shape.as_list() == [4]
        p, q = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
        predictions, labels = fw.remove_squeezable_dimensions(p, q)
        got = sess.run([predictions, labels], {p: np.zeros(4), q: np.zeros((4, 1))})
        assert [g.shape for g in got] == [(4,), (4,)]
        assert fw.assert_scalar_int(tf.constant(3)) is not None
        with pytest.raises(ValueError, match="Expected integer type"):
            fw.assert_scalar_int(tf.constant(3.0))
        with pytest.raises(ValueError, match="scalar"):
            fw.assert_scalar_int(tf.constant([3]))


def test_graph_and_name_scope_helpers():
    g0, g1 = tf.Graph(), tf.Graph()
    with g0.as_default():
        a, b = tf.constant(1.0), tf.placeholder(tf.float32, name="feed")
    with g1.as_default():
        c = tf.constant(2.0)
    assert fw.get_graph_from_inputs([a, b]) is g0 and fw.get_graph_from_inputs([a], g0) is g0
    assert fw.get_graph_from_inputs([]) is tf.get_default_graph()
    with pytest.raises(ValueError, match="not from the passed-in graph"):
        fw.get_graph_from_inputs([a], g1)
    with pytest.raises(ValueError, match="must be from the same graph"):
        fw.get_graph_from_inputs([a, c])
    assert fw.get_placeholders(g0) == [b]
    assert fw.prepend_name_scope("a/b:0", "tower") == "tower/a/b:0"
    assert fw.prepend_name_scope("^a/b", "tower") == "^tower/a/b"
    assert fw.prepend_name_scope("loc:@a", "tower") == "loc:@tower/a"
    assert fw.strip_name_scope("tower/a/b:0", "tower") == "a/b:0"
    assert fw.strip_name_scope("^tower/a", "tower") == "^a"
    assert fw.strip_name_scope("loc:@tower/a", "tower") == "loc:@a"


def test_deprecation_decorators_warn_when_called(caplog):
    @fw.deprecated("2017-01-01", "Use g.")
    def f(x):
        """Doubles."""
        return 2 * x

    @fw.deprecated_args(None, "Drop y.", "y")
    def h(x, y=None):
        return x

    @fw.deprecated_arg_values(None, "Use mode='new'.", mode="old")
    def k(mode="new"):
        return mode

    with caplog.at_level(logging.WARNING, logger="distflow"):
        assert f(2) == 4 and f(3) == 6 and h(1) == 1 and k() == "new"
        assert [r.getMessage().split("\n")[0] for r in caplog.records] == [
            f"{__name__}.f (from {__name__}) is deprecated and will be removed after 2017-01-01."]
        h(1, y=2)
        k(mode="old")
    assert "Drop y." in caplog.records[1].getMessage() and "mode='old'" in caplog.records[2].getMessage()
    assert "DEPRECATED" in f.__doc__ and f.__doc__.startswith("Doubles.")
    with pytest.raises(ValueError, match="YYYY-MM-DD"):
        fw.deprecated("Jan 1", "x")
    with pytest.raises(ValueError, match="not present in the function signature"):
        fw.deprecated_args(None, "x", "z")(h)


def test_print_op_passes_its_input_through(capsys):
    with tf.Graph().as_default(), tf.Session() as sess:
        t = tf.constant([1.0, 2.0], name="t")
        printed = fw.print_op(t, message="value: ")
        np.testing.assert_array_equal(sess.run(printed), [1.0, 2.0])
        sparse = tf.SparseTensor([[0, 1]], [5.0], [2, 2])
        assert sess.run(fw.print_op(sparse)).values.tolist() == [5.0]
    assert "value: " in capsys.readouterr().err


def test_sort_along_any_axis_with_empty_dimensions_and_clear_errors():
    rng = np.random.default_rng(0)
    with tf.Graph().as_default(), tf.Session() as sess:
        for shape in [(0,), (3, 0), (0, 4), (2, 3, 4)]:
            x = rng.random(shape)
            for axis in range(-len(shape), len(shape)):
                np.testing.assert_array_equal(sess.run(fw.sort(tf.constant(x), axis=axis)), np.sort(x, axis))
                descending = sess.run(tf.sort(tf.constant(x), axis=axis, direction="DESCENDING"))
                np.testing.assert_array_equal(descending, -np.sort(-x, axis))
        with pytest.raises(ValueError, match="out of bounds"):
            tf.sort(tf.constant([3, 4, 5]), axis=-4)
        unknown = tf.placeholder(tf.float32)
        assert sess.run(tf.sort(unknown), {unknown: [[3.0, 1.0]]}).tolist() == [[1.0, 3.0]]
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(tf.sort(unknown), {unknown: 5.0})


def test_matrices_load_from_a_checkpoint_across_a_change_of_vocabulary(tmp_path):
    old = np.arange(12, dtype=np.float32).reshape(4, 3)
    (tmp_path / "old.txt").write_text("a\nb\nc\nd\n")
    (tmp_path / "new.txt").write_text("d\nx\na\n")
    (tmp_path / "old_cols.txt").write_text("p\nq\nr\n")
    (tmp_path / "new_cols.txt").write_text("r\np\n")
    with tf.Graph().as_default(), tf.Session() as sess:
        v = tf.Variable(old, name="old")
        sess.run(v.initializer)
        prefix = tf.train.Saver().save(sess, str(tmp_path / "model"))
    with tf.Graph().as_default(), tf.Session() as sess:
        rows = fw.load_and_remap_matrix_initializer(
            prefix, "old", 3, 2, old_row_vocab_file=str(tmp_path / "old.txt"),
            new_row_vocab_file=str(tmp_path / "new.txt"), old_col_vocab_file=str(tmp_path / "old_cols.txt"),
            new_col_vocab_file=str(tmp_path / "new_cols.txt"), num_row_oov_buckets=1, num_col_oov_buckets=1,
            initializer=tf.constant_initializer(-1.0))
        whole = tf.get_variable("whole", [4, 3], initializer=rows)
        parts = tf.get_variable("parts", [4, 3], initializer=rows, partitioner=tf.fixed_size_partitioner(2))
        embedding = tf.get_variable("embedding", [4, 3], initializer=fw.load_embedding_initializer(
            prefix, "old", 3, 3, str(tmp_path / "old.txt"), str(tmp_path / "new.txt"), num_oov_buckets=1,
            initializer=tf.zeros_initializer()))
        sess.run(tf.global_variables_initializer())
        expected = [[old[3, 2], old[3, 0], -1], [-1, -1, -1], [old[0, 2], old[0, 0], -1], [-1, -1, -1]]
        np.testing.assert_array_equal(sess.run(whole), expected)
        np.testing.assert_array_equal(np.concatenate(sess.run(list(parts))), expected)  # (each part its rows)
        np.testing.assert_array_equal(sess.run(embedding), [old[3], [0, 0, 0], old[0], [0, 0, 0]])
    with pytest.raises(ValueError, match="new_col_vocab_size"):
        fw.load_and_remap_matrix_initializer(prefix, "old", 3, 2)([3, 5])


def test_a_bias_and_a_slot_load_across_a_change_of_classes(tmp_path):
    (tmp_path / "old.txt").write_text("cat\ndog\n")
    (tmp_path / "new.txt").write_text("dog\nbird\n")
    with tf.Graph().as_default(), tf.Session() as sess:
        v = tf.Variable([[0.5], [2.5]], name="bias")
        sess.run(v.initializer)
        prefix = tf.train.Saver().save(sess, str(tmp_path / "model"))
    with tf.Graph().as_default(), tf.Session() as sess:
        bias = tf.get_variable("bias", [2, 1], initializer=fw.load_linear_multiclass_bias_initializer(
            prefix, "bias", 2, str(tmp_path / "old.txt"), str(tmp_path / "new.txt")))
        second_half = tf.get_variable("slot", [1, 1], initializer=fw.load_variable_slot_initializer(
            prefix, "bias", _second_of_two(), 2, 1, str(tmp_path / "old.txt"),
            str(tmp_path / "new.txt"), initializer=tf.constant_initializer(9.0)))
        sess.run(tf.global_variables_initializer())
        assert sess.run(bias).tolist() == [[2.5], [0.0]] and sess.run(second_half).tolist() == [[9.0]]


def _second_of_two():
    """The partition info of the second of two one-row parts of a [2, 1] variable."""
    from distflow.ops.partitioned_variables import PartitionInfo

    return PartitionInfo(full_shape=[2, 1], var_offset=[1, 0])
