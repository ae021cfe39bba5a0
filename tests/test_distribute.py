"""tf.distribute in graph mode: MirroredStrategy's replicas train exactly as one device on the
whole batch; MultiWorkerMirroredStrategy's workers (real processes) start from worker 0's
values and stay equal; contexts, reductions and checkpoints as TensorFlow's."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import distflow as tf

from cluster_util import ROOT

RNG = np.random.RandomState(0)
X = RNG.randn(48, 10).astype(np.float32)
Y = (X[:, 0] > 0).astype(np.int64)


def _model(x):
    h = tf.layers.dense(x, 16, activation=tf.nn.relu, kernel_initializer=tf.constant_initializer(0.1))
    return tf.layers.dense(h, 2, kernel_initializer=tf.constant_initializer(0.05))


def _optimizer(name):
    return tf.train.AdamOptimizer(0.01) if name == "adam" else tf.train.GradientDescentOptimizer(0.5)


def _one_device(optimizer, steps=4):
    with tf.Graph().as_default():
        loss = tf.losses.sparse_softmax_cross_entropy(tf.constant(Y), _model(tf.constant(X)))
        step = tf.train.get_or_create_global_step()
        train = _optimizer(optimizer).minimize(loss, global_step=step)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return [float(sess.run([train, loss])[1]) for _ in range(steps)]


def _mirrored(optimizer, n, steps=4, checkpoint=None, cross_device_ops=None, strategy=None):
    """Losses of ``steps`` steps on n CPU replicas, each a share of the batch; the graph's
    variables, and every mirrored variable's components as values."""
    with tf.Graph().as_default():
        strategy = strategy() if strategy else tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(n)],
                                                                              cross_device_ops=cross_device_ops)
        step = tf.train.get_or_create_global_step()  # (outside the scope: incremented once a step)
        with strategy.scope():
            iterator = strategy.make_dataset_iterator(tf.data.Dataset.from_tensors((X, Y)).repeat())

            def replica_step(inputs):
                x, y = inputs
                loss = tf.losses.sparse_softmax_cross_entropy(y, _model(x))
                train = _optimizer(optimizer).minimize(loss, global_step=step)  # (an optimizer per replica)
                with tf.control_dependencies([train]):
                    return tf.identity(loss)

            per_replica = strategy.experimental_run_v2(replica_step, args=(iterator.get_next(),))
            loss = strategy.reduce(tf.distribute.ReduceOp.MEAN, per_replica)
        saver = tf.train.Saver()
        with tf.Session(config=tf.ConfigProto(device_count={"CPU": n})) as sess:
            sess.run(iterator.initialize())
            sess.run(tf.global_variables_initializer())
            losses = [float(sess.run(loss)) for _ in range(steps)]
            assert sess.run(step) == steps
            copies = {v.op.name: [sess.run(c) for c in v.components] for v in tf.global_variables()
                      if isinstance(v, tf.distribute.MirroredVariable)}
            if checkpoint:
                saver.save(sess, checkpoint)
        return losses, [v.op.name for v in tf.global_variables()], copies


@pytest.mark.parametrize("optimizer,n", [("sgd", 2), ("adam", 2), ("adam", 3)])
def test_mirrored_replicas_train_as_one_device_on_the_whole_batch(optimizer, n):
    losses, names, copies = _mirrored(optimizer, n)
    np.testing.assert_allclose(losses, _one_device(optimizer), rtol=1e-5)
    # one set of variables, named as on one device; each with n equal copies
    assert "dense/kernel" in names and not any("replica_" in name for name in names), names
    assert len(copies) == len(names) - 1  # (all but the global step, made outside the scope)
    for name, values in copies.items():
        assert len(values) == n
        for v in values[1:]:
            np.testing.assert_array_equal(v, values[0], err_msg=name)


