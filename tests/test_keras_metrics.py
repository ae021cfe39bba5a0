"""tf.keras.metrics' metric objects, checked against NumPy written the obvious way: over
several batches, with weights, in compile/fit/evaluate, in an EstimatorSpec, under a
strategy and through a saved model."""

import os

import numpy as np
import pytest

import distflow as tf

M = tf.keras.metrics


@pytest.fixture(autouse=True)
def _fresh_graph():
    tf.keras.backend.clear_session()
    yield
    tf.keras.backend.clear_session()


def _run(metric, batches):
    """The metric's value after updating it with each batch's arguments."""
    updates = [metric.update_state(*args) for args in batches]
    session = tf.keras.backend.get_session()
    session.run(tf.local_variables_initializer())
    for update in updates:
        session.run(update)
    return session.run(metric.result())


def _counts(y, p, thresholds, w=None):
    """tp, fp, tn, fn at each threshold (a prediction above it is positive)."""
    y, p = np.asarray(y).ravel() > 0, np.asarray(p).ravel()
    w = np.ones(p.size) if w is None else np.asarray(w, np.float64).ravel()  # (a weight an entry)
    out = {k: [] for k in ("tp", "fp", "tn", "fn")}
    for t in thresholds:
        above = p > t
        out["tp"].append(np.sum(w * (above & y)))
        out["fp"].append(np.sum(w * (above & ~y)))
        out["tn"].append(np.sum(w * (~above & ~y)))
        out["fn"].append(np.sum(w * (~above & y)))
    return {k: np.array(v, np.float64) for k, v in out.items()}


def _grid(n):
    return [-1e-7] + [(i + 1) / (n - 1) for i in range(n - 2)] + [1 + 1e-7]


def _ratio(a, b):
    return np.where(b > 0, a / np.where(b > 0, b, 1), 0.0)


def _auc_roc(c):
    tpr, fpr = _ratio(c["tp"], c["tp"] + c["fn"]), _ratio(c["fp"], c["fp"] + c["tn"])
    return np.sum((fpr[:-1] - fpr[1:]) * (tpr[:-1] + tpr[1:]) / 2)


def _auc_pr_interpolated(c):
    """Davis and Goadrich's interpolation, bucket by bucket."""
    total = 0.0
    for i in range(len(c["tp"]) - 1):
        tp_a, tp_b = c["tp"][i], c["tp"][i + 1]
        p_a, p_b = tp_a + c["fp"][i], tp_b + c["fp"][i + 1]
        if p_a - p_b <= 0 or tp_b + c["fn"][i + 1] <= 0:
            continue
        slope = (tp_a - tp_b) / (p_a - p_b)
        intercept = tp_b - slope * p_b
        ratio = p_a / p_b if p_a > 0 and p_b > 0 else 1.0
        total += slope * (tp_a - tp_b + intercept * np.log(ratio)) / (tp_b + c["fn"][i + 1])
    return total


@pytest.fixture
def binary():
    rng = np.random.RandomState(3)
    y = (rng.rand(3, 40) > 0.45).astype(np.float32)
    p = np.clip(0.6 * y + 0.5 * rng.rand(3, 40) - 0.05, 0, 1).astype(np.float32)
    w = rng.rand(3, 40).astype(np.float32)
    return y, p, w


def test_mean_and_sum_weighted_over_batches():
    values = [np.array([1.0, 2.0, 3.0]), np.array([4.0, 10.0])]
    weights = [np.array([1.0, 0.0, 2.0]), np.array([0.5, 1.0])]
    assert _run(M.Mean(), [(v,) for v in values]) == pytest.approx(np.mean(np.concatenate(values)))
    expect = sum((v * w).sum() for v, w in zip(values, weights)) / sum(w.sum() for w in weights)
    assert _run(M.Mean(), list(zip(values, weights))) == pytest.approx(expect, rel=1e-6)
    assert _run(M.Sum(), list(zip(values, weights))) == pytest.approx(sum((v * w).sum()
                                                                          for v, w in zip(values, weights)))


