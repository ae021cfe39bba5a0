"""tf.estimator: a model_fn trained, evaluated and used for predictions, as TF 1.x programs did."""

import json
import os

import numpy as np
import pytest

import distflow as tf

rng = np.random.RandomState(0)
X = rng.randn(512, 3).astype(np.float32)
W = np.array([[1.5], [-2.0], [0.5]], np.float32)
Y = X @ W + 0.3


def linear_model_fn(features, labels, mode, params):
    prediction = tf.layers.dense(features["x"], 1, name="linear")
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"y": prediction})
    loss = tf.losses.mean_squared_error(labels, prediction)
    train_op = tf.train.GradientDescentOptimizer(params["learning_rate"]).minimize(
        loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                      eval_metric_ops={"mae": tf.metrics.mean_absolute_error(labels, prediction)})


def test_an_estimator_trains_evaluates_predicts_and_resumes(tmp_path):
    config = tf.estimator.RunConfig(save_checkpoints_steps=100, log_step_count_steps=None, tf_random_seed=1)
    estimator = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path), config=config,
                                       params={"learning_rate": 0.1})
    train = tf.estimator.inputs.numpy_input_fn({"x": X}, Y, batch_size=32, num_epochs=None, shuffle=True)
    estimator.train(train, steps=300)
    assert estimator.latest_checkpoint() == str(tmp_path / "model.ckpt-300")
    np.testing.assert_allclose(estimator.get_variable_value("linear/kernel"), W, atol=1e-2)
    assert "linear/bias" in estimator.get_variable_names()
    metrics = estimator.evaluate(tf.estimator.inputs.numpy_input_fn({"x": X}, Y, batch_size=64, shuffle=False))
    assert set(metrics) == {"loss", "mae", "global_step"} and metrics["global_step"] == 300
    assert metrics["loss"] < 1e-3 and metrics["mae"] < 3e-2
    # the metrics are written for TensorBoard under model_dir/eval
    events = [str(p) for p in (tmp_path / "eval").iterdir() if p.name.startswith("events")]
    tags = {v.tag for e in tf.train.summary_iterator(events[0]) for v in e.summary.value}
    assert {"loss", "mae"} <= tags
    predictions = list(estimator.predict(tf.estimator.inputs.numpy_input_fn({"x": X[:5]}, batch_size=2,
                                                                            shuffle=False)))
    assert len(predictions) == 5
    kernel, bias = estimator.get_variable_value("linear/kernel"), estimator.get_variable_value("linear/bias")
    np.testing.assert_allclose(np.stack([p["y"] for p in predictions]), X[:5] @ kernel + bias, rtol=1e-5)
    estimator.train(train, max_steps=300)  # (already there: nothing to do)
    assert estimator.latest_checkpoint() == str(tmp_path / "model.ckpt-300")
    estimator.train(train, max_steps=350)  # resumes from the checkpoint
    assert estimator.latest_checkpoint() == str(tmp_path / "model.ckpt-350")


def test_a_dataset_input_fn_and_train_and_evaluate(tmp_path):
    labels = (X[:, 0] + X[:, 1] > 0).astype(np.int64)

    def input_fn(mode, params):
        dataset = tf.data.Dataset.from_tensor_slices(({"x": X}, labels))
        if mode == tf.estimator.ModeKeys.TRAIN:
            dataset = dataset.shuffle(512).repeat()
        return dataset.batch(params["batch"])

    def model_fn(features, labels, mode, params, config):
        assert isinstance(config, tf.estimator.RunConfig)
        hidden = tf.layers.dense(features["x"], 16, tf.nn.relu)
        logits = tf.layers.dense(hidden, 2)
        classes = tf.argmax(logits, 1)
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions={"class": classes, "logits": logits})
        loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
        train_op = tf.train.AdamOptimizer(0.01).minimize(loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                          eval_metric_ops={"accuracy": tf.metrics.accuracy(labels, classes)})

    config = tf.estimator.RunConfig(model_dir=str(tmp_path), save_checkpoints_steps=150, log_step_count_steps=None,
                                    tf_random_seed=3)
    estimator = tf.estimator.Estimator(model_fn, config=config, params={"batch": 32})
    metrics, _ = tf.estimator.train_and_evaluate(
        estimator, tf.estimator.TrainSpec(input_fn, max_steps=300), tf.estimator.EvalSpec(input_fn, steps=None))
    assert metrics["global_step"] == 300 and metrics["accuracy"] > 0.9
    # (the checkpoint hook saves when a session starts, as TF 1.15's does, then every 150 steps)
    assert {p.name for p in tmp_path.glob("model.ckpt-*.index")} == {"model.ckpt-0.index", "model.ckpt-150.index",
                                                                    "model.ckpt-300.index"}
    classes = [p["class"] for p in estimator.predict(input_fn, predict_keys="class")]
    assert len(classes) == 512 and np.mean(np.array(classes) == labels) > 0.9


