import numpy as np
r = np.random.RandomState(11)
INPUTS = dict(a=r.randn(4, 4), b=r.randn(4, 2), x=r.randn(3, 5).astype(np.float32), c=(r.randn(3, 3) + 1j * r.randn(3, 3)).astype(np.complex64))
SP = "tf.SparseTensor([[0, 1], [1, 0], [2, 3], [2, 1]], [1.0, 2.0, 3.0, 4.0], [3, 5])"
SPR = "tf.sparse_reorder(" + SP + ")"
CASES = [
 f"tf.sparse_tensor_to_dense({SPR})", f"tf.sparse_reorder({SP})", f"tf.sparse_reduce_sum({SPR}, 1)", f"tf.sparse_reduce_max({SPR}, 0, keepdims=True)",
 f"tf.sparse.reduce_sum_sparse({SPR}, 1)", f"tf.sparse_tensor_dense_matmul({SPR}, tf.ones([5, 2]))", f"tf.sparse_tensor_dense_matmul({SPR}, tf.ones([3, 2]), adjoint_a=True)",
 f"tf.sparse_add({SPR}, tf.ones([3, 5]))", f"tf.sparse_add({SPR}, {SPR})", f"tf.sparse_softmax({SPR})", f"tf.sparse_split(sp_input={SPR}, num_split=2, axis=1)",
 f"tf.sparse_slice({SPR}, [1, 1], [2, 3])", f"tf.sparse_concat(1, [{SPR}, {SPR}])", f"tf.sparse_reshape({SPR}, [5, 3])", f"tf.sparse_transpose({SPR})",
 f"tf.sparse_retain({SPR}, [True, False, True, False])", f"tf.sparse_fill_empty_rows(tf.SparseTensor([[1, 0]], [5.0], [3, 2]), -1.0)", f"tf.sparse_maximum({SPR}, tf.sparse_reorder(tf.SparseTensor([[0, 1], [2, 2]], [5.0, -1.0], [3, 5])))",
 f"tf.sparse.to_indicator(tf.SparseTensor([[0, 0], [1, 1]], [2, 3], [2, 2]), 4)", f"tf.sparse.eye(3)", f"tf.sparse.from_dense(x > 0)", f"tf.sparse_tensor_to_dense(tf.sparse.expand_dims({SPR}, 0))",
 f"tf.sparse.segment_sum(x, [0, 2], [0, 0])", f"tf.sparse_reset_shape({SPR}, [4, 6])", f"tf.sparse_to_dense([[0, 1], [2, 2]], [3, 3], [7, 8], -1)",
 f"tf.sparse_merge(tf.SparseTensor([[0, 0], [1, 0]], tf.constant([2, 1], tf.int64), [2, 1]), tf.SparseTensor([[0, 0], [1, 0]], [0.5, 0.7], [2, 1]), 3)",
 "tf.linalg.qr(a)", "tf.linalg.qr(b, full_matrices=True)", "tf.svd(b, compute_uv=False)", "tf.linalg.eigh(a + tf.transpose(a))[0]", "tf.linalg.expm(a * 0.3)", "tf.linalg.logm(tf.cast(tf.eye(3) * 2.0, tf.complex128))",
 "tf.linalg.solve(a, b)", "tf.matrix_solve(a, b, adjoint=True)", "tf.linalg.lu(a)", "tf.linalg.band_part(a, 1, 2)", "tf.linalg.diag(b)", "tf.linalg.diag_part(b)", "tf.linalg.cholesky_solve(tf.linalg.cholesky(tf.matmul(a, a, transpose_b=True) + tf.eye(4, dtype=tf.float64)), b)",
 "tf.linalg.slogdet(a)", "tf.linalg.matrix_rank(a)", "tf.linalg.pinv(b)", "tf.linalg.global_norm([a, b]) if False else tf.global_norm([a, b])", "tf.linalg.inv(tf.cast(c, tf.complex128))",
 "tf.linalg.det(c)", "tf.abs(c)", "tf.angle(c)", "tf.math.conj(c)", "tf.exp(c)", "tf.log(c)", "tf.sqrt(c)", "tf.matmul(c, c, adjoint_b=True)", "tf.reduce_sum(c, 0)", "tf.complex_abs(c) if hasattr(tf, 'complex_abs') else tf.abs(c)",
 "tf.signal.fft2d(c)", "tf.signal.rfft2d(x)", "tf.signal.irfft2d(tf.signal.rfft2d(x), [3, 5])", "tf.signal.rfft3d(x[None])",
 "tf.math.segment_mean(x, [0, 0, 1])", "tf.math.cumulative_logsumexp(x, axis=1, exclusive=True)", "tf.math.reduce_logsumexp(x, 1)", "tf.math.log_softmax(x, axis=0)",
 "tf.math.reduce_std(x, 1)", "tf.math.top_k(x, 5)", "tf.math.approx_max_k(x, 2) if False else tf.math.argmax(x, 1)", "tf.math.l2_normalize(x, [0, 1], epsilon=1e-3)", "tf.math.sobol_sample(2, 3) if False else tf.math.lbeta(tf.abs(x) + 0.5)",
 "tf.histogram_fixed_width(x, [-1.0, 1.0], nbins=4, dtype=tf.int64)", "tf.nn.fractional_max_pool if False else tf.nn.dilation2d(x[None, :, :, None], tf.zeros([2, 2, 1]), [1, 1, 1, 1], [1, 1, 1, 1], 'SAME')",
]
