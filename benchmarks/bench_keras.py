"""tf.keras ``Model.fit`` throughput: distflow beside TensorFlow's graph-mode Keras.

The same Keras program for both libraries (``tf`` is distflow, or ``tf.compat.v1`` with
eager execution off, whose ``tf.keras`` then runs in graph mode as in TF 1.x):
  MLP:        Sequential Dense 784-512-512-10 (ReLU, softmax), SGD 0.01, batch 128;
  Deep MNIST: Conv2D 5x5x32 + max-pool, Conv2D 5x5x64 + max-pool, Dense 1024, Dense 10,
              Adam 1e-4, batch 64 of 28x28x1;
  LSTM:       Keras's imdb_lstm example: Embedding 20000x128, LSTM(128) with dropout and
              recurrent dropout 0.2, Dense 1 (sigmoid), Adam, batch 32 of 80 word indices,
              binary cross-entropy;
sparse categorical cross-entropy (binary for the LSTM) with the accuracy metric, one ``fit`` epoch over
``steps`` batches of synthetic data (verbose=0, unshuffled). Samples per second, the median
of 7 rounds, the libraries' rounds taken in turn. Keras's own per-batch work (feeding, the
metrics, callbacks) counts on both sides.

Usage:
  python benchmarks/bench_keras.py [--tf-python /path/to/venv/bin/python] [--steps N]
"""

from __future__ import annotations

from common import median_rates, side_by_side_main

MEASURE = r'''
import time
import numpy as np


def build(tf, mode):
    keras = tf.keras
    keras.backend.clear_session()
    tf.set_random_seed(0)
    rng = np.random.default_rng(0)
    layers = keras.layers
    if mode == "MLP":
        batch, shape = 128, (784,)
        model = keras.Sequential([layers.Dense(512, activation="relu", input_shape=shape),
                                  layers.Dense(512, activation="relu"), layers.Dense(10, activation="softmax")])
        optimizer = keras.optimizers.SGD(learning_rate=0.01)
    elif mode == "LSTM":
        batch, shape = 32, (80,)
        model = keras.Sequential([layers.Embedding(20000, 128, input_length=80),
                                  layers.LSTM(128, dropout=0.2, recurrent_dropout=0.2),
                                  layers.Dense(1, activation="sigmoid")])
        optimizer = keras.optimizers.Adam()
    else:
        batch, shape = 64, (28, 28, 1)
        model = keras.Sequential([
            layers.Conv2D(32, 5, padding="same", activation="relu", input_shape=shape),
            layers.MaxPooling2D(2, padding="same"),
            layers.Conv2D(64, 5, padding="same", activation="relu"), layers.MaxPooling2D(2, padding="same"),
            layers.Flatten(), layers.Dense(1024, activation="relu"), layers.Dense(10, activation="softmax")])
        optimizer = keras.optimizers.Adam(learning_rate=1e-4)
    words = mode == "LSTM"
    model.compile(optimizer, "binary_crossentropy" if words else "sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    data = {}

    def batches(steps):
        if steps not in data:
            x = (rng.integers(1, 20000, size=(steps * batch,) + shape).astype(np.int32) if words else
                 rng.random((steps * batch,) + shape).astype(np.float32))
            data[steps] = (x, rng.integers(0, 2 if words else 10, size=steps * batch).astype(np.int64))
        return data[steps]

    x, y = batches(10)
    model.fit(x, y, batch_size=batch, epochs=1, verbose=0, shuffle=False)  # (warm-up)

    def timed_round(steps):
        x, y = batches(steps)
        start = time.perf_counter()
        model.fit(x, y, batch_size=batch, epochs=1, verbose=0, shuffle=False)
        return steps * batch / (time.perf_counter() - start)
    return timed_round
'''

MODES = ("MLP", "Deep MNIST", "LSTM")


def run_side_by_side(tf_python: str | None, steps: int, rounds: int = 7) -> tuple[dict, dict]:
    return median_rates(MEASURE, MODES, steps, tf_python, rounds)


def main() -> None:
    side_by_side_main(__doc__, MEASURE, MODES, "Keras fit")


if __name__ == "__main__":
    main()
