"""The tf.nn and top-level names TF1 programs reach for, each against NumPy written the obvious way,
and their gradients against float64 central differences."""

import numpy as np
import pytest

import distflow as tf
from conftest import assert_oracle, evaluate
from gradcheck import check_gradients


def r(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def test_top_k_values_indices_and_ties_in_index_order():
    x = np.array([[1.0, 3.0, 2.0, 3.0], [0.0, -1.0, 5.0, 2.0]], np.float32)
    values, indices = evaluate(tf.nn.top_k(x, 3))
    order = np.argsort(-x, axis=1, kind="stable")[:, :3]
    assert_oracle(indices, order.astype(np.int32))
    assert_oracle(values, np.take_along_axis(x, order, axis=1))
    named = tf.nn.top_k(x, 3)  # (TF's named pair, fetched as one)
    assert named.indices is named[1] and type(named).__name__ == "TopKV2"
    assert_oracle(evaluate(named).indices, order.astype(np.int32))


def test_top_k_with_k_larger_than_the_axis_is_an_error_at_build_time():
    with pytest.raises(ValueError, match="input must have last dimension >= k = 5 but is 4"):
        tf.nn.top_k(tf.zeros([2, 4]), 5)
    with pytest.raises(ValueError, match="Need k >= 0, got -1"):
        tf.nn.top_k(tf.zeros([2, 4]), -1)
    k = tf.placeholder(tf.int32)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Need k >= 0, got -7"):
            sess.run(tf.nn.top_k(tf.zeros([2, 4]), k), {k: -7})
        with pytest.raises(tf.errors.InvalidArgumentError, match="last dimension >= k = 9 but is 4"):
            sess.run(tf.nn.top_k(tf.zeros([2, 4]), k), {k: 9})


def test_in_top_k_counts_ties_at_the_boundary_as_in():
    predictions = np.array([[0.1, 0.3, 0.3, 0.2], [0.5, 0.1, 0.2, 0.2], [np.nan, 0.1, 0.2, 0.3]], np.float32)
    targets = np.array([2, 3, 0])
    got = evaluate(tf.nn.in_top_k(predictions, targets, 1))
    # Row 0: classes 1 and 2 tie for first -> both in the top 1. Row 1: 0.2 has one higher.
    assert_oracle(got, np.array([True, False, False]))
    assert_oracle(evaluate(tf.nn.in_top_k(predictions, targets, 2)), np.array([True, True, False]))


def test_sigmoid_and_weighted_cross_entropy_match_the_formulas():
    x, z = r(3, 4), (r(3, 4, seed=1) > 0).astype(np.float64)
    sigmoid = 1 / (1 + np.exp(-x))
    want = -z * np.log(sigmoid) - (1 - z) * np.log(1 - sigmoid)
    assert_oracle(evaluate(tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x)), want, rtol=1e-10)
    q = 3.0
    want_w = -q * z * np.log(sigmoid) - (1 - z) * np.log(1 - sigmoid)
    assert_oracle(evaluate(tf.nn.weighted_cross_entropy_with_logits(labels=z, logits=x, pos_weight=q)),
                  want_w, rtol=1e-10)
    with pytest.raises(ValueError, match="named arguments"):
        tf.nn.sigmoid_cross_entropy_with_logits(z, x)


def test_xw_plus_b_l2_normalize_softplus_and_lrn():
    x, w, b = r(2, 3), r(3, 4, seed=1), r(4, seed=2)
    assert_oracle(evaluate(tf.nn.xw_plus_b(x, w, b)), x @ w + b, rtol=1e-12)
    assert_oracle(evaluate(tf.nn.l2_normalize(x, axis=1)), x / np.linalg.norm(x, axis=1, keepdims=True),
                  rtol=1e-12)
    assert_oracle(evaluate(tf.nn.softplus(x)), np.log1p(np.exp(x)), rtol=1e-12)
    img = r(1, 2, 2, 6)
    radius, bias, alpha, beta = 2, 1.0, 0.5, 0.75
    sq = img ** 2
    window = np.stack([sq[..., max(0, d - radius):d + radius + 1].sum(-1) for d in range(6)], -1)
    want = img / (bias + alpha * window) ** beta
    got = evaluate(tf.nn.local_response_normalization(img, radius, bias, alpha, beta))
    assert_oracle(got, want, rtol=1e-12)
    # float32, and a window wider than the depth (every channel sums them all)
    wide = img / (bias + alpha * sq.sum(-1, keepdims=True)) ** beta
    got32 = evaluate(tf.nn.lrn(img.astype(np.float32), 7, bias, alpha, beta))
    assert_oracle(got32, wide.astype(np.float32), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["top_k", "softplus", "lrn", "gather_nd", "scatter_nd", "sin_cos",
                                  "clip_by_norm", "clip_by_global_norm", "l2_normalize", "sigmoid_xent",
                                  "embedding_lookup_mod", "embedding_lookup_div", "identity_n"])
