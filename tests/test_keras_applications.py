"""tf.keras.applications: the ImageNet models against what TensorFlow 2.21's graph-mode Keras
builds and predicts (tests/data/tensorflow/make_tf_keras_applications.py), their weights
from Keras's cache, and transfer learning on them."""

import json
import os
import shutil

import numpy as np
import pytest

import distflow as tf
from tf_figures import formula_input, formula_weights

A = tf.keras.applications
TF_DATA = os.path.join(os.path.dirname(__file__), "data", "tensorflow")
STRUCTURE = json.load(open(os.path.join(TF_DATA, "keras_applications.json"), encoding="utf-8"))
FIGURES = np.load(os.path.join(TF_DATA, "keras_applications.npz"))
CASES = {
    "vgg16": lambda **kw: A.VGG16(input_shape=(32, 32, 3), classes=7, **kw),
    "vgg19_notop_avg": lambda **kw: A.VGG19(include_top=False, input_shape=(32, 32, 3), pooling="avg", **kw),
    "mobilenet": lambda **kw: A.MobileNet(input_shape=(32, 32, 3), alpha=0.25, classes=5, **kw),
    "mobilenet_notop_max": lambda **kw: A.MobileNet(include_top=False, input_shape=(64, 48, 3), alpha=0.5,
                                                    pooling="max", **kw),
    "mobilenet_v2": lambda **kw: A.MobileNetV2(input_shape=(32, 32, 3), alpha=0.35, classes=5, **kw),
    "mobilenet_v2_notop": lambda **kw: A.MobileNetV2(include_top=False, input_shape=(48, 40, 3), alpha=1.3, **kw),
    "xception": lambda **kw: A.Xception(input_shape=(75, 75, 3), classes=3, **kw),
    "inception_v3_notop_avg": lambda **kw: A.InceptionV3(include_top=False, input_shape=(75, 75, 3), pooling="avg",
                                                         **kw),
    "densenet121": lambda **kw: A.DenseNet121(input_shape=(32, 32, 3), classes=4, **kw),
    "densenet169_notop_max": lambda **kw: A.DenseNet169(include_top=False, input_shape=(32, 32, 3), pooling="max",
                                                        **kw),
    "inception_resnet_v2_notop_avg": lambda **kw: A.InceptionResNetV2(include_top=False, input_shape=(75, 75, 3),
                                                                      pooling="avg", **kw),
    "resnet_resnet50": lambda **kw: A.resnet.ResNet50(input_shape=(32, 32, 3), classes=3, **kw),
    "resnet50v2_notop_avg": lambda **kw: A.ResNet50V2(include_top=False, input_shape=(32, 32, 3), pooling="avg",
                                                      **kw),
    "resnet50": lambda **kw: A.ResNet50(input_shape=(32, 32, 3), classes=3, **kw),  # (TF 1.x's form)
    "resnet50_notop_max": lambda **kw: A.resnet50.ResNet50(include_top=False, input_shape=(40, 32, 3),
                                                           pooling="max", **kw),
}
# TF 1.x's Keras called MobileNetV2's classifier "Logits" and ResNet's "probs"; TensorFlow 2's
# calls them "predictions"
TF2_NAMES = {"Logits": "predictions", "probs": "predictions"}

pytestmark = pytest.mark.usefixtures("fresh_keras")  # (conftest.py: a fresh Keras session and a seed)


