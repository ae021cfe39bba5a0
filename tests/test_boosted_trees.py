"""tf.estimator.BoostedTreesClassifier / BoostedTreesRegressor: the trees checked against a
greedy tree grown by brute force in NumPy, and the estimators trained as TF 1.x programs did."""

import numpy as np
import pytest

import distflow as tf
from distflow.estimator import boosted_trees as bt

fc = tf.feature_column


def _regression_data(n=240, seed=0):
    rng = np.random.default_rng(seed)
    a, b = rng.uniform(0, 10, n).astype(np.float32), rng.uniform(0, 10, n).astype(np.float32)
    y = (3.0 * (a > 6) - 2.0 * (b < 3) + 0.5 * (a < 2) * (b > 5) + rng.normal(0, 0.3, n)).astype(np.float32)
    return {"a": a, "b": b}, y


_BOUNDARIES = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]


def _bucketized(key):
    return fc.bucketized_column(fc.numeric_column(key), _BOUNDARIES)


def _input(features, labels, epochs=None):
    def input_fn():
        data = tf.data.Dataset.from_tensors(features if labels is None else (features, labels))
        return data.repeat() if epochs is None else data.repeat(epochs)
    return input_fn


def _predict(estimator, features, key):
    out = estimator.predict(lambda: tf.data.Dataset.from_tensors(features), yield_single_examples=False)
    return np.concatenate([p[key] for p in out])


def _greedy_trees(buckets, y, n_trees, max_depth, learning_rate):
    """Boosting on squared error written the obvious way, a layer at a time as TensorFlow grows
    its trees: a node's residuals are taken at the predictions of the trees before it and of
    its own value so far; it splits where the squared error of those falls most (the lowest
    feature and threshold among equals), and each child adds learning_rate times its mean
    residual to its parent's value. Returns the predictions."""
    n, n_features = buckets.shape
    prediction = np.zeros(n)
    for _ in range(n_trees):
        values = np.zeros(n)

        def grow(rows, depth, value):
            values[rows] = value
            if depth == max_depth:
                return
            r = y[rows] - prediction[rows] - value
            best = None
            for f in range(n_features):
                for t in range(int(buckets[:, f].max())):
                    left = buckets[rows, f] <= t
                    if left.all() or not left.any():
                        continue
                    score = r[left].sum() ** 2 / left.sum() + r[~left].sum() ** 2 / (~left).sum()
                    if best is None or score > best[0] + 1e-9:
                        best = (score, f, t)
            if best is None:
                return
            left = buckets[rows, best[1]] <= best[2]
            for side in (left, ~left):
                grow(rows[side], depth + 1, value + learning_rate * r[side].mean())

        grow(np.arange(n), 0, 0.0)
        prediction = prediction + values
    return prediction


def test_leaf_values_and_gains_are_tensorflows_formulas():
    for g, h, l1, l2 in [(0.7, 2.0, 0.0, 0.0), (-0.7, 2.0, 0.2, 0.5), (0.1, 1.0, 0.2, 0.5), (1.0, 0.0, 0.0, 0.0)]:
        weight, gain = bt._weights_and_gains(np.array([g]), np.array([h]), l1, l2)
        shrunk = g - l1 if g > l1 else g + l1 if g < -l1 else 0.0
        expect_w = 0.0 if h + l2 <= 1e-15 else -shrunk / (h + l2)
        assert weight[0] == pytest.approx(expect_w) and gain == pytest.approx(-shrunk * expect_w)


def test_a_regressors_trees_are_the_greedy_trees_of_squared_error():
    features, y = _regression_data()
    columns = [_bucketized("a"), _bucketized("b")]
    est = tf.estimator.BoostedTreesRegressor(columns, n_batches_per_layer=1, n_trees=3, max_depth=2,
                                             learning_rate=0.5)
    est.train(_input(features, y), max_steps=100)
    buckets = np.stack([np.searchsorted(_BOUNDARIES, features[k], side="right") for k in ("a", "b")], 1)
    expect = _greedy_trees(buckets, y.astype(np.float64), n_trees=3, max_depth=2, learning_rate=0.5)
    got = _predict(est, features, "predictions").ravel()
    np.testing.assert_allclose(got, expect, rtol=1e-4, atol=1e-4)
    # one step a layer: 3 trees of 2 layers, and the hook stopped training there
    assert est.get_variable_value("global_step") == 6
    state = est.get_variable_value("boosted_trees/ensemble_state")
    assert state[bt.NUM_FINALIZED] == 3 and state[bt.NUM_ATTEMPTED_LAYERS] == 6 and state[bt.PHASE] == bt.DONE
    # more training changes nothing once the trees are grown
    est.train(_input(features, y), steps=3)
    np.testing.assert_array_equal(_predict(est, features, "predictions").ravel(), got)