def test_gradients(name):
    cases = {
        "top_k": (lambda x: tf.nn.top_k(x, 2)[0], [r(3, 5)]),
        "softplus": (tf.nn.softplus, [r(3, 4)]),
        "lrn": (lambda x: tf.nn.lrn(x, 1, 1.0, 0.3, 0.6), [r(2, 2, 2, 5)]),
        "gather_nd": (lambda x: tf.gather_nd(x, [[0, 1], [2, 0], [0, 1]]), [r(3, 2, 4)]),
        "scatter_nd": (lambda u: tf.scatter_nd([[1], [3], [1]], u, [5, 2]), [r(3, 2)]),
        "sin_cos": (lambda x: tf.sin(x) * tf.cos(2 * x), [r(4)]),
        "clip_by_norm": (lambda x: tf.clip_by_norm(x, 1.0, axes=[1]), [r(3, 4) * 2]),
        "clip_by_global_norm": (lambda x, y: tf.clip_by_global_norm([x, y], 1.5)[0][1], [r(3), r(2, 2)]),
        "l2_normalize": (lambda x: tf.nn.l2_normalize(x, 0), [r(3, 2)]),
        "sigmoid_xent": (lambda x: tf.nn.sigmoid_cross_entropy_with_logits(labels=[[0.0, 1.0]] * 3, logits=x),
                         [r(3, 2)]),
        "embedding_lookup_mod": (lambda a, b: tf.nn.embedding_lookup([a, b], [[0, 3], [2, 1]]),
                                 [r(2, 3), r(2, 3, seed=1)]),
        "embedding_lookup_div": (lambda a, b: tf.nn.embedding_lookup([a, b], [0, 4, 2, 1],
                                                                     partition_strategy="div"),
                                 [r(3, 2), r(2, 2, seed=1)]),
        "identity_n": (lambda x, y: tf.identity_n([x, y])[1] * 2, [r(2), r(3)]),
    }
    build, inputs = cases[name]
    check_gradients(build, inputs)


def test_embedding_lookup_shards_match_one_table():
    table = np.arange(20, dtype=np.float32).reshape(5, 4)
    ids = np.array([[4, 0], [3, 1]])
    mod = [table[0::2], table[1::2]]  # "mod": id i lives in shard i % 2, row i // 2
    div = [table[:3], table[3:]]  # "div": contiguous blocks, the first one longer
    assert_oracle(evaluate(tf.nn.embedding_lookup(table, ids)), table[ids])
    assert_oracle(evaluate(tf.nn.embedding_lookup(mod, ids)), table[ids])
    assert_oracle(evaluate(tf.nn.embedding_lookup(div, ids, partition_strategy="div")), table[ids])


@pytest.mark.parametrize("table_shape", [(6,), (6, 3), (6, 2, 3)])
@pytest.mark.parametrize("ids_shape", [(), (3,), (4, 3)])
def test_embedding_lookups_of_any_rank_in_shards_with_max_norm(table_shape, ids_shape):
    rng = np.random.default_rng(8)
    table = rng.standard_normal(table_shape) * 2
    table[5] = np.inf  # (a row of one shard never touches another's rows)
    ids = rng.integers(0, 5, size=ids_shape)
    axes = tuple(range(1, table.ndim))
    norms = np.sqrt((table[:5] ** 2).sum(axis=axes, keepdims=True)) if axes else np.abs(table[:5])
    clipped = np.concatenate([table[:5] * 1.0 / np.maximum(norms, 1.0), table[5:]])
    for shards, strategy in (([table], "mod"), ([table[0::2], table[1::2], ], "mod"),
                             ([table[0::3], table[1::3], table[2::3]], "mod"), ([table[:3], table[3:]], "div"),
                             ([table[:2], table[2:4], table[4:]], "div")):
        got = evaluate(tf.nn.embedding_lookup(shards, ids, partition_strategy=strategy))
        assert got.shape == ids_shape + table_shape[1:]
        np.testing.assert_array_equal(got, table[ids])
        unknown = tf.placeholder(tf.float64)  # (div with a shard's size known only when the step runs)
        lookup = tf.nn.embedding_lookup([unknown] + shards[1:], ids, partition_strategy=strategy, max_norm=1.0)
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(lookup, {unknown: shards[0]}), clipped[ids], rtol=1e-12)


