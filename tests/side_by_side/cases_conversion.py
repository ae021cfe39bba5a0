import numpy as np
INPUTS = dict(f=np.array([1.5, -2.5], np.float32), i=np.array([1, 2], np.int32), d=np.array([0.5, 1.5]))
CASES = [
 "tf.constant([1, 2.5])", "tf.constant(3)", "tf.constant(2 ** 40)", "tf.constant(1.5, tf.int32)", "tf.constant([1, 2], tf.float16)", "tf.constant(np.float64(1.5))",
 "tf.constant([[1, 2], [3]])", "tf.constant('x', shape=[2, 2])", "tf.constant(7, shape=[2, 3])", "tf.constant([1, 2, 3, 4], shape=[2, 2])", "tf.constant([1, 2], shape=[4])",
 "tf.convert_to_tensor([np.int64(1), 2])", "tf.convert_to_tensor([1.0, np.float32(2)])", "tf.convert_to_tensor(np.array([1, 2], np.uint8))", "tf.convert_to_tensor([True, False])",
 "tf.convert_to_tensor([[1, 2]], dtype=tf.float64)", "tf.convert_to_tensor(1.5, dtype=tf.int32)", "tf.convert_to_tensor(f, dtype=tf.float64)", "tf.convert_to_tensor([b'a', 'b'])",
 "f + 1", "f + 1.5", "i + 1", "i * 2.5", "f * i", "d + f", "1 - f", "2 ** i", "f ** 2", "-i", "abs(f)", "f / 2", "i / 2", "i // 2", "i % 2", "f // 1", "~tf.constant(True)",
 "tf.constant(True) & tf.constant(False)", "tf.constant(True) | tf.constant(False)", "tf.constant(True) ^ tf.constant(True)", "f > 0", "i >= 1", "f[0] < f[1]", "f @ tf.reshape(f, [2, 1]) if False else tf.tensordot(f, f, 1)",
 "tf.add(i, 1.5)", "tf.add(f, np.float64(1.0))", "tf.maximum(i, 1.7)", "tf.cast(f, tf.bool)", "tf.cast(tf.constant([0.0, 0.5]), tf.bool)", "tf.cast(tf.constant([True]), tf.float32)",
 "tf.cast(tf.constant([300, -1]), tf.uint8)", "tf.cast(tf.constant([1e10]), tf.int32)", "tf.cast(tf.constant([-1.5, 2.7]), tf.int64)", "tf.cast(tf.constant([np.nan]), tf.int32) if False else tf.cast(f, tf.float16)",
 "tf.to_float(i)", "tf.to_int64(f)", "tf.size(tf.zeros([3, 0]))", "tf.shape(tf.zeros([2, 3]), out_type=tf.int64)", "tf.rank(tf.zeros([]))", "tf.reduce_sum(tf.constant([True, True]))",
 "tf.reduce_mean(tf.constant([1, 2]))", "tf.reduce_mean(tf.constant([1, 2], tf.uint8))", "tf.reduce_prod(tf.constant([2, 3], tf.int64))", "tf.reduce_max(tf.constant([], tf.float32))",
 "tf.reduce_min(tf.constant([], tf.int32))", "tf.reduce_sum(tf.zeros([0, 3]), 0)", "tf.reduce_mean(tf.zeros([0]))", "tf.argmax(tf.constant([[1, 3, 3]]), 1)", "tf.argmin(tf.constant([2.0, np.nan, 1.0]))",
 "tf.reduce_max(tf.constant([1.0, np.nan]))", "tf.maximum(tf.constant([np.nan]), 1.0)", "tf.sort(tf.constant([3.0, np.nan, 1.0]))", "tf.nn.top_k(tf.constant([1.0, np.nan, 3.0]), 2)",
 "tf.cumsum(tf.constant([1, 2, 3], tf.int8))", "tf.cumsum(tf.constant([True, True]))", "tf.math.bincount(tf.constant([[1, 2], [2, 2]]), axis=-1) if False else tf.bincount(tf.constant([1, 2, 2]), dtype=tf.float64)",
 "tf.histogram_fixed_width(tf.constant([1, 5, 9]), [0, 10], 5)", "tf.range(5, dtype=tf.float32)", "tf.range(tf.constant(3, tf.int64))", "tf.range(2.5)", "tf.fill([2], 3.0) * tf.constant(2, tf.float32)",
 "tf.zeros_like(i, dtype=tf.float32)", "tf.ones([2], tf.bool)", "tf.zeros([2], tf.string)", "tf.ones_like(tf.constant(['a']))" , "tf.one_hot([1], 3, dtype=tf.int32)",
 "tf.one_hot([1], 3, on_value=True, off_value=False)", "tf.linspace(0.0, 1.0, 3)", "tf.identity(tf.constant(1, tf.uint16)) + 1",
]
