"""A fourth group of TF 1.x names that no other test called by name: tf.keras's layer aliases
and the layers only reached through them, tf.data's constants and options, the summary
and tf.train protos and helpers, and nn.avg_pool_v2; each checked for what TF 1.x does."""

import numpy as np
import pytest

import distflow as tf

L = tf.keras.layers
K = tf.keras.backend


def run(fetches, feed=None):
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        return sess.run(fetches, feed)


@pytest.mark.parametrize("alias,name", [
    ("AvgPool1D", "AveragePooling1D"), ("AvgPool2D", "AveragePooling2D"), ("AvgPool3D", "AveragePooling3D"),
    ("MaxPool1D", "MaxPooling1D"), ("MaxPool3D", "MaxPooling3D"), ("Convolution1D", "Conv1D"),
    ("Convolution2D", "Conv2D"), ("Convolution2DTranspose", "Conv2DTranspose"), ("Convolution3D", "Conv3D"),
    ("SeparableConvolution2D", "SeparableConv2D"), ("GlobalAvgPool1D", "GlobalAveragePooling1D"),
    ("GlobalAvgPool2D", "GlobalAveragePooling2D"), ("GlobalMaxPool1D", "GlobalMaxPooling1D"),
    ("GlobalMaxPool3D", "GlobalMaxPooling3D")])
def test_keras_layer_aliases_are_the_same_classes(alias, name):
    assert getattr(L, alias) is getattr(L, name)


def test_keras_pooling_layers_against_numpy():
    rng = np.random.default_rng(0)
    seq, img, vol = (rng.random(s).astype(np.float32) for s in ((2, 6, 3), (2, 4, 4, 3), (2, 4, 4, 4, 3)))
    got = run([L.GlobalMaxPooling1D()(tf.constant(seq)), L.GlobalMaxPooling2D()(tf.constant(img)),
               L.GlobalAveragePooling2D()(tf.constant(img)), L.GlobalAveragePooling3D()(tf.constant(vol)),
               L.GlobalMaxPool3D()(tf.constant(vol)), L.GlobalAvgPool1D()(tf.constant(seq)),
               L.MaxPool1D(2)(tf.constant(seq)), L.AvgPool1D(3)(tf.constant(seq)),
               L.MaxPool3D(2)(tf.constant(vol)), L.AvgPool3D(2)(tf.constant(vol))])
    want = [seq.max(1), img.max((1, 2)), img.mean((1, 2)), vol.mean((1, 2, 3)), vol.max((1, 2, 3)), seq.mean(1),
            seq.reshape(2, 3, 2, 3).max(2), seq.reshape(2, 2, 3, 3).mean(2),
            vol.reshape(2, 2, 2, 2, 2, 2, 2, 3).max((2, 4, 6)), vol.reshape(2, 2, 2, 2, 2, 2, 2, 3).mean((2, 4, 6))]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_spatial_dropout_drops_whole_channels_in_training_only():
    x = np.ones((4, 5, 5, 16), np.float32)
    layer = L.SpatialDropout2D(0.5)
    trained, inferred = run([layer(tf.constant(x), training=True), layer(tf.constant(x), training=False)])
    np.testing.assert_array_equal(inferred, x)
    per_channel = trained.reshape(4, 25, 16)
    assert (per_channel.min(1) == per_channel.max(1)).all()  # each (example, channel) kept or dropped whole
    assert set(np.unique(trained)) <= {0.0, 2.0} and 0 < (per_channel[:, 0] == 0).sum() < 64
    vol = L.SpatialDropout3D(0.5)(tf.constant(np.ones((2, 3, 3, 3, 8), np.float32)), training=True)
    assert (run(vol).reshape(2, 27, 8).std(1) == 0).all()


def test_activity_regularization_adds_its_loss():
    x = tf.constant([[1.0, -2.0], [3.0, 0.5]])
    layer = L.ActivityRegularization(l1=0.1, l2=0.01)
    y = layer(x)
    (loss,) = layer.losses
    got_y, got_loss = run([y, loss])
    v = np.array([[1.0, -2.0], [3.0, 0.5]])
    np.testing.assert_array_equal(got_y, v)
    # (TF 1.15's Keras divides an activity loss by the batch size, making it batch-agnostic)
    np.testing.assert_allclose(got_loss, (0.1 * np.abs(v).sum() + 0.01 * (v ** 2).sum()) / 2, rtol=1e-6)


def test_rnn_of_a_simple_rnn_cell_is_simple_rnn():
    rng = np.random.default_rng(1)
    x = rng.random((3, 5, 4)).astype(np.float32)
    layer = L.RNN(L.SimpleRNNCell(6), return_sequences=True)
    out = layer(tf.constant(x))
    kernel, recurrent, bias = layer.weights
    got, (k, r, b) = run([out, [kernel, recurrent, bias]])
    h, want = np.zeros((3, 6), np.float32), []
    for t in range(5):
        h = np.tanh(x[:, t] @ k + h @ r + b)
        want.append(h)
    np.testing.assert_allclose(got, np.stack(want, 1), rtol=1e-5, atol=1e-6)