def test_gradients_are_bucketed_from_the_last_layer_and_each_bucket_starts_before_backprop_ends():
    from distflow.distribute.strategy import FIRST_BUCKET_BYTES, gradient_buckets
    from distflow.runtime.partition import prune

    widths = [20, 600, 600, 2]  # the 600x600 kernel (1.44 MB) closes the first bucket
    rng = np.random.RandomState(1)
    x_all = rng.randn(8, widths[0]).astype(np.float32)
    y_all = rng.randn(8, widths[-1]).astype(np.float32)
    inits = [rng.randn(a, b).astype(np.float32) * 0.05 for a, b in zip(widths[:-1], widths[1:])]

    def model(x):
        for i, init in enumerate(inits):
            x = tf.layers.dense(x, init.shape[1], activation=tf.nn.relu if i < len(inits) - 1 else None,
                                kernel_initializer=tf.constant_initializer(init))
        return x

    def train(strategy=None, steps=3):
        grads = []

        def replica_step(x, y):
            loss = tf.reduce_mean(tf.square(model(x) - y))
            opt = tf.train.GradientDescentOptimizer(0.1)
            pairs = opt.compute_gradients(loss)
            grads.append([g for g, _ in pairs])
            with tf.control_dependencies([opt.apply_gradients(pairs)]):
                return tf.identity(loss)

        with tf.Graph().as_default():
            if strategy is None:
                loss = replica_step(tf.constant(x_all), tf.constant(y_all))
                config = None
            else:
                strategy = strategy()
                with strategy.scope():
                    halves = tf.data.Dataset.from_tensors((x_all, y_all)).repeat()
                    iterator = strategy.make_dataset_iterator(halves)
                    per_replica = strategy.experimental_run_v2(lambda xy: replica_step(*xy), (iterator.get_next(),))
                    loss = strategy.reduce(tf.distribute.ReduceOp.MEAN, per_replica)
                config = tf.ConfigProto(device_count={"CPU": 2})
            graph = tf.get_default_graph()
            with tf.Session(config=config) as sess:
                if strategy is not None:
                    sess.run(iterator.initialize())
                sess.run(tf.global_variables_initializer())
                losses = [float(sess.run(loss)) for _ in range(steps)]
            return losses, graph, grads, loss

    mirrored = lambda: tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])  # noqa: E731
    losses, graph, grads, loss = train(mirrored)
    np.testing.assert_allclose(losses, train()[0], rtol=1e-5)

    # the buckets: from the last variable back, the first closed at FIRST_BUCKET_BYTES
    with graph.as_default():
        buckets = gradient_buckets(list(enumerate(grads[0])))
    assert [[i for i, _ in b] for b in buckets] == [[5, 4, 3, 2], [1, 0]]
    assert sum(g.shape.num_elements() * 4 for _, g in buckets[0]) >= FIRST_BUCKET_BYTES
    # in the step's order, replica 0 starts the first bucket's all-reduce before it computes
    # the first layer's kernel gradient, and starts every bucket before waiting for any
    order = [op for op in prune([loss.op], set()) if op.device.endswith("CPU:0")]
    kinds = [op.type for op in order]
    starts = [i for i, k in enumerate(kinds) if k == "_CollectiveReduceStart"]
    dones = [i for i, k in enumerate(kinds) if k == "_CollectiveReduceDone"]
    assert len(starts) == len(dones) == 2 and max(starts) < min(dones)
    assert starts[0] < order.index(grads[0][0].op), "the first bucket waits for the whole backward pass"


def test_a_late_failure_of_an_overlapped_collective_does_not_reset_the_next_steps_runs():
    from distflow.runtime.collectives import Collectives, Group

    runtime = Collectives()
    group = Group(7, 2, "CPU", ("/cpu:0", "/cpu:1"))
    _, stale = runtime.next_run(group, 1, "/cpu:0")
    runtime.forget_runs(group, stale)  # a failure: the counts start again
    first, generation = runtime.next_run(group, 1, "/cpu:0")
    runtime.forget_runs(group, stale)  # the same step's other collective failing later: no effect
    second, _ = runtime.next_run(group, 1, "/cpu:0")
    assert generation == stale + 1 and first != second  # (the second is run 1, not run 0 again)
    runtime.forget_runs(group, generation)
    assert runtime.next_run(group, 1, "/cpu:0")[0] == first


def test_a_checkpoint_holds_one_copy_and_restores_every_copy(tmp_path):
    path = str(tmp_path / "model.ckpt")
    _mirrored("adam", 2, steps=2, checkpoint=path)
    stored = dict(tf.train.list_variables(path))
    assert "dense/kernel" in stored and "dense/kernel/Adam" in stored
    assert not any("replica_" in name for name in stored), stored
    saved = tf.train.load_variable(path, "dense/kernel")
    with tf.Graph().as_default():
        strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
        with strategy.scope():
            kernel = tf.get_variable("dense/kernel", [10, 16], initializer=tf.zeros_initializer())
        saver = tf.train.Saver({"dense/kernel": kernel})
        with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
            sess.run(tf.global_variables_initializer())
            saver.restore(sess, path)
            for copy in kernel.components:
                np.testing.assert_array_equal(sess.run(copy), saved)


def test_a_strategy_over_the_cpu_and_simulated_gpus_trains_as_one_device():
    """Devices of different types in one process, as TF's MirroredStrategy(["/cpu:0", "/gpu:0"])
    (whose values TF reduces on one device): the replicas' all-reduce meets in host memory."""
    losses, _, copies = _mirrored("sgd", 1, strategy=lambda: tf.distribute.MirroredStrategy(
        ["/cpu:0", "/gpu:0", "/gpu:1"]))
    np.testing.assert_allclose(losses, _one_device("sgd"), rtol=1e-5)
    for values in copies.values():
        for value in values[1:]:
            np.testing.assert_array_equal(value, values[0])


