"""In-graph replication: one graph, one matmul per (simulated) GPU, results joined on the CPU.

This is TensorFlow 1.x's multi-GPU example with only the import changed.
Expected output: [[ 9.] [21.] [33.] [45.]]
"""
import distflow as tf

num_gpus = 2
with tf.device('/cpu:0'):
    input_data = tf.Variable([[1., 2., 3.], [4., 5., 6.], [7., 8., 9.], [10., 11., 12.]])
    b = tf.Variable([[1.], [1.], [2.]])
inputs = tf.split(input_data, num_gpus)
outputs = []
for i in range(num_gpus):
    with tf.device('/gpu:' + str(i)):
        outputs.append(tf.matmul(inputs[i], b))
with tf.device('/cpu:0'):
    output = tf.concat(outputs, axis=0)
with tf.Session(config=tf.ConfigProto(log_device_placement=True)) as sess:
    sess.run(tf.global_variables_initializer())
    print(sess.run(output))