def test_estimator_arguments_are_checked():
    with pytest.raises(ValueError, match="must include features"):
        tf.estimator.Estimator(lambda x, labels: None)
    with pytest.raises(ValueError, match="not expected args"):
        tf.estimator.Estimator(lambda features, labels, extra: None)
    with pytest.raises(ValueError, match="Missing train_op"):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.TRAIN, loss=tf.constant(1.0))
    # a spec's parts are checked as TF checks them; a loss of one element is a scalar
    train, loss = tf.no_op(), tf.constant([2.0])
    assert tf.estimator.EstimatorSpec("train", loss=loss, train_op=train).loss.shape.ndims == 0
    for kwargs, error, message in [({"loss": 1.0}, TypeError, "loss must be Tensor"),
                                   ({"loss": tf.constant([1.0, 2.0])}, ValueError, "Loss must be scalar"),
                                   ({"loss": loss, "training_hooks": ["not a hook"]}, TypeError, "SessionRunHook"),
                                   ({"loss": loss, "scaffold": object()}, TypeError, "Scaffold"),
                                   ({"loss": loss, "eval_metric_ops": {"m": (1.0, train)}}, TypeError,
                                    "Operation or Tensor"),
                                   ({"loss": loss, "predictions": {"p": 3}}, TypeError, r"predictions\[p\]")]:
        with pytest.raises(error, match=message):
            tf.estimator.EstimatorSpec("train", train_op=train, **kwargs)
    with tf.Graph().as_default():
        elsewhere = tf.constant(1.0)
    with pytest.raises(ValueError, match="default graph"):
        tf.estimator.EstimatorSpec("eval", loss=elsewhere)
    output = tf.estimator.export.PredictOutput({"p": tf.constant([1.0])})
    spec = tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.PREDICT, predictions=tf.constant([1.0]),
                                      export_outputs={"mine": output})
    assert spec.export_outputs == {"mine": output, "serving_default": output}
    with pytest.raises(ValueError, match="shuffle must be provided"):
        tf.estimator.inputs.numpy_input_fn({"x": X}, Y)
    estimator = tf.estimator.Estimator(linear_model_fn, params={"learning_rate": 0.1})
    with pytest.raises(ValueError, match="both steps and max_steps"):
        estimator.train(lambda: None, steps=1, max_steps=1)
    with pytest.raises(ValueError, match="Couldn't find trained model"):
        estimator.export_saved_model("somewhere", lambda: None)


def test_run_config_places_ops_by_device_fn_and_staggers_workers_only_when_asked(tmp_path, monkeypatch):
    placed = []

    def device_fn(op):
        placed.append(op.name)
        return "/cpu:0"

    config = tf.estimator.RunConfig(device_fn=device_fn, log_step_count_steps=None)
    assert config.replace(save_checkpoints_steps=5).device_fn is device_fn
    estimator = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path), config=config,
                                       params={"learning_rate": 0.1})
    estimator.train(tf.estimator.inputs.numpy_input_fn({"x": X}, Y, batch_size=32, shuffle=False), steps=2)
    assert {"global_step", "linear/kernel", "linear/MatMul"} <= set(placed)
    with pytest.raises(ValueError, match="device_fn must be callable"):
        tf.estimator.RunConfig(device_fn="/cpu:0")
    with pytest.raises(tf.errors.UnimplementedError, match="standalone-client mode"):
        tf.estimator.RunConfig(experimental_distribute=tf.contrib.distribute.DistributeConfig(
            remote_cluster={"worker": ["localhost:1"]}))

    from distflow.estimator.training import worker_delay_secs

    def config_of(kind, index, limit):
        monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": {"chief": ["h:1"], "worker": ["h:2", "h:3", "h:4"]},
                                                    "task": {"type": kind, "index": index}}))
        return tf.estimator.RunConfig(experimental_max_worker_delay_secs=limit)

    # TF 1.x made worker i wait 5 * (i + 1) s, up to 60; distflow only when asked, up to what is asked
    assert worker_delay_secs(config_of("worker", 2, None)) == 0
    assert worker_delay_secs(config_of("worker", 2, 60)) == 15
    assert worker_delay_secs(config_of("worker", 2, 7)) == 7
    assert worker_delay_secs(config_of("chief", 0, 60)) == 0


def test_train_checks_hooks_and_listeners_writes_the_loss_and_takes_a_partial_model_fn(tmp_path):
    import functools

    def model_fn(features, labels, mode, params, scale):
        return linear_model_fn(features, labels, mode, {**params, "learning_rate": 0.1 * scale})

    estimator = tf.estimator.Estimator(functools.partial(model_fn, scale=1.0), model_dir=str(tmp_path),
                                       params={}, config=tf.estimator.RunConfig(save_summary_steps=1,
                                                                                log_step_count_steps=None))
    input_fn = tf.estimator.inputs.numpy_input_fn({"x": X}, Y, batch_size=32, shuffle=False)
    with pytest.raises(TypeError, match="SessionRunHook"):
        estimator.train(input_fn, steps=1, hooks=["not a hook"])
    with pytest.raises(TypeError, match="CheckpointSaverListener"):
        estimator.train(input_fn, steps=1, saving_listeners=["not a listener"])
    with pytest.raises(TypeError, match="SessionRunHook"):
        estimator.evaluate(input_fn, hooks=[object()])
    estimator.train(input_fn, steps=3)
    tags = {value.tag for name in os.listdir(str(tmp_path)) if name.startswith("events")
            for event in tf.train.summary_iterator(str(tmp_path / name)) for value in event.summary.value}
    assert "loss" in tags  # (TensorBoard's loss curve, as TF's Estimator writes it)
    off = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path / "off"), params={"learning_rate": 0.1},
                                 config=tf.estimator.RunConfig(save_checkpoints_steps=None, save_checkpoints_secs=None))
    with pytest.raises(ValueError, match="CheckpointSaverHook to use saving_listeners"):
        off.train(input_fn, steps=1, saving_listeners=[tf.train.CheckpointSaverListener()])


