"""tf.keras models as layers of other models (transfer learning's nested base model), and
``tf.keras.utils.multi_gpu_model``, TF 1.x Keras's in-graph replication over a process's GPUs,
which calls the template model once per GPU as a layer. Checked against NumPy, against the
template model on the whole batch, and against files and figures TensorFlow 2.21's
graph-mode Keras wrote (tests/data/tensorflow/make_tf_keras_nested.py)."""

import os

import numpy as np
import pytest

import distflow as tf
from tf_figures import nested_keras_model

K = tf.keras.backend
layers = tf.keras.layers
TF_DATA = os.path.join(os.path.dirname(__file__), "data", "tensorflow")

pytestmark = pytest.mark.usefixtures("fresh_keras")  # (conftest.py: a fresh Keras session and a seed)


def _h5py():
    return pytest.importorskip("h5py", reason="Keras's HDF5 files need h5py (the keras extra)")


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


def _layout(path):
    """Each layer group of a Keras file's weights, in order, with the weight names it lists."""
    with _h5py().File(path, "r") as f:
        group = f["model_weights"]
        return [(_text(n), [_text(w) for w in group[_text(n)].attrs["weight_names"]])
                for n in group.attrs["layer_names"]]


def _mlp(units=(8, 3), input_dim=4):
    return tf.keras.Sequential([layers.Dense(units[0], activation="relu", input_shape=(input_dim,)),
                                layers.Dense(units[1])])


def _mlp_numpy(weights, x):
    w1, b1, w2, b2 = weights
    return np.maximum(x @ w1 + b1, 0) @ w2 + b2


# -- models as layers ------------------------------------------------------------------------
def test_a_model_called_on_a_tensor_is_one_layer_of_the_model_that_calls_it():
    base = _mlp()
    inp = tf.keras.Input((4,))
    model = tf.keras.Model(inp, layers.Dense(1)(base(inp)))
    # (TensorFlow 2.21's graph-mode Keras lists input_1, sequential, dense_2)
    assert [layer.name for layer in model.layers] == ["input_1", "sequential", "dense_2"]
    assert model.get_layer("sequential") is base and base.output_shape == (None, 3)
    lines = []
    model.summary(print_fn=lines.append)
    assert any(line.startswith("sequential (Sequential)") and "(None, 3)" in line and line.split()[-1] == "67"
               for line in lines)
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    w = model.get_weights()
    np.testing.assert_allclose(model.predict(x), _mlp_numpy(w[:4], x) @ w[4] + w[5], rtol=1e-5, atol=1e-6)

    base.trainable = False
    assert len(model.trainable_weights) == 2 and len(model.non_trainable_weights) == 4
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    model.fit(x, np.ones((5, 1), np.float32), verbose=0)
    after = model.get_weights()
    for before, now in zip(w[:4], after[:4]):  # the frozen base kept its weights; the head moved
        np.testing.assert_array_equal(before, now)
    assert not np.array_equal(w[4], after[4])


def test_a_functional_models_layers_are_listed_as_keras_lists_them():
    a, b = tf.keras.Input((8,), name="a"), tf.keras.Input((4,), name="b")
    x = layers.Dense(16, name="d2")(layers.Dense(16, name="d1")(a))
    y = layers.Dense(16, name="e1")(b)
    shared = layers.Dense(16, name="shared")
    z = layers.concatenate([shared(x), shared(y)], name="cat")
    side = layers.Dense(3, name="side")(x)
    out = layers.Dense(2, name="out")(layers.Dropout(0.1, name="drop")(z))
    model = tf.keras.Model([a, b], [out, side])
    # by depth from the outputs, then in the order a walk back from them meets them: TF 2.21's order
    assert [layer.name for layer in model.layers] == ["a", "d1", "b", "d2", "e1", "shared", "cat", "drop", "out",
                                                      "side"]
    assert tf.keras.Input((3,)).name == "input_1:0"  # (TF's Input names count from 1)


