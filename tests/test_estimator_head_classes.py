"""tf.estimator's head classes (BinaryClassHead and the others): losses and metrics against
NumPy, their EstimatorSpecs in a model_fn and in the canned estimators that take a head."""

import numpy as np
import pytest

import distflow as tf

LOGITS = np.array([[2.0], [-1.0], [0.5], [-3.0]], np.float32)
LABELS = np.array([[1], [0], [0], [1]], np.int64)
WEIGHTS = np.array([[1.0], [2.0], [0.5], [1.0]], np.float32)


def _values(head, logits, labels, features=None):
    """The head's loss and every metric's value after one batch."""
    with tf.Graph().as_default():
        loss = head.loss(labels, logits, features)
        metrics = head.update_metrics(head.metrics(), features, logits, labels)
        with tf.Session() as session:
            session.run(tf.local_variables_initializer())
            session.run([m.updates for m in metrics.values()])
            return session.run(loss), {k: float(session.run(m.result())) for k, m in metrics.items()}


def _sigmoid_xent(logits, labels):
    return np.maximum(logits, 0) - logits * labels + np.log1p(np.exp(-np.abs(logits)))


def _auc(labels, scores, weights, n=200):
    """The ROC area summed over n thresholds by trapezoids, as Keras's AUC sums it."""
    t = np.array([-1e-7] + [(i + 1) / (n - 1) for i in range(n - 2)] + [1 + 1e-7])
    above = scores.reshape(1, -1) > t.reshape(-1, 1)
    pos = labels.reshape(1, -1) > 0
    w = weights.reshape(1, -1)
    tp, fp = (above & pos) @ w.T, (above & ~pos) @ w.T
    fn, tn = (~above & pos) @ w.T, (~above & ~pos) @ w.T
    tpr, fpr = (tp / (tp + fn)).ravel(), (fp / (fp + tn)).ravel()
    return np.sum((fpr[:-1] - fpr[1:]) * (tpr[:-1] + tpr[1:]) / 2)


def test_binary_class_head_loss_and_metrics_match_numpy():
    head = tf.estimator.BinaryClassHead(weight_column="w", thresholds=[0.3])
    loss, m = _values(head, LOGITS, LABELS, {"w": WEIGHTS})
    y, w = LABELS.astype(np.float64), WEIGHTS.astype(np.float64)
    xent = _sigmoid_xent(LOGITS.astype(np.float64), y)
    assert loss == pytest.approx(np.sum(w * xent) / 4, rel=1e-6)  # (sum over the batch's entries)
    assert m["average_loss"] == pytest.approx(np.sum(w * xent) / w.sum(), rel=1e-6)
    p = 1 / (1 + np.exp(-LOGITS.astype(np.float64)))
    predicted = (p > 0.5).astype(np.float64)
    assert m["accuracy"] == pytest.approx(np.sum(w * (predicted == y)) / w.sum(), rel=1e-6)
    assert m["precision"] == pytest.approx(np.sum(w * predicted * y) / np.sum(w * predicted), rel=1e-6)
    assert m["recall"] == pytest.approx(np.sum(w * predicted * y) / np.sum(w * y), rel=1e-6)
    assert m["recall/positive_threshold_0.3"] == pytest.approx(np.sum(w * (p > 0.3) * y) / np.sum(w * y), rel=1e-6)
    mean = np.sum(w * y) / w.sum()
    assert m["label/mean"] == pytest.approx(mean, rel=1e-6)
    assert m["accuracy_baseline"] == pytest.approx(max(mean, 1 - mean), rel=1e-6)
    assert m["prediction/mean"] == pytest.approx(np.sum(w * p) / w.sum(), rel=1e-6)
    assert m["auc"] == pytest.approx(_auc(y, p, w), abs=1e-6)
    assert set(m) == {"average_loss", "accuracy", "precision", "recall", "label/mean", "prediction/mean",
                      "accuracy_baseline", "auc", "auc_precision_recall", "accuracy/positive_threshold_0.3",
                      "precision/positive_threshold_0.3", "recall/positive_threshold_0.3"}


def test_multi_class_multi_label_and_regression_heads_match_numpy():
    logits = np.array([[1, 2, 0], [0, 0, 3], [1, 1, 1], [2, -1, 0]], np.float32)
    labels = np.array([[1], [2], [0], [1]])
    loss, m = _values(tf.estimator.MultiClassHead(3, name="t"), logits, labels)
    z = logits.astype(np.float64)
    xent = np.log(np.exp(z).sum(1)) - z[np.arange(4), labels.ravel()]
    assert loss == pytest.approx(xent.mean(), rel=1e-6)
    assert m == pytest.approx({"average_loss/t": xent.mean(), "accuracy/t": np.mean(z.argmax(1) == labels.ravel())})

    logits = np.array([[1, -1], [0, 2], [-1, 0], [2, 1]], np.float32)
    labels = np.array([[1, 0], [0, 1], [1, 1], [0, 0]])
    loss, m = _values(tf.estimator.MultiLabelHead(2), logits, labels)
    per_example = _sigmoid_xent(logits.astype(np.float64), labels).mean(1)
    assert loss == pytest.approx(per_example.mean(), rel=1e-6)
    p = 1 / (1 + np.exp(-logits.astype(np.float64)))
    assert m["auc"] == pytest.approx(_auc(labels, p, np.ones_like(p)), abs=1e-6)

    targets = np.array([[1.0], [0.0], [2.0], [1.0]], np.float32)
    loss, m = _values(tf.estimator.RegressionHead(weight_column="w", loss_reduction="sum"), LOGITS, targets,
                      {"w": WEIGHTS})
    assert loss == pytest.approx(np.sum(WEIGHTS * (LOGITS - targets) ** 2), rel=1e-6)
    assert m["prediction/mean"] == pytest.approx(np.sum(WEIGHTS * LOGITS) / WEIGHTS.sum(), rel=1e-6)
    loss, m = _values(tf.estimator.PoissonRegressionHead(compute_full_loss=False), LOGITS, targets)
    assert loss == pytest.approx(np.mean(np.exp(LOGITS) - targets * LOGITS), rel=1e-6)
    assert m["prediction/mean"] == pytest.approx(np.mean(np.exp(LOGITS)), rel=1e-6)


