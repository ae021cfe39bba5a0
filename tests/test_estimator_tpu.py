"""TPUEstimator with ``use_tpu=False``: model functions written for TPUs, run on the CPU as TF 1.x ran them."""

from __future__ import annotations

import numpy as np
import pytest

import distflow as tf

RNG = np.random.RandomState(5)
X = RNG.randn(40, 3).astype(np.float32)
Y = (X @ np.array([1.0, -2.0, 0.5], np.float32) > 0).astype(np.int32)


def _input_fn(seen, mode_name):
    def input_fn(params):
        seen.append((mode_name, params["batch_size"], params["use_tpu"]))
        d = tf.data.Dataset.from_tensor_slices(({"x": X}, Y))
        if mode_name == "train":
            d = d.repeat()
        return d.batch(params["batch_size"], drop_remainder=mode_name != "predict")
    return input_fn


def _model_fn(tpu: bool, seen=None, metrics_as_dict=False, host_counter=None):
    def model_fn(features, labels, mode, params):
        if seen is not None:
            seen.append(("model_fn", params.get("batch_size")))
        logits = tf.layers.dense(features["x"], 2, kernel_initializer=tf.zeros_initializer(), name="linear")
        if mode == tf.estimator.ModeKeys.PREDICT:
            predictions = {"class": tf.argmax(logits, 1)}
            return (tf.contrib.tpu.TPUEstimatorSpec(mode, predictions=predictions) if tpu
                    else tf.estimator.EstimatorSpec(mode, predictions=predictions))
        per_example = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        loss = tf.reduce_mean(per_example)
        if mode == tf.estimator.ModeKeys.EVAL:
            def metric_fn(labels, logits, per_example):
                return {"accuracy": tf.metrics.accuracy(labels, tf.argmax(logits, 1)),
                        "mean_loss": tf.metrics.mean(per_example)}
            if not tpu:
                return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops=metric_fn(labels, logits,
                                                                                            per_example))
            tensors = ({"labels": labels, "logits": logits, "per_example": per_example} if metrics_as_dict
                       else [labels, logits, per_example])
            return tf.contrib.tpu.TPUEstimatorSpec(mode, loss=loss, eval_metrics=(metric_fn, tensors))
        optimizer = tf.train.GradientDescentOptimizer(0.5)
        if tpu:
            optimizer = tf.contrib.tpu.CrossShardOptimizer(optimizer)
        train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())
        if not tpu:
            return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
        host_call = None
        if host_counter is not None:
            def count(step):
                counter = tf.get_variable("host_calls", [], tf.int64, tf.zeros_initializer(), trainable=False)
                return [counter.assign_add(1)]
            host_call = (count, [tf.reshape(tf.train.get_global_step(), [1])])
        return tf.contrib.tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train_op, host_call=host_call)
    return model_fn


def _tpu_estimator(model_dir, model_fn, **kwargs):
    config = tf.contrib.tpu.RunConfig(model_dir=str(model_dir), tf_random_seed=1,
                                      tpu_config=tf.contrib.tpu.TPUConfig(iterations_per_loop=10))
    return tf.contrib.tpu.TPUEstimator(model_fn=model_fn, config=config, use_tpu=False, train_batch_size=8,
                                       eval_batch_size=5, predict_batch_size=3, **kwargs)


