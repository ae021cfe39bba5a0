"""Keras's multi_gpu_model example: data parallelism on the GPUs of one machine.

As the TF 1.x documentation of ``tf.keras.utils.multi_gpu_model`` wrote it: the template
model is built under ``/cpu:0`` so that its weights live in host memory, replicated on the
GPUs, compiled and fitted through the parallel model, and saved through the template. Here
a small CNN on scikit-learn's 8x8 digits instead of Xception on ImageNet-sized random data.
On a machine without GPUs distflow's simulated GPUs serve.
"""
from __future__ import print_function

import argparse
import os
import tempfile

import numpy as np
import distflow as tf
from sklearn.datasets import load_digits

parser = argparse.ArgumentParser()
parser.add_argument("--gpus", type=int, default=2)
parser.add_argument("--epochs", type=int, default=10)
args = parser.parse_args()

np.random.seed(7)
tf.set_random_seed(7)
num_classes = 10

digits = load_digits()
order = np.random.RandomState(0).permutation(len(digits.target))
x = (digits.images[order].astype('float32') / 16)[..., None]
y = tf.keras.utils.to_categorical(digits.target[order], num_classes)
x_train, x_test, y_train, y_test = x[:1500], x[1500:], y[:1500], y[1500:]

# Instantiate the base model (or "template" model): under a CPU device scope, so that the
# model's weights are hosted on CPU memory.
with tf.device('/cpu:0'):
    model = tf.keras.Sequential([
        tf.keras.layers.Conv2D(16, 3, activation='relu', padding='same', input_shape=(8, 8, 1)),
        tf.keras.layers.MaxPooling2D(2),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(64, activation='relu'),
        tf.keras.layers.Dense(num_classes, activation='softmax'),
    ])

# Replicates the model on the GPUs. Each batch of 128 is cut into one share per GPU, each
# GPU's replica runs on its share, and the results are concatenated on the CPU.
parallel_model = tf.keras.utils.multi_gpu_model(model, gpus=args.gpus)
parallel_model.summary()
parallel_model.compile(loss='categorical_crossentropy', optimizer='adam', metrics=['accuracy'])

# This `fit` call is distributed over the GPUs.
parallel_model.fit(x_train, y_train, epochs=args.epochs, batch_size=128, verbose=2)
score = parallel_model.evaluate(x_test, y_test, verbose=0)
print('Test accuracy:', score[1])

# Save the model through the template model (which shares the weights), not the parallel one.
path = os.path.join(tempfile.mkdtemp(), 'my_model.h5')
model.save(path)
reloaded = tf.keras.models.load_model(path)
same = np.allclose(reloaded.predict(x_test), parallel_model.predict(x_test), atol=1e-5)
print('Reloaded template predicts as the parallel model:', same)
