"""Multi-GPU training as tf_cnn_benchmarks' "replicated" mode wrote it: every GPU holds its own
copy of the variables, stages its next batch in a StagingArea on the GPU, runs a
channels-first convnet, and the towers' gradients are summed with tf.contrib.nccl.all_sum so
that every copy takes the same step.

On a machine without GPUs the towers run on distflow's simulated ones.
"""
import argparse

import numpy as np
import distflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--num_gpus", type=int, default=2)
parser.add_argument("--batch_per_gpu", type=int, default=16)
parser.add_argument("--steps", type=int, default=150)
FLAGS, _ = parser.parse_known_args()

# Four classes of 8x8 one-channel images: a bright row, column, diagonal or anti-diagonal.
rng = np.random.RandomState(3)


def make_images(n):
    labels = rng.randint(0, 4, n)
    images = rng.rand(n, 1, 8, 8).astype(np.float32) * 0.5
    for img, label in zip(images, labels):
        k = rng.randint(8)
        if label == 0:
            img[0, k, :] += 1.0
        elif label == 1:
            img[0, :, k] += 1.0
        elif label == 2:
            img[0][np.eye(8, dtype=bool)] += 1.0
        else:
            img[0][np.eye(8, dtype=bool)[::-1]] += 1.0
    return images, labels.astype(np.int32)


train_images, train_labels = make_images(2000)
test_images, test_labels = make_images(400)


def tower(images, labels, scope, reuse=None):
    """The convnet on NCHW images, in its own variable scope: (loss, accuracy, variables)."""
    with tf.variable_scope(scope, reuse=reuse):
        net = tf.layers.conv2d(images, 8, 3, padding="same", activation=tf.nn.relu, data_format="channels_first",
                               kernel_initializer=tf.glorot_uniform_initializer(seed=1))
        net = tf.layers.max_pooling2d(net, 2, 2, data_format="channels_first")
        net = tf.layers.flatten(net, data_format="channels_first")
        logits = tf.layers.dense(net, 4, kernel_initializer=tf.glorot_uniform_initializer(seed=2))
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1, output_type=tf.int32), labels), tf.float32))
    return loss, accuracy, tf.trainable_variables(scope)


images_in = tf.placeholder(tf.float32, [FLAGS.num_gpus, FLAGS.batch_per_gpu, 1, 8, 8])
labels_in = tf.placeholder(tf.int32, [FLAGS.num_gpus, FLAGS.batch_per_gpu])
eval_images = tf.placeholder(tf.float32, [None, 1, 8, 8])
eval_labels = tf.placeholder(tf.int32, [None])

puts, losses, grads, variables = [], [], [], []
for i in range(FLAGS.num_gpus):
    with tf.device("/gpu:%d" % i):
        area = tf.contrib.staging.StagingArea([tf.float32, tf.int32],
                                              shapes=[[FLAGS.batch_per_gpu, 1, 8, 8], [FLAGS.batch_per_gpu]])
        puts.append(area.put([images_in[i], labels_in[i]]))
        images, labels = area.get()
        loss, _, tower_vars = tower(images, labels, "tower_%d" % i)
        losses.append(loss)
        variables.append(tower_vars)
        grads.append(tf.gradients(loss, tower_vars))

# Sum each variable's gradients across the towers (each GPU gets the sum), then every tower
# applies the mean to its own copy.
train_ops = []
summed = [tf.contrib.nccl.all_sum([grads[i][j] for i in range(FLAGS.num_gpus)]) for j in range(len(variables[0]))]
for i in range(FLAGS.num_gpus):
    with tf.device("/gpu:%d" % i):
        opt = tf.train.GradientDescentOptimizer(0.5)
        train_ops.append(opt.apply_gradients(
            [(summed[j][i] / FLAGS.num_gpus, variables[i][j]) for j in range(len(variables[i]))]))
train_op = tf.group(*(train_ops + puts))
total_loss = tf.add_n(losses) / FLAGS.num_gpus

# Every copy starts as tower 0's; the evaluation runs tower 0's copy.
sync = tf.group(*[v.assign(variables[0][j]) for i in range(1, FLAGS.num_gpus)
                  for j, v in enumerate(variables[i])])
with tf.device("/gpu:0"):
    _, eval_accuracy, _ = tower(eval_images, eval_labels, "tower_0", reuse=True)

batch = FLAGS.num_gpus * FLAGS.batch_per_gpu
config = tf.ConfigProto(allow_soft_placement=True)
with tf.Session(config=config) as sess:
    sess.run(tf.global_variables_initializer())
    sess.run(sync)

    def feed(step):
        start = (step * batch) % (len(train_images) - batch)
        return {images_in: train_images[start:start + batch].reshape(images_in.shape.as_list()),
                labels_in: train_labels[start:start + batch].reshape(labels_in.shape.as_list())}

    sess.run(puts, feed(0))  # (the first batches staged: each step then takes one and stages the next)
    for step in range(1, FLAGS.steps + 1):
        _, loss_value = sess.run([train_op, total_loss], feed(step))
        if step % 50 == 0:
            print("step %d, loss %.4f" % (step, loss_value))
    copies = sess.run(variables)
    in_sync = all(np.allclose(a, b, atol=1e-5) for replica in copies[1:] for a, b in zip(copies[0], replica))
    print("replicas in sync:", in_sync)
    print("test accuracy: %.3f" % sess.run(eval_accuracy, {eval_images: test_images, eval_labels: test_labels}))