def test_numpy_input_fn_takes_a_dict_of_labels_and_checks_its_arrays():
    x = {"a": np.arange(4.0), "b": np.arange(32, 36)}
    y = {"y1": np.arange(-32, -28), "y2": np.arange(32, 28, -1)}
    features, labels = tf.estimator.inputs.numpy_input_fn(x, y, batch_size=2, shuffle=False, num_epochs=1)()
    with tf.Session() as sess:
        first = sess.run([features, labels])
        sess.run([features, labels])
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(features)
    assert first[0]["b"].tolist() == [32, 33] and first[1]["y1"].tolist() == [-32, -31]
    for args, message in [((x, {}), "y cannot be empty"), (({}, None), "x cannot be empty"),
                          ((x, {"a": np.arange(4), "y": np.arange(4)}), "1 duplicate keys"),
                          (({"a": np.arange(1), "b": np.arange(4)}, None), "Length of tensors in x and y"),
                          ((x, np.arange(10)), "Length of tensors in x and y"), (({"a": 3}, None), "scalars")]:
        with pytest.raises(ValueError, match=message):
            tf.estimator.inputs.numpy_input_fn(*args, shuffle=False)


def test_run_config_reads_tf_config_and_checks_its_values_as_tf_does(tmp_path, monkeypatch):
    def config(tf_config, **kwargs):
        monkeypatch.setenv("TF_CONFIG", json.dumps(tf_config))
        return tf.estimator.RunConfig(**kwargs)

    cluster = {"chief": ["h:0"], "ps": ["h:1", "h:2"], "worker": ["h:3", "h:4"]}
    worker = config({"cluster": cluster, "task": {"type": "worker", "index": 1}, "service": {"k": 1}})
    assert (worker.master, worker.is_chief, worker.num_ps_replicas, worker.num_worker_replicas) == \
        ("grpc://h:4", False, 2, 3)
    assert worker.service == {"k": 1} and worker.evaluation_master == ""
    evaluator = config({"cluster": cluster, "task": {"type": "evaluator", "index": 0},
                        "eval_session_master": "grpc://e:1", "model_dir": str(tmp_path)})
    assert evaluator.cluster_spec.jobs == [] and evaluator.master == "" and not evaluator.is_chief
    assert evaluator.evaluation_master == "grpc://e:1" and evaluator.model_dir == str(tmp_path)
    legacy = config({"cluster": {"master": ["h:0"], "worker": ["h:1"]}, "task": {"type": "master", "index": 0}})
    assert legacy.is_chief and legacy.num_worker_replicas == 2
    one = config({"cluster": {"chief": ["h:0"]}, "task": {"type": "chief", "index": 0}})
    assert one.master == "" and one.is_chief  # (a cluster of one: the session runs in process)
    local = config({"session_master": "grpc://s:1"})
    assert local.master == "grpc://s:1" and local.is_chief and local.num_worker_replicas == 1
    for bad, message in [({"cluster": cluster, "task": {"index": 0}}, "task type must be set"),
                         ({"cluster": cluster, "task": {"type": "worker"}}, "task index must be set"),
                         ({"cluster": cluster, "task": {"type": "worker", "index": 2}}, "not a valid task_id"),
                         ({"cluster": cluster, "task": {"type": "gpu", "index": 0}}, "not a valid task_type"),
                         ({"cluster": dict(cluster, chief=["h:0", "h:9"]), "task": {"type": "chief", "index": 0}},
                          "only one"),
                         ({"cluster": cluster, "task": {"type": "worker", "index": 0}, "eval_session_master": "x"},
                          "should not be set"),
                         ({"task": {"type": "ps", "index": 0}}, "must be WORKER"),
                         ({"model_dir": ""}, "should be non-empty"),
                         ({"service": 3}, "must be a dict")]:
        with pytest.raises((ValueError, TypeError), match=message):
            config(bad)
    with pytest.raises(ValueError, match="must have the same value"):
        config({"model_dir": "/a"}, model_dir="/b")
    monkeypatch.delenv("TF_CONFIG")
    for kwargs, message in [({"save_summary_steps": -1}, "save_summary_steps should be >= 0"),
                            ({"keep_checkpoint_every_n_hours": 0}, "should be > 0"),
                            ({"session_config": {}}, "ConfigProto"), ({"tf_random_seed": 1.5}, "integer"),
                            ({"save_checkpoints_steps": 5, "save_checkpoints_secs": 5}, "cannot be both set")]:
        with pytest.raises(ValueError, match=message):
            tf.estimator.RunConfig(**kwargs)
    # checkpoints: every 600 s by default; both frequencies None: none at all; replace swaps one for the other
    default = tf.estimator.RunConfig()
    assert (default.save_checkpoints_secs, default.save_checkpoints_steps) == (600, None)
    steps = default.replace(save_checkpoints_steps=7)
    assert (steps.save_checkpoints_secs, steps.save_checkpoints_steps) == (None, 7)
    assert steps.replace(save_checkpoints_secs=30).save_checkpoints_steps is None
    with pytest.raises(ValueError, match="Replacing master is not supported"):
        default.replace(master="x")
    off = tf.estimator.RunConfig(save_checkpoints_steps=None, save_checkpoints_secs=None, log_step_count_steps=None)
    estimator = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path / "off"), config=off,
                                       params={"learning_rate": 0.1})
    estimator.train(tf.estimator.inputs.numpy_input_fn({"x": X}, Y, batch_size=32, shuffle=False), steps=2)
    assert tf.train.latest_checkpoint(str(tmp_path / "off")) is None


