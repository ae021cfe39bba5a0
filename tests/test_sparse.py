"""SparseTensor and the sparse ops: NumPy on the dense equivalent is the oracle, central
differences the oracle for the gradients of the ops that have them."""

import numpy as np
import pytest

import distflow as tf
from conftest import assert_oracle, evaluate
from gradcheck import check_gradients


def dense_of(value):
    out = np.zeros(value.dense_shape, dtype=value.values.dtype)
    out[tuple(np.asarray(value.indices).T)] = value.values
    return out


INDICES = np.array([[0, 1], [1, 0], [1, 3], [3, 2]], np.int64)
VALUES = np.array([1.5, -2.0, 3.0, 4.0])
SHAPE = np.array([4, 5], np.int64)
DENSE = dense_of(tf.SparseTensorValue(INDICES, VALUES, SHAPE))


def sp():
    return tf.SparseTensor(INDICES, VALUES, SHAPE)


def test_fetch_feed_and_densify():
    value = evaluate(sp())
    assert isinstance(value, tf.SparseTensorValue)
    assert_oracle(value.indices, INDICES)
    assert sp().shape.as_list() == [4, 5] and sp().dtype == tf.float64
    assert_oracle(evaluate(tf.sparse_tensor_to_dense(sp())), DENSE)
    assert_oracle(evaluate(tf.sparse.to_dense(sp(), default_value=-1.0))[0], [-1.0, 1.5, -1.0, -1.0, -1.0])
    assert evaluate(tf.sparse_to_dense([1, 3], [5], 7, default_value=1)).tolist() == [1, 7, 1, 7, 1]

    holder = tf.sparse_placeholder(tf.float32, name="sp")
    assert holder.indices.name == "sp/indices:0"
    dense = tf.sparse_tensor_to_dense(holder)
    with tf.Session() as sess:
        got = sess.run(dense, {holder: tf.SparseTensorValue(INDICES, VALUES, SHAPE)})
        assert_oracle(got, DENSE.astype(np.float32))
        got = sess.run(dense, {holder: (INDICES[:1], VALUES[:1], [2, 2])})
        assert got.tolist() == [[0.0, 1.5], [0.0, 0.0]]
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[3,2\] is out of bounds: need 0 <= index"):
            sess.run(dense, {holder: (INDICES, VALUES, [3, 5])})
        with pytest.raises(tf.errors.InvalidArgumentError, match="out of order"):
            sess.run(dense, {holder: (INDICES[::-1], VALUES, SHAPE)})
        with pytest.raises(TypeError, match="SparseTensorValue"):
            sess.run(dense, {holder: DENSE})
    with pytest.raises(TypeError, match="SparseTensor"):
        tf.reduce_sum(sp())


def test_from_dense_reorder_transpose_reshape():
    back = evaluate(tf.sparse.from_dense(DENSE))
    assert_oracle(back.indices, INDICES)
    assert_oracle(back.values, VALUES)
    shuffled = tf.SparseTensor(INDICES[[2, 0, 3, 1]], VALUES[[2, 0, 3, 1]], SHAPE)
    ordered = evaluate(tf.sparse_reorder(shuffled))
    assert_oracle(ordered.indices, INDICES)
    assert_oracle(ordered.values, VALUES)
    assert_oracle(dense_of(evaluate(tf.sparse_transpose(sp()))), DENSE.T)
    assert_oracle(dense_of(evaluate(tf.sparse_reshape(sp(), [2, -1]))), DENSE.reshape(2, -1))
    with pytest.raises(ValueError, match=r"Cannot reshape a tensor with 20 elements to shape \[3, 3\]"):
        tf.sparse_reshape(sp(), [3, 3])
    fed = tf.sparse_placeholder(tf.float64)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="tensor with 20 dense values, but the requested "
                                                                 "shape has 9"):
            sess.run(tf.sparse_reshape(fed, [3, 3]).indices, {fed: tf.SparseTensorValue(INDICES, VALUES, SHAPE)})


