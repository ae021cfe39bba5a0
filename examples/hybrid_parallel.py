"""Data and model parallelism combined: 2 replicas, each spanning 2 devices.

Replica r puts its first layer on /gpu:(2r) and the rest on /gpu:(2r+1); the
variables live once on /cpu:0 and are shared by both replicas; each replica gets
half of the batch and the averaged gradients are applied once.

    python examples/hybrid_parallel.py
"""
import argparse

import distflow as tf
from distflow.datasets import batches, load_digits


def replica(x, y, first_device, second_device):
    with tf.device(tf.train.assign_to_device(first_device, "/cpu:0")):
        h = tf.layers.dense(x, 256, activation=tf.nn.relu, name="fc1")
    with tf.device(tf.train.assign_to_device(second_device, "/cpu:0")):
        h = tf.layers.dense(h, 128, activation=tf.nn.relu, name="fc2")
        logits = tf.layers.dense(h, 10, name="logits")
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    return loss, logits


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=1200)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--log_device_placement", action="store_true")
    args = parser.parse_args()

    x_train, y_train, x_test, y_test = load_digits()
    tf.set_random_seed(0)
    x = tf.placeholder(tf.float32, [args.batch_size, 64], name="x")
    y = tf.placeholder(tf.int64, [args.batch_size], name="y")
    xs, ys = tf.split(x, 2), tf.split(y, 2)
    optimizer = tf.train.AdamOptimizer(0.002)
    tower_grads, losses = [], []
    for r in range(2):
        with tf.name_scope(f"replica_{r}"), tf.variable_scope("model", reuse=tf.AUTO_REUSE):
            loss, _ = replica(xs[r], ys[r], f"/gpu:{2 * r}", f"/gpu:{2 * r + 1}")
            losses.append(loss)
            tower_grads.append(optimizer.compute_gradients(loss, colocate_gradients_with_ops=True))
    with tf.device("/cpu:0"):
        train_op = optimizer.apply_gradients(tf.train.average_gradients(tower_grads))
        mean_loss = tf.add_n(losses) / 2.0

    x_eval = tf.placeholder(tf.float32, [None, 64])
    with tf.variable_scope("model", reuse=True):
        _, eval_logits = replica(x_eval, tf.zeros([tf.shape(x_eval)[0]], tf.int64), "/cpu:0", "/cpu:0")
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(eval_logits, 1), y_test), tf.float32))

    config = tf.ConfigProto(log_device_placement=args.log_device_placement)
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        stream = batches(x_train, y_train, args.batch_size)
        for step in range(1, args.steps + 1):
            bx, by = next(stream)
            _, loss_value = sess.run([train_op, mean_loss], {x: bx, y: by})
            if step % 300 == 0:
                print(f"step {step}: mean replica loss {loss_value:.4f}")
        print(f"test accuracy: {sess.run(accuracy, {x_eval: x_test}):.4f}")


if __name__ == "__main__":
    main()