def test_batches_of_a_layer_average_to_the_whole_data_sets_trees():
    features, y = _regression_data(n=200, seed=1)
    columns = [_bucketized("a"), _bucketized("b")]
    whole = tf.estimator.BoostedTreesRegressor(columns, 1, n_trees=2, max_depth=2)
    whole.train(_input(features, y), max_steps=50)
    halves = tf.estimator.BoostedTreesRegressor(columns, 2, n_trees=2, max_depth=2)

    def two_halves():
        return tf.data.Dataset.from_tensor_slices((features, y)).batch(100).repeat()
    halves.train(two_halves, max_steps=50)
    assert halves.get_variable_value("global_step") == 8  # (two batches for each of the 4 layers)
    np.testing.assert_allclose(_predict(halves, features, "predictions"), _predict(whole, features, "predictions"),
                               rtol=1e-5, atol=1e-5)


def test_a_classifier_learns_a_rule_of_numeric_bucketized_and_categorical_features(tmp_path):
    rng = np.random.default_rng(2)
    n = 800
    x1, x2 = rng.normal(size=n).astype(np.float32), rng.uniform(0, 10, n).astype(np.float32)
    noise = rng.normal(size=n).astype(np.float32)  # (no part in the rule)
    cat = rng.choice(["a", "b", "c"], n)
    y = ((x1 > 0.3) ^ (x2 > 6) ^ (cat == "b")).astype(np.int64)
    features = {"x1": x1, "x2": x2, "cat": cat, "noise": noise}
    columns = [fc.numeric_column("x1"), _bucketized("x2"), fc.numeric_column("noise"),
               fc.indicator_column(fc.categorical_column_with_vocabulary_list("cat", ["a", "b", "c"]))]
    train, test = {k: v[:600] for k, v in features.items()}, {k: v[600:] for k, v in features.items()}
    est = tf.estimator.BoostedTreesClassifier(columns, n_batches_per_layer=1, n_trees=10, max_depth=4,
                                              learning_rate=0.3, center_bias=True, model_dir=str(tmp_path))
    est.train(_input(train, y[:600]), max_steps=500)
    metrics = est.evaluate(_input(test, y[600:], epochs=1))
    assert metrics["accuracy"] >= 0.9, metrics
    importances = est.experimental_feature_importances(normalize=True)
    assert list(importances) == sorted(importances, key=importances.get, reverse=True)
    assert sorted(importances) == ["cat", "noise", "x1", "x2_bucketized"] and list(importances)[-1] == "noise"
    assert sum(importances.values()) == pytest.approx(1.0)
    # each example's directional feature contributions add up, with the bias, to its probability
    explained = list(est.experimental_predict_with_explanations(_input(test, None, epochs=1)))
    probabilities = _predict(est, test, "probabilities")[:, 1]
    bias = explained[0]["bias"]
    assert 0 < bias < 1 and all(e["bias"] == bias for e in explained)
    for e, p in zip(explained, probabilities):
        assert list(e["dfc"]) == sorted(e["dfc"], key=lambda k: -abs(e["dfc"][k])) and len(e["dfc"]) == 4
        assert bias + sum(e["dfc"].values()) == pytest.approx(p, abs=1e-5)
        assert e["probabilities"][1] == pytest.approx(p)
    # the model is in its checkpoint: a new estimator on the same folder predicts the same
    again = tf.estimator.BoostedTreesClassifier(columns, 1, n_trees=10, max_depth=4, model_dir=str(tmp_path))
    np.testing.assert_array_equal(_predict(again, test, "logits"), _predict(est, test, "logits"))
    classes = _predict(est, test, "class_ids").ravel()
    assert (classes == y[600:]).mean() == pytest.approx(metrics["accuracy"])


def test_centering_sets_the_first_trees_root_to_the_loss_minimizer():
    features, y = _regression_data(n=100, seed=3)
    y = y + 5.0
    est = tf.estimator.BoostedTreesRegressor([_bucketized("a")], 1, n_trees=1, max_depth=1, center_bias=True)
    est.train(_input(features, y), steps=2)  # (two Newton steps: the second moves it by nothing)
    value = est.get_variable_value("boosted_trees/tree_value")
    assert value[0, 0, 0] == pytest.approx(y.mean(), rel=1e-5)
    assert est.get_variable_value("boosted_trees/ensemble_state")[bt.PHASE] == bt.GROWING


