"""How ``keras_nested.h5`` and ``keras_nested.npz`` were made: with TensorFlow 2.21's graph-mode
Keras (``tf_keras`` 2.21, ``TF_USE_LEGACY_KERAS=1``, ``tf.compat.v1`` with eager execution
off), in a virtual environment of its own (TensorFlow is never a dependency of distflow's
tests).

    python make_tf_keras_nested.py <folder>

A model with models as layers, as transfer learning writes it: a Sequential ``base`` (Dense,
BatchNormalization, ReLU, Dense, BatchNormalization), frozen; a functional ``branch`` that
calls ``base`` and adds a Dense; and the model, which calls ``branch`` on its first input,
concatenates a second input, and has two outputs. Compiled with Adam, fitted one epoch,
then ``model.save``. The .npz holds the inputs, TensorFlow's ``model.predict`` of them
(``cls``, ``reg``), and the model's layer names (``layers``) and trainable weight count.
"""

import os
import sys

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
os.environ["TF_USE_LEGACY_KERAS"] = "1"  # (tf.keras as TF 1.x had it)
import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from tf_figures import nested_keras_model  # noqa: E402  (tests/tf_figures.py)

tf.disable_eager_execution()
rng = np.random.default_rng(3)
x = rng.standard_normal((32, 6)).astype("float32")
a = rng.standard_normal((32, 2)).astype("float32")
labels = rng.integers(0, 3, 32)
targets = rng.standard_normal((32, 1)).astype("float32")

model = nested_keras_model(tf)
model.fit([x, a], {"cls": labels, "reg": targets}, batch_size=8, epochs=1, verbose=0)
cls, reg = model.predict([x, a])
model.save(os.path.join(sys.argv[1], "keras_nested.h5"))
np.savez(os.path.join(sys.argv[1], "keras_nested.npz"), x=x, a=a, cls=cls, reg=reg,
         layers=np.array([layer.name for layer in model.layers]), trainable=len(model.trainable_weights))
