"""Train an MLP or a small CNN on scikit-learn's digits with distflow, on one device.

    python examples/train_digits.py --model mlp
    python examples/train_digits.py --model cnn --steps 1500

Prints the test accuracy at the end ("test accuracy: 0.9xx").
"""
import argparse

import numpy as np

import distflow as tf
from distflow.datasets import batches, load_digits


def mlp(x, training):
    h = tf.layers.dense(x, 256, activation=tf.nn.relu, name="fc1")
    h = tf.layers.dropout(h, rate=0.2, training=training)
    h = tf.layers.dense(h, 128, activation=tf.nn.relu, name="fc2")
    return tf.layers.dense(h, 10, name="logits")


def cnn(x, training):
    images = tf.reshape(x, [-1, 8, 8, 1])
    h = tf.layers.conv2d(images, 16, 3, padding="same", activation=tf.nn.relu, name="conv1")
    h = tf.layers.max_pooling2d(h, 2, 2)
    h = tf.layers.conv2d(h, 32, 3, padding="same", activation=tf.nn.relu, name="conv2")
    h = tf.layers.max_pooling2d(h, 2, 2)
    h = tf.layers.flatten(h)
    h = tf.layers.dense(h, 64, activation=tf.nn.relu, name="fc")
    return tf.layers.dense(h, 10, name="logits")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", choices=["mlp", "cnn"], default="mlp")
    parser.add_argument("--steps", type=int, default=1200)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--learning_rate", type=float, default=0.002)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    x_train, y_train, x_test, y_test = load_digits()
    tf.set_random_seed(args.seed)
    x = tf.placeholder(tf.float32, [None, 64], name="x")
    y = tf.placeholder(tf.int64, [None], name="y")
    training = tf.placeholder_with_default(False, [], name="training")
    logits = (mlp if args.model == "mlp" else cnn)(x, training)
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    global_step = tf.train.get_or_create_global_step()
    train_op = tf.train.AdamOptimizer(args.learning_rate).minimize(loss, global_step=global_step)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32))

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        stream = batches(x_train, y_train, args.batch_size, seed=args.seed)
        for step in range(1, args.steps + 1):
            bx, by = next(stream)
            _, loss_value = sess.run([train_op, loss], {x: bx, y: by, training: True})
            if step % 300 == 0:
                print(f"step {step}: loss {loss_value:.4f}")
        acc = sess.run(accuracy, {x: x_test, y: y_test})
        print(f"test accuracy: {acc:.4f}")
    return acc


if __name__ == "__main__":
    np.set_printoptions(precision=4)
    main()