def test_an_estimator_warm_starts_from_another_models_checkpoint_once(tmp_path):
    config = tf.estimator.RunConfig(log_step_count_steps=None, tf_random_seed=1)
    train = tf.estimator.inputs.numpy_input_fn({"x": X}, Y, batch_size=32, num_epochs=None, shuffle=True)
    first = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path / "first"), config=config,
                                   params={"learning_rate": 0.1})
    first.train(train, steps=200)
    kernel, bias = first.get_variable_value("linear/kernel"), first.get_variable_value("linear/bias")
    # a learning rate of 0: what the warm-started model saves after a step is where it began
    frozen = {"learning_rate": 0.0}
    whole = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path / "whole"), config=config, params=frozen,
                                   warm_start_from=str(tmp_path / "first"))
    whole.train(train, steps=1)
    np.testing.assert_array_equal(whole.get_variable_value("linear/kernel"), kernel)
    np.testing.assert_array_equal(whole.get_variable_value("linear/bias"), bias)
    assert whole.get_variable_value("global_step") == 1  # (not warm-started: not trainable)
    settings = tf.estimator.WarmStartSettings(first.latest_checkpoint(), vars_to_warm_start="linear/kernel")
    part = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path / "part"), config=config, params=frozen,
                                  warm_start_from=settings)
    part.train(train, steps=1)
    np.testing.assert_array_equal(part.get_variable_value("linear/kernel"), kernel)
    np.testing.assert_array_equal(part.get_variable_value("linear/bias"), [0.0])  # (its own initializer)
    # once the model has a checkpoint of its own, it resumes from that, not from the warm start
    resumed = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path / "whole"), config=config,
                                     params={"learning_rate": 0.1}, warm_start_from=str(tmp_path / "part"))
    resumed.train(train, steps=50)
    np.testing.assert_allclose(resumed.get_variable_value("linear/kernel"), W, atol=1e-2)
    with pytest.raises(ValueError, match="warm_start_from must be a string or a WarmStartSettings"):
        tf.estimator.Estimator(linear_model_fn, warm_start_from=3)
    with pytest.raises(ValueError, match="ckpt_to_initialize_from"):
        tf.estimator.WarmStartSettings("")


def _saved(tmp_path, values: dict) -> str:
    """A checkpoint of variables with the given names and values; its prefix."""
    (tmp_path / "old").mkdir()
    with tf.Graph().as_default():
        made = [tf.Variable(value, name=name) for name, value in values.items()]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return tf.train.Saver(made).save(sess, str(tmp_path / "old" / "model.ckpt"))


def _initialized(variables):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(variables)