def test_a_feature_extractor_cut_from_a_base_model_starts_a_sequential_model():
    """Transfer learning's other idiom: a model from the base's input to an inner layer's
    output, added first to a Sequential, which is built from its input at once (TF 2.21's
    Keras: layers feat, top; output shape (None, 2))."""
    base = tf.keras.Sequential([layers.Dense(6, input_shape=(5,), name="hid"), layers.BatchNormalization(name="bn"),
                                layers.Dense(3, name="enc")], name="base")
    feat = tf.keras.Model(base.input, base.get_layer("bn").output, name="feat")
    assert [layer.name for layer in feat.layers] == ["hid_input", "hid", "bn"]
    model = tf.keras.Sequential([feat, layers.Dense(2, name="top")])
    assert [layer.name for layer in model.layers] == ["feat", "top"] and model.output_shape == (None, 2)
    x = np.random.default_rng(6).standard_normal((4, 5)).astype(np.float32)
    hid_kernel, hid_bias, gamma, beta, mean, variance, top_kernel, top_bias = model.get_weights()
    h = (x @ hid_kernel + hid_bias - mean) / np.sqrt(variance + 1e-3) * gamma + beta
    np.testing.assert_allclose(model.predict(x), h @ top_kernel + top_bias, rtol=1e-5, atol=1e-6)


def test_a_config_with_models_as_layers_makes_the_same_model_again():
    base = _mlp()
    inp = tf.keras.Input((4,), name="inp")
    branch = tf.keras.Model(inp, layers.Dense(2, name="head")(base(inp)), name="branch")
    outer_in = tf.keras.Input((4,), name="outer_in")
    model = tf.keras.Model(outer_in, branch(outer_in))
    config = model.get_config()
    entry = {e["name"]: e for e in config["layers"]}["branch"]
    assert entry["class_name"] == "Model" and entry["inbound_nodes"] == [[["outer_in", 0, 0, {}]]]
    assert config["output_layers"] == [["branch", 1, 0]]  # (a model's node 0 is its own; its calls count from 1)
    inner = {e["name"]: e for e in entry["config"]["layers"]}
    assert inner["sequential"]["inbound_nodes"] == [[["inp", 0, 0, {}]]]

    again = tf.keras.Model.from_config(config)
    assert [layer.name for layer in again.layers] == ["outer_in", "branch"]
    assert [type(layer).__name__ for layer in again.get_layer("branch").layers] == ["InputLayer", "Sequential", "Dense"]
    again.set_weights(model.get_weights())
    x = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_allclose(again.predict(x), model.predict(x), rtol=1e-6)
    json_again = tf.keras.models.model_from_json(model.to_json())
    assert [layer.name for layer in json_again.layers] == ["outer_in", "branch"]


