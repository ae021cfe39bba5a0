"""tf.contrib.tensor_forest: the online forest checked example by example against the algorithm
written the obvious way in Python, forests that learn, and the Estimators as TF 1.x programs
used them."""

import numpy as np
import pytest

import distflow as tf
from distflow.contrib.tensor_forest.client import random_forest
from distflow.contrib.tensor_forest.python import tensor_forest
from distflow.python.ops import resources


def _oracle_tree(batches, num_classes, num_splits, split_after, max_nodes, regression=False):
    """One tree of one feature (so no random draw: every candidate splits feature 0) trained
    batch by batch, each batch example by example, as the module's text says: leaves found
    with the tree as it was when the batch came, finished leaves split after the batch in
    order of their ids. Returns (feature, threshold, left_child, leaf model) of the nodes."""
    columns = num_classes + 1
    feature, threshold, left_child, model = [-1], [0.0], [-1], [np.zeros(columns)]
    stats = {}  # leaf -> {"cands": [[threshold, left row, left squares]], "total": row, "squares": row}

    def leaf_of(x):
        node = 0
        while feature[node] >= 0:
            node = left_child[node] + (x > threshold[node])
        return node

    def target_row(y, w):
        t = np.asarray(y, np.float64).reshape(-1) if regression else np.eye(num_classes)[int(y)]
        return np.concatenate([t * w, [w]]), (t * t * w if regression else np.zeros(0))

    for xs, ys, ws in batches:
        leaves = [leaf_of(x) for x in xs]
        for leaf, y, w in zip(leaves, ys, ws):
            model[leaf] = model[leaf] + target_row(y, w)[0]
        if len(feature) + 2 > max_nodes:
            continue
        for leaf, x, y, w in zip(leaves, xs, ys, ws):
            st = stats.setdefault(leaf, {"cands": [], "total": np.zeros(columns), "squares": np.zeros(num_classes)})
            if len(st["cands"]) < num_splits:
                st["cands"].append([x, np.zeros(columns), np.zeros(num_classes)])
            row, square = target_row(y, w)
            for cand in st["cands"]:
                if x <= cand[0]:
                    cand[1] = cand[1] + row
                    if regression:
                        cand[2] = cand[2] + square
            st["total"] = st["total"] + row
            if regression:
                st["squares"] = st["squares"] + square
        for leaf in sorted(set(leaves)):
            st = stats[leaf]
            ready = st["total"][-1] >= split_after and (regression or (st["total"][:-1] > 0).sum() > 1)
            if not ready:
                continue
            if len(feature) + 2 > max_nodes:
                break
            scores = []
            for thr, left, left_sq in st["cands"]:
                right = st["total"] - left
                if left[-1] <= 0 or right[-1] <= 0:
                    scores.append(np.inf)
                elif regression:
                    right_sq = st["squares"] - left_sq
                    scores.append(sum((sq - s * s / side[-1]).sum() for s, sq, side in
                                      ((left[:-1], left_sq, left), (right[:-1], right_sq, right))))
                else:
                    scores.append(sum((c + 1).sum() - ((c + 1) ** 2).sum() / (c + 1).sum()
                                      for c in (left[:-1], right[:-1])))
            del stats[leaf]
            if not np.isfinite(scores).any():
                continue
            best = st["cands"][int(np.argmin(scores))]
            feature[leaf], threshold[leaf], left_child[leaf] = 0, best[0], len(feature)
            model += [best[1], st["total"] - best[1]]
            feature += [-1, -1]
            threshold += [0.0, 0.0]
            left_child += [-1, -1]
        if len(feature) + 2 > max_nodes:
            stats.clear()
    return np.array(feature), np.array(threshold, np.float32), np.array(left_child), np.array(model)


def _forest(num_classes, num_features, **kwargs):
    params = tensor_forest.ForestHParams(num_classes=num_classes, num_features=num_features, **kwargs).fill()
    graph = tensor_forest.RandomForestGraphs(params)
    x = tf.placeholder(tf.float32, [None, num_features])
    y = tf.placeholder(tf.float32 if params.regression else tf.int32, [None] if not params.regression else
                       [None, num_classes])
    return params, graph, x, y