def test_quantile_buckets_of_a_numeric_column_come_from_the_first_batches():
    features = {"x": np.arange(100, dtype=np.float32)}
    y = (features["x"] >= 70).astype(np.float32)
    est = tf.estimator.BoostedTreesRegressor([fc.numeric_column("x")], 1, n_trees=1, max_depth=1,
                                             quantile_sketch_epsilon=0.1, learning_rate=1.0)
    est.train(_input(features, y), max_steps=10)
    boundaries = est.get_variable_value("boosted_trees/bucket_boundaries")[0]
    np.testing.assert_array_equal(boundaries, np.arange(10, 100, 10, dtype=np.float32))
    np.testing.assert_allclose(_predict(est, features, "predictions").ravel(), y, atol=1e-6)


def test_pruning_takes_back_splits_that_do_not_pay_for_their_complexity():
    features, y = _regression_data(n=120, seed=4)
    columns = [_bucketized("a"), _bucketized("b")]
    for mode in ("pre", "post"):
        est = tf.estimator.BoostedTreesRegressor(columns, 1, n_trees=2, max_depth=2, pruning_mode=mode,
                                                 tree_complexity=1e6)
        est.train(_input(features, y), max_steps=20)
        assert (est.get_variable_value("boosted_trees/tree_feature") < 0).all(), mode
        np.testing.assert_array_equal(_predict(est, features, "predictions"), 0.0)
        assert set(est.experimental_feature_importances().values()) == {0.0}
        with pytest.raises(ValueError, match="Cannot normalize the feature importances"):
            est.experimental_feature_importances(normalize=True)
    # a small complexity keeps the splits that pay for it
    est = tf.estimator.BoostedTreesRegressor(columns, 1, n_trees=1, max_depth=2, pruning_mode="post",
                                             tree_complexity=1e-4)
    est.train(_input(features, y), max_steps=20)
    assert (est.get_variable_value("boosted_trees/tree_feature")[0] >= 0).sum() >= 2


def test_several_classes_train_with_each_classs_own_hessian():
    rng = np.random.default_rng(5)
    x = rng.uniform(0, 10, 300).astype(np.float32)
    y = np.digitize(x, [3.0, 7.0]).astype(np.int64)
    est = tf.estimator.BoostedTreesClassifier([_bucketized("x")], 1, n_classes=3, n_trees=5, max_depth=2,
                                              learning_rate=0.5)
    est.train(_input({"x": x}, y), max_steps=100)
    assert est.evaluate(_input({"x": x}, y, epochs=1))["accuracy"] == 1.0


def test_training_in_memory_returns_the_trained_estimator():
    features, y = _regression_data(n=100, seed=6)
    est = tf.estimator.boosted_trees_regressor_train_in_memory(_input(features, y), [_bucketized("a")], n_trees=2,
                                                               max_depth=2)
    assert est.get_variable_value("boosted_trees/ensemble_state")[bt.NUM_FINALIZED] == 2


def test_bad_arguments_are_tensorflows_errors():
    columns = [_bucketized("a")]
    with pytest.raises(ValueError, match="Tree complexity have no effect unless pruning mode is chosen"):
        tf.estimator.BoostedTreesClassifier(columns, 1, tree_complexity=0.1)
    with pytest.raises(ValueError, match="For pruning, tree_complexity must be positive"):
        tf.estimator.BoostedTreesClassifier(columns, 1, pruning_mode="pre")
    with pytest.raises(ValueError, match="pruning_mode must be one of"):
        tf.estimator.BoostedTreesClassifier(columns, 1, pruning_mode="sometimes")
    with pytest.raises(ValueError, match="n_batches_per_layer should be set as 1"):
        tf.estimator.BoostedTreesClassifier(columns, 2, train_in_memory=True)
    with pytest.raises(ValueError, match="n_batches_per_layer must be a positive integer"):
        tf.estimator.BoostedTreesClassifier(columns, 0)
    embedded = fc.embedding_column(fc.categorical_column_with_identity("c", 4), 2)
    with pytest.raises(ValueError, match="only bucketized_column, indicator_column, numeric_column are supported"):
        tf.estimator.BoostedTreesClassifier([embedded], 1)
    deep = tf.estimator.BoostedTreesClassifier([fc.numeric_column("x", shape=(784,))], 1, max_depth=16)
    with pytest.raises(ValueError, match=r"depth 16 over 784 features .* GiB"):
        deep.train(_input({"x": np.zeros((4, 784), np.float32)}, np.zeros(4, np.int64)), steps=1)
    est = tf.estimator.BoostedTreesClassifier(columns, 1)
    with pytest.raises(ValueError, match="center_bias must be enabled"):
        next(est.experimental_predict_with_explanations(lambda: None))