def test_tensorflows_file_with_frozen_nested_models_loads_and_predicts_the_same():
    """keras_nested.h5: a frozen Sequential base with two BatchNormalizations inside a
    functional branch inside a two-output model, fitted and saved by TensorFlow."""
    _h5py()
    want = np.load(os.path.join(TF_DATA, "keras_nested.npz"))
    model = tf.keras.models.load_model(os.path.join(TF_DATA, "keras_nested.h5"))
    assert [layer.name for layer in model.layers] == list(want["layers"])
    assert len(model.trainable_weights) == int(want["trainable"])
    cls, reg = model.predict([want["x"], want["a"]])
    np.testing.assert_allclose(cls, want["cls"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(reg, want["reg"], rtol=1e-5, atol=1e-6)


def test_a_file_distflow_writes_for_nested_models_has_tensorflows_layout(tmp_path):
    """The model make_tf_keras_nested.py builds, built here: the file lists the same layers
    and, in each, the same weights in the same order as TensorFlow's file, and loads back."""
    _h5py()
    model = nested_keras_model(tf)
    path = str(tmp_path / "nested.h5")
    model.save(path)
    assert _layout(path) == _layout(os.path.join(TF_DATA, "keras_nested.h5"))
    want = np.load(os.path.join(TF_DATA, "keras_nested.npz"))
    before = model.predict([want["x"], want["a"]])
    K.clear_session()
    again = tf.keras.models.load_model(path)
    for got, expected in zip(again.predict([want["x"], want["a"]]), before):
        np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_a_frozen_layers_weights_load_from_a_file_that_lists_them_in_another_order(tmp_path):
    """TF 1.x's Keras lists a frozen model's trainable weights before any moving statistics;
    later releases list them layer by layer. Either file loads into the right weights."""
    h5 = _h5py()
    model = tf.keras.Sequential([layers.BatchNormalization(input_shape=(3,)), layers.BatchNormalization()])
    model.trainable = False
    path = str(tmp_path / "bn.h5")
    model.save_weights(path)
    values = {w.name: np.arange(3, dtype=np.float32) + 10 * i for i, w in enumerate(model.weights)}
    with h5.File(path, "r+") as f:
        for name in ("batch_normalization", "batch_normalization_1"):
            group = f["model_weights"][name] if "model_weights" in f else f[name]
            names = [_text(w) for w in group.attrs["weight_names"]]
            for weight in names:
                group[weight][()] = values[weight]
            group.attrs["weight_names"] = [n.encode() for n in names[2:] + names[:2]]  # moving stats first
    model.load_weights(path)
    for w in model.weights:
        np.testing.assert_array_equal(K.get_value(w), values[w.name])


def test_a_nested_model_fine_tuned_runs_only_its_own_calls_updates_and_losses():
    """The base's BatchNormalization and activity regularizer were also called on the base's
    own input when it was built: a model that calls the base runs the updates and counts the
    losses of its own call only, as TF 1.x's Keras does (the others would need the base's
    input fed)."""
    base = tf.keras.Sequential([layers.Dense(3, input_shape=(4,), activity_regularizer=tf.keras.regularizers.l1(0.1),
                                             kernel_regularizer=tf.keras.regularizers.l2(0.5)),
                                layers.BatchNormalization(momentum=0.9)])
    inp = tf.keras.Input((4,))
    model = tf.keras.Model(inp, base(inp))
    assert len(base.updates) == 4 and len(model.get_updates_for(model.inputs)) == 2
    assert len(model.get_updates_for(None)) == 0
    assert len(model.get_losses_for(None)) == 1 and len(model.get_losses_for(model.inputs)) == 1  # l2; l1 of this call
    x = np.random.default_rng(5).standard_normal((16, 4)).astype(np.float32)
    kernel, bias = K.batch_get_value(base.layers[0].weights)
    model.compile(tf.keras.optimizers.SGD(0.0), "mse")
    loss = model.train_on_batch(x, np.zeros((16, 3), np.float32))
    h = x @ kernel + bias
    np.testing.assert_allclose(K.get_value(base.layers[1].moving_mean), 0.1 * h.mean(0), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(K.get_value(base.layers[1].moving_variance), 0.9 + 0.1 * h.var(0), rtol=1e-4)
    normalized = (h - h.mean(0)) / np.sqrt(h.var(0) + 1e-3)
    want = (normalized ** 2).mean() + 0.5 * (kernel ** 2).sum() + 0.1 * np.abs(h).sum() / 16
    np.testing.assert_allclose(loss, want, rtol=1e-4)


# -- multi_gpu_model ---------------------------------------------------------------------------
def test_multi_gpu_model_predicts_what_the_template_predicts_and_runs_each_replica_on_its_gpu():
    template = _mlp()
    parallel = tf.keras.utils.multi_gpu_model(template, gpus=2)
    assert [layer.name for layer in parallel.layers] == ["dense_input", "lambda", "lambda_1", "sequential", "dense_1"]
    assert parallel.layers[-2] is template  # (the idiom that saves the template from the parallel model)
    for rows in (64, 7):  # 7: the last replica takes what does not divide evenly
        x = np.random.default_rng(rows).standard_normal((rows, 4)).astype(np.float32)
        np.testing.assert_allclose(parallel.predict(x), _mlp_numpy(template.get_weights(), x), rtol=1e-5,
                                   atol=1e-6)
    meta = tf.RunMetadata()
    K.get_session().run(parallel.output, {parallel.input: np.ones((4, 4), np.float32)},
                        options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=meta)
    ran = {(node.node_name, dev.device) for dev in meta.step_stats.dev_stats for node in dev.node_stats}
    for replica in (0, 1):
        matmuls = {d for name, d in ran if name.startswith(f"replica_{replica}/sequential/dense/MatMul")}
        assert matmuls and all(d.endswith(f"GPU:{replica}") for d in matmuls), sorted(ran)
    assert all(d.endswith("CPU:0") for name, d in ran if name.startswith("dense_1/concat"))


def test_a_multi_gpu_step_is_the_templates_step_on_the_whole_batch():
    """Without batch statistics, the replicas' summed gradients are the whole batch's: one SGD
    step of the parallel model moves the shared weights as one step of the template on the
    whole batch does (NumPy's step written out below)."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal((64, 4)).astype(np.float32)
    y = rng.standard_normal((64, 3)).astype(np.float32)
    template = _mlp()
    w1, b1, w2, b2 = template.get_weights()
    parallel = tf.keras.utils.multi_gpu_model(template, gpus=[0, 1])
    parallel.compile(tf.keras.optimizers.SGD(0.1), "mse")
    parallel.fit(x, y, batch_size=64, epochs=1, verbose=0)

    h = x @ w1 + b1
    a = np.maximum(h, 0)
    g = 2 * (a @ w2 + b2 - y) / y.size  # d mean((out - y)^2) / d out
    gh = (g @ w2.T) * (h > 0)
    want = [w1 - 0.1 * x.T @ gh, b1 - 0.1 * gh.sum(0), w2 - 0.1 * a.T @ g, b2 - 0.1 * g.sum(0)]
    for got, expected in zip(template.get_weights(), want):
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-6)
    train_ops = tf.get_default_graph().get_operations()
    backward = [op for op in train_ops if "gradients/replica_1/" in op.name and op.type in ("MatMul", "BatchMatMulV2")]
    assert backward and all(op.device.endswith("GPU:1") for op in backward)  # each replica's backward pass on its GPU


def test_multi_gpu_model_runs_its_replicas_batch_normalization_updates_only():
    """The template's own call (on the whole batch, when it was built) has BatchNormalization
    updates too; the parallel model runs its replicas' only, each on its share, and not the
    template once more on the whole batch. (TF 1.x's Keras ran all three: they all follow
    from the inputs the models share.)"""
    template = tf.keras.Sequential([layers.Dense(3, input_shape=(4,)), layers.BatchNormalization(momentum=0.5)])
    parallel = tf.keras.utils.multi_gpu_model(template, gpus=2)
    updates = parallel._own_updates()
    assert len(template.updates) == 6 and len(updates) == 4
    assert all(u.op.name.startswith(("replica_0/", "replica_1/")) for u in updates)
    parallel.compile(tf.keras.optimizers.SGD(0.0), "mse")
    x = np.random.default_rng(7).standard_normal((8, 4)).astype(np.float32)
    kernel, bias = K.batch_get_value(template.layers[0].weights)
    parallel.train_on_batch(x, np.zeros((8, 3), np.float32))
    first, second = (x[:4] @ kernel + bias).mean(0), (x[4:] @ kernel + bias).mean(0)
    # each replica's update moves the mean from where the step began halfway to its share's mean
    np.testing.assert_allclose(K.get_value(template.layers[1].moving_mean), 0.5 * first + 0.5 * second, rtol=1e-5,
                               atol=1e-6)


def test_multi_gpu_model_keeps_the_templates_inputs_and_named_outputs():
    a, b = tf.keras.Input((6,), name="a"), tf.keras.Input((3,), name="b")
    h = layers.concatenate([layers.Dense(8, activation="relu")(a), b])
    model = tf.keras.Model([a, b], [layers.Dense(3, activation="softmax", name="cls")(h),
                                    layers.Dense(1, name="reg")(h)])
    parallel = tf.keras.utils.multi_gpu_model(model, gpus=3, cpu_relocation=True)
    assert parallel.output_names == ["cls", "reg"] and len(parallel.inputs) == 2
    rng = np.random.default_rng(4)
    x, x2 = rng.standard_normal((30, 6)).astype(np.float32), rng.standard_normal((30, 3)).astype(np.float32)
    relocated = parallel.get_layer(model.name)
    assert relocated is not model and all(v.device.endswith("CPU:0") for v in relocated.weights)
    for got, want in zip(parallel.predict([x, x2]), model.predict([x, x2])):  # the relocated copy kept the weights
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    parallel.compile("adam", {"cls": "sparse_categorical_crossentropy", "reg": "mse"})
    history = parallel.fit([x, x2], {"cls": rng.integers(0, 3, 30), "reg": rng.standard_normal((30, 1))},
                           batch_size=10, epochs=2, verbose=0)
    assert np.isfinite(history.history["loss"]).all() and set(history.history) >= {"cls_loss", "reg_loss"}


def test_multi_gpu_model_refuses_one_gpu_and_gpus_the_process_lacks():
    template = _mlp()
    with pytest.raises(ValueError, match="call `multi_gpu_model` with `gpus >= 2`. Received: `gpus=1`"):
        tf.keras.utils.multi_gpu_model(template, gpus=1)
    with pytest.raises(ValueError, match=r"len\(gpus\) >= 2"):
        tf.keras.utils.multi_gpu_model(template, gpus=[0])
    with pytest.raises(ValueError, match=r"expect the following devices to be available: .*'/gpu:40'.* However this "
                                         r"machine only has: .*Try reducing `gpus`"):
        tf.keras.utils.multi_gpu_model(template, gpus=[0, 40])
