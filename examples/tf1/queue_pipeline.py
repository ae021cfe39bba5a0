"""The TF 1.x queue-based input pipeline: producer, shuffle_batch, queue runners, num_epochs."""
import numpy as np
import distflow as tf

rng = np.random.RandomState(3)
images = rng.randn(200, 4).astype(np.float32)
labels = (images.sum(axis=1) > 0).astype(np.int32)

image, label = tf.train.slice_input_producer([images, labels], num_epochs=5, shuffle=True, seed=11)
image_batch, label_batch = tf.train.shuffle_batch([image, label], batch_size=20, capacity=100,
                                                  min_after_dequeue=40, num_threads=2, seed=5,
                                                  allow_smaller_final_batch=True)
logits = tf.layers.dense(image_batch, 2)
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=label_batch, logits=logits))
train_op = tf.train.GradientDescentOptimizer(0.3).minimize(loss)
count = tf.Variable(0, trainable=False, name="examples_seen")
count_op = tf.assign_add(count, tf.shape(label_batch)[0])

init_op = tf.group(tf.global_variables_initializer(), tf.local_variables_initializer())
sess = tf.Session()
sess.run(init_op)
coord = tf.train.Coordinator()
threads = tf.train.start_queue_runners(sess=sess, coord=coord)
step = 0
try:
    while not coord.should_stop():
        sess.run([train_op, count_op])
        step += 1
except tf.errors.OutOfRangeError:
    print("Done training for 5 epochs, %d steps." % step)
finally:
    coord.request_stop()
coord.join(threads)
print("examples seen", sess.run(count))
probabilities = tf.nn.softmax(tf.layers.dense(tf.constant(images), 2, name="dense", reuse=True))
predicted = np.argmax(sess.run(probabilities), axis=1)
print("training accuracy %.3f" % np.mean(predicted == labels))
sess.close()