def test_input_spec_checks_what_a_layer_is_called_on():
    class Flat(L.Layer):
        def __init__(self):
            super().__init__()
            self.input_spec = L.InputSpec(ndim=2)

        def call(self, inputs):
            return inputs

    Flat()(tf.zeros([2, 3]))
    with pytest.raises(ValueError, match="expected ndim=2, found ndim=3"):
        Flat()(tf.zeros([2, 3, 4]))
    assert tf.layers.InputSpec(ndim=2, dtype="float32").ndim == 2


def test_wrapper_and_serialize():
    wrapped = L.TimeDistributed(L.Dense(2))
    assert isinstance(wrapped, L.Wrapper) and isinstance(L.Bidirectional(L.LSTM(2)), L.Wrapper)
    entry = L.serialize(L.Dense(3, activation="relu", name="d"))
    assert entry["class_name"] == "Dense" and entry["config"]["units"] == 3
    again = L.deserialize(entry)
    assert isinstance(again, L.Dense) and again.units == 3 and again.name == "d"


def test_tf_data_constants_options_and_output_classes():
    assert tf.data.AUTOTUNE == -1
    assert tf.data.INFINITE_CARDINALITY == -1 and tf.data.UNKNOWN_CARDINALITY == -2
    options = tf.data.Options()
    options.experimental_threading = tf.data.ThreadingOptions()
    options.experimental_threading.private_threadpool_size = 2
    ds = tf.data.Dataset.range(5).map(lambda v: v * 2, num_parallel_calls=tf.data.AUTOTUNE).with_options(options)
    assert ds.options().experimental_threading.private_threadpool_size == 2
    assert tf.data.get_output_classes(ds) is tf.Tensor
    pairs = tf.data.Dataset.from_tensors(({"a": 1}, [2.0]))
    assert tf.data.get_output_classes(pairs) == ({"a": tf.Tensor}, tf.Tensor)
    nxt = tf.data.make_one_shot_iterator(ds).get_next()
    with tf.Session() as sess:
        assert [sess.run(nxt) for _ in range(5)] == [0, 2, 4, 6, 8]


def test_file_writer_cache_gives_one_writer_per_directory(tmp_path):
    a = tf.summary.FileWriterCache.get(str(tmp_path / "a"))
    assert tf.summary.FileWriterCache.get(str(tmp_path / "a")) is a
    assert tf.summary.FileWriterCache.get(str(tmp_path / "b")) is not a
    tf.summary.FileWriterCache.clear()
    assert tf.summary.FileWriterCache.get(str(tmp_path / "a")) is not a


def test_tagged_run_metadata():
    tagged = tf.summary.TaggedRunMetadata(tag="step_1", run_metadata=b"\x00")
    again = tf.summary.TaggedRunMetadata.FromString(tagged.SerializeToString())
    assert again.tag == "step_1" and again.run_metadata == b"\x00"


def test_cluster_and_server_protos_round_trip():
    cluster = tf.train.ClusterDef(job=[tf.train.JobDef(name="ps", tasks={0: "127.0.0.1:2222"}),
                                       tf.train.JobDef(name="worker", tasks={0: "127.0.0.1:2223",
                                                                             1: "127.0.0.1:2224"})])
    spec = tf.train.ClusterSpec(cluster)
    assert spec.as_dict() == {"ps": ["127.0.0.1:2222"], "worker": ["127.0.0.1:2223", "127.0.0.1:2224"]}
    assert tf.train.ClusterSpec(spec.as_cluster_def()).as_dict() == spec.as_dict()
    server_def = tf.train.ServerDef(cluster=cluster, job_name="worker", task_index=1, protocol="grpc")
    again = tf.train.ServerDef.FromString(server_def.SerializeToString())
    assert again.job_name == "worker" and again.task_index == 1
    assert tf.train.ClusterSpec(again.cluster).task_address("worker", 1) == "127.0.0.1:2224"


def test_sequence_example_parses():
    example = tf.train.SequenceExample(
        context=tf.train.Features(feature={"id": tf.train.Feature(int64_list=tf.train.Int64List(value=[7]))}),
        feature_lists=tf.train.FeatureLists(feature_list={"tokens": tf.train.FeatureList(feature=[
            tf.train.Feature(int64_list=tf.train.Int64List(value=[v])) for v in (3, 1, 4)])}))
    again = tf.train.SequenceExample.FromString(example.SerializeToString())
    assert again.context.feature["id"].int64_list.value == [7]
    assert [f.int64_list.value[0] for f in again.feature_lists.feature_list["tokens"].feature] == [3, 1, 4]


