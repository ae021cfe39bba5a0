import numpy as np
INPUTS = dict(dummy=np.zeros(1, np.float32))
D = "tf.data.Dataset"
E = "tf.data.experimental"
def seq(ds, n):
    return f"exec:ds = {ds}\ni = tf.data.make_one_shot_iterator(ds)\nout = i.get_next()\nruns = {n}"
R = f"{E}.Reducer(lambda k: tf.constant(0, tf.int64), lambda s, x: s + x, lambda s: s * 10)"
R2 = f"{E}.Reducer(lambda k: (k, tf.constant(0.0)), lambda s, x: (s[0], s[1] + tf.cast(x, tf.float32)), lambda k, t: {{'key': k, 'total': t}})"
CASES = [seq(f"{D}.range(10).apply({E}.group_by_reducer(lambda x: x % 3, {R})).batch(5)", 1),
         seq(f"{D}.from_tensor_slices(tf.constant([5, 1, 8, 2], tf.int64)).apply({E}.group_by_reducer(lambda x: 7 - x % 2, {R2}))", 2),
         "exec:ds = tf.data.experimental.sample_from_datasets([tf.data.Dataset.range(3), tf.data.Dataset.range(10, 14)], seed=1)\ni = tf.data.make_one_shot_iterator(ds.batch(20))\nv = i.get_next()\nout = tf.sort(v)",
         "exec:ds = tf.data.experimental.sample_from_datasets([tf.data.Dataset.range(3), tf.data.Dataset.range(10, 14)], [1.0, 0.0], seed=1)\ni = tf.data.make_one_shot_iterator(ds.batch(20))\nout = i.get_next()"]
