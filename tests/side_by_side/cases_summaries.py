import numpy as np
r = np.random.RandomState(18)
INPUTS = dict(x=r.randn(100).astype(np.float32), img=(r.rand(2, 3, 4, 3) * 255).astype(np.uint8), f=r.rand(1, 3, 4, 1).astype(np.float32),
              audio=(r.rand(1, 20) * 2 - 1).astype(np.float32))
CASES = [
 "tf.summary.scalar('loss', tf.constant(1.5))", "tf.summary.scalar('a/b', x[0])", "tf.summary.histogram('h', x)", "tf.summary.histogram('h', tf.constant([1.0, 1.0, 2.0]))",
 "tf.summary.histogram('empty', tf.zeros([0]))", "tf.summary.histogram('ints', tf.constant([1, 5, 1000000]))", "tf.summary.image('im', img)", "tf.summary.image('im', img, max_outputs=1)",
 "tf.summary.image('f', f)", "tf.summary.image('neg', f - 0.5)", "tf.summary.audio('snd', audio, 8000)", "tf.summary.text('t', tf.constant('hello'))",
 "tf.summary.merge([tf.summary.scalar('a', 1.0), tf.summary.scalar('b', 2.0)])",
 "exec:\nwith tf.name_scope('outer'):\n    s = tf.summary.scalar('v', 1.0, family='fam')\nout = s",
 "tf.summary.tensor_summary('ts', tf.constant([[1, 2]]))",
]
CASES += ["exec:a = tf.summary.scalar('loss', 1.0)\nb = tf.summary.scalar('loss', 2.0)\nout = [a, b]",
          "exec:\nwith tf.name_scope('layer'):\n    h = tf.summary.histogram('weights', tf.constant([1.0, -3.0]))\nout = h",
          "tf.summary.audio('snd', audio, 8000, max_outputs=1)"]