def test_an_exported_model_serves_the_trees_predictions(tmp_path):
    x = np.random.RandomState(7).uniform(0, 10, 200).astype(np.float32)
    y = (x > 5).astype(np.int64)
    column = fc.numeric_column("x")
    est = tf.estimator.BoostedTreesClassifier([column], 1, n_trees=3, max_depth=2)
    est.train(_input({"x": x}, y), max_steps=20)
    receiver = tf.estimator.export.build_parsing_serving_input_receiver_fn(fc.make_parse_example_spec([column]))
    path = est.export_saved_model(str(tmp_path), receiver)
    queries = np.array([2.0, 8.0], np.float32)
    examples = [tf.train.Example(features=tf.train.Features(feature={
        "x": tf.train.Feature(float_list=tf.train.FloatList(value=[v]))})).SerializeToString() for v in queries]
    with tf.Session(graph=tf.Graph()) as sess:
        signature = tf.saved_model.loader.load(sess, ["serve"], path).signature_def["predict"]
        served = sess.run(signature.outputs["probabilities"].name,
                          {list(signature.inputs.values())[0].name: examples})
    np.testing.assert_allclose(served, _predict(est, {"x": queries}, "probabilities"), rtol=1e-6)
    assert served[0, 0] > 0.5 > served[1, 0]


def test_a_splits_contribution_is_the_change_of_probability_it_makes():
    # one tree of one split after centering: below 5 the label is 1 a fifth of the time, above
    # it four fifths; an example's one contribution is sigmoid(bias + its leaf) - sigmoid(bias)
    x = np.repeat(np.arange(10, dtype=np.float32), 10)
    y = np.concatenate([(np.arange(10) < 2) if v < 5 else (np.arange(10) < 8) for v in range(10)]).astype(np.int64)
    est = tf.estimator.BoostedTreesClassifier([_bucketized("x")], 1, n_trees=1, max_depth=1, center_bias=True,
                                              learning_rate=1.0)
    est.train(_input({"x": x}, y), max_steps=50)
    value = est.get_variable_value("boosted_trees/tree_value")[0, :3, 0]
    assert est.get_variable_value("boosted_trees/tree_feature")[0, 0] == 0
    sigmoid = lambda z: 1 / (1 + np.exp(-z))  # noqa: E731
    queries = {"x": np.array([1.0, 8.0], np.float32)}
    (low, high) = est.experimental_predict_with_explanations(_input(queries, None, epochs=1))
    for e, leaf in ((low, value[1]), (high, value[2])):
        assert e["bias"] == pytest.approx(sigmoid(value[0]), rel=1e-6)
        assert e["dfc"]["x_bucketized"] == pytest.approx(sigmoid(leaf) - sigmoid(value[0]), abs=1e-6)
    assert low["dfc"]["x_bucketized"] < 0 < high["dfc"]["x_bucketized"]
    assert low["bias"] == pytest.approx(0.5, abs=0.02)  # (the centered prior: half the labels are 1)


def test_contribs_estimator_takes_a_head():
    features, y = _regression_data(n=120, seed=8)
    head = tf.contrib.estimator.regression_head()
    est = tf.contrib.estimator.BoostedTreesEstimator([_bucketized("a"), _bucketized("b")], 1, head, n_trees=2,
                                                     max_depth=2, learning_rate=0.5)
    est.train(_input(features, y), max_steps=50)
    assert est.get_variable_value("global_step") == 4  # (two trees of two layers)
    regressor = tf.estimator.BoostedTreesRegressor([_bucketized("a"), _bucketized("b")], 1, n_trees=2, max_depth=2,
                                                   learning_rate=0.5)
    regressor.train(_input(features, y), max_steps=50)
    np.testing.assert_allclose(_predict(est, features, "predictions"), _predict(regressor, features, "predictions"),
                               rtol=1e-6)