@pytest.mark.parametrize("metrics_as_dict", [False, True])
def test_a_tpu_estimator_trains_evaluates_and_predicts_as_the_plain_estimator(tmp_path, metrics_as_dict):
    seen = []
    tpu = _tpu_estimator(tmp_path / "tpu", _model_fn(True, seen, metrics_as_dict))
    tpu.train(_input_fn(seen, "train"), max_steps=12)
    tpu_metrics = tpu.evaluate(_input_fn(seen, "eval"), steps=8)
    tpu_classes = [p["class"] for p in tpu.predict(_input_fn(seen, "predict"))]

    plain = tf.estimator.Estimator(_model_fn(False), config=tf.estimator.RunConfig(
        model_dir=str(tmp_path / "plain"), tf_random_seed=1), params={"batch_size": 8, "use_tpu": False})
    plain.train(_input_fn([], "train"), max_steps=12)
    plain_weights = plain.get_variable_value("linear/kernel")
    np.testing.assert_array_equal(tpu.get_variable_value("linear/kernel"), plain_weights)
    assert tpu.get_variable_value("global_step") == 12
    # (the plain estimator's params give every mode the training batch: compare the metrics by hand)
    logits = X @ plain_weights + plain.get_variable_value("linear/bias")
    assert tpu_metrics["accuracy"] == pytest.approx(np.mean(np.argmax(logits, 1) == Y))
    shifted = logits - logits.max(1, keepdims=True)
    per_example = np.log(np.exp(shifted).sum(1)) - shifted[np.arange(40), Y]
    assert tpu_metrics["mean_loss"] == pytest.approx(per_example.mean(), rel=1e-5)
    assert tpu_classes == np.argmax(logits, 1).tolist()
    # each mode's input_fn and model_fn got that mode's batch size
    assert ("train", 8, False) in seen and ("eval", 5, False) in seen and ("predict", 3, False) in seen
    assert {size for what, size, *_ in seen if what == "model_fn"} == {8, 5, 3}
    assert isinstance(tpu.config, tf.contrib.tpu.RunConfig) and tpu.config.tpu_config.iterations_per_loop == 10


def test_a_host_call_runs_with_every_training_step(tmp_path):
    estimator = _tpu_estimator(tmp_path, _model_fn(True, host_counter=True))
    estimator.train(_input_fn([], "train"), max_steps=7)
    assert estimator.get_variable_value("host_calls") == 7


def test_a_scaffold_fn_makes_the_scaffold(tmp_path):
    made = []

    def model_fn(features, labels, mode, params):
        w = tf.get_variable("w", [3, 1], initializer=tf.zeros_initializer())
        loss = tf.reduce_mean(tf.square(tf.matmul(features["x"], w) - tf.cast(labels, tf.float32)[:, None]))

        def scaffold_fn():
            made.append(1)
            set_ones = w.assign(tf.ones([3, 1]))
            return tf.train.Scaffold(init_fn=lambda scaffold, sess: sess.run(set_ones))
        train_op = tf.train.GradientDescentOptimizer(0.0).minimize(loss, tf.train.get_global_step())
        return tf.contrib.tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train_op, scaffold_fn=scaffold_fn)

    estimator = _tpu_estimator(tmp_path, model_fn)
    estimator.train(_input_fn([], "train"), max_steps=2)
    assert made == [1]
    np.testing.assert_array_equal(estimator.get_variable_value("w"), np.ones([3, 1]))


def test_what_needs_a_tpu_is_refused_clearly(tmp_path):
    config = tf.estimator.tpu.RunConfig(model_dir=str(tmp_path))
    with pytest.raises(tf.errors.UnimplementedError, match="no TPUs"):
        tf.estimator.tpu.TPUEstimator(model_fn=_model_fn(True), config=config, use_tpu=True, train_batch_size=8)
    with pytest.raises(tf.errors.UnimplementedError, match="no TPUs"):
        tf.contrib.cluster_resolver.TPUClusterResolver(tpu="grpc://10.0.0.2:8470")
    with pytest.raises(ValueError, match="reserved keys"):
        tf.estimator.tpu.TPUEstimator(model_fn=_model_fn(True), config=config, use_tpu=False,
                                      params={"batch_size": 3})
    with pytest.raises(ValueError, match="tpu.RunConfig"):
        tf.estimator.tpu.TPUEstimator(model_fn=_model_fn(True), config=tf.estimator.RunConfig(), use_tpu=False)
    with pytest.raises(ValueError, match="eval_metrics"):
        tf.contrib.tpu.TPUEstimatorSpec("eval", loss=tf.constant(1.0), eval_metrics={"accuracy": None})
    assert tf.contrib.tpu.InputPipelineConfig.PER_HOST_V2 == 3
    assert tf.contrib.tpu.TPUConfig(per_host_input_for_training=True).per_host_input_for_training == 2
