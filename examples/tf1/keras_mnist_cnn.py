"""Keras's mnist_cnn example: a convnet on the digits.

As Keras's examples/mnist_cnn.py wrote it (two 3x3 convolutions of 32 and 64 filters, max
pooling, dropout, a dense layer of 128, Adadelta), through tf.keras, on the 8x8 digits
(channels_last) instead of 28x28 MNIST.
"""
from __future__ import print_function

import numpy as np
import distflow as tf
from sklearn.datasets import load_digits

np.random.seed(1337)  # for reproducibility (as Keras's examples once wrote it)
tf.set_random_seed(1337)

batch_size = 128
num_classes = 10
epochs = 12

img_rows, img_cols = 8, 8
digits = load_digits()
order = np.random.RandomState(0).permutation(len(digits.target))
x, y = digits.data[order], digits.target[order]
x_train = x[:1500].reshape(-1, img_rows, img_cols, 1).astype('float32') / 16
x_test = x[1500:].reshape(-1, img_rows, img_cols, 1).astype('float32') / 16
input_shape = (img_rows, img_cols, 1)
print('x_train shape:', x_train.shape)
print(x_train.shape[0], 'train samples')
print(x_test.shape[0], 'test samples')

y_train = tf.keras.utils.to_categorical(y[:1500], num_classes)
y_test = tf.keras.utils.to_categorical(y[1500:], num_classes)

model = tf.keras.models.Sequential()
model.add(tf.keras.layers.Conv2D(32, kernel_size=(3, 3), activation='relu', input_shape=input_shape))
model.add(tf.keras.layers.Conv2D(64, (3, 3), activation='relu'))
model.add(tf.keras.layers.MaxPooling2D(pool_size=(2, 2)))
model.add(tf.keras.layers.Dropout(0.25))
model.add(tf.keras.layers.Flatten())
model.add(tf.keras.layers.Dense(128, activation='relu'))
model.add(tf.keras.layers.Dropout(0.5))
model.add(tf.keras.layers.Dense(num_classes, activation='softmax'))

model.compile(loss=tf.keras.losses.categorical_crossentropy,
              optimizer=tf.keras.optimizers.Adadelta(learning_rate=1.0),  # (Keras 2.2's default rate)
              metrics=['accuracy'])

model.fit(x_train, y_train,
          batch_size=batch_size,
          epochs=epochs,
          verbose=2,
          validation_data=(x_test, y_test))
score = model.evaluate(x_test, y_test, verbose=0)
print('Test loss:', score[0])
print('Test accuracy:', score[1])
