"""A fourth group of TF 1.x names that no other test called by name: tf.keras's layer aliases
and the layers only reached through them, tf.data's constants and options, the summary
and tf.train protos and helpers, and nn.avg_pool_v2; each checked for what TF 1.x does."""

import os

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


def _sequence_example(tokens, weights=None, tags=None):
    lists = {"tokens": tf.train.FeatureList(feature=[tf.train.Feature(int64_list=tf.train.Int64List(value=[v]))
                                                     for v in tokens])}
    if weights is not None:
        lists["weights"] = tf.train.FeatureList(feature=[
            tf.train.Feature(float_list=tf.train.FloatList(value=w)) for w in weights])
    if tags is not None:
        lists["tags"] = tf.train.FeatureList(feature=[
            tf.train.Feature(bytes_list=tf.train.BytesList(value=t)) for t in tags])
    return tf.train.SequenceExample(
        context=tf.train.Features(feature={"id": tf.train.Feature(int64_list=tf.train.Int64List(value=[7])),
                                           "words": tf.train.Feature(bytes_list=tf.train.BytesList(
                                               value=[b"a", b"b"]))}),
        feature_lists=tf.train.FeatureLists(feature_list=lists)).SerializeToString()


def test_parse_single_sequence_example_gives_the_context_and_each_list_by_step():
    record = tf.placeholder(tf.string, [])
    context, sequences = tf.parse_single_sequence_example(
        record,
        context_features={"id": tf.FixedLenFeature([], tf.int64), "words": tf.VarLenFeature(tf.string),
                          "length": tf.FixedLenFeature([1], tf.float32, default_value=[-1.0])},
        sequence_features={"tokens": tf.FixedLenSequenceFeature([], tf.int64),
                           "weights": tf.FixedLenSequenceFeature([2], tf.float32, allow_missing=True),
                           "tags": tf.VarLenFeature(tf.string)})
    assert sequences["tokens"].shape.as_list() == [None] and sequences["weights"].shape.as_list() == [None, 2]
    with tf.Session() as sess:
        got = sess.run([context, sequences], {record: _sequence_example([3, 1, 4], [[0.5, 1.5]] * 3,
                                                                         [[b"x"], [], [b"y", b"z"]])})
        bare = sess.run(sequences, {record: _sequence_example([9])})  # (no weights: allowed missing)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Context feature: id .* required"):
            sess.run(sequences, {record: tf.train.SequenceExample().SerializeToString()})
        no_tokens = tf.train.SequenceExample.FromString(_sequence_example([1]))
        del no_tokens.feature_lists.feature_list["tokens"]
        with pytest.raises(tf.errors.InvalidArgumentError, match="Feature list: tokens .* required"):
            sess.run(sequences, {record: no_tokens.SerializeToString()})
    parsed_context, parsed = got
    assert parsed_context["id"] == 7 and parsed_context["length"].tolist() == [-1.0]
    assert parsed_context["words"].values.tolist() == [b"a", b"b"]
    assert parsed_context["words"].dense_shape.tolist() == [2]
    assert parsed["tokens"].tolist() == [3, 1, 4] and parsed["weights"].tolist() == [[0.5, 1.5]] * 3
    assert parsed["tags"].indices.tolist() == [[0, 0], [2, 0], [2, 1]] and parsed["tags"].dense_shape.tolist() == [3, 2]
    assert parsed["tags"].values.tolist() == [b"x", b"y", b"z"]
    assert bare["tokens"].tolist() == [9] and bare["weights"].shape == (0, 2)
    assert bare["tags"].dense_shape.tolist() == [0, 0]