def test_sharded_lookups_give_each_shard_a_gradient_of_its_own_rows():
    table = np.arange(15.0).reshape(5, 3)
    shards = [tf.constant(table[0::2]), tf.constant(table[1::2])]
    ids = np.array([[4, 1], [0, 4]])
    grads = tf.gradients(tf.reduce_sum(tf.nn.embedding_lookup(shards, ids) * 2.0), shards)
    assert all(isinstance(g, tf.IndexedSlices) for g in grads)
    even, odd = evaluate([tf.convert_to_tensor(g) for g in grads])
    np.testing.assert_array_equal(even, [[2, 2, 2], [0, 0, 0], [4, 4, 4]])  # (ids 0, 2, 4: 4 twice)
    np.testing.assert_array_equal(odd, [[2, 2, 2], [0, 0, 0]])
    assert evaluate(tf.shape(grads[0].values))[0] == 3  # (only its own rows, not one per id)
    check_gradients(lambda a, b: tf.nn.embedding_lookup([a, b], ids, max_norm=20.0), [table[0::2], table[1::2]])


def test_embedding_lookup_sparse_combines_embeddings_of_any_rank():
    table = np.random.default_rng(3).standard_normal((5, 2, 3))
    sp_ids = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([1, 4, 2], tf.int64), [2, 2])
    weights = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([0.5, 2.0, 3.0], tf.float64), [2, 2])
    for combiner, want0 in (("sum", 0.5 * table[1] + 2.0 * table[4]),
                            ("mean", (0.5 * table[1] + 2.0 * table[4]) / 2.5),
                            ("sqrtn", (0.5 * table[1] + 2.0 * table[4]) / np.sqrt(0.25 + 4.0))):
        got = evaluate(tf.nn.embedding_lookup_sparse([table[:3], table[3:]], sp_ids, weights, combiner=combiner,
                                                     partition_strategy="div"))
        np.testing.assert_allclose(got[0], want0, rtol=1e-12)
        np.testing.assert_allclose(got[1], table[2] * (3.0 if combiner == "sum" else 1.0), rtol=1e-12)


def test_clip_ops_match_numpy():
    a, b = r(3), r(2, 2, seed=1)
    norm = np.sqrt((a ** 2).sum() + (b ** 2).sum())
    (ca, cb), got_norm = evaluate(tf.clip_by_global_norm([a, b], 1.0))
    assert_oracle(got_norm, norm, rtol=1e-12)
    assert_oracle(ca, a / max(norm, 1.0), rtol=1e-12)
    assert_oracle(cb, b / max(norm, 1.0), rtol=1e-12)
    clipped, none_kept = tf.clip_by_global_norm([a, None], 100.0)[0]
    assert none_kept is None
    assert_oracle(evaluate(clipped), a, rtol=1e-12)
    assert_oracle(evaluate(tf.clip_by_norm(b, 0.5)), b * 0.5 / np.linalg.norm(b), rtol=1e-12)
    assert_oracle(evaluate(tf.global_norm([a, b])), norm, rtol=1e-12)


def test_gather_nd_and_scatter_nd_match_numpy_indexing():
    x = r(3, 4, 2)
    idx = np.array([[[0, 1], [2, 3]], [[1, 0], [0, 0]]])
    assert_oracle(evaluate(tf.gather_nd(x, idx)), x[idx[..., 0], idx[..., 1]])
    updates = np.array([1.0, 2.0, 3.0])
    want = np.zeros(4)
    np.add.at(want, [1, 3, 1], updates)
    assert_oracle(evaluate(tf.scatter_nd([[1], [3], [1]], updates, [4])), want)
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not index into"):
        evaluate(tf.gather_nd(x, [[5, 0]]))


def test_count_up_to_counts_then_fails_with_out_of_range():
    v = tf.Variable(0, name="counter")
    inc = v.count_up_to(2)
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert [sess.run(inc), sess.run(inc)] == [0, 1]
        with pytest.raises(tf.errors.OutOfRangeError, match="Reached limit of 2"):
            sess.run(inc)
        assert sess.run(v) == 2


def test_learning_rate_schedules():
    step = tf.placeholder(tf.int64, [])
    exp = tf.train.exponential_decay(0.1, step, 10, 0.5)
    stair = tf.train.exponential_decay(0.1, step, 10, 0.5, staircase=True)
    piece = tf.train.piecewise_constant(step, [5, 10], [1.0, 0.5, 0.1])
    poly = tf.train.polynomial_decay(0.1, step, 10, end_learning_rate=0.01, power=2.0)
    inv = tf.train.inverse_time_decay(0.1, step, 10, 0.5)
    with tf.Session() as sess:
        for s in [0, 5, 6, 10, 15, 25]:
            got = sess.run([exp, stair, piece, poly, inv], {step: s})
            want = [0.1 * 0.5 ** (s / 10), 0.1 * 0.5 ** (s // 10),
                    1.0 if s <= 5 else 0.5 if s <= 10 else 0.1,
                    (0.1 - 0.01) * (1 - min(s, 10) / 10) ** 2 + 0.01, 0.1 / (1 + 0.5 * s / 10)]
            np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=f"step {s}")
    with pytest.raises(ValueError, match="1 less than"):
        tf.train.piecewise_constant(step, [5], [1.0])