def test_products_and_reductions_with_gradients():
    b = np.random.default_rng(0).standard_normal((5, 3))
    assert_oracle(evaluate(tf.sparse_tensor_dense_matmul(sp(), b)), DENSE @ b, rtol=1e-12)
    assert_oracle(evaluate(tf.sparse_tensor_dense_matmul(sp(), b.T, adjoint_b=True)), DENSE @ b, rtol=1e-12)
    c = np.random.default_rng(1).standard_normal((4, 2))
    assert_oracle(evaluate(tf.sparse.matmul(sp(), c, adjoint_a=True)), DENSE.T @ c, rtol=1e-12)
    check_gradients(lambda v, m: tf.sparse_tensor_dense_matmul(tf.SparseTensor(INDICES, v, SHAPE), m),
                    [VALUES, b])
    check_gradients(lambda v, m: tf.sparse_tensor_dense_matmul(tf.SparseTensor(INDICES, v, SHAPE), m,
                                                               adjoint_a=True, adjoint_b=True), [VALUES, c.T])

    assert evaluate(tf.sparse_reduce_sum(sp())) == pytest.approx(DENSE.sum())
    assert_oracle(evaluate(tf.sparse_reduce_sum(sp(), axis=1)), DENSE.sum(1))
    assert_oracle(evaluate(tf.sparse_reduce_sum(sp(), axis=0, keepdims=True)), DENSE.sum(0, keepdims=True))
    assert_oracle(evaluate(tf.sparse_reduce_max(sp(), axis=1)), DENSE.max(1))
    assert_oracle(dense_of(evaluate(tf.sparse_reduce_sum_sparse(sp(), axis=1))), DENSE.sum(1))
    check_gradients(lambda v: tf.sparse_reduce_sum(tf.SparseTensor(INDICES, v, SHAPE), axis=0) ** 2, [VALUES])
    check_gradients(lambda v: tf.sparse_tensor_to_dense(tf.SparseTensor(INDICES, v, SHAPE)) * DENSE, [VALUES])
    assert_oracle(dense_of(evaluate(sp() * np.arange(5.0))), DENSE * np.arange(5.0))


def test_products_of_many_entries_in_any_order_with_repeats():
    # entries unsorted and repeated (their products add up), narrow and wide dense operands
    rng = np.random.default_rng(2)
    indices = np.stack([rng.integers(0, 40, 600), rng.integers(0, 30, 600)], 1)
    values = rng.standard_normal(600).astype(np.float32)
    dense = np.zeros((40, 30), np.float64)
    np.add.at(dense, tuple(indices.T), values.astype(np.float64))
    a = tf.SparseTensor(indices, values, [40, 30])
    for width in (1, 7, 64):
        b = rng.standard_normal((30, width)).astype(np.float32)
        assert_oracle(evaluate(tf.sparse_tensor_dense_matmul(a, b)), (dense @ b).astype(np.float32), rtol=1e-4,
                      atol=1e-4)
        c = rng.standard_normal((40, width)).astype(np.float32)
        assert_oracle(evaluate(tf.sparse_tensor_dense_matmul(a, c, adjoint_a=True)), (dense.T @ c).astype(np.float32),
                      rtol=1e-4, atol=1e-4)