@pytest.mark.parametrize("kind", ["NcclAllReduce", "HierarchicalCopyAllReduce", "ReductionToOneDevice"])
def test_a_strategy_given_cross_device_ops_trains_the_same(kind):
    losses, _, _ = _mirrored("sgd", 2, cross_device_ops=getattr(tf.distribute, kind)())
    np.testing.assert_allclose(losses, _one_device("sgd"), rtol=1e-5)


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_central_storage_keeps_one_copy_on_the_parameter_device_and_trains_as_one_device(optimizer):
    made = []

    def strategy():
        made.append(tf.distribute.experimental.CentralStorageStrategy(["/cpu:1", "/cpu:2"], "/cpu:0"))
        return made[-1]

    losses, names, copies = _mirrored(optimizer, 3, strategy=strategy)
    np.testing.assert_allclose(losses, _one_device(optimizer), rtol=1e-5)
    assert not copies and "dense/kernel" in names and made[0].num_replicas_in_sync == 2
    assert not any("replica_" in name for name in names), names
    with tf.Graph().as_default():
        strategy = tf.distribute.experimental.CentralStorageStrategy(["/cpu:1", "/cpu:2"], "/cpu:0")
        outputs = strategy.experimental_run_v2(lambda: _model(tf.ones([2, 10])))
        kernel, = [v for v in tf.global_variables() if v.op.name == "dense/kernel"]
        assert not isinstance(kernel, tf.distribute.MirroredVariable) and kernel.device.endswith("CPU:0")
        assert [o.device[-5:] for o in strategy.experimental_local_results(outputs)] == ["CPU:1", "CPU:2"]


def test_cross_device_ops_reduce_and_broadcast_in_the_cross_replica_context():
    with tf.Graph().as_default():
        devices = ["/cpu:0", "/cpu:1", "/cpu:2"]
        strategy = tf.distribute.MirroredStrategy(devices)
        mine = strategy.experimental_run_v2(
            lambda: tf.fill([2], tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32)))
        summed = tf.distribute.HierarchicalCopyAllReduce().reduce(tf.distribute.ReduceOp.SUM, mine, devices)
        squares = tf.distribute.ReductionToOneDevice(
            "/cpu:2", accumulation_fn=lambda parts: tf.add_n([p * p for p in parts]))
        on_one = squares.reduce(tf.distribute.ReduceOp.MEAN, mine, "/cpu:0")
        pairs = tf.distribute.NcclAllReduce().batch_reduce("SUM", [(mine, "/cpu:1"), (mine, devices[:2])])
        summed = strategy.experimental_local_results(summed)  # (mirrored on the three devices)
        assert [v.device for v in summed] == [tf.DeviceSpec.from_string(d).to_string() for d in devices]
        assert on_one.device.endswith("CPU:0") and on_one.op.inputs[0].op.inputs[0].device.endswith("CPU:2")
        with tf.Session(config=tf.ConfigProto(device_count={"CPU": 3})) as sess:
            got = sess.run([list(summed), on_one, pairs[0], list(strategy.experimental_local_results(pairs[1]))])
    assert all(np.array_equal(v, [3.0, 3.0]) for v in got[0])
    np.testing.assert_allclose(got[1], [5.0 / 3, 5.0 / 3])  # (0 + 1 + 4) / 3
    assert np.array_equal(got[2], [3.0, 3.0]) and all(np.array_equal(v, [3.0, 3.0]) for v in got[3])
    with pytest.raises(ValueError, match="cross_device_ops must be a tf.distribute.CrossDeviceOps"):
        tf.distribute.MirroredStrategy(["/cpu:0"], cross_device_ops="nccl")


def test_an_input_function_gives_each_replica_its_own_elements_in_turn():
    contexts = []

    def dataset_fn(context):
        contexts.append(context)
        return tf.data.Dataset.from_tensor_slices(np.arange(8.0)).batch(context.get_per_replica_batch_size(4))

    with tf.Graph().as_default():
        strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
        dataset = strategy.experimental_distribute_datasets_from_function(dataset_fn)
        iterator = dataset.make_initializable_iterator()
        batch = strategy.experimental_local_results(iterator.get_next())
        other = strategy.make_input_fn_iterator(dataset_fn)
        total = strategy.reduce("SUM", strategy.experimental_run_v2(tf.reduce_sum, (other.get_next(),)))
        with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
            sess.run(iterator.initialize() + other.initialize())
            steps = [sess.run(batch) for _ in range(2)]
            totals = [sess.run(total) for _ in range(2)]
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(batch)
    assert [[list(part) for part in step] for step in steps] == [[[0, 1], [2, 3]], [[4, 5], [6, 7]]]
    assert totals == [6.0, 22.0]
    context = contexts[0]
    assert (context.num_input_pipelines, context.input_pipeline_id, context.num_replicas_in_sync) == (1, 0, 2)
    with pytest.raises(ValueError, match="not divisible"):
        context.get_per_replica_batch_size(5)
    with pytest.raises(ValueError, match="PER_WORKER"):
        strategy.make_input_fn_iterator(dataset_fn, replication_mode="PER_REPLICA")