def test_mean_tensor_is_elementwise():
    a, b = np.arange(6.0).reshape(2, 3), np.ones((2, 3))
    np.testing.assert_allclose(_run(M.MeanTensor(), [(a,), (b, 3.0)]), (a + 3 * b) / 4, rtol=1e-6)
    with pytest.raises(ValueError, match="same shape"):
        metric = M.MeanTensor()
        metric.update_state(a)
        metric.update_state(np.ones(3))


def test_wrapped_functions_average_per_example(binary):
    y, p, w = binary
    probs = np.stack([1 - p, p], -1)  # (two-class probabilities for the categorical forms)
    onehot = np.stack([1 - y, y], -1)
    cases = [
        (M.BinaryAccuracy(), [(y[i], p[i]) for i in range(3)], np.mean((p > 0.5) == (y > 0.5))),
        (M.Accuracy(), [(y[i], (p[i] > 0.5).astype(np.float32)) for i in range(3)], np.mean((p > 0.5) == y)),
        (M.CategoricalAccuracy(), [(onehot[i], probs[i]) for i in range(3)], np.mean((p > 0.5) == (y > 0.5))),
        (M.SparseCategoricalAccuracy(), [(y[i], probs[i]) for i in range(3)], np.mean((p > 0.5) == (y > 0.5))),
        (M.MeanSquaredError(), [(y[i], p[i]) for i in range(3)], np.mean((y - p) ** 2)),
        (M.MeanAbsoluteError(), [(y[i], p[i]) for i in range(3)], np.mean(np.abs(y - p))),
        (M.RootMeanSquaredError(), [(y[i], p[i]) for i in range(3)], np.sqrt(np.mean((y - p) ** 2))),
    ]
    for metric, batches, expect in cases:
        assert _run(metric, batches) == pytest.approx(expect, rel=1e-5), metric.name
    # (per-example weights of [batch, 1] columns; [batch, 1] predictions against [batch] labels line up)
    got = _run(M.MeanSquaredError(), [(y[i][:, None], p[i][:, None], w[i]) for i in range(3)])
    assert got == pytest.approx(np.sum(w * (y - p) ** 2) / np.sum(w), rel=1e-5)
    got = _run(M.BinaryAccuracy(), [(y[i], p[i][:, None]) for i in range(3)])
    assert got == pytest.approx(np.mean((p > 0.5) == (y > 0.5)), rel=1e-5)
    eps = 1e-7
    q = np.clip(p, eps, 1 - eps)
    bce = -(y * np.log(q) + (1 - y) * np.log(1 - q))
    got = _run(M.BinaryCrossentropy(), [(y[i][:, None], p[i][:, None]) for i in range(3)])
    assert got == pytest.approx(bce.mean(), rel=1e-4)


def test_confusion_counts_precision_and_recall(binary):
    y, p, w = binary
    thresholds = [0.2, 0.5, 0.8]
    c = _counts(y, p, thresholds, w.ravel())
    for cls, key in ((M.TruePositives, "tp"), (M.FalsePositives, "fp"), (M.TrueNegatives, "tn"),
                     (M.FalseNegatives, "fn")):
        got = _run(cls(thresholds=thresholds), [(y[i], p[i], w[i]) for i in range(3)])
        np.testing.assert_allclose(got, c[key], rtol=1e-5, err_msg=key)
    c5 = _counts(y, p, [0.5])
    assert _run(M.Precision(), [(y[i], p[i]) for i in range(3)]) == pytest.approx(
        c5["tp"][0] / (c5["tp"][0] + c5["fp"][0]))
    np.testing.assert_allclose(_run(M.Recall(thresholds=thresholds), [(y[i], p[i], w[i]) for i in range(3)]),
                               c["tp"] / (c["tp"] + c["fn"]), rtol=1e-5)