@pytest.mark.parametrize("regression", [False, True])
def test_a_tree_grows_as_the_algorithm_written_example_by_example(regression):
    rng = np.random.default_rng(3)
    batches = []
    for _ in range(30):
        xs = rng.integers(0, 12, (17, 1)).astype(np.float32)  # (ties between values, as data has them)
        ys = (rng.integers(0, 3, 17) if not regression else
              (2.0 * (xs[:, 0] > 5) - (xs[:, 0] > 9) + rng.integers(0, 2, 17)).astype(np.float32)[:, None])
        if not regression:
            ys = np.where(rng.random(17) < 0.8, (xs[:, 0] > 4).astype(int) + (xs[:, 0] > 8), ys)
        batches.append((xs, ys, rng.integers(1, 3, 17).astype(np.float32)))
    num_classes = 1 if regression else 3
    params, graph, x, y = _forest(num_classes, 1, num_trees=1, max_nodes=15, num_splits_to_consider=4,
                                  split_after_samples=12, regression=regression, base_random_seed=5)
    w = tf.placeholder(tf.float32, [None])
    train = graph.trees[0].training_graph(x, y, 5, input_weights=w)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for xs, ys, ws in batches:
            sess.run(train, {x: xs, y: ys, w: ws})
        v = graph.variables[0]
        feature, threshold, left_child, model, state = sess.run(
            [v.feature, v.threshold, v.left_child, v.leaf_model, v.state])
    want = _oracle_tree([(b[0][:, 0], b[1] if regression else b[1], b[2]) for b in batches], num_classes, 4, 12,
                        15, regression)
    size = len(want[0])
    assert state[0] == size and size == 15  # (the tree filled up: every split was checked)
    np.testing.assert_array_equal(feature[:size], want[0])
    np.testing.assert_array_equal(threshold[:size][want[0] >= 0], want[1][want[0] >= 0])
    np.testing.assert_array_equal(left_child[:size][want[0] >= 0], want[2][want[0] >= 0])
    np.testing.assert_allclose(model[:size], want[3], rtol=1e-6)


def _leaf_prediction(feature, threshold, left_child, model, row, regression):
    node = 0
    while feature[node] >= 0:
        node = left_child[node] + (row[feature[node]] > threshold[node])
    w = model[node, -1]
    if w <= 0:
        return np.zeros(model.shape[1] - 1) if regression else np.full(model.shape[1] - 1, 1 / (model.shape[1] - 1))
    return model[node, :-1] / w


def test_a_forest_learns_classes_and_predicts_its_trees_average():
    rng = np.random.default_rng(0)
    centers = rng.normal(0, 4, (3, 5))
    labels = rng.integers(0, 3, 3000)
    data = (centers[labels] + rng.normal(0, 1, (3000, 5))).astype(np.float32)
    params, graph, x, y = _forest(3, 5, num_trees=6, max_nodes=101, split_after_samples=30, base_random_seed=1)
    train = graph.training_graph(x, y)
    probs, paths, _ = graph.inference_graph(x)
    loss = graph.training_loss(x, y)
    init = tf.group(tf.global_variables_initializer(), resources.initialize_resources(resources.shared_resources()))
    with tf.Session() as sess:
        sess.run(init)
        first_loss = sess.run(loss)
        for i in range(0, 2400, 100):
            sess.run(train, {x: data[i:i + 100], y: labels[i:i + 100]})
        test = data[2400:]
        p, leaf_ids, last_loss = sess.run([probs, paths, loss], {x: test})
        trees = [sess.run([v.feature, v.threshold, v.left_child, v.leaf_model]) for v in graph.variables.variables]
    assert first_loss == -1.0 and last_loss < -20  # (the negative average size: the trees grew)
    assert (p.argmax(1) == labels[2400:]).mean() > 0.95
    want = np.mean([[_leaf_prediction(*t, row, False) for row in test] for t in trees], axis=0)
    np.testing.assert_allclose(p, want, rtol=1e-5, atol=1e-7)
    assert leaf_ids.shape == (600, 6) and all((trees[t][0][leaf_ids[:, t]] < 0).all() for t in range(6))