def test_contexts_reductions_and_all_reduce_in_a_replica():
    assert tf.distribute.get_replica_context().num_replicas_in_sync == 1
    assert not tf.distribute.has_strategy() and not tf.distribute.in_cross_replica_context()
    with tf.Graph().as_default():
        strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1", "/cpu:2"])
        assert strategy.num_replicas_in_sync == 3
        with strategy.scope():
            assert tf.distribute.in_cross_replica_context() and tf.distribute.get_replica_context() is None
            assert tf.distribute.get_strategy() is strategy

        def replica_fn():
            context = tf.distribute.get_replica_context()
            mine = tf.cast(context.replica_id_in_sync_group, tf.float32)
            total = context.all_reduce(tf.distribute.ReduceOp.SUM, mine)
            mean = context.all_reduce(tf.distribute.ReduceOp.MEAN, tf.fill([2], mine))
            return mine, total, mean, tf.fill([context.replica_id_in_sync_group + 1], 1.0)

        mine, total, mean, ragged = strategy.experimental_run_v2(replica_fn)
        assert len(strategy.experimental_local_results(mine)) == 3
        summed = strategy.reduce(tf.distribute.ReduceOp.SUM, mine)
        averaged = strategy.reduce("MEAN", mine)
        per_element = strategy.reduce(tf.distribute.ReduceOp.MEAN, ragged, axis=0)  # 6 ones over 6 elements
        with tf.Session(config=tf.ConfigProto(device_count={"CPU": 3})) as sess:
            got = sess.run([strategy.experimental_local_results(total), strategy.experimental_local_results(mean),
                            summed, averaged, per_element])
    assert got[0] == (3.0, 3.0, 3.0) and all(np.array_equal(m, [1.0, 1.0]) for m in got[1])
    assert got[2:] == [3.0, 1.0, 1.0]


def test_what_is_not_supported_says_so():
    with tf.Graph().as_default():
        strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
        with strategy.scope():
            with pytest.raises(ValueError, match="Mixing different"):
                with tf.distribute.MirroredStrategy(["/cpu:0"]).scope():
                    pass
        with pytest.raises(ValueError, match="reduce_op"):
            strategy.reduce("MAX", tf.constant(1.0))


def _merge_trained(n, steps=4):
    """Losses of ``steps`` steps on n CPU replicas that apply their gradients as TF 1.x's
    optimizers do under a strategy: ``merge_call`` into the cross-replica context, where the
    gradients are reduced to the variables (``batch_reduce_to``) and each copy updated
    (``extended.update``)."""
    with tf.Graph().as_default():
        strategy = tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(n)])
        with strategy.scope():
            iterator = strategy.make_dataset_iterator(tf.data.Dataset.from_tensors((X, Y)).repeat())

            def apply(strategy, grads_and_vars):
                assert tf.distribute.in_cross_replica_context()
                reduced = strategy.extended.batch_reduce_to(tf.distribute.ReduceOp.MEAN, grads_and_vars)
                return strategy.group([strategy.extended.update(v, lambda copy, g: copy.assign_sub(0.5 * g), (g,))
                                       for g, (_, v) in zip(reduced, grads_and_vars)])

            def replica_step(inputs):
                x, y = inputs
                loss = tf.losses.sparse_softmax_cross_entropy(y, _model(x))
                grads_and_vars = tf.train.GradientDescentOptimizer(0.5).compute_gradients(loss)
                train = tf.distribute.get_replica_context().merge_call(apply, args=(grads_and_vars,))
                with tf.control_dependencies([train]):
                    return tf.identity(loss)

            loss = strategy.reduce("MEAN", strategy.experimental_run_v2(replica_step, args=(iterator.get_next(),)))
        with tf.Session(config=tf.ConfigProto(device_count={"CPU": n})) as sess:
            sess.run(iterator.initialize())
            sess.run(tf.global_variables_initializer())
            losses = [float(sess.run(loss)) for _ in range(steps)]
            copies = [[sess.run(c) for c in v.components] for v in tf.global_variables()]
    return losses, copies


@pytest.mark.parametrize("n", [2, 3])
def test_merge_call_applies_reduced_gradients_as_one_device(n):
    losses, copies = _merge_trained(n)
    np.testing.assert_allclose(losses, _one_device("sgd"), rtol=1e-5)
    for values in copies:
        for value in values[1:]:
            np.testing.assert_array_equal(value, values[0])


