"""In-graph replication in the style of TensorFlow's cifar10_multi_gpu_train: one tower per GPU,
variables on the CPU, the towers' gradients averaged and applied once."""
import numpy as np
import distflow as tf

NUM_GPUS = 2
BATCH = 64
rng = np.random.RandomState(5)
data = rng.randn(BATCH * 4, 6).astype(np.float32)
labels = (data @ rng.randn(6, 1) > 0).astype(np.float32)


def inference(x):
    with tf.device("/cpu:0"):
        w = tf.get_variable("weights", [6, 1], initializer=tf.zeros_initializer())
        b = tf.get_variable("biases", [1], initializer=tf.zeros_initializer())
    return tf.matmul(x, w) + b


def tower_loss(scope, x, y):
    logits = inference(x)
    tf.add_to_collection("losses", tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits)))
    return tf.add_n(tf.get_collection("losses", scope), name="total_loss")


def average_gradients(tower_grads):
    average_grads = []
    for grad_and_vars in zip(*tower_grads):
        grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
        grad = tf.reduce_mean(tf.concat(axis=0, values=grads), 0)
        average_grads.append((grad, grad_and_vars[0][1]))
    return average_grads


with tf.Graph().as_default(), tf.device("/cpu:0"):
    x = tf.placeholder(tf.float32, [BATCH, 6])
    y = tf.placeholder(tf.float32, [BATCH, 1])
    opt = tf.train.GradientDescentOptimizer(0.5)
    x_split = tf.split(x, NUM_GPUS)
    y_split = tf.split(y, NUM_GPUS)
    tower_grads = []
    with tf.variable_scope(tf.get_variable_scope()):
        for i in range(NUM_GPUS):
            with tf.device("/gpu:%d" % i):
                with tf.name_scope("tower_%d" % i) as scope:
                    loss = tower_loss(scope, x_split[i], y_split[i])
                    tf.get_variable_scope().reuse_variables()
                    tower_grads.append(opt.compute_gradients(loss))
    train_op = opt.apply_gradients(average_gradients(tower_grads))
    config = tf.ConfigProto(allow_soft_placement=True, log_device_placement=False)
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(40):
            b = step % 4
            sess.run(train_op, {x: data[b * BATCH:(b + 1) * BATCH], y: labels[b * BATCH:(b + 1) * BATCH]})
        w, bias = sess.run(["weights:0", "biases:0"])
    print("towers", NUM_GPUS, "variables", [v.op.name for v in tf.global_variables()])
    print("weights", " ".join("%.6f" % v for v in w.reshape(-1)), "bias %.6f" % bias[0])