def test_complex_products_conjugate_for_adjoints_as_tf():
    values = np.array([1 + 2j, 3 - 1j, -0.5 + 0.25j, 2j])
    indices = np.array([[0, 1], [1, 0], [1, 2], [2, 2]], np.int64)
    dense = dense_of(tf.SparseTensorValue(indices, values, [3, 3]))
    b = np.array([[1 + 1j, 2], [3, 4j], [-1j, 0.5 - 1j]])
    weight = np.array([[1, 2j], [3, 1 - 1j], [0.5j, -2]])
    for adjoint_a in (False, True):
        for adjoint_b in (False, True):
            expected = (dense.conj().T if adjoint_a else dense) @ b  # (b fed conjugate-transposed)
            got = evaluate(tf.sparse_tensor_dense_matmul(tf.SparseTensor(indices, values, [3, 3]),
                                                         b.conj().T if adjoint_b else b,
                                                         adjoint_a=adjoint_a, adjoint_b=adjoint_b))
            assert_oracle(got, expected, rtol=1e-12)

            # TF's gradient of a real loss in a complex z is dL/dRe(z) + i dL/dIm(z):
            # central differences on each part are the oracle
            def loss(v, m):
                a = dense_of(tf.SparseTensorValue(indices, v, [3, 3]))
                return np.real(np.sum(((a.conj().T if adjoint_a else a) @ (m.conj().T if adjoint_b else m))
                                      * weight))

            def numeric(x, f):
                grad = np.zeros_like(x)
                for i in np.ndindex(x.shape):
                    for unit in (1, 1j):
                        up, down = x.copy(), x.copy()
                        up[i] += 1e-6 * unit
                        down[i] -= 1e-6 * unit
                        grad[i] += unit * (f(up) - f(down)) / 2e-6
                return grad

            b_in = b.conj().T if adjoint_b else b
            v = tf.constant(values)
            m = tf.constant(b_in)
            y = tf.sparse_tensor_dense_matmul(tf.SparseTensor(indices, v, [3, 3]), m,
                                              adjoint_a=adjoint_a, adjoint_b=adjoint_b)
            d_v, d_m = evaluate(tf.gradients(tf.real(tf.reduce_sum(y * weight)), [v, m]))
            assert_oracle(d_v, numeric(values, lambda x: loss(x, b_in)), rtol=1e-6, atol=1e-6)
            assert_oracle(d_m, numeric(b_in, lambda x: loss(values, x)), rtol=1e-6, atol=1e-6)


def test_a_product_runs_only_the_gradients_a_step_needs():
    # the sparse operand is an input (a graph network's features): its values' gradient,
    # a product at every entry, is not computed for the dense operand's
    weights = tf.Variable(np.ones((5, 3)))
    features = tf.sparse_placeholder(tf.float64)
    d_weights, = tf.gradients(tf.reduce_sum(tf.sparse_tensor_dense_matmul(features, weights)), [weights])
    d_values, = tf.gradients(tf.reduce_sum(tf.sparse_tensor_dense_matmul(features, weights)), [features.values])
    with tf.Session() as sess:
        sess.run(weights.initializer)
        meta = tf.RunMetadata()
        got = sess.run(d_weights, {features: tf.SparseTensorValue(INDICES, VALUES, SHAPE)},
                       options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=meta)
        assert_oracle(got, DENSE.T @ np.ones((4, 3)))
        ran = [node.node_name for dev in meta.step_stats.dev_stats for node in dev.node_stats]
        assert ran and not any(d_values.op.name.split("/")[-1] in name for name in ran)
        assert_oracle(sess.run(d_values, {features: tf.SparseTensorValue(INDICES, VALUES, SHAPE)}),
                      np.full(4, 3.0))


def test_add_concat_slice_split_and_elementwise():
    other = tf.SparseTensor([[0, 1], [2, 2]], [-1.5, 5.0], SHAPE)
    total = evaluate(tf.sparse_add(sp(), other))
    assert_oracle(dense_of(total), DENSE + dense_of(evaluate(other)))
    assert len(total.values) == 5  # the cancelled entry is kept unless thresh drops it
    assert len(evaluate(tf.sparse_add(sp(), other, thresh=0.5)).values) == 4
    assert_oracle(evaluate(tf.sparse_add(sp(), np.ones((4, 5)))), DENSE + 1)
    joined = evaluate(tf.sparse_concat(1, [sp(), other]))
    assert_oracle(dense_of(joined), np.concatenate([DENSE, dense_of(evaluate(other))], 1))
    piece = evaluate(tf.sparse_slice(sp(), [1, 0], [2, 4]))
    assert_oracle(dense_of(piece), DENSE[1:3, 0:4])
    parts = evaluate(tf.sparse_split(sp_input=sp(), num_split=2, axis=1))
    assert [p.dense_shape.tolist() for p in parts] == [[4, 3], [4, 2]]
    assert_oracle(np.concatenate([dense_of(p) for p in parts], 1), DENSE)
    assert_oracle(dense_of(evaluate(tf.sparse_maximum(sp(), other))), np.maximum(DENSE, dense_of(evaluate(other))))
    assert_oracle(dense_of(evaluate(tf.sparse_minimum(sp(), other))), np.minimum(DENSE, dense_of(evaluate(other))))
    kept = evaluate(tf.sparse_retain(sp(), [True, False, True, False]))
    assert kept.values.tolist() == [1.5, 3.0]
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="shapes do not match"):
            sess.run(tf.sparse_add(sp(), tf.SparseTensor([[0, 0]], [1.0], [4, 6])).values)


