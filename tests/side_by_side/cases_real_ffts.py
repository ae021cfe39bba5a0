import numpy as np
r = np.random.RandomState(13)
INPUTS = dict(x=r.randn(2, 4, 6), y=r.randn(3, 4, 5).astype(np.float32))
CASES = ["tf.signal.rfft2d(x)", "tf.signal.rfft2d(x, [3, 8])", "tf.signal.rfft2d(x, [5, 4])", "tf.signal.irfft2d(tf.signal.rfft2d(x))", "tf.signal.irfft2d(tf.signal.rfft2d(x), [4, 6])",
 "tf.signal.irfft2d(tf.signal.rfft2d(x), [3, 7])", "tf.signal.rfft3d(y)", "tf.signal.irfft3d(tf.signal.rfft3d(y), [3, 4, 5])", "tf.signal.rfft3d(y, [2, 5, 6])",
 "tf.gradients(tf.reduce_sum(tf.abs(tf.signal.rfft2d(x)) ** 2), x)", "tf.gradients(tf.reduce_sum(tf.signal.irfft2d(tf.signal.rfft2d(x) * 2) ** 2), x)"]