def test_optimizer_base_class_and_a_subclass_of_it():
    class HalfStep(tf.train.Optimizer):
        """Gradient descent at a fixed rate of 0.5, written on the base class's hooks."""

        def __init__(self):
            super().__init__(use_locking=False, name="HalfStep")

        def _apply_dense(self, grad, var):
            return tf.assign_sub(var, 0.5 * grad)

    w = tf.Variable(3.0)
    step = HalfStep().minimize(tf.square(w))  # dw = 2w: w -> w - w = 0
    with tf.Session() as sess:
        sess.run(w.initializer)
        sess.run(step)
        assert sess.run(w) == 0.0
    assert isinstance(tf.train.AdamOptimizer(), tf.train.Optimizer)


def test_session_creators_hooks_and_listeners(tmp_path):
    seen = {"values": [], "contexts": [], "saves": []}

    class Watch(tf.train.SessionRunHook):
        def before_run(self, run_context):
            assert isinstance(run_context, tf.train.SessionRunContext)
            seen["contexts"].append(run_context.original_args.fetches)
            return tf.train.SessionRunArgs(step)

        def after_run(self, run_context, run_values):
            assert isinstance(run_values, tf.train.SessionRunValues)
            seen["values"].append(run_values.results)

    class Listener(tf.train.CheckpointSaverListener):
        def after_save(self, session, global_step_value):
            seen["saves"].append(global_step_value)

    step = tf.train.get_or_create_global_step()
    bump = tf.assign_add(step, 1)
    saver_hook = tf.train.CheckpointSaverHook(str(tmp_path), save_steps=2, listeners=[Listener()])
    creator = tf.train.ChiefSessionCreator(checkpoint_dir=str(tmp_path))
    assert isinstance(creator, tf.train.SessionCreator)
    with tf.train.MonitoredSession(session_creator=creator, hooks=[Watch(), saver_hook]) as sess:
        for _ in range(3):
            sess.run(bump)
    # (the hook's read of the step runs beside the increment, before or after it, as in TF)
    assert [v in (k, k + 1) for k, v in enumerate(seen["values"])] == [True] * 3 and seen["contexts"] == [bump] * 3
    assert 0 in seen["saves"] and seen["saves"][-1] == 3
    # a worker's creator waits for the chief's variables: here they are restored from the checkpoint
    worker = tf.train.WorkerSessionCreator(config=tf.ConfigProto())
    assert isinstance(worker, tf.train.SessionCreator)


def test_basic_train_loop_runs_until_the_supervisor_stops(tmp_path):
    step = tf.train.get_or_create_global_step()
    bump = tf.assign_add(step, 1)
    supervisor = tf.train.Supervisor(logdir=str(tmp_path), save_model_secs=0, save_summaries_secs=0)
    calls = []

    def train_step(sess, by):
        calls.append(sess.run(bump) * by)
        if len(calls) == 4:
            supervisor.request_stop()

    tf.train.basic_train_loop(supervisor, train_step, args=(10,))
    assert calls == [10, 20, 30, 40]


def test_maybe_batch_join_keeps_only_what_is_kept():
    values = [tf.constant([1, 2, 3, 4]), tf.constant([10, 20, 30, 40])]
    keep = tf.constant([True, False, True, False])  # (one keep_input for every list, as TF has it)
    with pytest.raises(ValueError, match="keep_input"):
        tf.train.maybe_batch_join([[v] for v in values], [keep, keep], batch_size=4, enqueue_many=True)
    batch = tf.train.maybe_batch_join([[v] for v in values], keep, batch_size=4, enqueue_many=True)
    shuffled = tf.train.maybe_shuffle_batch_join([[v] for v in values], 4, capacity=16, min_after_dequeue=0,
                                                 keep_input=keep, enqueue_many=True, seed=1)
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        got, got_shuffled = sess.run([batch, shuffled])
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=10)
    assert set(got[0]) <= {1, 3, 10, 30} and set(got_shuffled[0]) <= {1, 3, 10, 30}


def test_the_queue_runner_module():
    queue = tf.FIFOQueue(4, tf.float32)
    runner = tf.train.queue_runner.QueueRunner(queue, [queue.enqueue(1.0)])
    assert tf.train.queue_runner.QueueRunner is tf.train.QueueRunner
    tf.train.queue_runner.add_queue_runner(runner)
    assert runner in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.queue_runner.start_queue_runners(sess, coord)
        assert sess.run(queue.dequeue()) == 1.0
        coord.request_stop()
        sess.run(queue.close(cancel_pending_enqueues=True))
        coord.join(threads, stop_grace_period_secs=10)


def test_avg_pool_v2_against_numpy():
    x = np.arange(2 * 4 * 4 * 3, dtype=np.float32).reshape(2, 4, 4, 3)
    got = run(tf.nn.avg_pool_v2(tf.constant(x), ksize=2, strides=2, padding="VALID"))
    np.testing.assert_allclose(got, x.reshape(2, 2, 2, 2, 2, 3).mean((2, 4)))
    seq = np.arange(12, dtype=np.float32).reshape(1, 6, 2)
    got = run(tf.nn.avg_pool_v2(tf.constant(seq), ksize=[3], strides=[3], padding="VALID"))
    np.testing.assert_allclose(got, seq.reshape(1, 2, 3, 2).mean(2))