def test_fill_empty_rows_softmax_indicator_merge():
    filled, empty = evaluate(tf.sparse_fill_empty_rows(sp(), -1.0))
    assert empty.tolist() == [False, False, True, False]
    assert dense_of(filled)[2].tolist() == [-1.0, 0, 0, 0, 0]
    soft = evaluate(tf.sparse_softmax(sp()))
    row1 = np.exp([-2.0, 3.0]) / np.exp([-2.0, 3.0]).sum()
    assert_oracle(soft.values, [1.0, row1[0], row1[1], 1.0], rtol=1e-12)
    ids = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], np.array([3, 1, 0], np.int64), [3, 2])
    assert evaluate(tf.sparse_to_indicator(ids, 4)).tolist() == [
        [False, True, False, True], [False] * 4, [True, False, False, False]]
    weights = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], np.array([0.5, 0.25, 2.0]), [3, 2])
    merged = evaluate(tf.sparse_merge(ids, weights, 4))
    assert_oracle(dense_of(merged), [[0, 0.25, 0, 0.5], [0] * 4, [2.0, 0, 0, 0]])
    assert evaluate(tf.sparse_reset_shape(ids)).dense_shape.tolist() == [3, 2]


def test_string_split_and_serialization():
    split = evaluate(tf.string_split(["hello big  world", "", "a,b"], delimiter=" ,"))
    assert split.values.tolist() == [b"hello", b"big", b"world", b"a", b"b"]
    assert split.indices.tolist() == [[0, 0], [0, 1], [0, 2], [2, 0], [2, 1]]
    assert split.dense_shape.tolist() == [3, 3]
    chars = evaluate(tf.string_split(["abc"], delimiter=""))
    assert chars.values.tolist() == [b"a", b"b", b"c"]
    with_empty = evaluate(tf.string_split(["a  b"], skip_empty=False))
    assert with_empty.values.tolist() == [b"a", b"", b"b"]
    back = evaluate(tf.sparse.deserialize(tf.serialize_sparse(sp()), tf.float64))
    assert_oracle(dense_of(back), DENSE)


def test_sparse_segment_ops_and_embedding_lookup_sparse():
    data = np.random.default_rng(2).standard_normal((6, 3))
    indices, segments = [0, 2, 2, 5], [0, 0, 1, 1]
    rows = data[indices]
    assert_oracle(evaluate(tf.sparse_segment_sum(data, indices, segments)),
                  np.stack([rows[:2].sum(0), rows[2:].sum(0)]), rtol=1e-12)
    assert_oracle(evaluate(tf.sparse_segment_mean(data, indices, segments)),
                  np.stack([rows[:2].mean(0), rows[2:].mean(0)]), rtol=1e-12)
    assert_oracle(evaluate(tf.sparse_segment_sqrt_n(data, indices, segments)),
                  np.stack([rows[:2].sum(0), rows[2:].sum(0)]) / np.sqrt(2), rtol=1e-12)
    check_gradients(lambda d: tf.sparse_segment_mean(d, indices, segments), [data])

    def ids_and_weights():
        return (tf.SparseTensor([[0, 0], [0, 1], [2, 0]], np.array([4, 1, 4], np.int64), [3, 2]),
                tf.SparseTensor([[0, 0], [0, 1], [2, 0]], np.array([2.0, 1.0, 0.5]), [3, 2]))

    ids, weights = ids_and_weights()
    mean = evaluate(tf.nn.embedding_lookup_sparse(data, ids, weights, combiner="mean"))
    assert_oracle(mean[0], (2 * data[4] + data[1]) / 3, rtol=1e-12)
    assert_oracle(mean[1], np.zeros(3))
    assert_oracle(mean[2], data[4], rtol=1e-12)
    sqrtn = evaluate(tf.nn.embedding_lookup_sparse(data, ids, None, combiner="sqrtn"))
    assert_oracle(sqrtn[0], (data[4] + data[1]) / np.sqrt(2), rtol=1e-12)
    check_gradients(lambda p: tf.nn.embedding_lookup_sparse(p, *ids_and_weights(), combiner="sum"), [data])
    safe = evaluate(tf.nn.safe_embedding_lookup_sparse(
        data, tf.SparseTensor([[0, 0], [0, 1], [1, 0]], np.array([2, -1, 3], np.int64), [3, 2])))
    assert_oracle(safe, np.stack([data[2], data[3], np.zeros(3)]), rtol=1e-12)


