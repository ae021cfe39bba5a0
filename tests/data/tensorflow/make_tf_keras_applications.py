"""How ``keras_applications.json``, ``keras_applications.npz`` and the ``keras_app_*.h5`` weight
files were made: with TensorFlow 2.21's graph-mode Keras (``tf_keras`` 2.21,
``TF_USE_LEGACY_KERAS=1``, ``tf.compat.v1`` with eager execution off), and for TF 1.x's
``ResNet50`` ``keras_applications`` 1.0.8 (which TF 1.x's Keras wrapped), in a virtual
environment of its own (TensorFlow is never a dependency of distflow's tests).

    python make_tf_keras_applications.py <folder>

``keras_applications.json``: for each case, the model's name and each layer's name, class,
parameter count and output shape, as ``tf.keras.applications`` builds it (``weights=None``).
``keras_applications.npz``: each case's predictions (``<case>_pred``) of an input batch, with
every weight set by a formula of its place in ``model.weights`` (``formula_weights`` of
tests/tf_figures.py, which tests/test_keras_applications.py uses too), so that no weight file is needed. For the
two small MobileNets, every weight is also set to random values (the moving variances
positive), the model saves its weights (``keras_app_<case>.h5``, Keras's HDF5 layout), and
the .npz holds an input batch and the model's predictions of it with them (``<case>_x``,
``<case>_random_pred``).
"""

import json
import os
import sys

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
os.environ["TF_USE_LEGACY_KERAS"] = "1"  # (tf.keras as TF 1.x had it)
import keras_applications.resnet50  # noqa: E402  (keras_applications 1.0.8, TF 1.x's)
import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from tf_figures import formula_input, formula_weights  # noqa: E402  (tests/tf_figures.py)

tf.disable_eager_execution()
A = tf.keras.applications
CASES = {
    "vgg16": lambda: A.VGG16(weights=None, input_shape=(32, 32, 3), classes=7),
    "vgg19_notop_avg": lambda: A.VGG19(weights=None, include_top=False, input_shape=(32, 32, 3), pooling="avg"),
    "mobilenet": lambda: A.MobileNet(weights=None, input_shape=(32, 32, 3), alpha=0.25, classes=5),
    "mobilenet_notop_max": lambda: A.MobileNet(weights=None, include_top=False, input_shape=(64, 48, 3), alpha=0.5,
                                               pooling="max"),
    "mobilenet_v2": lambda: A.MobileNetV2(weights=None, input_shape=(32, 32, 3), alpha=0.35, classes=5),
    "mobilenet_v2_notop": lambda: A.MobileNetV2(weights=None, include_top=False, input_shape=(48, 40, 3), alpha=1.3),
    "xception": lambda: A.Xception(weights=None, input_shape=(75, 75, 3), classes=3),
    "inception_v3_notop_avg": lambda: A.InceptionV3(weights=None, include_top=False, input_shape=(75, 75, 3),
                                                    pooling="avg"),
    "densenet121": lambda: A.DenseNet121(weights=None, input_shape=(32, 32, 3), classes=4),
    "densenet169_notop_max": lambda: A.DenseNet169(weights=None, include_top=False, input_shape=(32, 32, 3),
                                                   pooling="max"),
    "inception_resnet_v2_notop_avg": lambda: A.InceptionResNetV2(weights=None, include_top=False,
                                                                 input_shape=(75, 75, 3), pooling="avg"),
    "resnet_resnet50": lambda: A.resnet.ResNet50(weights=None, input_shape=(32, 32, 3), classes=3),
    "resnet50v2_notop_avg": lambda: A.ResNet50V2(weights=None, include_top=False, input_shape=(32, 32, 3),
                                                 pooling="avg"),
    # (TF 1.x's tf.keras.applications.ResNet50: keras_applications 1.0.8's resnet50, given TF's
    # Keras modules as TF 1.x gave them)
    "resnet50": lambda: keras_applications.resnet50.ResNet50(
        weights=None, input_shape=(32, 32, 3), classes=3, backend=tf.keras.backend, layers=tf.keras.layers,
        models=tf.keras.models, utils=tf.keras.utils),
    "resnet50_notop_max": lambda: keras_applications.resnet50.ResNet50(
        weights=None, include_top=False, input_shape=(40, 32, 3), pooling="max", backend=tf.keras.backend,
        layers=tf.keras.layers, models=tf.keras.models, utils=tf.keras.utils),
}

NUMERIC = ("mobilenet", "mobilenet_v2")
folder = sys.argv[1]
structure, arrays = {}, {}
rng = np.random.RandomState(0)
for name, make in CASES.items():
    tf.keras.backend.clear_session()
    model = make()
    structure[name] = {"name": model.name, "layers": [
        [layer.name, type(layer).__name__, int(layer.count_params()),
         list(layer.output_shape[0] if isinstance(layer.output_shape, list) else layer.output_shape)]
        for layer in model.layers]}
    model.set_weights(formula_weights(model.weights))
    arrays[f"{name}_pred"] = model.predict(formula_input((2,) + tuple(model.input_shape[1:])))
    if name in NUMERIC:
        values = []
        for w in model.weights:
            shape = tuple(w.shape.as_list())
            value = rng.uniform(0.5, 1.5, shape) if "moving_variance" in w.name else rng.uniform(-0.3, 0.3, shape)
            values.append(value.astype(np.float32))
        model.set_weights(values)
        x = rng.uniform(-1, 1, (3,) + tuple(model.input_shape[1:])).astype(np.float32)
        arrays[f"{name}_x"] = x
        arrays[f"{name}_random_pred"] = model.predict(x)
        model.save_weights(os.path.join(folder, f"keras_app_{name}.h5"))
with open(os.path.join(folder, "keras_applications.json"), "w") as f:
    json.dump(structure, f)
np.savez(os.path.join(folder, "keras_applications.npz"), **arrays)