def test_print_passes_its_input_and_prints_the_first_n_times(capfd):
    x = tf.constant([1, 2, 3, 4])
    y = tf.Print(x, [x, tf.constant(7)], "values: ", first_n=2, summarize=2)
    with tf.Session() as sess:
        for _ in range(3):
            assert sess.run(y).tolist() == [1, 2, 3, 4]
    err = capfd.readouterr().err
    assert err.count("values: [1 2...][7]") == 2


def test_print_shows_each_tensor_in_brackets_as_tensorflow_does(capfd):
    x = tf.constant(1.0)
    y = tf.Print(x, [x, tf.constant([[1, 2], [3, 4]]), tf.constant([0.1, 1e-5, 123456789.0]), tf.constant("ab")],
                 "eval/Accuracy", summarize=3)
    with tf.Session() as sess:
        sess.run(y)
    assert "eval/Accuracy[1][[1 2][3...]...][0.1 1e-05 123456792][ab]" in capfd.readouterr().err


def test_py_func_runs_python_and_maps_its_exceptions():
    x = tf.constant([1.0, 2.0])
    doubled = tf.py_func(lambda a: a * 2, [x], tf.float32)
    pair = tf.py_func(lambda a: (a + 1, np.int64(len(a))), [x], [tf.float32, tf.int64])

    def fails(a):
        raise ValueError("bad value")

    def ends(a):
        raise StopIteration

    with tf.Session() as sess:
        assert sess.run(doubled).tolist() == [2.0, 4.0]
        plus, n = sess.run(pair)
        assert plus.tolist() == [2.0, 3.0] and n == 2
        with pytest.raises(tf.errors.InvalidArgumentError, match="bad value"):
            sess.run(tf.py_func(fails, [x], tf.float32))
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(tf.py_func(ends, [x], tf.float32))
    with pytest.raises(LookupError, match="PyFunc"):
        tf.gradients(tf.reduce_sum(doubled), x)


def test_py_func_gets_scalars_as_numpy_scalars_and_strings_as_bytes():
    seen = []
    table = {np.int64(3): 30}  # (a scalar is a dict key, as TF hands it over)

    def look(key, name, row):
        seen.append((type(key), type(name), type(row)))
        return np.int64(table[key])

    out = tf.py_func(look, [tf.constant(3, tf.int64), tf.constant("s"), tf.constant([1, 2])], tf.int64)
    with tf.Session() as sess:
        assert sess.run(out) == 30
    assert seen == [(np.int64, bytes, np.ndarray)]
    mixed, = tf.py_func(lambda: np.array([b" there", " ya"], dtype=object), [], [tf.string])
    joined, = tf.py_func(lambda x, y: x + y, [tf.constant(["hello", "hi"]), mixed], [tf.string])
    bad, = tf.py_func(lambda: np.array([1.5], dtype=object), [], [tf.string])
    with tf.Session() as sess:
        assert sess.run(joined).tolist() == [b"hello there", b"hi ya"]  # (a str returned comes back as bytes)
        with pytest.raises(tf.errors.InvalidArgumentError, match="should be strings, got an element of type float"):
            sess.run(bad)


def test_metrics_accumulate_over_batches_and_reset_with_local_init():
    labels = tf.placeholder(tf.int64, [None])
    predictions = tf.placeholder(tf.int64, [None])
    acc, acc_up = tf.metrics.accuracy(labels, predictions)
    prec, prec_up = tf.metrics.precision(labels, predictions)
    rec, rec_up = tf.metrics.recall(labels, predictions)
    mean, mean_up = tf.metrics.mean(tf.cast(labels, tf.float32))
    batches = [([1, 0, 1, 1], [1, 1, 0, 1]), ([0, 0, 1], [0, 1, 1])]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        for lab, pred in batches:
            sess.run([acc_up, prec_up, rec_up, mean_up], {labels: lab, predictions: pred})
        lab = np.concatenate([b[0] for b in batches])
        pred = np.concatenate([b[1] for b in batches])
        tp = np.sum((lab == 1) & (pred == 1))
        got = sess.run([acc, prec, rec, mean])
        np.testing.assert_allclose(got, [np.mean(lab == pred), tp / np.sum(pred == 1), tp / np.sum(lab == 1),
                                         np.mean(lab)], rtol=1e-6)
        sess.run(tf.local_variables_initializer())
        assert sess.run(acc) == 0.0  # no batch seen: 0, not NaN
    names = sorted(v.op.name for v in tf.local_variables())
    assert "accuracy/count" in names and "precision/false_positives/count" in names