def test_safe_embedding_lookup_sparse_prunes_fills_default_rows_and_keeps_the_outer_shape():
    data = np.random.default_rng(3).standard_normal((5, 2))

    def oracle(ids, weights, combiner, default_id):
        out = []
        for row_ids, row_weights in zip(ids, weights):
            kept = [(i, w) for i, w in zip(row_ids, row_weights) if i >= 0 and w > 0]
            if not kept:
                out.append(data[default_id] if default_id is not None else np.zeros(2))
                continue
            total = sum(w * data[i] for i, w in kept)
            norm = {"sum": 1.0, "mean": sum(w for _, w in kept), "sqrtn": np.sqrt(sum(w * w for _, w in kept))}
            out.append(total / norm[combiner])
        return np.array(out)

    ids = np.array([[1, 3, -1], [0, 0, 2], [-1, -1, -1], [4, 2, 2]])
    weights = np.array([[1.0, 2.0, 5.0], [0.5, 0.5, -1.0], [1.0, 1.0, 1.0], [3.0, 0.0, 1.0]])
    where = [[r, c] for r in range(4) for c in range(3)]

    def lookup(params, combiner, default_id, shape=(4, 3)):
        sp_ids = tf.SparseTensor(where, ids.reshape(-1), [4, 3])
        sp_weights = tf.SparseTensor(where, weights.reshape(-1), [4, 3])
        if shape != (4, 3):  # (ids of rank 3: combined along the last axis)
            sp_ids, sp_weights = tf.sparse_reshape(sp_ids, shape), tf.sparse_reshape(sp_weights, shape)
        return tf.nn.safe_embedding_lookup_sparse(params, sp_ids, sp_weights, combiner=combiner,
                                                  default_id=default_id)

    for combiner in ("sum", "mean", "sqrtn"):
        for default_id in (None, 3):
            assert_oracle(evaluate(lookup(data, combiner, default_id)), oracle(ids, weights, combiner, default_id),
                          rtol=1e-12)
    assert_oracle(evaluate(lookup(data, "mean", 1, (2, 2, 3))),
                  oracle(ids, weights, "mean", 1).reshape(2, 2, 2), rtol=1e-12)
    check_gradients(lambda p: lookup(p, "sqrtn", 3), [data])


def test_sparse_embedding_gradient_trains_a_bag_of_words_model():
    vocab = tf.string_split(["good movie", "bad movie", "good good"])
    table = {b"good": 0, b"bad": 1, b"movie": 2}
    ids_value = evaluate(vocab)
    ids = tf.SparseTensor(ids_value.indices, np.array([table[w] for w in ids_value.values], np.int64),
                          ids_value.dense_shape)
    embeddings = tf.Variable(np.zeros((3, 1)), name="embeddings")
    logits = tf.nn.embedding_lookup_sparse(embeddings, ids, None, combiner="sum")
    loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=[[1.0], [0.0], [1.0]], logits=logits))
    train = tf.train.GradientDescentOptimizer(1.0).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(50):
            sess.run(train)
        weights = sess.run(embeddings)[:, 0]
    assert weights[0] > 1.0 and weights[1] < -1.0