def test_a_regression_forest_fits_a_step_and_reports_the_trees_variance():
    rng = np.random.default_rng(1)
    data = rng.uniform(0, 10, (2000, 2)).astype(np.float32)
    target = (3.0 * (data[:, :1] > 5) - 2.0 * (data[:, 1:] < 3) + rng.normal(0, 0.1, (2000, 1))).astype(np.float32)
    params, graph, x, y = _forest(1, 2, num_trees=5, max_nodes=63, split_after_samples=40, regression=True,
                                  base_random_seed=2)
    train = graph.training_graph(x, y)
    mean, _, variance = graph.inference_graph(x)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            for i in range(0, 1600, 200):
                sess.run(train, {x: data[i:i + 200], y: target[i:i + 200]})
        m, v = sess.run([mean, variance], {x: data[1600:]})
        trees = [sess.run([t.feature, t.threshold, t.left_child, t.leaf_model]) for t in graph.variables.variables]
    assert np.mean((m - target[1600:]) ** 2) < 0.1
    each = np.array([[_leaf_prediction(*t, row, True) for row in data[1600:]] for t in trees])
    np.testing.assert_allclose(m, each.mean(0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(v, np.maximum(0, (each ** 2).mean(0) - each.mean(0) ** 2), rtol=1e-3, atol=1e-5)


def test_a_seeded_forest_grows_the_same_trees_and_a_checkpoint_restores_them(tmp_path):
    rng = np.random.default_rng(2)
    data = rng.normal(0, 1, (600, 4)).astype(np.float32)
    labels = (data[:, 0] + data[:, 1] > 0).astype(np.int32)

    def grow():
        tf.reset_default_graph()
        params, graph, x, y = _forest(2, 4, num_trees=3, max_nodes=41, split_after_samples=20, base_random_seed=7,
                                      bagging_fraction=0.8)
        train, (probs, _, _) = graph.training_graph(x, y), graph.inference_graph(x)
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        for i in range(0, 600, 60):
            sess.run(train, {x: data[i:i + 60], y: labels[i:i + 60]})
        return sess, probs, x, [v.feature for v in graph.variables.variables]

    sess, probs, x, features = grow()
    first, trees = sess.run(probs, {x: data}), sess.run(features)
    path = tf.train.Saver().save(sess, str(tmp_path / "forest"))
    sess, probs, x, features = grow()
    np.testing.assert_array_equal(sess.run(features), trees)
    np.testing.assert_array_equal(sess.run(probs, {x: data}), first)
    sess.run(tf.global_variables_initializer())
    assert (sess.run(features)[0] < 0).all()
    tf.train.Saver().restore(sess, path)
    np.testing.assert_array_equal(sess.run(probs, {x: data}), first)


def test_feature_bagging_and_dict_input_and_feature_importances():
    rng = np.random.default_rng(4)
    a, b = rng.normal(0, 1, (800, 1)).astype(np.float32), rng.normal(0, 1, (800, 2)).astype(np.float32)
    labels = (a[:, 0] > 0).astype(np.int32)
    params = tensor_forest.ForestHParams(num_classes=2, num_features=3, num_trees=4, max_nodes=31,
                                         split_after_samples=25, feature_bagging_fraction=0.67,
                                         base_random_seed=3).fill()
    assert params.bagged_num_features == 2 and all(len(set(f)) == 2 for f in params.bagged_features)
    graph = tensor_forest.RandomForestGraphs(params)
    fa, fb = tf.placeholder(tf.float32, [None, 1]), tf.placeholder(tf.float32, [None, 2])
    y = tf.placeholder(tf.int32, [None])
    train = graph.training_graph({"a": fa, "b": fb}, y)
    importances = graph.feature_importances()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(0, 800, 100):
            sess.run(train, {fa: a[i:i + 100], fb: b[i:i + 100], y: labels[i:i + 100]})
        share = sess.run(importances)
        features = [sess.run(v.feature) for v in graph.variables.variables]
    counts = np.zeros(3)  # (each tree's split features index its own bag of features)
    for tree_features, bag in zip(features, params.bagged_features):
        for f in tree_features[tree_features >= 0]:
            counts[f] += 1
    np.testing.assert_allclose(share, counts / counts.sum(), rtol=1e-6)


def test_bad_input_is_refused_with_what_was_expected():
    params, graph, x, y = _forest(3, 2, num_trees=1, max_nodes=11)
    train = graph.training_graph(x, y)
    any_width = tf.placeholder(tf.float32, [None, None])
    train_any_width = graph.training_graph(any_width, y)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"_TensorForestTrain.*class ids in \[0, 3\)"):
            sess.run(train, {x: np.zeros((2, 2)), y: [0, 3]})
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"must be \[batch, 2\].*got shape \[2, 3\]"):
            sess.run(train_any_width, {any_width: np.zeros((2, 3)), y: [0, 1]})
    with pytest.raises(ValueError, match="has 3 features, its hyperparameters say num_features=2"):
        graph.inference_graph(tf.zeros([4, 3]))
    with pytest.raises(ValueError, match="dense features only"):
        graph.inference_graph(tf.SparseTensor([[0, 0]], [1.0], [1, 2]))
    with pytest.raises(ValueError, match="split_finish_name='hoeffding'"):
        tensor_forest.RandomForestGraphs(tensor_forest.ForestHParams(num_classes=2, num_features=2,
                                                                     split_finish_name="hoeffding").fill())
    with pytest.raises(ValueError, match=r"fill\(\)"):
        tensor_forest.RandomForestGraphs(tensor_forest.ForestHParams(num_classes=2, num_features=2))
    with pytest.raises(AttributeError, match="num_features"):
        tensor_forest.ForestHParams(num_classes=2).fill()


