import numpy as np
INPUTS = dict(v=np.arange(12, dtype=np.float32).reshape(4, 3), l=np.array([1, 3], np.int32))
TA = "tf.TensorArray"
CASES = [
 f"{TA}(tf.float32, size=4).unstack(v).stack()", f"{TA}(tf.float32, size=4).unstack(v).read(2)", f"{TA}(tf.float32, size=4).unstack(v).gather([3, 0])",
 f"{TA}(tf.float32, size=2).scatter([1, 0], v[:2]).stack()", f"{TA}(tf.float32, size=2).split(v, [1, 3]).concat()", f"{TA}(tf.float32, size=2).split(v, [1, 3]).read(1)",
 f"{TA}(tf.float32, size=0, dynamic_size=True).write(0, v[0]).write(1, v[1]).write(3, v[2]).size()",
 f"{TA}(tf.float32, size=3).write(0, v[0]).write(1, v[1]).write(2, v[2]).stack()", f"{TA}(tf.float32, size=2, element_shape=[3]).unstack(v[:2]).concat()",
 f"{TA}(tf.float32, size=4).unstack(v).identity().stack()", f"{TA}(tf.float32, size=2).write(0, v[0]).write(0, v[1]).stack()",
 f"{TA}(tf.float32, size=2, clear_after_read=False).write(0, v[0]).read(0)",
 "exec:\nta = tf.TensorArray(tf.float32, size=4)\ni0 = tf.constant(0)\n_, ta = tf.while_loop(lambda i, t: i < 4, lambda i, t: (i + 1, t.write(i, v[i] * tf.cast(i, tf.float32))), [i0, ta])\nout = ta.stack()",
 "exec:\nta = tf.TensorArray(tf.float32, size=4).unstack(v)\nout = tf.gradients(tf.reduce_sum(ta.stack() ** 2), v)",
 "exec:\nta = tf.TensorArray(tf.float32, size=2).split(v, [1, 3])\nout = tf.gradients(tf.reduce_sum(ta.concat() * 2.0), v)",
 f"{TA}(tf.float32, size=3).unstack(v).stack()",
 f"{TA}(tf.int32, size=2).unstack(l).stack()",
 f"{TA}(tf.float32, size=1).write(0, v[0]).write(1, v[1]).stack()",
]
CASES += ["exec:\nta = tf.TensorArray(tf.float32, size=2).split(v, [2, 2])\nout = tf.gradients(tf.reduce_sum(ta.concat() * tf.range(12.0)[:, None] if False else ta.concat() * v), v)",
          "exec:\nta = tf.TensorArray(tf.float32, size=2).split(v, [2, 2])\nout = tf.gradients(tf.reduce_sum(ta.read(1) ** 2), v)",
          "exec:\nta = tf.TensorArray(tf.float32, size=2).unstack(v[:2])\nout = tf.gradients(tf.reduce_sum(ta.concat() ** 2), v)"]