def test_var_len_features_parse_to_sparse_tensors():
    def example(tokens, score):
        return tf.train.Example(features=tf.train.Features(feature={
            "tokens": tf.train.Feature(bytes_list=tf.train.BytesList(value=tokens)),
            "score": tf.train.Feature(float_list=tf.train.FloatList(value=[score]))})).SerializeToString()

    records = [example([b"a", b"b", b"c"], 1.0), example([], 2.0), example([b"d"], 3.0)]
    spec = {"tokens": tf.VarLenFeature(tf.string), "score": tf.FixedLenFeature([], tf.float32)}
    parsed = evaluate(tf.parse_example(records, spec))
    assert parsed["score"].tolist() == [1.0, 2.0, 3.0]
    assert parsed["tokens"].indices.tolist() == [[0, 0], [0, 1], [0, 2], [2, 0]]
    assert parsed["tokens"].values.tolist() == [b"a", b"b", b"c", b"d"]
    assert parsed["tokens"].dense_shape.tolist() == [3, 3]
    single = evaluate(tf.parse_single_example(records[0], spec)["tokens"])
    assert single.indices.tolist() == [[0], [1], [2]] and single.dense_shape.tolist() == [3]
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="float_list"):
            sess.run(tf.parse_example(records, {"score": tf.VarLenFeature(tf.int64)})["score"].values)


# TensorFlow 2.21's SerializeManySparse of SparseTensor([[0, 0, 1], [0, 1, 0], [2, 1, 1]], [1.5, 2.5, 3.5],
# [3, 2, 4]): one row per minibatch entry, each the TensorProtos of its indices, values and shape (hex)
_TF_SERIALIZED = [
    [
        '08091208120208021202080222200000000000000000010000000000000001000000000000000000000000000000',
        '080112041202080222080000c03f00002040',
        '0809120412020802221002000000000000000400000000000000',
    ],
    [
        '08091206120012020802',
        '080112021200',
        '0809120412020802221002000000000000000400000000000000',
    ],
    [
        '080912081202080112020802221001000000000000000100000000000000',
        '0801120412020801220400006040',
        '0809120412020802221002000000000000000400000000000000',
    ],
]


def test_a_minibatch_of_sparse_tensors_serializes_as_tensorflows_and_comes_back():
    sp = tf.SparseTensor([[0, 0, 1], [0, 1, 0], [2, 1, 1]], [1.5, 2.5, 3.5], [3, 2, 4])
    serialized = tf.serialize_many_sparse(sp)
    theirs = np.array([[bytes.fromhex(x) for x in row] for row in _TF_SERIALIZED], dtype=object)
    back = tf.deserialize_many_sparse(theirs, tf.float32, rank=3)
    # rows of one rank and different shapes: the batch's shape takes each dimension's largest
    stacked = tf.deserialize_many_sparse(tf.stack([
        tf.serialize_sparse(tf.SparseTensor([[0, 1]], [7], [1, 3])),
        tf.serialize_sparse(tf.SparseTensor([[2, 0], [4, 1]], [8, 9], [5, 2]))]), tf.int32)
    assert back.indices.shape.as_list() == [None, 3] and serialized.shape.as_list() == [None, 3]
    with tf.Session() as sess:
        mine, got, both = sess.run([serialized, back, stacked])
    assert mine.tolist() == theirs.tolist()
    assert got.indices.tolist() == [[0, 0, 1], [0, 1, 0], [2, 1, 1]] and got.dense_shape.tolist() == [3, 2, 4]
    assert got.values.tolist() == [1.5, 2.5, 3.5]
    assert both.indices.tolist() == [[0, 0, 1], [1, 2, 0], [1, 4, 1]] and both.values.tolist() == [7, 8, 9]
    assert both.dense_shape.tolist() == [2, 5, 3]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Requested SparseTensor of type int64 but "
                                                             r"SparseTensor\[0\].values.dtype\(\) == float32"):
        with tf.Session() as sess:
            sess.run(tf.deserialize_many_sparse(theirs, tf.int64).values)
    grid = tf.deserialize_sparse(np.stack([theirs[:2], theirs[1:]]), tf.float32)  # ([2, 2, 3]: a [2, 2] of them)
    with tf.Session() as sess:
        nested = sess.run(grid)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse serialized proto"):
            sess.run(tf.deserialize_sparse(np.stack([theirs[0], [b"a", b"b", b"c"]]), tf.float32))
    assert nested.dense_shape.tolist() == [2, 2, 2, 4]
    assert nested.indices.tolist() == [[0, 0, 0, 1], [0, 0, 1, 0], [1, 1, 1, 1]]


