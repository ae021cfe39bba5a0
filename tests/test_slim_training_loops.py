"""TF-Slim's and tf.contrib.training's training and evaluation loops: a logistic regression
trained by each loop, checkpointed, and evaluated from its checkpoint, against NumPy."""

import glob
import os

import numpy as np
import pytest

import distflow as tf
from distflow.contrib import slim

RNG = np.random.RandomState(7)
INPUTS = RNG.rand(16, 4).astype(np.float32)
LABELS = (INPUTS.sum(1, keepdims=True) > 2.0).astype(np.float32)


def _model():
    x, y = tf.constant(INPUTS), tf.constant(LABELS)
    predictions = slim.fully_connected(x, 1, activation_fn=tf.sigmoid, scope="fc")
    loss = tf.losses.log_loss(y, predictions)
    return y, predictions, loss


def test_create_train_op_runs_the_update_ops_clips_multiplies_and_returns_the_loss():
    tf.set_random_seed(1)  # (weights whose bias gradient is larger than the clipping norm)
    _, _, loss = _model()
    counter = tf.Variable(0, name="counter")
    tf.add_to_collection(tf.GraphKeys.UPDATE_OPS, tf.assign_add(counter, 1))
    weights = slim.get_variables_by_name("weights")[0]
    train_op = slim.learning.create_train_op(loss, tf.train.GradientDescentOptimizer(1.0),
                                             gradient_multipliers={weights: 0.0}, clip_gradient_norm=1e-3)
    assert train_op in tf.get_collection(tf.GraphKeys.TRAIN_OP)
    biases = slim.get_variables_by_name("biases")[0]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        w0, b0, want_loss = sess.run([weights, biases, loss])
        assert abs(sess.run(tf.gradients(loss, biases)[0])[0]) > 1e-2
        got_loss = sess.run(train_op)
        w1, b1, steps, count = sess.run([weights, biases, tf.train.get_global_step(), counter])
    assert got_loss == pytest.approx(want_loss)
    np.testing.assert_array_equal(w1, w0)  # (multiplied by 0)
    assert abs(b1[0] - b0[0]) == pytest.approx(1e-3, rel=1e-3)  # (clipped to norm 1e-3, learning rate 1)
    assert (steps, count) == (1, 1)


def test_slim_learning_trains_to_its_number_of_steps_traces_and_saves(tmp_path):
    _, _, loss = _model()
    train_op = slim.learning.create_train_op(loss, tf.train.GradientDescentOptimizer(0.5))
    tf.summary.scalar("loss", loss)
    restored = []
    final = slim.learning.train(train_op, str(tmp_path), number_of_steps=30, log_every_n_steps=10,
                                trace_every_n_steps=20, save_summaries_secs=10000, save_interval_secs=10000,
                                init_fn=lambda sess: restored.append(True))
    assert restored == [True] and final < 0.69  # (below the loss of guessing 0.5)
    assert (tmp_path / "model.ckpt-30.index").exists()  # (the last save, after the 30th step)
    assert sorted(os.path.basename(p) for p in glob.glob(str(tmp_path / "tf_trace-*.json"))) == [
        "tf_trace-1.json", "tf_trace-21.json"]  # (traced at steps 0 and 20, named after, as TF's)
    tags = {e.tagged_run_metadata.tag for f in glob.glob(str(tmp_path / "events.*"))
            for e in tf.train.summary_iterator(f) if e.HasField("tagged_run_metadata")}
    assert tags == {"run_metadata-1", "run_metadata-21"}
    with pytest.raises(ValueError, match="number_of_steps"):
        slim.learning.train(train_op, str(tmp_path), number_of_steps=0)


def test_contrib_training_trains_with_hooks_and_evaluates_checkpoints(tmp_path):
    with tf.Graph().as_default():
        _, _, loss = _model()
        train_op = tf.contrib.training.create_train_op(loss, tf.train.GradientDescentOptimizer(0.5))
        tf.contrib.training.train(train_op, str(tmp_path), hooks=[tf.train.StopAtStepHook(num_steps=25)],
                                  save_checkpoint_secs=10000, save_summaries_steps=None)
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, tf.train.latest_checkpoint(str(tmp_path)))
            weights, biases = sess.run(slim.get_model_variables())
    want = 1 / (1 + np.exp(-(INPUTS @ weights + biases)))
    with tf.Graph().as_default():
        y, predictions, _ = _model()
        mse, update = tf.metrics.mean_squared_error(y, predictions)
        stop = tf.contrib.training.StopAfterNEvalsHook(3)
        got = tf.contrib.training.evaluate_once(tf.train.latest_checkpoint(str(tmp_path)), eval_ops=update,
                                                final_ops={"mse": mse}, hooks=[stop])
        assert got["mse"] == pytest.approx(float(((want - LABELS) ** 2).mean()), rel=1e-5)
        again = tf.contrib.training.evaluate_repeatedly(str(tmp_path), eval_ops=update, final_ops=mse,
                                                        hooks=[tf.contrib.training.StopAfterNEvalsHook(2)],
                                                        eval_interval_secs=0, max_number_of_evaluations=1)
        assert again == pytest.approx(got["mse"], rel=1e-5)  # (metrics restart with each checkpoint)
    assert list(tf.contrib.training.checkpoints_iterator(str(tmp_path / "none"), timeout=0)) == []


def test_slim_evaluation_writes_the_summaries_once_at_the_end(tmp_path):
    with tf.Graph().as_default():
        _, _, loss = _model()
        train_op = slim.learning.create_train_op(loss, tf.train.GradientDescentOptimizer(0.5))
        slim.learning.train(train_op, str(tmp_path / "train"), number_of_steps=5, save_summaries_secs=10000,
                            save_interval_secs=10000)
    with tf.Graph().as_default():
        y, predictions, _ = _model()
        accuracy, update = tf.metrics.accuracy(y, tf.round(predictions))
        tf.summary.scalar("eval/accuracy", accuracy)
        checkpoint = tf.train.latest_checkpoint(str(tmp_path / "train"))
        got = slim.evaluation.evaluate_once("", checkpoint, str(tmp_path / "eval"), num_evals=2, eval_op=update,
                                            final_op=accuracy)
    events = [e for f in glob.glob(str(tmp_path / "eval" / "events.*")) for e in tf.train.summary_iterator(f)]
    values = [v.simple_value for e in events for v in e.summary.value if v.tag == "eval/accuracy"]
    assert values == [pytest.approx(got)] and 0.0 <= got <= 1.0
    assert any(e.HasField("graph_def") for e in events)  # (the cached writer writes the graph, as TF's)