def test_warm_start_renames_remaps_vocabularies_and_says_what_does_not_fit(tmp_path):
    old_embedding = np.arange(12, dtype=np.float32).reshape(4, 3)  # rows of "a", "b", "c", "d"
    old_output = np.arange(8, dtype=np.float32).reshape(2, 4)  # columns of "a", "b", "c", "d"
    prefix = _saved(tmp_path, {"old/embedding": old_embedding, "old/output": old_output,
                               "dense/kernel": np.ones((2, 2), np.float32)})
    (tmp_path / "new_vocab.txt").write_text("c\nz\na\n")
    with tf.Graph().as_default():
        embedding = tf.get_variable("embedding", [4, 3], initializer=tf.constant_initializer(-1.0))
        output = tf.get_variable("output", [2, 3])
        kernel = tf.get_variable("dense/kernel", [2, 2], initializer=tf.zeros_initializer())
        slot = tf.get_variable("dense/kernel/Momentum", [2, 2], trainable=False, initializer=tf.zeros_initializer())
        tf.train.warm_start(prefix, vars_to_warm_start=["embedding", "output", "dense/"], var_name_to_vocab_info={
            # 3 entries from a file and one out-of-vocabulary bucket, from the first 3 of the old 4
            "embedding": tf.estimator.VocabInfo(str(tmp_path / "new_vocab.txt"), 3, 1, ["a", "b", "c", "d"], 3,
                                                backup_initializer=tf.constant_initializer(7.0)),
            "output": tf.train.VocabInfo(["d", "b", "q"], 3, 0, ["a", "b", "c", "d"], axis=1)},
            var_name_to_prev_var_name={"embedding": "old/embedding", "output": "old/output",
                                       "dense/kernel/Momentum": "dense/kernel"})
        got_embedding, got_output, got_kernel, got_slot = _initialized([embedding, output, kernel, slot])
    np.testing.assert_array_equal(got_embedding, [old_embedding[2], [7.0] * 3, old_embedding[0], [7.0] * 3])
    np.testing.assert_array_equal(got_output, np.stack([old_output[:, 3], old_output[:, 1], [0.0, 0.0]], axis=1))
    np.testing.assert_array_equal(got_kernel, np.ones((2, 2)))
    np.testing.assert_array_equal(got_slot, np.ones((2, 2)))  # (a global variable, asked for by scope)
    with tf.Graph().as_default():
        tf.get_variable("dense/kernel", [3, 2])
        with pytest.raises(ValueError, match=r"Shape of variable dense/kernel \(\[3, 2\]\) doesn't match .*\[2, 2\]"):
            tf.train.warm_start(prefix)
    with tf.Graph().as_default():
        tf.get_variable("unknown", [2])
        with pytest.raises(ValueError, match="Tensor unknown .* is not found"):
            tf.train.warm_start(str(tmp_path / "old"))  # (a directory: its latest checkpoint)
    with tf.Graph().as_default():
        tf.get_variable("dense/kernel", [2, 2])
        with pytest.raises(ValueError, match=r"var_name_to_prev_var_name that were not used: \['dense/kernl'\]"):
            tf.train.warm_start(prefix, var_name_to_prev_var_name={"dense/kernl": "dense/kernel"})
    with tf.Graph().as_default():
        tf.get_variable("old/embedding", [3, 3])
        with pytest.raises(ValueError, match="new_vocab_size \\+ num_oov_buckets = 2 \\+ 0"):
            tf.train.warm_start(prefix, var_name_to_vocab_info={
                "old/embedding": tf.train.VocabInfo(["a", "b"], 2, 0, ["a", "b", "c", "d"])})