def test_set_operations_along_the_last_dimension_match_tensorflows():
    a = tf.constant([[1, 2, 2, 3], [4, 5, 6, 6]], tf.int64)
    b = tf.constant([[2, 3, 9, 9], [6, 7, 8, 4]], tf.int64)
    sb = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([3, 7, 5], tf.int64), [2, 2])
    results = [tf.sets.intersection(a, b), tf.sets.set_union(a, b), tf.sets.difference(a, b),
               tf.sets.set_difference(a, b, aminusb=False), tf.sets.intersection(a, sb),
               tf.sets.difference(sb, a),  # (Sparse,Dense: swapped, and subtracted the other way, as TF)
               tf.sets.union(sb, sb)]
    size = tf.sets.set_size(tf.SparseTensor([[0, 0], [0, 1], [0, 2], [2, 0]], tf.constant([1, 1, 2, 5], tf.int64),
                                            [3, 4]))
    words = tf.sets.intersection(tf.constant([["a", "b", "c"]]), tf.constant([["c", "a", "z"]]))
    with tf.Session() as sess:
        got = [(v.indices.tolist(), v.values.tolist(), v.dense_shape.tolist()) for v in sess.run(results)]
        assert sess.run(size).tolist() == [2, 0, 1]
        assert sess.run(words).values.tolist() == [b"a", b"c"]
        with pytest.raises(tf.errors.InvalidArgumentError, match="not in increasing row-major order"):
            sess.run(tf.sets.set_size(tf.SparseTensor([[0, 1], [0, 0]], tf.constant([1, 2], tf.int64), [1, 2])))
    # (TensorFlow 2.21's tf.sets of the same tensors)
    assert got == [
        ([[0, 0], [0, 1], [1, 0], [1, 1]], [2, 3, 4, 6], [2, 2]),
        ([[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [1, 2], [1, 3], [1, 4]], [1, 2, 3, 9, 4, 5, 6, 7, 8],
         [2, 5]),
        ([[0, 0], [1, 0]], [1, 5], [2, 1]),
        ([[0, 0], [1, 0], [1, 1]], [9, 7, 8], [2, 2]),
        ([[0, 0], [1, 0]], [3, 5], [2, 1]),
        ([[0, 0]], [7], [2, 1]),
        ([[0, 0], [0, 1], [1, 0]], [3, 7, 5], [2, 2]),
    ]
    with pytest.raises(TypeError, match="Unsupported dtype float32"):
        tf.sets.intersection(tf.constant([[1.0]]), tf.constant([[1.0]]))


def test_sparse_eye_and_expand_dims():
    sparse = tf.SparseTensor([[0, 1], [2, 0]], [1.0, 2.0], [3, 4])
    with tf.Session() as sess:
        eye, middle, last = sess.run([tf.sparse.eye(3, 4), tf.sparse.expand_dims(sparse, 1),
                                      tf.sparse.expand_dims(sparse)])
    assert eye.indices.tolist() == [[0, 0], [1, 1], [2, 2]] and eye.dense_shape.tolist() == [3, 4]
    assert middle.indices.tolist() == [[0, 0, 1], [2, 0, 0]] and middle.dense_shape.tolist() == [3, 1, 4]
    assert last.indices.tolist() == [[0, 1, 0], [2, 0, 0]] and last.dense_shape.tolist() == [3, 4, 1]


def test_sparse_softmax_fill_empty_rows_and_sparse_add_have_gradients():
    sp = tf.SparseTensor(INDICES, tf.constant(VALUES), SHAPE)
    soft = tf.sparse_softmax(sp)
    assert soft.values.dtype == tf.float64  # (the values' dtype, not the indices')
    rows = evaluate(soft)
    want = np.array([1.0, np.exp(-2.0) / (np.exp(-2.0) + np.exp(3.0)), np.exp(3.0) / (np.exp(-2.0) + np.exp(3.0)), 1.0])
    assert_oracle(rows.values, want, rtol=1e-12)
    weights = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0])  # (rows 2, 4 and 5 filled)
    check_gradients(lambda v, d: tf.sparse_fill_empty_rows(tf.SparseTensor(INDICES, v, [6, 5]), d)[0].values
                    * weights, [VALUES, np.float64(-1.0)])
    other = np.array([[1, 0], [2, 2]], np.int64)
    check_gradients(lambda a, b: tf.sparse_add(tf.SparseTensor(INDICES, a, SHAPE), tf.SparseTensor(other, b, SHAPE),
                                               thresh=0.5).values * [1.0, 2.0, 3.0, 4.0],
                    [VALUES, np.array([2.2, 7.0])])  # (-2.0 + 2.2 is under thresh: dropped, no gradient)