def test_a_model_fn_trains_and_evaluates_through_a_head(tmp_path):
    rng = np.random.RandomState(0)
    x = rng.randn(300, 3).astype(np.float32)
    y = (x @ np.array([1.5, -2.0, 0.5]) > 0).astype(np.int64).reshape(-1, 1)
    head = tf.estimator.BinaryClassHead()

    def model_fn(features, labels, mode):
        logits = tf.layers.dense(features["x"], 1)
        return head.create_estimator_spec(features, mode, logits, labels,
                                          optimizer=tf.keras.optimizers.Adagrad(0.5))

    est = tf.estimator.Estimator(model_fn, str(tmp_path))
    est.train(tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=50, num_epochs=None, shuffle=True),
              steps=60)
    results = est.evaluate(tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=100, shuffle=False))
    assert results["global_step"] == 60 and results["accuracy"] > 0.95 and results["auc"] > 0.97
    assert results["loss"] == pytest.approx(results["average_loss"], rel=1e-5)
    first = next(est.predict(tf.estimator.inputs.numpy_input_fn({"x": x}, batch_size=100, shuffle=False)))
    assert set(first) == {"logits", "logistic", "probabilities", "class_ids", "classes", "all_class_ids",
                          "all_classes"}


def test_canned_estimators_take_the_head_classes(tmp_path):
    rng = np.random.RandomState(1)
    x = rng.randn(300, 2).astype(np.float32)
    y = (x[:, :1] * 2 - x[:, 1:]).astype(np.float32)
    columns = [tf.feature_column.numeric_column("x", shape=(2,))]
    est = tf.estimator.LinearEstimator(tf.estimator.RegressionHead(), columns, model_dir=str(tmp_path),
                                       optimizer=tf.train.GradientDescentOptimizer(0.1))
    est.train(tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=50, num_epochs=None, shuffle=True),
              steps=150)
    results = est.evaluate(tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=300, shuffle=False))
    assert results["average_loss"] < 1e-3 and {"label/mean", "prediction/mean"} <= set(results)


def test_multi_head_sums_the_weighted_losses_and_keys_by_head():
    a = tf.estimator.BinaryClassHead(name="click")
    b = tf.estimator.RegressionHead(name="time")
    head = tf.estimator.MultiHead([a, b], head_weights=[1.0, 0.5])
    logits = np.array([[2.0, 1.0], [-1.0, 3.0]], np.float32)
    labels = {"click": np.array([[1], [0]]), "time": np.array([[0.5], [2.0]], np.float32)}
    loss, m = _values(head, logits, labels)
    click = _sigmoid_xent(logits[:, :1].astype(np.float64), labels["click"]).mean()
    time = np.mean((logits[:, 1:] - labels["time"]) ** 2)
    assert loss == pytest.approx(click + 0.5 * time, rel=1e-6)
    assert m["loss/click"] == pytest.approx(click, rel=1e-6) and m["average_loss/time"] == pytest.approx(time)
    with tf.Graph().as_default():
        predictions = head.predictions(tf.constant(logits))
        assert ("click", "logistic") in predictions and ("time", "predictions") in predictions
        spec = head.create_estimator_spec({}, "infer", tf.constant(logits))
        assert {"serving_default", "click", "time", "click/predict"} <= set(spec.export_outputs)
        with pytest.raises(ValueError, match="dict by head name"):
            head.loss(np.zeros((2, 1)), logits)


def test_heads_refuse_what_is_wrong():
    with pytest.raises(ValueError, match="Invalid loss_reduction"):
        tf.estimator.BinaryClassHead(loss_reduction="none")
    with pytest.raises(ValueError, match=r"thresholds not in \(0, 1\)"):
        tf.estimator.BinaryClassHead(thresholds=[1.0])
    with pytest.raises(ValueError, match="must contain argument: logits"):
        tf.estimator.RegressionHead(loss_fn=lambda labels, preds: labels)
    with pytest.raises(ValueError, match="n_classes must be > 2"):
        tf.estimator.MultiClassHead(2)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Prediction key must be in PredictionKeys"):
            tf.estimator.BinaryClassHead().predictions(tf.constant(LOGITS), ["scores"])
        with pytest.raises(ValueError, match="logits_dimension=3"):
            tf.estimator.MultiClassHead(3).loss(LABELS, LOGITS)
        with pytest.raises(ValueError, match="cannot both be None"):
            tf.estimator.BinaryClassHead().create_estimator_spec({}, "train", tf.constant(LOGITS), LABELS)