def test_precision_top_k_and_class_id():
    rng = np.random.RandomState(5)
    p = rng.rand(20, 6).astype(np.float32)
    y = (rng.rand(20, 6) > 0.6).astype(np.float32)
    top = np.argsort(-p, axis=1)[:, :2]
    picked = np.zeros_like(y, bool)
    np.put_along_axis(picked, top, True, axis=1)
    assert _run(M.Precision(top_k=2), [(y, p)]) == pytest.approx(y[picked].mean(), rel=1e-6)
    assert _run(M.Recall(top_k=2), [(y, p)]) == pytest.approx(picked[y > 0].mean(), rel=1e-6)
    above = p[:, 3] > 0.5
    assert _run(M.Precision(class_id=3), [(y, p)]) == pytest.approx(y[above, 3].mean(), rel=1e-6)


def test_auc_roc_and_pr_over_batches(binary):
    y, p, w = binary
    c = _counts(y, p, _grid(200))
    assert _run(M.AUC(), [(y[i], p[i]) for i in range(3)]) == pytest.approx(_auc_roc(c), abs=1e-5)
    assert _run(M.AUC(curve="PR"), [(y[i], p[i]) for i in range(3)]) == pytest.approx(_auc_pr_interpolated(c),
                                                                                       abs=1e-5)
    cw = _counts(y, p, _grid(50), w.ravel())
    assert _run(M.AUC(num_thresholds=50), [(y[i], p[i], w[i]) for i in range(3)]) == pytest.approx(_auc_roc(cw),
                                                                                                   abs=1e-5)
    tpr, fpr = _ratio(c["tp"], c["tp"] + c["fn"]), _ratio(c["fp"], c["fp"] + c["tn"])
    minoring = np.sum((fpr[:-1] - fpr[1:]) * np.minimum(tpr[:-1], tpr[1:]))
    assert _run(M.AUC(summation_method="minoring"), [(y, p)]) == pytest.approx(minoring, abs=1e-5)
    # (with many thresholds it approaches the exact area: the fraction of pairs ranked right)
    pos, neg = p[y > 0], p[y == 0]
    exact = np.mean((pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :]))
    assert _run(M.AUC(num_thresholds=2000), [(y, p)]) == pytest.approx(exact, abs=2e-3)
    with pytest.raises(ValueError, match="Invalid curve"):
        M.AUC(curve="XY")


def test_auc_multi_label_is_the_mean_of_each_labels_area():
    rng = np.random.RandomState(8)
    y = (rng.rand(60, 3) > 0.5).astype(np.float32)
    p = np.clip(0.5 * y + 0.6 * rng.rand(60, 3), 0, 1).astype(np.float32)
    each = [_auc_roc(_counts(y[:, j], p[:, j], _grid(200))) for j in range(3)]
    assert _run(M.AUC(multi_label=True), [(y[:30], p[:30]), (y[30:], p[30:])]) == pytest.approx(np.mean(each),
                                                                                              abs=1e-5)


def test_sensitivity_and_specificity_at_a_rate(binary):
    y, p, _ = binary
    c = _counts(y, p, [0.0] + [(i + 1) / 199 for i in range(198)] + [1.0])
    sens, spec = _ratio(c["tp"], c["tp"] + c["fn"]), _ratio(c["tn"], c["tn"] + c["fp"])
    assert _run(M.SensitivityAtSpecificity(0.7), [(y, p)]) == pytest.approx(sens[spec >= 0.7].max(), rel=1e-6)
    assert _run(M.SpecificityAtSensitivity(0.9), [(y, p)]) == pytest.approx(spec[sens >= 0.9].max(), rel=1e-6)