def test_merge_call_meets_every_replica_with_its_scopes():
    seen = []
    with tf.Graph().as_default():
        strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1", "/cpu:2"])

        def merge(strategy, mine, same, *, scale):
            seen.append((tf.distribute.get_replica_context(), tf.get_default_graph().get_name_scope()))
            total = strategy.reduce("SUM", mine)
            return mine, total * scale, same  # (each replica gets its own part of a PerReplica back)

        def replica_fn():
            context = tf.distribute.get_replica_context()
            with tf.name_scope("body"):
                mine = tf.constant(float(context._replica_id + 1))
                back, total, same = context.merge_call(merge, args=(mine, 7), kwargs={"scale": 2.0})
                after = tf.identity(back, name="after")
                second = context.merge_call(lambda s, x: s.reduce("MEAN", x), args=(total,))
            return after, total, same, second, context.merge_call(lambda s: "last")

        with tf.name_scope("outer"):
            after, total, same, second, last = strategy.experimental_run_v2(replica_fn)
        assert tf.get_default_graph().get_name_scope() == ""  # (the caller's scopes are back)
        assert same == 7 and last == "last"
        names = [t.name for t in after.values]
        assert names == ["outer/body/after:0", "outer/replica_1/body/after:0", "outer/replica_2/body/after:0"]
        assert [t.device for t in after.values] == [f"/device:CPU:{i}" for i in range(3)]
        assert seen == [(None, "outer/body")]  # (once, in the cross-replica context, in the first replica's scope)
        with tf.Session(config=tf.ConfigProto(device_count={"CPU": 3})) as sess:
            got = sess.run([after.values, total, second])  # (the same tensor on every replica: one)
    assert got == [(1.0, 2.0, 3.0), 12.0, 12.0]


def test_merge_call_errors_name_what_went_wrong():
    with tf.Graph().as_default():
        strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])

        def uneven():
            context = tf.distribute.get_replica_context()
            if context._replica_id == 0:
                context.merge_call(lambda s: None)
            return tf.constant(1.0)

        with pytest.raises(RuntimeError, match="replica 1 returned while replica 0 waits in merge_call"):
            strategy.experimental_run_v2(uneven)

        def failing_merge():
            with tf.name_scope("inside"), tf.device("/cpu:1"):
                return tf.distribute.get_replica_context().merge_call(lambda s: 1 / 0)

        with pytest.raises(ZeroDivisionError):
            strategy.experimental_run_v2(failing_merge)

        unwound = []

        def second_fails():
            context = tf.distribute.get_replica_context()
            if context._replica_id == 1:
                raise ValueError("replica 1 cannot build this")
            try:
                with tf.name_scope("held"):
                    context.merge_call(lambda s: None)
            finally:
                unwound.append(tf.get_default_graph().get_name_scope())

        with pytest.raises(ValueError, match="replica 1 cannot build this"):
            strategy.experimental_run_v2(second_fails)
        assert unwound == [""]  # (the paused replica left its scopes as its thread ended)
        graph = tf.get_default_graph()
        assert graph.get_name_scope() == "" and tf.constant(0.0).device == ""
        with pytest.raises(RuntimeError, match="must be called in this replica's function"):
            context = strategy.experimental_run_v2(tf.distribute.get_replica_context)
            context.values[0].merge_call(lambda s: None)


def test_dataset_shard_deals_elements_out():
    with tf.Graph().as_default():
        shard = tf.data.Dataset.range(10).shard(3, 1).make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            got = []
            with pytest.raises(tf.errors.OutOfRangeError):
                while True:
                    got.append(sess.run(shard))
    assert got == [1, 4, 7]


def _two_workers(*args) -> list:
    """Runs distribute_task.py with ``args`` as the two workers of a cluster on 127.0.0.1; the
    result each printed."""
    from distflow.tools.launcher import free_ports

    cluster = {"worker": [f"127.0.0.1:{p}" for p in free_ports(2)]}
    procs = []
    try:
        for i in range(2):
            env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"),
                       TF_CONFIG=json.dumps({"cluster": cluster, "task": {"type": "worker", "index": i}}))
            procs.append(subprocess.Popen([sys.executable, os.path.join(ROOT, "tests", "distribute_task.py"), *args],
                                          env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT))
        outputs = [p.communicate(timeout=120)[0].decode() for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    results = []
    for out in outputs:
        lines = [line for line in out.splitlines() if line.startswith("RESULT ")]
        assert lines, out[-3000:]
        results.append(json.loads(lines[-1][len("RESULT "):]))
    return results


def test_multi_worker_mirrored_workers_start_equal_and_stay_equal():
    first, second = _two_workers("5")
    assert first["losses"] == second["losses"] and first["losses"][-1] < first["losses"][0]
    assert first["weights"].keys() == second["weights"].keys() == {"hidden/kernel", "hidden/bias", "logits/kernel",
                                                                   "logits/bias"}
    for name in first["weights"]:  # (logits/kernel starts random: equal only if worker 0's values were broadcast)
        np.testing.assert_array_equal(first["weights"][name], second["weights"][name], err_msg=name)


def test_keras_fit_with_multi_worker_mirrored_strategy_is_one_device_on_both_halves():
    import distribute_task

    results = _two_workers("3", "keras")  # (each worker on its half of the batch)
    tf.keras.backend.clear_session()  # one process, the whole batch
    model = distribute_task.keras_model()
    want = [model.train_on_batch(distribute_task.X, distribute_task.Y)[0] for _ in range(3)]
    weights = model.get_weights()
    tf.keras.backend.clear_session()
    for result in results:
        np.testing.assert_allclose(result["losses"], want, rtol=1e-5)
        for got, expected in zip(result["weights"], weights):
            np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-7)


