import numpy as np
r = np.random.RandomState(14)
INPUTS = dict(x=r.randn(2, 6, 7, 3).astype(np.float32), f=r.randn(3, 2, 3).astype(np.float32))
CASES = []
for s, rt, pad in [([1, 1, 1, 1], [1, 1, 1, 1], "SAME"), ([1, 2, 2, 1], [1, 1, 1, 1], "VALID"), ([1, 1, 2, 1], [1, 2, 1, 1], "SAME"), ([1, 2, 1, 1], [1, 1, 2, 1], "VALID")]:
    CASES.append(f"tf.nn.dilation2d(x, f, {s}, {rt}, '{pad}')")
    CASES.append(f"tf.nn.erosion2d(x, f, {s}, {rt}, '{pad}')")
    CASES.append(f"tf.gradients(tf.reduce_sum(tf.nn.dilation2d(x, f, {s}, {rt}, '{pad}') ** 2), [x, f])")
    CASES.append(f"tf.gradients(tf.reduce_sum(tf.nn.erosion2d(x, f, {s}, {rt}, '{pad}') * x[:, :1, :1, :1]), [x, f])")