def test_mean_iou_leaves_out_absent_classes():
    labels = np.array([0, 0, 1, 1, 2, 2, 0])
    preds = np.array([0, 1, 1, 1, 2, 0, 0])
    cm = np.zeros((4, 4))
    np.add.at(cm, (labels, preds), 1)
    inter = np.diag(cm)
    union = cm.sum(0) + cm.sum(1) - inter
    expect = np.mean(inter[union > 0] / union[union > 0])  # (class 3 never appears)
    assert _run(M.MeanIoU(num_classes=4), [(labels[:4], preds[:4]), (labels[4:], preds[4:])]) == pytest.approx(
        expect, rel=1e-6)


def test_call_returns_the_value_after_the_batch_and_reset_states_zeroes():
    metric = M.Mean()
    value = metric([1.0, 3.0])
    session = tf.keras.backend.get_session()
    assert session.run(value) == pytest.approx(2.0)
    assert session.run(value) == pytest.approx(2.0)  # (the same batch again: the mean stays)
    metric.reset_states()
    assert session.run(metric.result()) == 0.0
    assert metric.updates and all(not v.trainable for v in metric.variables)
    assert not tf.global_variables()  # (local: never saved in checkpoints)


def test_subclass_whose_update_returns_nothing_still_updates():
    class Largest(M.Metric):
        def __init__(self, name="largest"):
            super().__init__(name=name)
            self.best = self.add_weight("best", initializer="zeros")

        def update_state(self, values):
            self.best.assign(tf.maximum(self.best, tf.reduce_max(values)))  # (no return, TF 2's style)

        def result(self):
            return tf.identity(self.best)

    metric = Largest()
    assert _run(metric, [([1.0, 5.0],), ([2.0],)]) == 5.0


def test_serialize_round_trip():
    metric = M.AUC(num_thresholds=50, curve="PR", name="pr")
    again = M.deserialize(M.serialize(metric))
    assert isinstance(again, M.AUC) and again.num_thresholds == 50 and again.curve == "PR" and again.name == "pr"
    assert M.get({"class_name": "Precision", "config": {"thresholds": 0.3}}).thresholds == [0.3]


def _model():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, activation="sigmoid", input_shape=(6,))])
    return model


def _data():
    rng = np.random.RandomState(0)
    x = rng.randn(200, 6).astype(np.float32)
    y = (x[:, 0] - x[:, 1] > 0).astype(np.float32)
    return x, y


def test_compile_with_metric_objects_evaluates_over_the_whole_set():
    x, y = _data()
    model = _model()
    model.compile(tf.train.GradientDescentOptimizer(0.5), "binary_crossentropy",
                  metrics=["accuracy", M.AUC(), M.Precision(name="prec")])
    history = model.fit(x, y, epochs=2, batch_size=32, verbose=0)
    assert set(history.history) == {"loss", "acc", "auc", "prec"}
    assert model.metrics_names == ["loss", "acc", "auc", "prec"]
    loss, acc, auc, prec = model.evaluate(x, y, batch_size=64, verbose=0)
    p = model.predict(x)[:, 0]
    assert auc == pytest.approx(_auc_roc(_counts(y, p, _grid(200))), abs=1e-5)
    assert prec == pytest.approx(np.mean(y[p > 0.5]), rel=1e-6)
    assert acc == pytest.approx(np.mean((p > 0.5) == y), rel=1e-6)
    # (evaluated again: the totals start over)
    assert model.evaluate(x, y, batch_size=64, verbose=0)[2] == pytest.approx(auc, abs=1e-7)
    # (train_on_batch gives this batch's values, unless reset_metrics=False lets the totals go on)
    model.train_on_batch(x[:100], y[:100])
    one = model.test_on_batch(x[100:], y[100:])[3]
    p = model.predict(x)[:, 0]
    assert one == pytest.approx(np.mean(y[100:][p[100:] > 0.5]), rel=1e-6)
    model.test_on_batch(x[:100], y[:100])
    both = model.test_on_batch(x[100:], y[100:], reset_metrics=False)[3]
    assert both == pytest.approx(np.mean(y[p > 0.5]), rel=1e-6)