def _estimator_weights(tmp_path, strategy, calls=1):
    def model_fn(features, labels, mode):
        logits = tf.layers.dense(features["x"], 2, kernel_initializer=tf.constant_initializer(0.05), name="linear")
        loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
        train_op = tf.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    config = tf.estimator.RunConfig(train_distribute=strategy, log_step_count_steps=None, save_checkpoints_steps=10,
                                    session_config=tf.ConfigProto(device_count={"CPU": 2}))
    estimator = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path), config=config)
    for call in range(1, calls + 1):  # (each call a graph of its own; 6 steps of 16 rows are 2 epochs of X)
        estimator.train(tf.estimator.inputs.numpy_input_fn({"x": X}, Y, batch_size=16, num_epochs=None,
                                                           shuffle=False), max_steps=6 * call // calls)
    return estimator.get_variable_value("linear/kernel"), estimator.get_variable_value("global_step")


def test_an_estimator_with_train_distribute_trains_as_one_device(tmp_path):
    kernel, step = _estimator_weights(tmp_path / "mirrored", tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"]))
    single, single_step = _estimator_weights(tmp_path / "one", None)
    assert step == single_step == 6
    np.testing.assert_allclose(kernel, single, rtol=1e-5)


def test_one_strategy_builds_graph_after_graph(tmp_path):
    """An Estimator builds a graph for each ``train`` (train_and_evaluate calls it once per
    checkpoint), and a program may reuse its strategy in another graph: each graph's
    collectives are keyed and ordered on their own."""
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    kernel, step = _estimator_weights(tmp_path / "twice", strategy, calls=2)
    single, _ = _estimator_weights(tmp_path / "one", None)
    assert step == 6
    np.testing.assert_allclose(kernel, single, rtol=1e-5)
    with tf.Graph().as_default():
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(10,))])
            model.compile(tf.keras.optimizers.SGD(0.1), "mse")
        tf.keras.backend.set_session(tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})))
        history = model.fit(X, np.zeros((48, 2), np.float32), batch_size=16, epochs=1, verbose=0)
        assert np.isfinite(history.history["loss"]).all()
    tf.keras.backend.clear_session()


def test_an_estimator_with_eval_distribute_evaluates_as_one_device(tmp_path):
    """The replicas' metrics count every replica's examples (their totals are synchronized on
    read), so the distributed evaluation of a checkpoint equals the one-device evaluation."""
    labels = (X[:, 0] * X[:, 1] > 0).astype(np.int64)  # (not learned in 5 steps: the replicas' halves differ)

    def model_fn(features, labels, mode):
        logits = tf.layers.dense(tf.layers.dense(features["x"], 8, tf.nn.relu), 2)
        loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
        train_op = tf.train.AdamOptimizer(0.05).minimize(loss, global_step=tf.train.get_global_step())
        classes = tf.argmax(logits, 1)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops={
            "accuracy": tf.metrics.accuracy(labels, classes), "auc": tf.metrics.auc(labels, tf.nn.softmax(logits)[:, 1]),
            "mean_class": tf.metrics.mean(tf.cast(classes, tf.float32))})

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": X}, labels)).batch(12)

    session_config = tf.ConfigProto(device_count={"CPU": 3})
    trained = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path), config=tf.estimator.RunConfig(
        log_step_count_steps=None, tf_random_seed=2, session_config=session_config))
    trained.train(lambda: input_fn().repeat(), steps=5)
    one = trained.evaluate(input_fn)
    strategy = tf.distribute.MirroredStrategy(["/cpu:1", "/cpu:2"])
    distributed = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path), config=tf.estimator.RunConfig(
        log_step_count_steps=None, session_config=session_config,
        experimental_distribute=tf.contrib.distribute.DistributeConfig(eval_distribute=strategy)))
    assert distributed.config.eval_distribute is strategy and distributed.config.train_distribute is None
    metrics = distributed.evaluate(input_fn, name="mirrored")
    assert set(metrics) == set(one) == {"accuracy", "auc", "mean_class", "loss", "global_step"}
    assert 0.3 < one["accuracy"] < 0.9 and metrics["global_step"] == 5
    for key in one:
        np.testing.assert_allclose(metrics[key], one[key], rtol=1e-5, err_msg=key)