def _run_tasks(tmp_path, jobs, roles, args, awaited):
    """Runs ``tests/estimator_task.py MODEL_DIR *args`` once per role of ``roles``, each with
    TF_CONFIG naming its task of a cluster of ``jobs`` ({job: task count}) on free ports;
    returns the outputs of the ``awaited`` roles and the results they printed (every one
    exited 0). The others (a ps) are killed at the end."""
    import subprocess
    import sys

    from cluster_util import free_ports

    ports = iter(free_ports(sum(jobs.values())))
    cluster = {job: [f"127.0.0.1:{next(ports)}" for _ in range(count)] for job, count in jobs.items()}
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, PYTHONPATH=os.path.join(here, "..", "src"))
    procs = {}
    try:
        for role in roles:
            task_env = dict(env, TF_CONFIG=json.dumps({"cluster": cluster, "task": {"type": role, "index": 0}}))
            procs[role] = subprocess.Popen([sys.executable, os.path.join(here, "estimator_task.py"),
                                            str(tmp_path / "model")] + list(args), env=task_env,
                                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        outputs = {role: procs[role].communicate(timeout=240)[0] for role in awaited}
        for role, out in outputs.items():
            assert procs[role].returncode == 0, f"{role}:\n{out[-3000:]}"
        return outputs, {role: json.loads(out.rsplit("RESULT ", 1)[1]) for role, out in outputs.items()}
    finally:
        for proc in procs.values():
            proc.kill()
            proc.wait(10)


@pytest.mark.parametrize("model", ["model_fn", "keras"])
def test_train_and_evaluate_runs_each_role_of_a_tf_config_cluster(tmp_path, model):
    # ps, chief and worker as processes (between-graph: variables on the ps), and an evaluator
    # that evaluates the checkpoints the chief writes until the one at max_steps; the model is a
    # model_fn's, or a compiled tf.keras model's through model_to_estimator
    _, results = _run_tasks(tmp_path, {"ps": 1, "chief": 1, "worker": 1}, ("ps", "chief", "worker", "evaluator"),
                            ["200"] + (["keras"] if model == "keras" else []), ("chief", "worker", "evaluator"))
    assert results["chief"] is None and results["worker"] is None
    assert results["evaluator"]["global_step"] >= 200 and results["evaluator"]["loss"] < 0.05, results
    # (the Keras model's metrics=['mae'] is named in full, as TF's Keras names it)
    assert ("mean_absolute_error" if model == "keras" else "mae") in results["evaluator"], results
    # (asynchronous steps: the other trainer's step in flight may land past 200)
    last = int(tf.train.latest_checkpoint(str(tmp_path / "model")).rsplit("-", 1)[1])
    assert 200 <= last <= 201


def test_boosted_trees_grow_from_the_batches_of_every_trainer_of_a_cluster(tmp_path):
    # ps, chief and worker, each layer of the trees from two batches of whichever trainer sent
    # them (the ensemble and its accumulator on the ps); the evaluator's loss is the trees'
    _, results = _run_tasks(tmp_path, {"ps": 1, "chief": 1, "worker": 1}, ("ps", "chief", "worker", "evaluator"),
                            ["120", "boosted"], ("chief", "worker", "evaluator"))
    assert results["evaluator"]["global_step"] >= 120, results
    # (the labels' variance is 6.5: 0.18 after 120 steps in one run)
    assert results["evaluator"]["average_loss"] < 0.5, results
    reader = tf.train.load_checkpoint(str(tmp_path / "model"))
    state = reader.get_tensor("boosted_trees/ensemble_state")
    # two batches a round: the quantiles' round, then one a layer (59 rounds in 118 steps; a
    # batch that started before the round it would join is dropped, so there may be fewer)
    from distflow.estimator import boosted_trees as bt

    assert 40 <= state[bt.NUM_ATTEMPTED_LAYERS] <= 59 and state[bt.STAMP] == state[bt.NUM_ATTEMPTED_LAYERS] + 1, state
    assert state[bt.NUM_FINALIZED] >= state[bt.NUM_ATTEMPTED_LAYERS] // 3  # (three layers a tree at most)


def test_a_tf_1_2_experiment_runs_each_role_of_a_cluster_under_learn_runner(tmp_path):
    # tf.contrib.learn's way: one program, learn_runner picks each task's schedule from TF_CONFIG
    # (the ps serves, the worker trains, the master trains with it and then evaluates)
    _, results = _run_tasks(tmp_path, {"ps": 1, "master": 1, "worker": 1}, ("ps", "master", "worker"),
                            ["150", "experiment"], ("master", "worker"))
    assert results["worker"] is None  # (a worker trains and returns no metrics)
    assert results["master"]["global_step"] >= 150 and results["master"]["loss"] < 0.05, results


def test_train_and_evaluate_with_collective_all_reduce_between_chief_and_worker(tmp_path):
    # no ps: the chief and the worker each hold the model (MultiWorkerMirroredStrategy), step
    # together, and the evaluator evaluates the chief's checkpoints until the one at max_steps
    roles = ("chief", "worker", "evaluator")
    _, results = _run_tasks(tmp_path, {"chief": 1, "worker": 1}, roles, ["120", "collective"], roles)
    assert results["evaluator"]["global_step"] == 120 and results["evaluator"]["loss"] < 0.05, results
    assert tf.train.latest_checkpoint(str(tmp_path / "model")).endswith("-120")  # (synchronous: exactly)


def test_canned_heads_report_tfs_metrics_weighted_by_the_weight_column(tmp_path):
    """An untrained linear model (zero weights: every logit 0, every prediction class 0 and
    probability 0.5) gives metrics that NumPy can say: each weighted by the weight column."""
    rng = np.random.RandomState(0)
    x = rng.rand(40, 2).astype(np.float32)
    y = (rng.rand(40, 1) > 0.3).astype(np.int64)
    w = rng.rand(40, 1).astype(np.float32)
    columns = [tf.feature_column.numeric_column("x", shape=[2])]

    def input_fn(labels):
        return lambda: tf.data.Dataset.from_tensor_slices(({"x": x, "w": w}, labels)).batch(8)

    classifier = tf.estimator.LinearClassifier(columns, weight_column="w", model_dir=str(tmp_path / "c"),
                                               optimizer=tf.train.GradientDescentOptimizer(0.0))
    classifier.train(input_fn(y), steps=1)
    got = classifier.evaluate(input_fn(y))
    positive = np.sum(w * y) / np.sum(w)
    assert got["accuracy"] == pytest.approx(1 - positive, rel=1e-5)  # (every prediction is class 0)
    assert got["label/mean"] == pytest.approx(positive, rel=1e-5)
    assert got["accuracy_baseline"] == pytest.approx(max(positive, 1 - positive), rel=1e-5)
    assert got["prediction/mean"] == pytest.approx(0.5) and got["auc"] == pytest.approx(0.5)
    assert got["auc_precision_recall"] == pytest.approx((1 + positive) / 2, rel=1e-4)  # (as TF 2.15: 0.8433)
    assert got["precision"] == 0 and got["recall"] == 0

    regressor = tf.estimator.LinearRegressor(columns, weight_column="w", model_dir=str(tmp_path / "r"),
                                             optimizer=tf.train.GradientDescentOptimizer(0.0))
    targets = (x.sum(1, keepdims=True) * 2).astype(np.float32)
    regressor.train(input_fn(targets), steps=1)
    got = regressor.evaluate(input_fn(targets))
    assert sorted(got) == ["average_loss", "global_step", "label/mean", "loss", "prediction/mean"]
    assert got["label/mean"] == pytest.approx(np.sum(w * targets) / np.sum(w), rel=1e-5)
    assert got["prediction/mean"] == 0.0


def test_classifier_predictions_carry_every_class_as_tfs_do(tmp_path):
    x = np.random.RandomState(1).rand(6, 2).astype(np.float32)
    columns = [tf.feature_column.numeric_column("x", shape=[2])]
    classifier = tf.estimator.LinearClassifier(columns, n_classes=3, label_vocabulary=["a", "b", "c"],
                                               model_dir=str(tmp_path),
                                               optimizer=tf.train.GradientDescentOptimizer(0.0))
    classifier.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, np.array([["a"], ["b"], ["c"]] * 2)))
                     .batch(3), steps=1)
    first = next(iter(classifier.predict(lambda: tf.data.Dataset.from_tensor_slices({"x": x}).batch(3))))
    assert sorted(first) == ["all_class_ids", "all_classes", "class_ids", "classes", "logits", "probabilities"]
    assert first["all_class_ids"].tolist() == [0, 1, 2] and first["all_classes"].tolist() == [b"a", b"b", b"c"]
    assert first["classes"].tolist() == [b"a"]  # (zero weights: every logit 0, so the first class)