def test_resources_register_and_initialize():
    assert resources.shared_resources() == [] and resources.initialize_resources([]).type == "NoOp"
    v = tf.Variable(1.0)
    resources.register_resource(v, v.initializer, tf.is_variable_initialized(v))
    assert len(resources.shared_resources()) == 1 and resources.local_resources() == []
    init = resources.initialize_resources(resources.shared_resources())
    with tf.Session() as sess:
        assert list(sess.run(resources.report_uninitialized_resources())) == [v.op.name.encode()]
        sess.run(init)
        assert list(sess.run(resources.report_uninitialized_resources())) == []


def _iris_like(n, seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 3, n)
    centers = np.array([[5.0, 3.4, 1.5, 0.2], [5.9, 2.8, 4.3, 1.3], [6.6, 3.0, 5.6, 2.0]])
    return (centers[labels] + rng.normal(0, 0.3, (n, 4))).astype(np.float32), labels.astype(np.int32)


def test_the_estimator_fits_until_the_trees_stop_growing_and_evaluates(tmp_path):
    x, y = _iris_like(600, 0)
    params = tensor_forest.ForestHParams(num_classes=3, num_features=4, num_trees=5, max_nodes=31,
                                         split_after_samples=20, base_random_seed=1)
    estimator = random_forest.TensorForestEstimator(params, model_dir=str(tmp_path / "rf"), early_stopping_rounds=5,
                                                    report_feature_importances=True)
    estimator.fit(x=x[:450], y=y[:450], batch_size=50)  # (no steps: the loss hook ends it)
    step = estimator.get_variable_value("global_step")
    assert 5 < step < 200
    result = estimator.evaluate(x=x[450:], y=y[450:], batch_size=50)
    assert result["accuracy"] > 0.9 and result["global_step"] == step
    predictions = list(estimator.predict(x=x[450:460]))
    assert set(predictions[0]) >= {"probabilities", "class_ids", "classes", "logits"}
    probabilities = np.array([p["probabilities"] for p in predictions])
    np.testing.assert_allclose(probabilities.sum(1), 1.0, rtol=1e-5)
    np.testing.assert_array_equal(list(estimator.predict_classes(x=x[450:460])), probabilities.argmax(1))
    np.testing.assert_allclose(estimator.predict_proba(x=x[450:460], as_iterable=False), probabilities, rtol=1e-6)


def test_the_core_estimator_trains_a_regression_forest_from_feature_columns(tmp_path):
    rng = np.random.default_rng(5)
    a = rng.uniform(0, 10, 1000).astype(np.float32)
    target = (2.0 * (a > 4) + rng.normal(0, 0.05, 1000)).astype(np.float32)
    params = tensor_forest.ForestHParams(num_classes=1, num_features=1, regression=True, num_trees=3,
                                         max_nodes=15, split_after_samples=30, base_random_seed=2)

    def input_fn(lo, hi, epochs):
        return tf.estimator.inputs.numpy_input_fn({"a": a[lo:hi]}, target[lo:hi], batch_size=100,
                                                  num_epochs=epochs, shuffle=epochs is None)

    estimator = random_forest.CoreTensorForestEstimator(
        params, model_dir=str(tmp_path / "rf"), feature_columns=[tf.feature_column.numeric_column("a")])
    estimator.train(input_fn(0, 800, None), steps=40)
    result = estimator.evaluate(input_fn(800, 1000, 1))
    assert result["average_loss"] < 0.1  # (the target's own variance: 0.96)
    prediction = next(estimator.predict(input_fn(800, 801, 1)))
    assert abs(prediction["predictions"][0] - target[800]) < 0.3 and prediction["prediction_variance"].shape == (1,)