def test_get_variable_initializers_that_tf1_accepts():
    a = tf.get_variable("a", initializer=0)
    b = tf.get_variable("b", initializer=tf.constant([1.0, 2.0]) * 3)
    c = tf.get_variable("c", [2], initializer=tf.zeros_initializer)
    with pytest.raises(ValueError, match="do not specify shape"):
        tf.get_variable("d", [2], initializer=tf.constant([1.0, 2.0]))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got_a, got_b, got_c = sess.run([a, b, c])
    assert got_a == 0 and a.dtype.base_dtype == tf.int32
    assert got_b.tolist() == [3.0, 6.0] and got_c.tolist() == [0.0, 0.0]


def test_a_variable_initialized_from_others_initializes_in_any_order():
    w = tf.Variable(tf.constant([1.0, 2.0]), name="w")
    w3 = tf.Variable(w * 3, name="w3")
    both = tf.Variable(w3 + w, name="both")
    with tf.Session() as sess:
        sess.run(tf.variables_initializer([both, w3, w]))
        assert sess.run(both).tolist() == [4.0, 8.0]
        assert sess.run(w3).tolist() == [3.0, 6.0]


def test_sigmoid_cross_entropy_gradient_at_zero_logits_is_sigmoid_minus_label():
    logits = tf.zeros([3])
    loss = tf.reduce_sum(tf.nn.sigmoid_cross_entropy_with_logits(labels=[0.0, 1.0, 0.25], logits=logits))
    assert_oracle(evaluate(tf.gradients(loss, logits)[0]), np.array([0.5, -0.5, 0.25], np.float32))


def test_layer_objects_share_their_variables_across_calls():
    layer = tf.layers.Dense(3, activation=tf.nn.relu)
    first = layer(tf.ones([2, 4]))
    layer(tf.zeros([5, 4]))
    assert [v.op.name for v in layer.variables] == ["dense/kernel", "dense/bias"]
    assert layer.kernel.shape.as_list() == [4, 3] and len(tf.trainable_variables()) == 2
    second = tf.layers.Dense(2)
    second(first)
    assert second.name == "dense_1"
    conv = tf.layers.Conv2D(4, 3, padding="same")
    pooled = tf.layers.MaxPooling2D(2, 2)(conv(tf.ones([1, 5, 5, 2])))
    assert pooled.shape.as_list() == [1, 2, 2, 4]
    assert tf.layers.Flatten()(pooled).shape.as_list() == [1, 16]
    bn = tf.layers.BatchNormalization()
    bn(pooled, training=True)
    assert len(bn.non_trainable_variables) == 2
    assert tf.layers.conv1d(tf.ones([2, 10, 3]), 4, 3).shape.as_list() == [2, 8, 4]
    x = np.arange(20, dtype=np.float32).reshape(1, 10, 2)
    assert_oracle(evaluate(tf.layers.max_pooling1d(x, 2, 2)), x.reshape(1, 5, 2, 2).max(2))


def test_threshold_metrics_and_auc_against_numpy():
    rng = np.random.RandomState(0)
    labels = rng.randint(0, 2, 400)
    scores = np.clip(labels * 0.3 + rng.rand(400) * 0.7, 0, 1).astype(np.float32)
    auc, auc_up = tf.metrics.auc(labels, scores, num_thresholds=1000)
    tp, tp_up = tf.metrics.true_positives_at_thresholds(labels, scores, [0.25, 0.5])
    prec, prec_up = tf.metrics.precision_at_thresholds(labels, scores, [0.5])
    rec_k, rec_k_up = tf.metrics.recall_at_k(labels, np.stack([1 - scores, scores], 1), 1)
    iou, iou_up = tf.metrics.mean_iou(labels, (scores > 0.5).astype(np.int64), 2)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run([auc_up, tp_up, prec_up, rec_k_up, iou_up])
        got_auc, got_tp, got_prec, got_rec, got_iou = sess.run([auc, tp, prec, rec_k, iou])
    order = np.argsort(scores)
    ranks = np.empty(400)
    ranks[order] = np.arange(1, 401)
    pos = labels == 1
    want_auc = (ranks[pos].sum() - pos.sum() * (pos.sum() + 1) / 2) / (pos.sum() * (~pos).sum())
    assert got_auc == pytest.approx(want_auc, abs=2e-3)
    assert got_tp.tolist() == [float(np.sum(pos & (scores > t))) for t in (0.25, 0.5)]
    predicted = scores > 0.5
    assert got_prec[0] == pytest.approx(np.sum(pos & predicted) / np.sum(predicted), rel=1e-5)
    assert got_rec == pytest.approx(np.mean((scores > 1 - scores) == pos), rel=1e-6)
    inter = [np.sum((labels == c) & (predicted == c)) for c in (0, 1)]
    union = [np.sum((labels == c) | (predicted == c)) for c in (0, 1)]
    assert got_iou == pytest.approx(np.mean(np.array(inter) / np.array(union)), rel=1e-5)