def test_one_metric_object_for_two_outputs_is_copied():
    x, y = _data()
    inp = tf.keras.layers.Input((6,))
    a = tf.keras.layers.Dense(1, activation="sigmoid", name="a")(inp)
    b = tf.keras.layers.Dense(1, activation="sigmoid", name="b")(inp)
    model = tf.keras.Model(inp, [a, b])
    model.compile("sgd", "binary_crossentropy", metrics=[M.AUC(name="auc")])
    model.fit(x, [y, 1 - y], epochs=1, verbose=0)
    assert "a_auc" in model.metrics_names and "b_auc" in model.metrics_names
    assert len(model.metrics) == 2
    results = dict(zip(model.metrics_names, model.evaluate(x, [y, 1 - y], verbose=0)))
    pa, pb = model.predict(x)
    assert results["a_auc"] == pytest.approx(_auc_roc(_counts(y, pa, _grid(200))), abs=1e-5)
    assert results["b_auc"] == pytest.approx(_auc_roc(_counts(1 - y, pb, _grid(200))), abs=1e-5)


def test_metric_objects_under_a_strategy_count_every_replica():
    x, y = _data()
    strategy = tf.distribute.MirroredStrategy(["/gpu:0", "/gpu:1"])  # (simulated devices)
    with strategy.scope():
        model = _model()
        model.compile(tf.train.GradientDescentOptimizer(0.5), "binary_crossentropy",
                      metrics=[M.BinaryAccuracy(), M.AUC()])
    model.fit(x, y, epochs=1, batch_size=40, verbose=0)
    _, acc, auc = model.evaluate(x, y, verbose=0)
    p = model.predict(x)[:, 0]
    assert acc == pytest.approx(np.mean((p > 0.5) == y), rel=1e-6)
    assert auc == pytest.approx(_auc_roc(_counts(y, p, _grid(200))), abs=1e-5)


def test_saved_model_keeps_its_metric_objects(tmp_path):
    pytest.importorskip("h5py")
    x, y = _data()
    model = _model()
    model.compile("sgd", "binary_crossentropy", metrics=[M.AUC(num_thresholds=50, name="auc50")])
    model.fit(x, y, verbose=0)
    path = os.path.join(tmp_path, "m.h5")
    model.save(path)
    loaded = tf.keras.models.load_model(path)
    assert loaded.metrics_names == ["loss", "auc50"] and loaded.metrics[0].num_thresholds == 50
    np.testing.assert_allclose(loaded.evaluate(x, y, verbose=0), model.evaluate(x, y, verbose=0), rtol=1e-6)


def test_estimator_spec_takes_metric_objects(tmp_path):
    rng = np.random.RandomState(1)
    x = rng.randn(120, 3).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int64)

    def model_fn(features, labels, mode):
        logits = tf.layers.dense(features["x"], 2)
        loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
        if mode == tf.estimator.ModeKeys.TRAIN:
            step = tf.train.GradientDescentOptimizer(0.5).minimize(loss, tf.train.get_global_step())
            return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=step)
        accuracy = M.Accuracy()
        accuracy.update_state(labels, tf.argmax(logits, 1))
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={
            "keras_acc": accuracy, "acc": tf.metrics.accuracy(labels, tf.argmax(logits, 1))})

    est = tf.estimator.Estimator(model_fn, str(tmp_path))
    est.train(tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=20, num_epochs=None, shuffle=True), steps=20)
    results = est.evaluate(tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=50, shuffle=False))
    assert results["keras_acc"] == pytest.approx(results["acc"])
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="update_state"):
            tf.estimator.EstimatorSpec("eval", loss=tf.constant(1.0), eval_metric_ops={"m": M.Mean()})


class _ActivityMean(tf.keras.layers.Layer):
    """Reports the mean of what passes through it, and passes it on unchanged."""

    def call(self, inputs):
        self.add_metric(tf.reduce_mean(inputs), name="act_mean", aggregation="mean")
        return inputs