def test_parse_sequence_example_parses_a_batch_padded_to_its_longest_list():
    """tf.io.parse_sequence_example: TensorFlow 2.21's tf.compat.v1 gave the same tensors for
    these three records."""
    def record(label, tokens, tags):
        example = tf.train.SequenceExample()
        example.context.feature["label"].int64_list.value.append(label)
        example.context.feature["tags"].bytes_list.value.extend(tags)
        for t in tokens:
            example.feature_lists.feature_list["tokens"].feature.add().int64_list.value.append(t)
            example.feature_lists.feature_list["chars"].feature.add().int64_list.value.extend(range(t % 3))
        return example.SerializeToString()

    context, sequences, lengths = tf.io.parse_sequence_example(
        [record(1, [4, 5, 6], [b"a"]), record(0, [7], [b"b", b"c"]), record(2, [], [])],
        context_features={"label": tf.FixedLenFeature([], tf.int64), "tags": tf.VarLenFeature(tf.string)},
        sequence_features={"tokens": tf.FixedLenSequenceFeature([], tf.int64, allow_missing=True),
                           "chars": tf.VarLenFeature(tf.int64)})
    assert sequences["tokens"].shape.as_list() == [None, None] and context["tags"].indices.shape.as_list() == [None, 2]
    with tf.Session() as sess:
        got_context, got, got_lengths = sess.run([context, sequences, lengths])
    assert got_context["label"].tolist() == [1, 0, 2]
    assert got_context["tags"].indices.tolist() == [[0, 0], [1, 0], [1, 1]]
    assert got_context["tags"].values.tolist() == [b"a", b"b", b"c"] and got_context["tags"].dense_shape.tolist() == [3, 2]
    assert got["tokens"].tolist() == [[4, 5, 6], [7, 0, 0], [0, 0, 0]] and got_lengths["tokens"].tolist() == [3, 1, 0]
    assert got["chars"].indices.tolist() == [[0, 0, 0], [0, 1, 0], [0, 1, 1], [1, 0, 0]]
    assert got["chars"].values.tolist() == [0, 0, 1, 0] and got["chars"].dense_shape.tolist() == [3, 3, 2]


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
    # (a list of one tensor batches to one tensor, as TF's queues return it)
    assert set(got) <= {1, 3, 10, 30} and set(got_shuffled) <= {1, 3, 10, 30}


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


def test_build_constants_are_tensorflows_types():
    assert isinstance(tf.COMPILER_VERSION, str) and isinstance(tf.CXX_VERSION, str)
    assert isinstance(tf.GIT_VERSION, str) and tf.GIT_VERSION
    assert tf.CXX11_ABI_FLAG in (0, 1) and tf.MONOLITHIC_BUILD in (0, 1)
    assert tf.GRAPH_DEF_VERSION_MIN_CONSUMER == tf.GRAPH_DEF_VERSION_MIN_PRODUCER == 0


