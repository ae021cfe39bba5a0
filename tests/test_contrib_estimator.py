"""tf.contrib.estimator: add_metrics, forward_features and clip_gradients_by_norm around an
Estimator's own model."""

import numpy as np
import pytest

import distflow as tf

RNG = np.random.default_rng(101)
X = RNG.standard_normal((16, 2)).astype(np.float32)
Y = (X @ np.array([[2.0], [-1.0]], np.float32) + 0.5).astype(np.float32)


def _input(shuffle=False, epochs=None):
    return tf.estimator.inputs.numpy_input_fn({"x": X, "id": np.arange(16)}, Y, batch_size=8, num_epochs=epochs,
                                              shuffle=shuffle)


def _estimator(model_dir, optimizer=None):
    def model_fn(features, labels, mode):
        predictions = tf.layers.dense(features["x"], 1, kernel_initializer=tf.zeros_initializer())
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions={"y": predictions})
        loss = tf.losses.mean_squared_error(labels, predictions)
        train = (optimizer or tf.train.GradientDescentOptimizer(0.1)).minimize(loss, tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, predictions={"y": predictions}, loss=loss, train_op=train,
                                          eval_metric_ops={"rmse": tf.metrics.root_mean_squared_error(labels,
                                                                                                      predictions)})
    return tf.estimator.Estimator(model_fn, model_dir=str(model_dir))


def test_added_metrics_and_forwarded_features_on_the_same_model(tmp_path):
    est = _estimator(tmp_path)
    est.train(_input(shuffle=True), steps=20)

    def metric_fn(labels, predictions, features):
        return {"mae": tf.metrics.mean_absolute_error(labels, predictions["y"]),
                "mean_id": tf.metrics.mean(features["id"])}

    with_metrics = tf.contrib.estimator.add_metrics(est, metric_fn)
    assert with_metrics.model_dir == est.model_dir
    results = with_metrics.evaluate(_input(epochs=1))
    assert {"loss", "rmse", "mae", "mean_id", "global_step"} <= set(results) and results["global_step"] == 20
    weights = est.get_variable_value("dense/kernel"), est.get_variable_value("dense/bias")
    predicted = X @ weights[0] + weights[1]
    assert results["mae"] == pytest.approx(np.mean(np.abs(predicted - Y)), rel=1e-5)
    assert results["mean_id"] == pytest.approx(7.5)
    forwarded = list(tf.contrib.estimator.forward_features(est, "id").predict(_input(epochs=1)))
    assert [p["id"] for p in forwarded] == list(range(16))
    np.testing.assert_allclose([p["y"][0] for p in forwarded], predicted[:, 0], rtol=1e-5)
    with pytest.raises(ValueError, match="must include predictions"):
        tf.contrib.estimator.add_metrics(est, lambda labels: {})


def test_clip_gradients_by_norm_bounds_each_step(tmp_path):
    est = _estimator(tmp_path, tf.contrib.estimator.clip_gradients_by_norm(tf.train.GradientDescentOptimizer(1.0),
                                                                           0.01))
    est.train(_input(), steps=1)
    kernel, bias = est.get_variable_value("dense/kernel"), est.get_variable_value("dense/bias")
    # (one step from zero weights: the whole gradient, clipped to a norm of 0.01, times a rate of 1)
    assert np.sqrt(np.sum(kernel ** 2) + np.sum(bias ** 2)) == pytest.approx(0.01, rel=1e-4)