def _pr_auc_numpy(labels, scores, weights, num_thresholds, method):
    """TF's PR AUC written in NumPy from its documentation: weighted counts at thresholds
    (i+1)/(n-1) and the two ends just outside [0, 1]; trapezoids over recall with
    precision (tp + 1e-6) / (tp + fp + 1e-6), or the Davis-Goadrich interpolation."""
    eps = 1e-7
    thresholds = np.array([-eps] + [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)] + [1 + eps])
    above = scores[None, :] > thresholds[:, None]
    pos = labels[None, :] == 1
    tp = (above & pos) @ weights
    fp = (above & ~pos) @ weights
    fn = (~above & pos) @ weights
    if method == "trapezoidal":
        rec = (tp + 1e-6) / (tp + fn + 1e-6)
        prec = (tp + 1e-6) / (tp + fp + 1e-6)
        return np.sum((rec[:-1] - rec[1:]) * (prec[:-1] + prec[1:]) / 2)
    p = tp + fp
    dp, dtp = p[:-1] - p[1:], tp[:-1] - tp[1:]
    slope = np.divide(dtp, dp, out=np.zeros_like(dtp), where=dp > 0)
    intercept = tp[1:] - slope * p[1:]
    both = (p[:-1] > 0) & (p[1:] > 0)
    ratio = np.where(both, p[:-1] / np.where(both, p[1:], 1), 1)
    total = tp[1:] + fn[1:]
    part = slope * (dtp + intercept * np.log(ratio))
    return np.sum(np.divide(part, total, out=np.zeros_like(part), where=total > 0))


@pytest.mark.parametrize("method", ["trapezoidal", "careful_interpolation"])
def test_precision_recall_auc_as_tensorflow_computes_it(method):
    rng = np.random.RandomState(3)
    labels = (rng.rand(200) > 0.6).astype(np.int64)
    scores = np.clip(labels * 0.3 + rng.rand(200) * 0.7, 0, 1).astype(np.float32)
    weights = rng.rand(200)
    auc, update = tf.metrics.auc(labels, scores, weights=weights.astype(np.float32), curve="PR",
                                 summation_method=method, num_thresholds=50)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run(update)
        got = sess.run(auc)
    assert got == pytest.approx(_pr_auc_numpy(labels, scores, weights, 50, method), rel=1e-5)
    # (TF 2.15 gave 0.8143195 and 0.8138479 for these two on this data)
    constant, constant_up = tf.metrics.auc(labels, np.full(200, 0.5, np.float32), curve="PR")
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run(constant_up)
        # an empty bucket's precision counts as 1, as TF's epsilons make it: (1 + positive share) / 2
        assert sess.run(constant) == pytest.approx((1 + labels.mean()) / 2, rel=1e-4)


def test_depthwise_backprops_are_the_gradients():
    rng = np.random.default_rng(11)
    x, f = rng.standard_normal((1, 5, 5, 2)), rng.standard_normal((3, 3, 2, 2))
    g = rng.standard_normal((1, 3, 3, 4))
    xt, ft = tf.constant(x), tf.constant(f)
    dx, df = tf.gradients(tf.reduce_sum(tf.nn.depthwise_conv2d(xt, ft, [1, 1, 1, 1], "VALID") * g), [xt, ft])
    got_dx = tf.nn.depthwise_conv2d_native_backprop_input([1, 5, 5, 2], f, g, [1, 1, 1, 1], "VALID")
    got_df = tf.nn.depthwise_conv2d_backprop_filter(x, [3, 3, 2, 2], g, [1, 1, 1, 1], "VALID")
    want_dx, want_df, dx_v, df_v = evaluate([dx, df, got_dx, got_df])
    np.testing.assert_allclose(dx_v, want_dx, rtol=1e-12)
    np.testing.assert_allclose(df_v, want_df, rtol=1e-12)


def test_conv1d_transpose_and_conv_transpose():
    rng = np.random.default_rng(12)
    x, f = rng.standard_normal((2, 7, 3)), rng.standard_normal((3, 3, 4))
    y = rng.standard_normal((2, 4, 4))
    xt = tf.constant(x)
    grad = tf.gradients(tf.reduce_sum(tf.nn.conv1d(xt, f, 2, "SAME") * y), xt)[0]
    np.testing.assert_allclose(evaluate(tf.nn.conv1d_transpose(y, f, [2, 7, 3], 2, "SAME")), evaluate(grad),
                               rtol=1e-12)
    np.testing.assert_allclose(evaluate(tf.nn.conv_transpose(y, f, [2, 7, 3], 2, "SAME")), evaluate(grad),
                               rtol=1e-12)