def test_canned_estimators_cut_their_variables_as_their_partitioners_say(tmp_path):
    rng = np.random.RandomState(4)
    ids = rng.randint(0, 20, size=(256, 1)).astype(np.int64)
    labels = (ids[:, 0] >= 10).astype(np.int64)
    column = tf.feature_column.categorical_column_with_identity("word", 20)

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"word": ids}, labels)).repeat().batch(32)

    # (a seed: from some random starting points 200 steps reach only 0.85)
    deep = tf.estimator.DNNClassifier([8], [tf.feature_column.embedding_column(column, 4)],
                                      model_dir=str(tmp_path / "deep"), optimizer=tf.train.AdagradOptimizer(0.5),
                                      input_layer_partitioner=tf.fixed_size_partitioner(3),
                                      config=tf.estimator.RunConfig(tf_random_seed=1))
    wide = tf.estimator.LinearClassifier([column], model_dir=str(tmp_path / "wide"),
                                         optimizer=tf.train.FtrlOptimizer(0.3), partitioner=tf.fixed_size_partitioner(2))
    for estimator, name, shape in ((deep, "dnn/input_from_feature_columns/input_layer/word_embedding/embedding_weights",
                                    (20, 4)), (wide, "linear/linear_model/word/weights", (20, 1))):
        estimator.train(input_fn, steps=200)
        names = estimator.get_variable_names()
        # (saved once, under the full name, as TensorFlow's checkpoints have it)
        assert name in names and not any("part_" in n for n in names), names
        assert estimator.get_variable_value(name).shape == shape
        assert estimator.evaluate(input_fn, steps=8)["accuracy"] > 0.9, name


def test_baseline_estimators_learn_the_label_prior_and_mean(tmp_path):
    labels = np.array([0, 1, 1, 1] * 8)
    features = {"x": np.zeros((32, 1), np.float32)}
    classifier = tf.estimator.BaselineClassifier(model_dir=str(tmp_path / "c"),
                                                 config=tf.estimator.RunConfig(log_step_count_steps=None))
    classifier.train(tf.estimator.inputs.numpy_input_fn(features, labels, batch_size=32, num_epochs=None,
                                                        shuffle=False), steps=300)
    probabilities = next(classifier.predict(tf.estimator.inputs.numpy_input_fn(features, shuffle=False)))
    assert probabilities["probabilities"][1] == pytest.approx(0.75, abs=0.02)
    assert "baseline/bias" in classifier.get_variable_names()
    targets = np.array([1.0, 3.0] * 16, np.float32)
    regressor = tf.estimator.BaselineRegressor(model_dir=str(tmp_path / "r"),
                                               optimizer=tf.train.GradientDescentOptimizer(0.01),
                                               config=tf.estimator.RunConfig(log_step_count_steps=None))
    regressor.train(tf.estimator.inputs.numpy_input_fn(features, targets, batch_size=32, num_epochs=None,
                                                       shuffle=False), steps=200)
    assert regressor.get_variable_value("baseline/bias")[0] == pytest.approx(2.0, abs=0.02)


def test_train_and_evaluate_stops_early_when_the_loss_stops_decreasing(tmp_path):
    config = tf.estimator.RunConfig(save_checkpoints_steps=5, log_step_count_steps=None, tf_random_seed=1)
    estimator = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path), config=config,
                                       params={"learning_rate": 0.0})  # (nothing learned: the loss never drops)
    hook = tf.estimator.experimental.stop_if_no_decrease_hook(estimator, "loss", 10, run_every_secs=None,
                                                              run_every_steps=1)
    train = tf.estimator.inputs.numpy_input_fn({"x": X}, Y, batch_size=10, num_epochs=None, shuffle=True)
    evaluate = tf.estimator.inputs.numpy_input_fn({"x": X}, Y, shuffle=False)
    metrics, _ = tf.estimator.train_and_evaluate(estimator, tf.estimator.TrainSpec(train, max_steps=500, hooks=[hook]),
                                                 tf.estimator.EvalSpec(evaluate))
    assert hook.stopped_early and metrics["global_step"] < 40  # (evaluations at 5, 10, 15: no better after 10 steps)
    evaluations = tf.estimator.experimental.read_eval_metrics(estimator.model_dir + "/eval")
    assert list(evaluations)[:3] == [5, 10, 15] and all("loss" in m for m in evaluations.values())
    higher = tf.estimator.experimental.stop_if_higher_hook(estimator, "loss", -1.0)
    assert higher._should_stop_fn()  # (every evaluation's loss is above -1)
    assert not tf.estimator.experimental.stop_if_lower_hook(estimator, "loss", -1.0)._should_stop_fn()


