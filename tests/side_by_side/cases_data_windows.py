import numpy as np
INPUTS = dict(v=np.arange(10, dtype=np.int64))
D = "tf.data.Dataset"
def seq(ds, n):
    return f"exec:ds = {ds}\ni = tf.data.make_one_shot_iterator(ds)\nout = i.get_next()\nruns = {n}"
CASES = []
for size, shift, stride, drop in [(3, 2, 1, True), (3, 2, 1, False), (3, None, 1, False), (2, 1, 3, False), (2, 4, 1, False), (1, 3, 1, True), (3, 1, 2, True), (4, 3, 2, False)]:
    ds = f"{D}.range(7).window({size}, shift={shift}, stride={stride}, drop_remainder={drop}).flat_map(lambda w: w.batch({size})).padded_batch(20, padded_shapes=[{size}], padding_values=tf.constant(-1, tf.int64))"
    CASES.append(seq(ds, 1))
CASES.append(seq(f"{D}.zip(({D}.range(7), {D}.range(7).map(lambda x: x * 10))).window(3, 2).flat_map(lambda a, b: {D}.zip((a.batch(3), b.batch(3)))).padded_batch(9, ([3], [3]), (tf.constant(-1, tf.int64), tf.constant(-1, tf.int64)))", 1))
CASES.append(seq(f"{D}.range(7).map(lambda x: {{'k': x}}).window(2).flat_map(lambda d: d['k'].batch(2)).padded_batch(9, [2], tf.constant(-1, tf.int64))", 1))
CASES.append(seq(f"{D}.range(8).window(3, 1).interleave(lambda w: w, cycle_length=2, block_length=2).batch(40)", 1))
CASES.append(seq(f"{D}.range(6).apply(tf.data.experimental.scan(tf.constant(0, tf.int64), lambda s, x: (s + x, s))).batch(10)", 1))
CASES.append(seq(f"{D}.zip(({D}.range(4), {D}.range(4))).apply(tf.data.experimental.scan((tf.constant(1, tf.int64), tf.constant(0.5)), lambda s, x: ((s[0] * 2, s[1] + 1.0), x[0] + x[1] + s[0]))).batch(10)", 1))