def test_metric_totals_are_synchronized_on_read_under_a_strategy():
    halves = np.array([0, 1, 1, 0, 1, 1, 0, 0]), np.array([0, 1, 0, 0, 1, 0, 1, 1])  # 3 of 4 right, then 1 of 4
    with tf.Graph().as_default():
        strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
        with strategy.scope():
            labels, predictions = strategy.experimental_distribute_dataset(
                tf.data.Dataset.from_tensor_slices(halves).batch(8)).make_one_shot_iterator().get_next()

            def replica_fn(labels, predictions):
                counter = tf.get_variable("counter", [], initializer=tf.zeros_initializer(),
                                          synchronization=tf.VariableSynchronization.ON_READ,
                                          aggregation=tf.VariableAggregation.MEAN)
                counted = counter.assign_add(tf.cast(tf.size(labels), tf.float32) * 10)
                return tf.metrics.accuracy(labels, predictions), counted

            (accuracy, update), counted = strategy.experimental_run_v2(replica_fn, args=(labels, predictions))
        total, = [v for v in tf.local_variables() if v.op.name == "accuracy/total"]
        counter, = [v for v in tf.global_variables() if v.op.name == "counter"]
        assert isinstance(total, tf.distribute.MirroredVariable) and not total.trainable and not counter.trainable
        assert [c.device[-5:] for c in total.components] == ["CPU:0", "CPU:1"]
        with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
            sess.run([tf.local_variables_initializer(), tf.global_variables_initializer()])
            sess.run([strategy.group(update), strategy.group(counted)])
            assert [sess.run(c) for c in total.components] == [3.0, 1.0]  # each replica counted its own half
            assert sess.run(strategy.experimental_local_results(accuracy)) == (0.5, 0.5)  # 4 of 8, on every replica
            assert sess.run(counter.value()) == 40.0  # (the mean of the replicas' 40 and 40)


def test_a_step_that_trains_and_reads_a_metric_across_replicas_runs_through():
    """The metric's value sums both replicas' totals, so one replica's device sends the other a
    tensor in the step whose gradients they all-reduce; and the first step forms the group.
    Neither may hold a member back from its start while another waits for the ring (each
    wait here is bounded: a deadlock is a DeadlineExceededError)."""
    labels = (X[:, 0] > 0).astype(np.int64)
    with tf.Graph().as_default():
        strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
        step = tf.train.get_or_create_global_step()
        with strategy.scope():
            iterator = strategy.make_dataset_iterator(
                tf.data.Dataset.from_tensor_slices((X, labels)).batch(48).repeat())
            values = []

            def replica_step(inputs):
                x, y = inputs
                logits = _model(x)
                loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
                train = _optimizer("sgd").minimize(loss, global_step=step)
                accuracy, update = tf.metrics.accuracy(y, tf.argmax(logits, 1))
                values.append(accuracy)
                with tf.control_dependencies([train, update]):
                    return tf.identity(loss)

            loss = strategy.reduce("MEAN", strategy.experimental_run_v2(replica_step, args=(iterator.get_next(),)))
            with tf.variable_scope("copy"):  # (a copy of the model with its initial weights)
                predictions = tf.argmax(_model(tf.constant(X)), 1)
        with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
            sess.run([iterator.initialize(), tf.global_variables_initializer(), tf.local_variables_initializer()])
            first = sess.run(predictions)
            bounded = tf.RunOptions(timeout_in_ms=60000)
            # the value is read before the step's updates: nothing counted yet, then the first step's 48 examples
            read = [sess.run([loss, values[0]], options=bounded)[1] for _ in range(2)]
    np.testing.assert_allclose(read, [0.0, np.mean(first == labels)], rtol=1e-6)


def test_a_checkpoint_holds_a_variable_synchronized_on_read_as_its_combined_value(tmp_path):
    path = str(tmp_path / "synced.ckpt")
    sync = dict(synchronization=tf.VariableSynchronization.ON_READ)

    def made():
        strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
        with strategy.scope():
            total = tf.get_variable("total", [], initializer=tf.zeros_initializer(),
                                    aggregation=tf.VariableAggregation.SUM, **sync)
            mean = tf.get_variable("mean", [], initializer=tf.zeros_initializer(),
                                   aggregation=tf.VariableAggregation.MEAN, **sync)
        return total, mean

    config = tf.ConfigProto(device_count={"CPU": 2})
    with tf.Graph().as_default():
        total, mean = made()
        saver = tf.train.Saver([total, mean])
        with tf.Session(config=config) as sess:
            sess.run(tf.global_variables_initializer())
            sess.run([total.components[0].assign(3.0), total.components[1].assign(5.0),
                      mean.components[0].assign(2.0), mean.components[1].assign(4.0)])
            saver.save(sess, path)
    assert tf.train.load_variable(path, "total") == 8.0 and tf.train.load_variable(path, "mean") == 3.0
    with tf.Graph().as_default():
        total, mean = made()
        saver = tf.train.Saver([total, mean])
        with tf.Session(config=config) as sess:
            saver.restore(sess, path)
            # a sum's share on each copy, so that they add up to it again; a mean on each
            assert list(sess.run(total.components)) == [4.0, 4.0] and sess.run(total.value()) == 8.0
            assert list(sess.run(mean.components)) == [3.0, 3.0] and sess.run(mean.value()) == 3.0


