"""Keras's imdb_lstm example: an LSTM classifies sequences of word indices.

As Keras's examples/imdb_lstm.py wrote it (an Embedding of 128, LSTM(128) with dropout 0.2
and recurrent dropout 0.2, a sigmoid output, Adam, batch 32), through tf.keras, on
synthetic "reviews" instead of a download of IMDB: each is a padded sequence of word
indices, and a review is positive when it holds more "good" words (indices 2-50) than
"bad" ones (51-99). The rest of the vocabulary is neutral.
"""
from __future__ import print_function

import numpy as np
import distflow as tf

sequence = tf.keras.preprocessing.sequence

max_features = 2000
maxlen = 40  # cut texts after this number of words
batch_size = 32


def load_data(n, seed):
    rng = np.random.RandomState(seed)
    x, y = [], []
    for _ in range(n):
        length = rng.randint(10, maxlen + 20)
        words = rng.randint(100, max_features, size=length)
        good, bad = rng.randint(0, 6), rng.randint(0, 6)
        while good == bad:
            bad = rng.randint(0, 6)
        places = rng.choice(length, good + bad, replace=False)
        words[places[:good]] = rng.randint(2, 51, size=good)
        words[places[good:]] = rng.randint(51, 100, size=bad)
        x.append(words)
        y.append(int(good > bad))
    return x, np.array(y)


print('Loading data...')
x_train, y_train = load_data(2000, 0)
x_test, y_test = load_data(500, 1)
print(len(x_train), 'train sequences')
print(len(x_test), 'test sequences')

print('Pad sequences (samples x time)')
x_train = sequence.pad_sequences(x_train, maxlen=maxlen)
x_test = sequence.pad_sequences(x_test, maxlen=maxlen)
print('x_train shape:', x_train.shape)
print('x_test shape:', x_test.shape)

print('Build model...')
model = tf.keras.Sequential()
model.add(tf.keras.layers.Embedding(max_features, 128))
model.add(tf.keras.layers.LSTM(128, dropout=0.2, recurrent_dropout=0.2))
model.add(tf.keras.layers.Dense(1, activation='sigmoid'))

# try using different optimizers and different optimizer configs
model.compile(loss='binary_crossentropy',
              optimizer='adam',
              metrics=['accuracy'])

print('Train...')
model.fit(x_train, y_train,
          batch_size=batch_size,
          epochs=4,
          verbose=2,
          validation_data=(x_test, y_test))
score, acc = model.evaluate(x_test, y_test,
                            batch_size=batch_size, verbose=0)
print('Test score:', score)
print('Test accuracy:', acc)