def test_the_parse_example_specs_of_canned_estimators():
    columns = [tf.feature_column.numeric_column("x", shape=[2]),
               tf.feature_column.categorical_column_with_hash_bucket("words", 10)]
    spec = tf.estimator.classifier_parse_example_spec(columns, "label", weight_column="w")
    assert spec == {"x": tf.FixedLenFeature((2,), tf.float32), "words": tf.VarLenFeature(tf.string),
                    "label": tf.FixedLenFeature((1,), tf.int64), "w": tf.FixedLenFeature((1,), tf.float32)}
    spec = tf.estimator.regressor_parse_example_spec(columns, "target", label_dimension=3, label_default=[0.0] * 3)
    assert spec["target"] == tf.FixedLenFeature((3,), tf.float32, [0.0] * 3) and "w" not in spec
    with pytest.raises(ValueError, match="label should not be used as feature"):
        tf.estimator.classifier_parse_example_spec(columns, "x")
    with pytest.raises(ValueError, match="weight_column should not be used as feature"):
        tf.estimator.regressor_parse_example_spec(columns, "y", weight_column="x")
    with pytest.raises(ValueError, match="weight_column should be an instance"):
        tf.estimator.classifier_parse_example_spec(columns, "y", weight_column=columns[1])


def test_pandas_data_frames_feed_estimators_and_datasets(tmp_path):
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(3)
    frame = pd.DataFrame({"x": rng.randn(200).astype(np.float32), "kind": rng.choice(["a", "b"], 200)})
    frame.index = frame.index + 1000  # (the labels' index must be the frame's, not 0..n-1)
    target = pd.Series((frame["x"] > 0).astype(np.int64).to_numpy(), index=frame.index)
    columns = [tf.feature_column.numeric_column("x"), tf.feature_column.indicator_column(
        tf.feature_column.categorical_column_with_vocabulary_list("kind", ["a", "b"]))]
    est = tf.estimator.LinearClassifier(columns, model_dir=str(tmp_path))
    est.train(tf.estimator.inputs.pandas_input_fn(frame, target, batch_size=50, num_epochs=None, shuffle=True),
              steps=60)
    metrics = est.evaluate(tf.estimator.inputs.pandas_input_fn(frame, target, shuffle=False))
    assert metrics["accuracy"] >= 0.95 and metrics["global_step"] == 60
    with pytest.raises(ValueError, match="Index for x and y are mismatched"):
        tf.estimator.inputs.pandas_input_fn(frame, target.reset_index(drop=True), shuffle=False)
    with pytest.raises(ValueError, match="Cannot use name x for target column"):
        tf.estimator.inputs.pandas_input_fn(frame, target, shuffle=False, target_column="x")
    with pytest.raises(ValueError, match="shuffle must be provided"):
        tf.estimator.inputs.pandas_input_fn(frame, target)
    # the tutorials' own way: the columns of a frame as a dict of Series, sliced by tf.data
    tf.reset_default_graph()
    batch = tf.data.Dataset.from_tensor_slices((dict(frame), target)).batch(200).make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        features, labels = sess.run(batch)
    np.testing.assert_array_equal(features["x"], frame["x"].to_numpy())
    assert features["kind"].tolist() == [k.encode() for k in frame["kind"]]
    np.testing.assert_array_equal(labels, target.to_numpy())


def test_input_fns_of_random_synthetic_batches_train_with_and_without_a_strategy(tmp_path):
    # (the model garden's synthetic input: one random batch of a fixed seed, repeated; TF's
    # Estimator reads an input_fn's dataset with an initializable iterator, so it may hold a
    # random tensor, which a one-shot iterator refuses)
    def input_fn():
        x = tf.random.truncated_normal([32, 3], seed=7)
        y = tf.matmul(x, tf.constant(W)) + 0.3
        return tf.data.Dataset.from_tensors(({"x": x}, y)).repeat()

    for name, strategy in (("plain", None), ("mirrored", tf.distribute.MirroredStrategy(["/gpu:0", "/gpu:1"]))):
        config = tf.estimator.RunConfig(train_distribute=strategy, log_step_count_steps=None, tf_random_seed=1)
        estimator = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path / name), config=config,
                                           params={"learning_rate": 0.2})
        estimator.train(input_fn, max_steps=150)
        np.testing.assert_allclose(estimator.get_variable_value("linear/kernel"), W, atol=2e-2)
        metrics = estimator.evaluate(input_fn, steps=2)
        assert metrics["global_step"] == 150 and metrics["loss"] < 1e-3
        predicted = next(estimator.predict(lambda: input_fn().map(lambda features, _: features)))
        assert predicted["y"].shape == (1,)
    with pytest.raises(ValueError, match="make_initializable_iterator"):
        input_fn().make_one_shot_iterator()
