"""tf.contrib.summary in graph mode: summary ops that write their events themselves, read
back from the event files as TensorBoard reads them."""

import glob
import os

import numpy as np
import pytest

import distflow as tf

summary = tf.contrib.summary


def _events(logdir):
    out = []
    for path in sorted(glob.glob(os.path.join(logdir, "events.out.tfevents.*"))):
        out += [e for e in tf.train.summary_iterator(path) if e.HasField("summary") or e.graph_def]
    return out


def test_summaries_write_at_the_steps_recording_allows(tmp_path):
    logdir = str(tmp_path / "logs")
    step = tf.train.get_or_create_global_step()
    loss = tf.placeholder(tf.float32, [])
    writer = summary.create_file_writer(logdir, flush_millis=10000)
    with writer.as_default(), summary.record_summaries_every_n_global_steps(2):
        summary.scalar("loss", loss)
        summary.histogram("values", tf.constant([1.0, 2.0, 2.0, 5.0]), family="dist")
        with summary.always_record_summaries():
            summary.image("picture", tf.zeros([1, 4, 5, 3]), max_images=1)
        with summary.never_record_summaries():
            summary.scalar("never", loss)
    unrecorded = summary.scalar("outside", loss)  # (no default writer here: False, nothing written)
    ops = summary.all_summary_ops()
    assert len(ops) == 4 and all(op is not unrecorded for op in ops)
    train = tf.assign_add(step, 1)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(RuntimeError, match="No default"):
            summary.initialize(session=sess)
        with writer.as_default():
            summary.initialize(graph=tf.get_default_graph(), session=sess)
        for i in range(5):  # (steps 0 to 4: every second records)
            wrote = sess.run(ops, {loss: 0.5 * i})
            assert [bool(w) for w in wrote] == [i % 2 == 0, i % 2 == 0, True, False]
            sess.run(train)
        assert not sess.run(unrecorded)
        sess.run(writer.flush())
    events = _events(logdir)
    assert sum(1 for e in events if e.graph_def) == 1
    scalars = [(e.step, v.simple_value) for e in events for v in e.summary.value if v.tag == "loss"]
    assert scalars == [(0, 0.0), (2, 1.0), (4, 2.0)]
    histograms = [v.histo for e in events for v in e.summary.value if v.tag == "dist/dist/values"]
    assert len(histograms) == 3 and histograms[0].num == 4 and histograms[0].max == 5.0
    images = [(e.step, v.image.width) for e in events for v in e.summary.value if v.tag.startswith("picture")]
    assert images == [(i, 5) for i in range(5)]


def test_writers_of_one_logdir_share_their_file_and_the_rest_is_refused(tmp_path):
    logdir = str(tmp_path)
    first, second = summary.create_file_writer(logdir), summary.create_file_writer(logdir)
    with first.as_default(), summary.always_record_summaries():
        a = summary.scalar("a", 1.0, step=3)
    with second.as_default(), summary.always_record_summaries():
        b = summary.generic("b", tf.constant([1, 2]), step=4)
    assert len(summary.summary_writer_initializer_op()) == 2
    with tf.Session() as sess:
        sess.run(summary.summary_writer_initializer_op())
        assert sess.run([a, b]) == [True, True]
        sess.run(first.close())
    assert len(glob.glob(os.path.join(logdir, "events.out.tfevents.*"))) == 1
    values = {v.tag: (e.step, v) for e in _events(logdir) for v in e.summary.value}
    assert values["a"][0] == 3 and values["a"][1].simple_value == 1.0
    assert values["b"][0] == 4 and tf.make_ndarray(values["b"][1].tensor).tolist() == [1, 2]
    assert summary.eval_dir("/m", "x") == os.path.join("/m", "eval_x")
    with pytest.raises(NotImplementedError, match="create_file_writer"):
        summary.create_db_writer("/tmp/x.sqlite")
    assert summary.all_summary_ops() is not None and np.asarray(True)


def test_a_tpu_estimators_host_call_writes_its_summaries_as_tpu_models_write_them(tmp_path):
    """The official TPU models' host_call: a writer and always_record_summaries inside the
    host call, the global step and loss passed as [1] tensors."""
    model_dir = str(tmp_path / "model")

    def model_fn(features, labels, mode, params):
        w = tf.get_variable("w", [2, 1], initializer=tf.zeros_initializer())
        loss = tf.reduce_mean(tf.square(tf.matmul(features, w) - labels))
        step = tf.train.get_global_step()
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)

        def host_call_fn(gs, loss_value):
            with summary.create_file_writer(model_dir, max_queue=10, filename_suffix=".host").as_default():
                with summary.always_record_summaries():
                    summary.scalar("loss", loss_value[0], step=gs[0])
                    return summary.all_summary_ops()

        host_call = (host_call_fn, [tf.reshape(step, [1]), tf.reshape(loss, [1])])
        return tf.contrib.tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train_op, host_call=host_call)

    def input_fn(params):
        x = np.array([[1.0, 2.0], [3.0, 1.0]] * 4, np.float32)
        y = x @ np.array([[0.5], [-1.0]], np.float32)
        return tf.data.Dataset.from_tensor_slices((x, y)).repeat().batch(params["batch_size"], drop_remainder=True)

    config = tf.contrib.tpu.RunConfig(model_dir=model_dir, tpu_config=tf.contrib.tpu.TPUConfig(iterations_per_loop=5))
    estimator = tf.contrib.tpu.TPUEstimator(model_fn=model_fn, config=config, use_tpu=False, train_batch_size=4)
    estimator.train(input_fn, max_steps=6)
    with tf.Session() as sess:  # (the host call's writer, shared by its log directory and suffix: closed)
        sess.run(summary.create_file_writer(model_dir, filename_suffix=".host").close())
    [path] = glob.glob(os.path.join(model_dir, "events.out.tfevents.*.host"))
    losses = [(e.step, v.simple_value) for e in tf.train.summary_iterator(path) for v in e.summary.value]
    assert [s for s, _ in losses] == [0, 1, 2, 3, 4, 5] and losses[0][1] > losses[-1][1] > 0
