import numpy as np
r = np.random.RandomState(16)
INPUTS = dict(a=r.randn(4, 4), b=r.randn(2, 3, 3).astype(np.float32), big=r.randn(3, 3) * 4, c=(r.randn(3, 3) + 1j * r.randn(3, 3)), rhs=r.randn(4, 2))
CASES = ["tf.linalg.expm(a)", "tf.linalg.expm(b)", "tf.linalg.expm(big)", "tf.linalg.expm(c)", "tf.linalg.expm(tf.zeros([0, 0], tf.float64))",
 "tf.gradients(tf.reduce_sum(tf.linalg.expm(a) * a), a)", "tf.gradients(tf.reduce_sum(tf.linalg.expm(big) ** 2), big)",
 "tf.linalg.lu(a)", "tf.linalg.lu(b)", "tf.linalg.lu(c)", "tf.linalg.lu_reconstruct(*tf.linalg.lu(a))", "tf.linalg.lu_solve(*tf.linalg.lu(a), rhs)",
 "tf.linalg.lu_matrix_inverse(*tf.linalg.lu(b))", "tf.linalg.lu_reconstruct(*tf.linalg.lu(b))", "tf.linalg.lu(a, output_idx_type=tf.int64)"]
