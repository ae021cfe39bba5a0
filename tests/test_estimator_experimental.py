"""tf.estimator.experimental's hooks and logit functions: evaluation in memory during
training, workers that stop at the chief's last checkpoint, the canned networks as logit
functions."""

import json
import os

import numpy as np
import pytest

import distflow as tf

RNG = np.random.RandomState(0)
X = RNG.randn(300, 3).astype(np.float32)
Y = (X[:, 0] > 0).astype(np.int64)
COLUMNS = [tf.feature_column.numeric_column("x", shape=(3,))]


def _train_input():
    return tf.estimator.inputs.numpy_input_fn({"x": X}, Y, batch_size=50, num_epochs=None, shuffle=True)


def _eval_input():
    return tf.estimator.inputs.numpy_input_fn({"x": X}, Y, batch_size=100, shuffle=False)


def test_in_memory_evaluation_uses_the_training_sessions_variables(tmp_path):
    config = tf.estimator.RunConfig(save_checkpoints_steps=1000)  # (no checkpoint between the first and last)
    est = tf.estimator.DNNClassifier([8], COLUMNS, model_dir=str(tmp_path), config=config)
    hook = tf.estimator.experimental.InMemoryEvaluatorHook(est, _eval_input(), every_n_iter=20, name="mem")
    est.train(_train_input(), steps=50, hooks=[hook])
    evaluated = tf.estimator.experimental.read_eval_metrics(os.path.join(str(tmp_path), "eval_mem"))
    assert list(evaluated) == [1, 21, 41, 50]  # (after the first step, every 20, and at the end)
    assert evaluated[1]["accuracy"] < evaluated[50]["accuracy"]
    final = est.evaluate(_eval_input())  # (from the last checkpoint: the values the hook saw last)
    assert evaluated[50]["accuracy"] == pytest.approx(final["accuracy"])
    assert evaluated[50]["loss"] == pytest.approx(final["loss"], rel=1e-5)
    with pytest.raises(ValueError, match="invalid every_n_iter"):
        tf.estimator.experimental.InMemoryEvaluatorHook(est, _eval_input(), every_n_iter=0)


def test_early_stopping_reads_what_the_in_memory_evaluator_wrote(tmp_path):
    est = tf.estimator.DNNClassifier([8], COLUMNS, model_dir=str(tmp_path))
    evaluator = tf.estimator.experimental.InMemoryEvaluatorHook(est, _eval_input(), every_n_iter=5)
    # (stop once an evaluation's accuracy is above 0, after step 10: the first evaluation after it)
    stop = tf.estimator.experimental.stop_if_higher_hook(est, "accuracy", 0.0, min_steps=10, run_every_secs=None,
                                                         run_every_steps=1)
    est.train(_train_input(), steps=200, hooks=[evaluator, stop])
    assert est.get_variable_value("global_step") < 200


def _worker_estimator(tmp_path, monkeypatch):
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": {"chief": ["127.0.0.1:1"], "worker": ["127.0.0.1:2"]},
                                                "task": {"type": "worker", "index": 0}}))
    return tf.estimator.Estimator(lambda features, labels, mode: None, model_dir=str(tmp_path))


def _checkpoint_at(directory, step):
    with tf.Graph().as_default():
        global_step = tf.train.get_or_create_global_step()
        with tf.Session() as session:
            session.run(tf.assign(global_step, step))
            tf.train.Saver().save(session, os.path.join(directory, "model.ckpt"), global_step=step)


def _steps_until_stopped(hook, start, limit):
    with tf.Graph().as_default():
        global_step = tf.train.get_or_create_global_step()
        step = tf.assign_add(global_step, 1)
        set_start = tf.assign(global_step, start)
        ran = 0
        with tf.train.MonitoredSession(hooks=[hook]) as session:
            session.run_step_fn(lambda context: context.session.run(set_start))
            while not session.should_stop() and ran < limit:
                session.run(step)
                ran += 1
        return ran


def test_a_worker_stops_when_the_chiefs_checkpoint_reaches_the_last_step(tmp_path, monkeypatch):
    est = _worker_estimator(tmp_path, monkeypatch)
    _checkpoint_at(str(tmp_path), 10)
    hook = tf.estimator.experimental.make_stop_at_checkpoint_step_hook(est, last_step=10,
                                                                       wait_after_file_check_secs=0)
    assert _steps_until_stopped(hook, start=7, limit=50) == 3  # (steps 8, 9, 10: then the checkpoint is there)
    _checkpoint_at(str(tmp_path), 5)  # (the chief is behind: the worker goes on past its own last step)
    hook = tf.estimator.experimental.make_stop_at_checkpoint_step_hook(est, last_step=10,
                                                                       wait_after_file_check_secs=0)
    assert _steps_until_stopped(hook, start=7, limit=6) == 6
    monkeypatch.delenv("TF_CONFIG")
    chief = tf.estimator.Estimator(lambda features, labels, mode: None, model_dir=str(tmp_path))
    assert type(tf.estimator.experimental.make_stop_at_checkpoint_step_hook(chief, 10)) is tf.train.SessionRunHook


def test_the_canned_networks_as_logit_functions():
    with tf.Graph().as_default():
        features = {"x": tf.constant(X)}
        dnn = tf.estimator.experimental.dnn_logit_fn_builder(2, [4], COLUMNS)
        logits = tf.estimator.experimental.call_logit_fn(dnn, features, "train", {}, None)
        assert logits.shape.as_list() == [300, 2]
        assert [v.op.name for v in tf.global_variables()] == ["hiddenlayer_0/kernel", "hiddenlayer_0/bias",
                                                              "logits/kernel", "logits/bias"]
        linear = tf.estimator.experimental.linear_logit_fn_builder(1, COLUMNS)
        with tf.variable_scope("wide"):
            wide = tf.estimator.experimental.call_logit_fn(linear, features, "eval", None, None)
        with tf.Session() as session:
            session.run(tf.global_variables_initializer())
            kernel, bias = session.run(["hiddenlayer_0/kernel:0", "hiddenlayer_0/bias:0"])
            w_out, b_out = session.run(["logits/kernel:0", "logits/bias:0"])
            got, expected = session.run(logits), np.maximum(X @ kernel + bias, 0) @ w_out + b_out
            np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
            assert session.run(wide).shape == (300, 1)

        def by_params(features, params):
            return tf.layers.dense(features["x"], params["units"])

        assert tf.estimator.experimental.call_logit_fn(by_params, features, "train", {"units": 3},
                                                       None).shape.as_list() == [300, 3]
        with pytest.raises(ValueError, match="should return a Tensor"):
            tf.estimator.experimental.call_logit_fn(lambda features: [features["x"]], features, "train", {}, None)