def test_dtype_dimension_operation_and_scope_classes():
    assert isinstance(tf.float32, tf.DType) and tf.DType(1) == tf.float32 and tf.dtypes.float32 is tf.float32
    assert tf.Dimension(3).value == 3 and tf.Dimension(None).value is None
    assert (tf.Dimension(3) + 2).value == 5 and (tf.Dimension(3) + tf.Dimension(None)).value is None
    assert (2 * tf.Dimension(3)).value == 6 and (tf.Dimension(7) // 2).value == 3 and (9 - tf.Dimension(4)).value == 5
    assert (tf.Dimension(7) % 4).value == 3 and tf.Dimension(2) < 3 and (tf.Dimension(None) < 3) is None
    with pytest.raises(TypeError, match="please use //"):
        tf.Dimension(4) / 2
    assert isinstance(tf.constant(1).op, tf.Operation)
    assert isinstance(tf.get_variable_scope(), tf.VariableScope)
    assert tf.queue.FIFOQueue is tf.FIFOQueue and tf.debugging.assert_equal is tf.assert_equal
    assert tf.manip.roll is tf.roll and tf.spectral.fft is tf.fft


def test_aggregation_and_unconnected_gradients():
    x = tf.constant([1.0, 2.0])
    y = x * x + x * 3.0  # x's gradient is a sum of two paths
    added, zeros = run([tf.gradients(y, x, aggregation_method=tf.AggregationMethod.ADD_N)[0],
                        tf.gradients(tf.constant(3.0), x, unconnected_gradients=tf.UnconnectedGradients.ZERO)[0]])
    np.testing.assert_allclose(added, 2 * np.array([1.0, 2.0]) + 3)
    np.testing.assert_array_equal(zeros, [0.0, 0.0])
    assert tf.gradients(tf.constant(3.0), x, unconnected_gradients=tf.UnconnectedGradients.NONE) == [None]


def test_not_differentiable_registrations():
    assert tf.NoGradient is tf.NotDifferentiable
    tf.no_gradient("DistflowTestOpWithoutGradient")
    with pytest.raises(KeyError, match="DistflowTestOpWithoutGradient"):
        tf.NotDifferentiable("DistflowTestOpWithoutGradient")  # (registered once, as TF's registry)


def test_identity_reader_reads_its_work_items():
    reader = tf.IdentityReader()
    assert isinstance(reader, tf.ReaderBase)
    queue = tf.FIFOQueue(4, tf.string)
    key, value = reader.read(queue)
    with tf.Session() as sess:
        sess.run(queue.enqueue_many([["a", "b"]]))
        assert sess.run([key, value]) == [b"a", b"a"]
        assert sess.run(value) == b"b" and sess.run(reader.num_records_produced()) == 2


def test_sparse_feature_parses_into_a_sparse_tensor():
    example = tf.train.Example(features=tf.train.Features(feature={
        "ix": tf.train.Feature(int64_list=tf.train.Int64List(value=[1, 3])),
        "val": tf.train.Feature(float_list=tf.train.FloatList(value=[0.5, 2.0]))}))
    parsed = tf.parse_single_example(example.SerializeToString(),
                                     {"sp": tf.SparseFeature("ix", "val", tf.float32, 5)})
    value = run(parsed["sp"])
    assert value.indices.tolist() == [[1], [3]] and value.values.tolist() == [0.5, 2.0]
    assert value.dense_shape.tolist() == [5]

    def record(rows, cols, vals):
        return tf.train.Example(features=tf.train.Features(feature={
            "r": tf.train.Feature(int64_list=tf.train.Int64List(value=rows)),
            "c": tf.train.Feature(int64_list=tf.train.Int64List(value=cols)),
            "v": tf.train.Feature(float_list=tf.train.FloatList(value=vals))})).SerializeToString()

    two = tf.parse_example([record([0, 2], [1, 0], [1.0, 2.0]), record([1], [2], [3.0])],
                           {"m": tf.SparseFeature(["r", "c"], "v", tf.float32, [3, 3]),
                            "v": tf.VarLenFeature(tf.float32)})  # (a component asked for by itself too)
    dense = run(tf.sparse_tensor_to_dense(two["m"]))
    want = np.zeros((2, 3, 3), np.float32)
    want[0, 0, 1], want[0, 2, 0], want[1, 1, 2] = 1.0, 2.0, 3.0
    np.testing.assert_array_equal(dense, want)
    assert sorted(two) == ["m", "v"]


def test_summary_metadata_and_log_message():
    metadata = tf.SummaryMetadata(display_name="shown")
    metadata.plugin_data.plugin_name = "mine"
    tensor = tf.summary.tensor_summary("t", tf.constant([1.0]), summary_metadata=metadata)
    summary = tf.Summary.FromString(run(tensor))
    assert summary.value[0].metadata.plugin_data.plugin_name == "mine"
    message = tf.LogMessage(level=tf.LogMessage.WARN, message="careful")
    assert tf.LogMessage.FromString(message.SerializeToString()).message == "careful"


def test_the_older_initializer_names():
    v = tf.Variable(1.0)
    local = tf.Variable(2.0, collections=[tf.GraphKeys.LOCAL_VARIABLES])
    check = tf.assert_variables_initialized([v])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(check)
        sess.run([tf.initialize_all_variables(), tf.initialize_local_variables(), tf.initialize_all_tables()])
        sess.run(check)
        assert sess.run([v, local]) == [1.0, 2.0]
        sess.run(tf.assign(v, 5.0))
        sess.run(tf.initialize_variables([v]))
        assert sess.run(v) == 1.0


def test_model_variables_and_the_older_scopes():
    with tf.variable_op_scope([], "outer", "default"):
        m = tf.get_variable("m", [1], collections=[tf.GraphKeys.GLOBAL_VARIABLES, tf.GraphKeys.MODEL_VARIABLES])
    assert m.name == "outer/m:0" and tf.model_variables() == [m]
    a = tf.constant(1.0)
    with tf.op_scope([a], None, "fallback") as scope:
        assert scope == "fallback/"


def test_conv2d_backprop_v2_names_equal_the_v1_ops():
    rng = np.random.default_rng(4)
    x, f, dy = (rng.random(s).astype(np.float32) for s in ((1, 5, 5, 2), (3, 3, 2, 4), (1, 5, 5, 4)))
    got = run([tf.conv2d_backprop_filter_v2(x, [3, 3, 2, 4], dy, [1, 1, 1, 1], "SAME"),
               tf.conv2d_backprop_input_v2([1, 5, 5, 2], f, dy, [1, 1, 1, 1], "SAME"),
               tf.nn.conv2d_backprop_filter(x, [3, 3, 2, 4], dy, [1, 1, 1, 1], "SAME"),
               tf.nn.conv2d_backprop_input([1, 5, 5, 2], f, dy, [1, 1, 1, 1], "SAME")])
    np.testing.assert_allclose(got[0], got[2], rtol=1e-5)
    np.testing.assert_allclose(got[1], got[3], rtol=1e-5)


def test_fake_quant_gradients_pass_what_lies_in_range():
    grads = run([tf.fake_quant_with_min_max_args_gradient(tf.ones([4]), tf.constant([-7.0, -1.0, 1.0, 7.0])),
                 tf.fake_quant_with_min_max_vars_per_channel_gradient(
                     tf.ones([2, 2]), tf.constant([[-7.0, 1.0], [0.5, 7.0]]), tf.constant([-6.0, -1.0]),
                     tf.constant([6.0, 1.0]))])
    np.testing.assert_array_equal(grads[0], [0, 1, 1, 0])  # (outside [-6, 6] nothing passes)
    to_input, to_min, to_max = grads[1]
    np.testing.assert_array_equal(to_input, [[0, 1], [1, 0]])
    np.testing.assert_array_equal(to_min, [1, 0])  # (what fell below each channel's min)
    np.testing.assert_array_equal(to_max, [0, 1])


def test_conversion_functions_and_sparse_conversion():
    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b

    tf.register_tensor_conversion_function(Pair, lambda value, dtype=None, name=None, as_ref=False:
                                           tf.constant([value.a, value.b], dtype=dtype))
    assert list(run(tf.convert_to_tensor(Pair(1.0, 2.0)) * 2)) == [2.0, 4.0]
    sparse = tf.convert_to_tensor_or_sparse_tensor(tf.SparseTensorValue([[0]], [3.0], [2]))
    assert isinstance(sparse, tf.SparseTensor) and list(run(tf.sparse_tensor_to_dense(sparse))) == [3.0, 0.0]
    dense = tf.convert_to_tensor_or_sparse_tensor([1, 2])
    assert isinstance(dense, tf.Tensor)


def test_get_logger_and_resource_loader():
    import logging

    assert isinstance(tf.get_logger(), logging.Logger)
    here = os.path.dirname(os.path.abspath(__file__))
    assert tf.resource_loader.get_data_files_path() == here


def test_summary_description():
    description = tf.summary.SummaryDescription(type_hint="image")
    assert tf.summary.SummaryDescription.FromString(description.SerializeToString()).type_hint == "image"
    node = tf.summary.tensor_summary("t", tf.constant([1.0])).op.node_def
    with pytest.raises(ValueError, match="Can't get_summary_description on TensorSummaryV2"):
        tf.summary.get_summary_description(node)
    legacy = tf.NodeDef(name="legacy", op="TensorSummary")
    legacy.attr["description"].s = b'{"typeHint": "image"}'
    assert tf.summary.get_summary_description(legacy).type_hint == "image"


def test_strings_upper_and_lower_as_tf():
    """ASCII letters only by default, as TF's (TF 2.15 upper-cased b'\\xc3\\xbcn\\xc3\\xaf' to
    b'\\xc3\\xbcN\\xc3\\xaf'); every letter with encoding='utf-8'."""
    words = tf.constant(["hello World", "ünï"])
    upper, lower, utf8 = run([tf.strings.upper(words), tf.strings.lower(words),
                              tf.strings.upper(words, encoding="utf-8")])
    assert upper.tolist() == [b"HELLO WORLD", "üNï".encode()]
    assert lower.tolist() == [b"hello world", "ünï".encode()]
    assert utf8.tolist() == [b"HELLO WORLD", "ÜNÏ".encode()]
    with pytest.raises(tf.errors.InvalidArgumentError, match="encoding"):
        run(tf.strings.lower(words, encoding="latin-1"))
