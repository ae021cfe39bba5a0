"""Keras's mnist_mlp example: a simple deep MLP on the digits.

As Keras's examples/mnist_mlp.py wrote it (two hidden layers of 512 with dropout, RMSprop,
categorical cross-entropy, 20 epochs of batch 128), through TF 1.x's tf.keras, on scikit-
learn's 8x8 digits instead of a download of MNIST (so a few epochs are enough).
"""
from __future__ import print_function

import numpy as np
import distflow as tf
from sklearn.datasets import load_digits

np.random.seed(1337)  # for reproducibility (as Keras's examples once wrote it)
tf.set_random_seed(1337)

batch_size = 128
num_classes = 10
epochs = 8

digits = load_digits()
order = np.random.RandomState(0).permutation(len(digits.target))
x, y = digits.data[order], digits.target[order]
x_train, x_test = x[:1500].astype('float32') / 16, x[1500:].astype('float32') / 16
y_train, y_test = y[:1500], y[1500:]
print(x_train.shape[0], 'train samples')
print(x_test.shape[0], 'test samples')

# convert class vectors to binary class matrices
y_train = tf.keras.utils.to_categorical(y_train, num_classes)
y_test = tf.keras.utils.to_categorical(y_test, num_classes)

model = tf.keras.models.Sequential()
model.add(tf.keras.layers.Dense(512, activation='relu', input_shape=(64,)))
model.add(tf.keras.layers.Dropout(0.2))
model.add(tf.keras.layers.Dense(512, activation='relu'))
model.add(tf.keras.layers.Dropout(0.2))
model.add(tf.keras.layers.Dense(num_classes, activation='softmax'))

model.summary()

model.compile(loss='categorical_crossentropy',
              optimizer=tf.keras.optimizers.RMSprop(),
              metrics=['accuracy'])

history = model.fit(x_train, y_train,
                    batch_size=batch_size,
                    epochs=epochs,
                    verbose=1,
                    validation_data=(x_test, y_test))
score = model.evaluate(x_test, y_test, verbose=0)
print('Test loss:', score[0])
print('Test accuracy:', score[1])