def _h5py():
    return pytest.importorskip("h5py", reason="Keras's HDF5 files need h5py (the keras extra)")


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_model_is_tensorflows_and_with_its_weights_gives_its_predictions(case):
    """The layers with weights (name, class, parameters, output shape) are TensorFlow's, in its
    order, so Keras's weight files load by topology; the weightless ones follow TF 1.x's Keras
    (MobileNet pads its first convolution with a ZeroPadding2D and reshapes before its
    classifier, as TF 1.x did; TensorFlow 2 pads with 'same' and pools with keepdims). Then
    every weight is set by a formula of its place and name, in both libraries: the same
    weights in the same order give TensorFlow's predictions (of a formula's input)."""
    model = CASES[case](weights=None)
    want = STRUCTURE[case]
    assert model.name == want["name"]
    mine = [[TF2_NAMES.get(layer.name, layer.name), type(layer).__name__, layer.count_params(),
             list(layer.output_shape)] for layer in model.layers if layer.count_params()]
    assert mine == [layer for layer in want["layers"] if layer[2]]
    assert list(model.output_shape) == want["layers"][-1][3]
    assert model.count_params() == sum(layer[2] for layer in want["layers"])
    model.set_weights(formula_weights(model.weights))
    want = FIGURES[f"{case}_pred"]
    x = formula_input((2,) + tuple(model.input_shape[1:]))
    np.testing.assert_allclose(model.predict(x), want, rtol=2e-4, atol=2e-5 * np.abs(want).max())


@pytest.mark.parametrize("case", ["mobilenet", "mobilenet_v2"])
def test_weight_files_tensorflow_saved_give_its_predictions(case):
    _h5py()
    model = CASES[case](weights=os.path.join(TF_DATA, f"keras_app_{case}.h5"))
    np.testing.assert_allclose(model.predict(FIGURES[f"{case}_x"]), FIGURES[f"{case}_random_pred"], rtol=1e-4,
                               atol=2e-6)


def test_imagenet_weights_come_from_keras_cache_and_are_never_downloaded(tmp_path, monkeypatch):
    _h5py()
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError, match=r"mobilenet_2_5_128_tf_no_top.h5 is not in Keras's cache \(.*models"
                                                r"/mobilenet_2_5_128_tf_no_top.h5\), and distflow does not download: "
                                                r"fetch https://storage.googleapis.com/tensorflow/keras-applications/"
                                                r"mobilenet_v1/mobilenet_2_5_128_tf_no_top.h5"):
        A.MobileNet(input_shape=(128, 128, 3), alpha=0.25, include_top=False)
    made = A.MobileNet(input_shape=(128, 128, 3), alpha=0.25, include_top=False, weights=None)
    rng = np.random.default_rng(0)
    values = [rng.uniform(0.5, 1.5, w.shape) for w in made.get_weights()]
    made.set_weights(values)
    (tmp_path / "models").mkdir()
    made.save_weights(str(tmp_path / "models" / "mobilenet_2_5_128_tf_no_top.h5"))
    tf.keras.backend.clear_session()
    loaded = A.mobilenet.MobileNet(input_shape=(128, 128, 3), alpha=0.25, include_top=False)
    for got, want in zip(loaded.get_weights(), values):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_arguments_are_checked_as_keras_checks_them():
    with pytest.raises(ValueError, match="`classes` should be 1000"):
        A.VGG16(classes=10)
    with pytest.raises(ValueError, match="The `weights` argument should be either `None`"):
        A.VGG19(weights="no such file.h5")
    with pytest.raises(ValueError, match=r"should be \(224, 224, 3\)"):
        A.VGG16(input_shape=(96, 96, 3))
    with pytest.raises(ValueError, match="alpha can be one of `0.25`, `0.50`, `0.75` or `1.0` only"):
        A.MobileNet(alpha=0.3, include_top=False)
    with pytest.raises(ValueError, match="Input size must be at least 32x32"):
        A.MobileNet(input_shape=(16, 16, 3), weights=None)
    with pytest.raises(ValueError, match="you should specify a static `input_shape`"):
        A.VGG16(input_shape=(None, None, 3), weights=None)
    with pytest.raises(ValueError, match="pooling must be None, 'avg' or 'max'"):
        A.VGG16(include_top=False, pooling="sum", weights=None)


