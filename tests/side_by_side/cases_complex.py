import numpy as np
r = np.random.RandomState(12)
INPUTS = dict(c=(r.randn(3, 3) + 1j * r.randn(3, 3)).astype(np.complex64), d=(r.randn(2, 3, 3) + 1j * r.randn(2, 3, 3)), z=(r.randn(4) + 1j * r.randn(4)))
CASES = [f"tf.{f}(z)" for f in ("exp", "log", "sqrt", "rsqrt", "reciprocal", "tanh", "sin", "cos", "sigmoid", "log1p", "square")]
CASES += [f"tf.gradients(tf.reduce_sum(tf.abs(tf.{f}(z)) ** 2), z)" for f in ("exp", "log", "sqrt", "rsqrt", "reciprocal", "tanh", "sin", "cos", "sigmoid", "log1p", "square")]
CASES += ["tf.reduce_sum(c, 0)", "tf.reduce_mean(d, [1, 2])", "tf.matmul(c, c)", "tf.matmul(c, c, adjoint_a=True)", "tf.matmul(c, c, transpose_b=True)", "tf.matmul(c, c, transpose_a=True, adjoint_b=True)",
  "tf.matmul(d, d)", "tf.matmul(d, d, adjoint_a=True)", "tf.matmul(d, d, transpose_b=True)", "tf.matmul(d, d, transpose_a=True, adjoint_b=True)",
  "tf.gradients(tf.reduce_sum(tf.abs(tf.matmul(c, c * 2, adjoint_a=True)) ** 2), c)", "tf.gradients(tf.reduce_sum(tf.abs(tf.matmul(c, c * 2, transpose_b=True)) ** 2), c)",
  "tf.gradients(tf.reduce_sum(tf.abs(tf.matmul(d, d * 2, adjoint_b=True)) ** 2), d)", "tf.gradients(tf.reduce_sum(tf.abs(tf.matmul(d, d * 2, transpose_a=True)) ** 2), d)",
  "tf.gradients(tf.abs(tf.reduce_mean(d)) ** 2, d)", "tf.gradients(tf.real(tf.reduce_sum(d * d)), d)"]
