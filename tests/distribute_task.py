"""One worker of a MultiWorkerMirroredStrategy job (TF_CONFIG names it): trains a small model
on the same batch as every other worker and prints its losses and final weights as JSON.

Usage: python distribute_task.py STEPS [keras]
With "keras", the model is a tf.keras one compiled in the strategy's scope, and each worker
trains with train_on_batch on its own half of the batch.
"""

import json
import os
import sys

import numpy as np

import distflow as tf

rng = np.random.RandomState(0)
X = rng.randn(32, 6).astype(np.float32)
Y = (X[:, 0] + X[:, 1] > 0).astype(np.int64)


def model(x):
    h = tf.layers.dense(x, 8, activation=tf.nn.tanh, kernel_initializer=tf.constant_initializer(0.1), name="hidden")
    # (a random initializer: every worker must start from worker 0's values)
    return tf.layers.dense(h, 2, kernel_initializer=tf.glorot_uniform_initializer(seed=None), name="logits")


def keras_model():
    """The model of the keras mode (constant initial values, so a test can compute its steps)."""
    model = tf.keras.Sequential([
        tf.keras.layers.Dense(8, activation="tanh", input_shape=(6,), kernel_initializer=tf.keras.initializers.Constant(0.1),
                              kernel_regularizer=tf.keras.regularizers.l2(0.01)),
        tf.keras.layers.Dense(2, activation="softmax", kernel_initializer=tf.keras.initializers.Constant(0.05))])
    model.compile(tf.keras.optimizers.SGD(0.5), "sparse_categorical_crossentropy", metrics=["accuracy"])
    return model


def train_keras(steps, strategy, server, index):
    tf.keras.backend.set_session(tf.Session(server.target))
    with strategy.scope():
        model = keras_model()
    half = slice(16 * index, 16 * (index + 1))
    losses = [model.train_on_batch(X[half], Y[half])[0] for _ in range(steps)]
    print("RESULT " + json.dumps({"losses": losses, "weights": [w.tolist() for w in model.get_weights()]}),
          flush=True)


def main():
    steps = int(sys.argv[1])
    task = json.loads(os.environ["TF_CONFIG"])["task"]
    strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
    server = tf.train.Server(tf.train.ClusterSpec(json.loads(os.environ["TF_CONFIG"])["cluster"]),
                             job_name=task["type"], task_index=task["index"])
    if sys.argv[2:] == ["keras"]:
        return train_keras(steps, strategy, server, task["index"])
    with tf.device(strategy.extended.worker_devices[0]):
        dataset = tf.data.Dataset.from_tensors((X, Y)).repeat()
    with strategy.scope():
        iterator = strategy.make_dataset_iterator(dataset)

        def step(inputs):
            x, y = inputs
            loss = tf.losses.sparse_softmax_cross_entropy(y, model(x))
            train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
            with tf.control_dependencies([train]):
                return tf.identity(loss)

        loss = strategy.reduce(tf.distribute.ReduceOp.MEAN, strategy.experimental_run_v2(step, (iterator.get_next(),)))
    with tf.Session(server.target) as sess:
        sess.run(iterator.initialize())
        sess.run(tf.global_variables_initializer())
        losses = [float(sess.run(loss)) for _ in range(steps)]
        weights = {v.op.name: sess.run(v).tolist() for v in tf.trainable_variables()}
    print("RESULT " + json.dumps({"losses": losses, "weights": weights}), flush=True)


if __name__ == "__main__":
    main()