def test_variables_synchronized_on_read_are_not_trained():
    with pytest.raises(ValueError, match="ON_READ only for non-trainable variables"):
        tf.get_variable("total", [], trainable=True, synchronization=tf.VariableSynchronization.ON_READ)
    total = tf.get_variable("total", [], synchronization=tf.VariableSynchronization.ON_READ,
                            aggregation=tf.VariableAggregation.SUM)
    assert not total.trainable and total.synchronization == tf.VariableSynchronization.ON_READ
    assert total.aggregation == tf.VariableAggregation.SUM and tf.trainable_variables() == []
    assert tf.VariableAggregation.ONLY_FIRST_TOWER is tf.VariableAggregation.ONLY_FIRST_REPLICA
    with pytest.raises(ValueError, match="Invalid variable aggregation mode"):
        tf.Variable(1.0, aggregation="sum")


def test_parameter_server_strategy_keeps_the_variables_on_the_ps_and_trains():
    from distflow.tools.launcher import free_ports

    ports = free_ports(3)
    cluster = {"ps": [f"127.0.0.1:{ports[0]}"], "worker": [f"127.0.0.1:{p}" for p in ports[1:]]}
    procs = {}
    try:
        # (worker 0 stops after 10 steps: worker 1's 30 more must need only the ps and itself)
        for job, index, steps in (("ps", 0, 0), ("worker", 0, 10), ("worker", 1, 40)):
            env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"),
                       TF_CONFIG=json.dumps({"cluster": cluster, "task": {"type": job, "index": index}}))
            procs[(job, index)] = subprocess.Popen(
                [sys.executable, os.path.join(ROOT, "tests", "ps_strategy_task.py"), str(steps)], env=env,
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        outputs = {key: procs[key].communicate(timeout=120)[0] for key in (("worker", 0), ("worker", 1))}
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
    results = []
    for key, out in outputs.items():
        assert procs[key].returncode == 0, out[-3000:]
        results.append(json.loads(out.rsplit("RESULT ", 1)[1]))
    # (the workers update the same variables at their own pace: a worker's first loss may come
    # after the other has trained a while, so progress is judged on the job as a whole)
    start = max(r["losses"][0] for r in results)
    assert results[1]["losses"][-1] < 0.5 * start, [r["losses"] for r in results]
    for result in results:
        for name in ("linear/kernel", "linear/bias", "linear/kernel/Adam", "beta1_power"):
            assert result["placement"][name].startswith("/job:ps/replica:0/task:0"), result["placement"]
        assert not any("replica_" in name for name in result["placement"])
    # every worker step (two replicas, one update) moved the shared global step once
    assert max(r["step"] for r in results) == 50


def test_a_worker_that_dies_and_comes_back_rejoins_and_the_job_recovers(tmp_path):
    # Worker 1 dies at step 25; worker 0's step fails (the ring broke), its monitored session
    # starts again from the last checkpoint and waits for the group to re-form; worker 1,
    # started again, restores the same checkpoint and rejoins; both finish equal.
    from distflow.tools.launcher import free_ports

    cluster = {"worker": [f"127.0.0.1:{p}" for p in free_ports(2)]}
    script = os.path.join(ROOT, "tests", "recovering_worker.py")
    model_dir = str(tmp_path / "model")

    def start(index, *extra):
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"),
                   TF_CONFIG=json.dumps({"cluster": cluster, "task": {"type": "worker", "index": index}}))
        return subprocess.Popen([sys.executable, script, model_dir, "60", *extra], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    chief = start(0)
    procs = [chief]
    try:
        dying = start(1, "25")
        procs.append(dying)
        out, _ = dying.communicate(timeout=120)
        assert dying.returncode == 3 and "dying at step 25" in out, out[-3000:]
        again = start(1)
        procs.append(again)
        outputs = [p.communicate(timeout=180)[0] for p in (chief, again)]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    results = []
    for proc, out in zip((chief, again), outputs):
        assert proc.returncode == 0, out[-3000:]
        results.append(json.loads(out.rsplit("RESULT ", 1)[1]))
    assert results[0]["step"] == results[1]["step"] == 60
    for name in results[0]["weights"]:
        np.testing.assert_array_equal(results[0]["weights"][name], results[1]["weights"][name], err_msg=name)