def test_sparse_shape_ops_check_what_the_graph_knows_and_keep_static_shapes():
    sp = tf.SparseTensor(INDICES, VALUES, SHAPE)
    with pytest.raises(ValueError, match="At most one dimension can be inferred"):
        tf.sparse_reshape(sp, [-1, 2, -1])
    with pytest.raises(ValueError, match=r"Cannot reshape a tensor with 20 elements to shape \[3, 7\]"):
        tf.sparse_reshape(sp, [3, 7])
    assert tf.sparse_reshape(sp, [2, -1]).shape.as_list() == [2, 10]
    assert tf.sparse_reshape(sp, tf.shape(tf.zeros([5, 4]))).indices.shape.as_list() == [4, 2]  # (int32 shapes too)
    fed = tf.sparse_placeholder(tf.float64)
    reshaped = tf.sparse_reshape(fed, [4, -1])
    value = tf.SparseTensorValue(INDICES, VALUES, SHAPE)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="the requested shape requires a multiple of 3"):
            sess.run(tf.sparse_reshape(fed, [3, -1]), {fed: value})
        assert sess.run(reshaped, {fed: value}).dense_shape.tolist() == [4, 5]
    assert tf.sparse_transpose(sp, [1, 0]).shape.as_list() == [5, 4]
    with pytest.raises(ValueError, match="should have dimension sizes >= sp_input.shape"):
        tf.sparse_reset_shape(sp, [3, 7])
    with pytest.raises(ValueError, match="new_shape has 3 dimensions"):
        tf.sparse_reset_shape(sp, [4, 5, 6])
    new_shape = tf.placeholder(tf.int32)
    reset = tf.sparse_reset_shape(sp, new_shape)
    empty = tf.sparse_reset_shape(tf.SparseTensor(np.zeros((0, 3), np.int64), np.zeros(0), [2, 5, 6]))
    with tf.Session() as sess:
        assert sess.run(reset, {new_shape: [6, 6]}).dense_shape.tolist() == [6, 6]
        with pytest.raises(tf.errors.InvalidArgumentError, match="new_shape is too small"):
            sess.run(reset, {new_shape: [6, 4]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="must have the rank of sp_input"):
            sess.run(reset, {new_shape: [6, 6, 6]})
        assert sess.run(empty).dense_shape.tolist() == [0, 0, 0]
        with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid reduction dimension -3, for input with 2"):
            sess.run(tf.sparse_reduce_sum(sp, -3))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid reduction dimension 2"):
            sess.run(tf.sparse_reduce_max(sp, 2))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Operands do not have the same ranks"):
            sess.run(tf.sparse_maximum(sp, tf.SparseTensor([[0]], [1.0], [2])))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Operands' shapes do not match"):
            sess.run(tf.sparse_minimum(sp, tf.SparseTensor([[0, 0]], [1.0], [4, 6])))


def test_dense_times_sparse_is_sparse_and_sparse_merge_takes_one_sparse_tensor_value():
    sp = tf.SparseTensor(INDICES, VALUES, SHAPE)
    column = np.arange(1.0, 5.0).reshape(4, 1)
    left, right = evaluate([tf.constant(column) * sp, sp * tf.constant(column)])
    assert_oracle(dense_of(left), dense_of(tf.SparseTensorValue(INDICES, VALUES, SHAPE)) * column)
    assert left.indices.tolist() == right.indices.tolist() and left.values.tolist() == right.values.tolist()
    ids = tf.SparseTensorValue(np.array([[0, 0], [1, 0], [1, 1]]), np.array([3, 1, 4], np.int32), [2, 2])
    weights = tf.SparseTensorValue(ids.indices, np.array([0.5, 1.5, 2.5]), [2, 2])
    merged = evaluate(tf.sparse_merge(ids, weights, 5))
    assert merged.indices.tolist() == [[0, 3], [1, 1], [1, 4]] and merged.dense_shape.tolist() == [2, 5]
