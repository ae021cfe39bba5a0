"""The single-device baseline of seed_in_graph.py: the whole batch in one matmul.

Expected output: [[ 9.] [21.] [33.] [45.]]
"""
import distflow as tf

with tf.device('/cpu:0'):
    input_data = tf.Variable([[1., 2., 3.], [4., 5., 6.], [7., 8., 9.], [10., 11., 12.]])
    b = tf.Variable([[1.], [1.], [2.]])
with tf.device('/gpu:0'):
    output = tf.matmul(input_data, b)
with tf.Session(config=tf.ConfigProto(log_device_placement=True)) as sess:
    sess.run(tf.global_variables_initializer())
    print(sess.run(output))
