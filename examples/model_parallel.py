"""Model parallelism: one model whose layers live on different devices.

The first layer (and its variables) is on /gpu:0, the rest on /gpu:1; activations
cross between the devices forwards, gradients backwards.

    python examples/model_parallel.py
"""
import argparse

import distflow as tf
from distflow.datasets import batches, load_digits


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=1200)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--log_device_placement", action="store_true")
    args = parser.parse_args()

    x_train, y_train, x_test, y_test = load_digits()
    tf.set_random_seed(0)
    x = tf.placeholder(tf.float32, [None, 64], name="x")
    y = tf.placeholder(tf.int64, [None], name="y")
    with tf.device("/gpu:0"):
        h = tf.layers.dense(x, 256, activation=tf.nn.relu, name="fc1")
    with tf.device("/gpu:1"):
        h = tf.layers.dense(h, 128, activation=tf.nn.relu, name="fc2")
        logits = tf.layers.dense(h, 10, name="logits")
        loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
        accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32))
    # Each gradient op goes where its forward op is.
    train_op = tf.train.AdamOptimizer(0.002).minimize(loss, colocate_gradients_with_ops=True)

    config = tf.ConfigProto(log_device_placement=args.log_device_placement)
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        stream = batches(x_train, y_train, args.batch_size)
        for step in range(1, args.steps + 1):
            bx, by = next(stream)
            _, loss_value = sess.run([train_op, loss], {x: bx, y: by})
            if step % 300 == 0:
                print(f"step {step}: loss {loss_value:.4f}")
        print(f"test accuracy: {sess.run(accuracy, {x: x_test, y: y_test}):.4f}")


if __name__ == "__main__":
    main()