def test_add_metric_reports_beside_the_compiled_metrics():
    x, y = _data()
    inp = tf.keras.layers.Input((6,))
    hidden = _ActivityMean()(tf.keras.layers.Dense(4, activation="relu")(inp))
    out = tf.keras.layers.Dense(1, activation="sigmoid")(hidden)
    model = tf.keras.Model(inp, out)
    model.add_metric(tf.reduce_sum(out), name="out_sum", aggregation="mean")
    recall = M.Recall(name="rec")
    model.add_metric(recall(tf.constant([1.0, 1.0, 0.0]), tf.constant([0.9, 0.2, 0.7])))
    model.compile(tf.train.GradientDescentOptimizer(0.1), "binary_crossentropy", metrics=["accuracy"])
    assert model.metrics_names == ["loss", "acc", "out_sum", "rec", "act_mean"]
    history = model.fit(x, y, batch_size=50, epochs=2, verbose=0)
    assert set(history.history) == {"loss", "acc", "out_sum", "rec", "act_mean"}
    results = dict(zip(model.metrics_names, model.evaluate(x, y, batch_size=50, verbose=0)))
    hidden_values = tf.keras.Model(inp, hidden).predict(x)
    outputs = model.predict(x)
    assert results["act_mean"] == pytest.approx(np.mean([hidden_values[i:i + 50].mean() for i in range(0, 200, 50)]),
                                                 rel=1e-5)
    assert results["out_sum"] == pytest.approx(np.mean([outputs[i:i + 50].sum() for i in range(0, 200, 50)]), rel=1e-5)
    assert results["rec"] == pytest.approx(0.5)  # (one of the two positives above 0.5, batch after batch)
    assert recall in model.metrics
    with pytest.raises(ValueError, match="not the output of a `tf.keras.metrics.Metric`"):
        model.add_metric(tf.reduce_sum(out))
    with pytest.raises(ValueError, match="provide a name"):
        model.add_metric(tf.reduce_sum(out), aggregation="mean")


def test_a_layer_that_returns_its_input_stays_in_the_model():
    class Penalized(tf.keras.layers.Layer):
        def call(self, inputs):
            self.add_loss(tf.reduce_sum(tf.square(inputs)))
            return inputs

    inp = tf.keras.layers.Input((3,))
    out = Penalized()(inp)
    model = tf.keras.Model(inp, out)
    assert [type(layer).__name__ for layer in model.layers] == ["InputLayer", "Penalized"]
    model.compile("sgd", loss=None)
    x = np.ones((4, 3), np.float32)
    assert model.evaluate(x, verbose=0) == pytest.approx(12.0)  # (the added loss, for the whole batch)
    np.testing.assert_array_equal(model.predict(x), x)


def test_model_to_estimator_evaluates_the_metric_objects_over_every_batch(tmp_path):
    x, y = _data()
    inp = tf.keras.layers.Input((6,), name="feat")
    model = tf.keras.Model(inp, tf.keras.layers.Dense(1, activation="sigmoid")(inp))
    model.compile(tf.train.GradientDescentOptimizer(0.5), "binary_crossentropy",
                  metrics=["accuracy", M.AUC(name="auc")])
    est = tf.keras.estimator.model_to_estimator(model, model_dir=str(tmp_path))
    labels = y.reshape(-1, 1)
    est.train(tf.estimator.inputs.numpy_input_fn({"feat": x}, labels, batch_size=50, num_epochs=None, shuffle=True),
              steps=20)
    results = est.evaluate(tf.estimator.inputs.numpy_input_fn({"feat": x}, labels, batch_size=64, shuffle=False))
    p = np.concatenate([next(iter(r.values())) for r in est.predict(
        tf.estimator.inputs.numpy_input_fn({"feat": x}, batch_size=64, shuffle=False))])
    assert results["auc"] == pytest.approx(_auc_roc(_counts(y, p, _grid(200))), abs=1e-5)
    assert results["acc"] == pytest.approx(np.mean((p > 0.5) == y), abs=1e-6)