def test_preprocess_input_modes_are_numpys():
    x = np.random.default_rng(1).uniform(0, 255, (2, 4, 4, 3)).astype(np.float32)
    np.testing.assert_allclose(A.mobilenet.preprocess_input(x), x / 127.5 - 1, rtol=1e-6)
    np.testing.assert_allclose(A.vgg16.preprocess_input(x), x[..., ::-1] - [103.939, 116.779, 123.68], atol=1e-4)
    np.testing.assert_allclose(A.resnet50.preprocess_input(x), A.vgg16.preprocess_input(x), atol=1e-4)
    np.testing.assert_allclose(A.resnet_v2.preprocess_input(x), x / 127.5 - 1, rtol=1e-6)
    torch = A.imagenet_utils.preprocess_input(x, mode="torch")
    np.testing.assert_allclose(torch, (x / 255 - [0.485, 0.456, 0.406]) / [0.229, 0.224, 0.225], rtol=1e-5)
    with tf.Session() as sess:  # a tensor stays a tensor
        np.testing.assert_allclose(sess.run(A.vgg19.preprocess_input(tf.constant(x))), A.vgg16.preprocess_input(x),
                                   atol=1e-4)
    before = x.copy()
    A.vgg16.preprocess_input(x)
    np.testing.assert_array_equal(x, before)  # (the caller's array is left as it was)


def test_decode_predictions_reads_the_class_index_from_keras_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    preds = np.zeros((2, 1000), np.float32)
    preds[0, [3, 7]] = [0.7, 0.2]
    preds[1, 999] = 1.0
    with pytest.raises(FileNotFoundError, match="imagenet_class_index.json is not in Keras's cache"):
        A.vgg16.decode_predictions(preds)
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "imagenet_class_index.json").write_text(
        json.dumps({str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}))
    top = A.mobilenet_v2.decode_predictions(preds, top=2)
    assert top[0] == [("n00000003", "class_3", np.float32(0.7)), ("n00000007", "class_7", np.float32(0.2))]
    assert top[1][0][:2] == ("n00000999", "class_999")
    with pytest.raises(ValueError, match=r"Found array with shape: \(2, 10\)"):
        A.imagenet_utils.decode_predictions(preds[:, :10])


def test_a_frozen_base_fine_tunes_a_new_head_and_saves_with_it(tmp_path):
    """Transfer learning as TF 1.x tutorials wrote it: the base without its classifier,
    frozen, under a new head; its file loads with the base as one layer."""
    _h5py()
    base = A.MobileNetV2(input_shape=(32, 32, 3), alpha=0.35, include_top=False, weights=None)
    base.trainable = False
    model = tf.keras.Sequential([base, tf.keras.layers.GlobalAveragePooling2D(), tf.keras.layers.Dense(3)])
    assert [layer.name for layer in model.layers] == ["mobilenetv2_0.35_32", "global_average_pooling2d", "dense"]
    assert len(model.trainable_weights) == 2
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    before = base.get_weights()
    rng = np.random.default_rng(2)
    model.fit(rng.uniform(-1, 1, (8, 32, 32, 3)).astype(np.float32), rng.standard_normal((8, 3)), epochs=1, verbose=0)
    for got, want in zip(base.get_weights(), before):
        np.testing.assert_array_equal(got, want)
    path = str(tmp_path / "transfer.h5")
    model.save(path)
    x = rng.uniform(-1, 1, (2, 32, 32, 3)).astype(np.float32)
    want = model.predict(x)
    tf.keras.backend.clear_session()
    again = tf.keras.models.load_model(path)
    np.testing.assert_allclose(again.predict(x), want, rtol=1e-5, atol=1e-6)
    shutil.rmtree(tmp_path)


def test_a_saved_mobilenet_loads_with_the_custom_objects_tf1_programs_name(tmp_path):
    _h5py()
    model = CASES["mobilenet"](weights=None)
    x = formula_input((2, 32, 32, 3))
    path = str(tmp_path / "mobilenet.h5")
    model.save(path)
    mobilenet = A.mobilenet
    loaded = tf.keras.models.load_model(path, custom_objects={"relu6": mobilenet.relu6,
                                                              "DepthwiseConv2D": mobilenet.DepthwiseConv2D})
    np.testing.assert_allclose(loaded.predict(x), model.predict(x), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(tf.keras.backend.eval(mobilenet.relu6(tf.constant([-1.0, 3.0, 9.0]))), [0, 3, 6])
