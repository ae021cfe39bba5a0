import numpy as np
INPUTS = dict(p=np.concatenate([[0, 1e-300, 1e-100, 1e-20, 1e-8, 0.001, 0.02425, 0.1, 0.3, 0.5, 0.7, 0.97575, 0.999, 1 - 1e-10, 1 - 1e-16, 1, -0.1, 1.1]]),
              y=np.array([-1, -0.999999, -0.9, -0.3, 0, 1e-10, 0.5, 0.99, 0.9999999999, 1, 1.5]),
              b=np.array([0, 1e-8, -0.5, 1, -3, 7.5, 19.99, 20.01, -25, 50, 100, 700, -1000, 1e5]))
CASES = ["tf.math.ndtri(p)", "tf.math.erfinv(y)", "tf.math.bessel_i0e(b)", "tf.math.bessel_i1e(b)", "tf.math.bessel_i0(b[:9])", "tf.math.bessel_i1(b[:9])",
         "tf.math.ndtri(tf.cast(p, tf.float32))", "tf.math.bessel_i1e(tf.cast(b, tf.float32))"]
