"""In-graph replication: the digits MLP trained with one tower per device.

The batch is split across the devices, each tower computes its gradients on its own
device, and the averaged gradients are applied once to the variables on the CPU.

    python examples/in_graph_training.py --devices /gpu:0,/gpu:1
"""
import argparse

import distflow as tf
from distflow.datasets import batches, load_digits


def model(x, y):
    h = tf.layers.dense(x, 256, activation=tf.nn.relu, name="fc1")
    h = tf.layers.dense(h, 128, activation=tf.nn.relu, name="fc2")
    logits = tf.layers.dense(h, 10, name="logits")
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    return loss, logits


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--devices", default="/gpu:0,/gpu:1")
    parser.add_argument("--steps", type=int, default=1200)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--log_device_placement", action="store_true")
    args = parser.parse_args()
    devices = args.devices.split(",")

    x_train, y_train, x_test, y_test = load_digits()
    tf.set_random_seed(0)
    x = tf.placeholder(tf.float32, [args.batch_size, 64], name="x")
    y = tf.placeholder(tf.int64, [args.batch_size], name="y")
    towers = tf.train.replicate_model(model, [x, y], devices, param_device="/cpu:0")
    global_step = tf.train.get_or_create_global_step()
    train_op = towers.train_op(tf.train.AdamOptimizer(0.002), global_step=global_step)

    # Evaluation reuses the shared variables on one device.
    x_eval = tf.placeholder(tf.float32, [None, 64])
    with tf.variable_scope("model", reuse=True):
        _, eval_logits = model(x_eval, tf.zeros([tf.shape(x_eval)[0]], tf.int64))
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(eval_logits, 1), y_test), tf.float32))

    config = tf.ConfigProto(log_device_placement=args.log_device_placement)
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        stream = batches(x_train, y_train, args.batch_size)
        for step in range(1, args.steps + 1):
            bx, by = next(stream)
            _, loss = sess.run([train_op, towers.loss], {x: bx, y: by})
            if step % 300 == 0:
                print(f"step {step}: mean tower loss {loss:.4f}")
        print(f"test accuracy: {sess.run(accuracy, {x_eval: x_test}):.4f}")


if __name__ == "__main__":
    main()
