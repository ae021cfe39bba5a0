import numpy as np
r = np.random.RandomState(9)
INPUTS = dict(v=np.arange(10, dtype=np.int64), m=r.randn(6, 2).astype(np.float32), s=np.array([b"a b", b"c", b"d e f"]))
D = "tf.data.Dataset"
def it(ds, n=12):
    return f"exec:it = ({ds}).make_one_shot_iterator().get_next()\nout = [it for _ in range(1)]\n" if False else f"exec:ds = {ds}\nnxt = tf.data.make_one_shot_iterator(ds).get_next()\nout = tf.stack([nxt] * 1) if False else nxt"
CASES = []
def seq(ds, n):
    # fetch n elements in one run by building n get_next calls on one iterator
    return f"exec:ds = {ds}\ni = tf.data.make_one_shot_iterator(ds)\nout = i.get_next()\nruns = {n}"
CASES += [seq(f"{D}.from_tensor_slices(v).batch(3)", 3), seq(f"{D}.from_tensor_slices(v).batch(3, drop_remainder=True)", 3),
 seq(f"{D}.range(5).map(lambda x: x * 2).filter(lambda x: x > 2)", 3), seq(f"{D}.range(3).repeat(2)", 6), seq(f"{D}.range(10).skip(3).take(4)", 4),
 seq(f"{D}.range(10).shard(3, 1)", 3), seq(f"{D}.range(6).window(3, shift=2, drop_remainder=True).flat_map(lambda w: w.batch(3))", 2),
 seq(f"{D}.from_tensor_slices((m, v[:6])).batch(4)", 2), seq(f"{D}.range(4).padded_batch(2, padded_shapes=[])", 2),
 seq(f"{D}.range(1, 5).map(lambda x: tf.fill([x], x)).padded_batch(2, padded_shapes=[None], padding_values=tf.constant(-1, tf.int64))", 2),
 seq(f"{D}.range(3).flat_map(lambda x: {D}.range(x))", 3), seq(f"{D}.range(3).interleave(lambda x: {D}.range(x, x + 3), cycle_length=2, block_length=2)", 9),
 seq(f"{D}.zip(({D}.range(3), {D}.range(5, 8)))", 3), seq(f"{D}.range(3).concatenate({D}.range(10, 12))", 5),
 seq(f"{D}.range(5).apply(tf.data.experimental.unbatch()) if False else {D}.range(6).batch(4).apply(tf.data.experimental.unbatch())", 6),
 seq(f"{D}.from_tensor_slices(s).map(lambda x: tf.string_split([x]).values)", 1), seq(f"{D}.range(5).reduce(tf.constant(0, tf.int64), lambda a, x: a + x) if False else {D}.range(5).batch(5)", 1),
 seq(f"{D}.range(8).apply(tf.data.experimental.group_by_window(lambda x: x % 2, lambda k, w: w.batch(3), 3))", 3),
 seq(f"{D}.range(5).map(lambda x: {{'a': x, 'b': x * 2}}).batch(2)", 2), seq(f"{D}.range(7).apply(tf.data.experimental.dense_to_sparse_batch(2, [3])) if False else {D}.range(4).enumerate(start=5)", 4),
 seq(f"{D}.range(10).apply(tf.data.experimental.rejection_resample(lambda x: x % 2, [0.5, 0.5], seed=1)) if False else {D}.range(4).map(lambda x: (x, x * x)).map(lambda a, b: a + b)", 4),
 seq(f"{D}.from_generator(lambda: iter([[1, 2], [3]]), tf.int64, tf.TensorShape([None]))", 2),
 seq(f"{D}.range(6).apply(tf.data.experimental.scan(tf.constant(0, tf.int64), lambda s, x: (s + x, s)))", 6),
 seq(f"{D}.range(6).apply(tf.data.experimental.take_while(lambda x: x < 3)) if hasattr(tf.data.experimental, 'take_while') else {D}.range(3)", 3),
 seq(f"{D}.from_tensors(m).unbatch() if hasattr({D}, 'unbatch') else {D}.from_tensors(m).apply(tf.data.experimental.unbatch())", 2),
 seq(f"{D}.range(5).batch(2).map(lambda x: tf.reduce_sum(x))", 3),
]