def test_max_pool_with_argmax_indexes_the_flattened_input():
    x = np.random.default_rng(13).permutation(2 * 4 * 5 * 3).reshape(2, 4, 5, 3).astype(np.float32)
    pooled, argmax = evaluate(tf.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"))
    assert argmax.dtype == np.int64 and argmax.shape == pooled.shape == (2, 2, 3, 3)
    for b in range(2):
        np.testing.assert_array_equal(x[b].reshape(-1)[argmax[b]], pooled[b])
    _, with_batch = evaluate(tf.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME",
                                                        include_batch_in_index=True))
    np.testing.assert_array_equal(x.reshape(-1)[with_batch], pooled)


def test_fixed_learned_and_all_candidate_samplers():
    labels = np.array([[2], [2], [4]], np.int64)
    sampled, true_count, _ = evaluate(tf.nn.fixed_unigram_candidate_sampler(
        labels, 1, 200, False, 5, unigrams=[1.0, 0.0, 3.0], num_reserved_ids=2, seed=1))
    counts = np.bincount(sampled, minlength=5)
    assert counts[:2].sum() == 0 and counts[3] == 0 and counts[4] > counts[2] > 0
    np.testing.assert_allclose(true_count[:, 0], [50.0, 50.0, 150.0], rtol=1e-6)
    everything = evaluate(tf.nn.all_candidate_sampler(labels, 1, 6, True))
    assert everything[0].tolist() == list(range(6)) and (everything[2] == 1).all()
    learned = tf.nn.learned_unigram_candidate_sampler(np.full((50, 1), 7, np.int64), 1, 20, False, 10, seed=2)
    with tf.Session() as sess:
        draws = np.concatenate([sess.run(learned[0]) for _ in range(5)])
    assert (draws == 7).mean() > 0.5  # class 7 grows from weight 1 to 251 of 260


def depthwise_np(x, f, stride, padding, rate=1):
    """Output channel c * m + k is input channel c convolved with f[:, :, c, k], by loops."""
    kh, kw, c, m = f.shape
    if rate > 1:  # (the atrous filter: rate - 1 zeros between taps)
        spread = np.zeros(((kh - 1) * rate + 1, (kw - 1) * rate + 1, c, m))
        spread[::rate, ::rate] = f
        f, kh, kw = spread, spread.shape[0], spread.shape[1]
    n, h, w, _ = x.shape
    if padding == "SAME":
        oh, ow = -(-h // stride), -(-w // stride)
        ph, pw = max((oh - 1) * stride + kh - h, 0), max((ow - 1) * stride + kw - w, 0)
        x = np.pad(x, [(0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)])
    else:
        oh, ow = (h - kh) // stride + 1, (w - kw) // stride + 1
    out = np.zeros((n, oh, ow, c, m))
    for y in range(oh):
        for q in range(ow):
            patch = x[:, y * stride:y * stride + kh, q * stride:q * stride + kw, :]
            out[:, y, q] = np.einsum("nijc,ijcm->ncm", patch, f)
    return out.reshape(n, oh, ow, c * m)


@pytest.mark.parametrize("xs,fs,stride,padding", [
    ((2, 7, 8, 3), (3, 3, 3, 2), 1, "SAME"), ((2, 7, 8, 3), (3, 3, 3, 1), 2, "SAME"),
    ((1, 9, 6, 2), (2, 3, 2, 3), 1, "VALID"), ((2, 8, 8, 2), (3, 3, 2, 1), 3, "VALID"),
    ((16, 24, 24, 16), (3, 3, 16, 1), 1, "SAME")], ids=str)
def test_depthwise_conv2d_and_its_gradients_match_numpy(xs, fs, stride, padding):
    """The last case is large enough to run by pieces of the batch and blocks of images."""
    rng = np.random.default_rng(12)
    x, f = rng.standard_normal(xs), rng.standard_normal(fs)
    want = depthwise_np(x, f, stride, padding)
    xt, ft = tf.constant(x), tf.constant(f)
    y = tf.nn.depthwise_conv2d(xt, ft, [1, stride, stride, 1], padding)
    g = rng.standard_normal(want.shape)
    dx, df = tf.gradients(tf.reduce_sum(y * g), [xt, ft])
    got, got_dx, got_df = evaluate([y, dx, df])
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
    # the gradients against the adjoint identity <y(x), g> = <x, dx> and <y(f), g> = <f, df>
    assert np.sum(want * g) == pytest.approx(np.sum(x * got_dx), rel=1e-9)
    assert np.sum(want * g) == pytest.approx(np.sum(f * got_df), rel=1e-9)
    if x.size < 1000:
        check_gradients(lambda a, b: tf.nn.depthwise_conv2d(a, b, [1, stride, stride, 1], padding), [x, f],
                        directions=2)


def test_depthwise_conv2d_rate_nchw_and_errors():
    rng = np.random.default_rng(13)
    x, f = rng.standard_normal((2, 9, 9, 3)), rng.standard_normal((3, 3, 3, 2))
    got = evaluate(tf.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "SAME", rate=[2, 2]))
    np.testing.assert_allclose(got, depthwise_np(x, f, 1, "SAME", rate=2), rtol=1e-10, atol=1e-10)
    nchw = evaluate(tf.nn.depthwise_conv2d_native(np.transpose(x, [0, 3, 1, 2]), f, [1, 1, 2, 2], "SAME",
                                                  data_format="NCHW"))
    np.testing.assert_allclose(np.transpose(nchw, [0, 2, 3, 1]), depthwise_np(x, f, 2, "SAME"), rtol=1e-10)
    point = rng.standard_normal((1, 1, 6, 4))
    sep = evaluate(tf.nn.separable_conv2d(x, f, point, [1, 1, 1, 1], "SAME", rate=[2, 2]))
    np.testing.assert_allclose(sep, depthwise_np(x, f, 1, "SAME", rate=2) @ point[0, 0], rtol=1e-10, atol=1e-10)
    with pytest.raises(ValueError, match="strides > 1 not supported in conjunction with rate > 1"):
        tf.nn.depthwise_conv2d(x, f, [1, 2, 2, 1], "SAME", rate=[2, 2])
    with pytest.raises(ValueError, match="Depth of input"):
        tf.nn.depthwise_conv2d(x, rng.standard_normal((3, 3, 4, 1)), [1, 1, 1, 1], "SAME")


def _dilation_loops(x, f, strides, rates, padding):
    n, h, w, c = x.shape
    kh, kw = (f.shape[0] - 1) * rates[1] + 1, (f.shape[1] - 1) * rates[2] + 1
    if padding == "SAME":
        oh, ow = -(-h // strides[1]), -(-w // strides[2])
        top = max((oh - 1) * strides[1] + kh - h, 0) // 2
        left = max((ow - 1) * strides[2] + kw - w, 0) // 2
    else:
        oh, ow = (h - kh) // strides[1] + 1, (w - kw) // strides[2] + 1
        top = left = 0
    out = np.full((n, oh, ow, c), -np.inf)
    for y in range(oh):
        for z in range(ow):
            for i in range(f.shape[0]):
                for j in range(f.shape[1]):
                    r, s = y * strides[1] + i * rates[1] - top, z * strides[2] + j * rates[2] - left
                    if 0 <= r < h and 0 <= s < w:  # (outside the input nothing counts)
                        out[:, y, z] = np.maximum(out[:, y, z], x[:, r, s] + f[i, j])
    return out


@pytest.mark.parametrize("strides,rates,padding", [([1, 1, 1, 1], [1, 1, 1, 1], "SAME"),
                                                   ([1, 2, 2, 1], [1, 1, 1, 1], "VALID"),
                                                   ([1, 1, 2, 1], [1, 2, 1, 1], "SAME"),
                                                   ([1, 2, 1, 1], [1, 1, 2, 1], "VALID")])
def test_dilation_and_erosion_against_loops_with_gradients(strides, rates, padding):
    rng = np.random.default_rng(3)
    x, f = rng.standard_normal((2, 6, 7, 3)), rng.standard_normal((3, 2, 3))
    with tf.Session() as sess:
        dilated, eroded = sess.run([tf.nn.dilation2d(x, f, strides, rates, padding),
                                    tf.nn.erosion2d(x, f, strides, rates, padding)])
    np.testing.assert_allclose(dilated, _dilation_loops(x, f, strides, rates, padding), rtol=1e-12)
    np.testing.assert_allclose(eroded, -_dilation_loops(-x, f[::-1, ::-1], strides, rates, padding), rtol=1e-12)
    check_gradients(lambda a, b: tf.nn.dilation2d(a, b, strides, rates, padding), [x, f])
    check_gradients(lambda a, b: tf.nn.erosion2d(a, b, strides, rates, padding), [x, f])


@pytest.mark.parametrize("batch_dims,depth", [(1, 2), (2, 1), (1, 1)])
def test_gather_nd_with_batch_dims_indexes_each_examples_own_slice(batch_dims, depth):
    rng = np.random.default_rng(5)
    params = rng.standard_normal((2, 3, 4, 2))
    sizes = params.shape[batch_dims:batch_dims + depth]
    indices = np.stack([rng.integers(0, s, (2, 3, 5)[:batch_dims] + (2,)) for s in sizes], -1)
    want = np.empty(indices.shape[:-1] + params.shape[batch_dims + depth:])
    for batch in np.ndindex(*indices.shape[:batch_dims]):
        for row in np.ndindex(*indices.shape[batch_dims:-1]):
            want[batch + row] = params[batch + tuple(indices[batch + row])]
    got = tf.gather_nd(params, indices, batch_dims=batch_dims)
    assert got.shape.as_list() == list(want.shape)
    assert_oracle(evaluate(got), want)
    check_gradients(lambda p: tf.gather_nd(p, indices, batch_dims=batch_dims), [params])
