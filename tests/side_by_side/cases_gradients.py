import numpy as np
r = np.random.RandomState(21)
INPUTS = dict(
    k=np.array([-2.0, -1.0, -0.5, 0.0, 0.0, 0.5, 1.0, 2.0], np.float32),   # kinks and ties
    t=np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]], np.float32),            # ties for max/min
    z=np.array([[1.0, 0.0, 3.0], [0.0, 0.0, 2.0], [2.0, 4.0, 0.5]], np.float32),  # zeros for prod
    p=(r.rand(2, 3) + 0.5).astype(np.float32),
    u=(r.rand(2, 3) * 0.8 + 0.1).astype(np.float32),
    x=r.randn(2, 3).astype(np.float32),
    y=r.randn(2, 3).astype(np.float32),
    m=(r.randn(3, 3) + 3 * np.eye(3)).astype(np.float64),
    img=r.randn(1, 4, 4, 2).astype(np.float32),
    ti=np.array([[[[1.0], [1.0], [0.0], [2.0]], [[1.0], [0.0], [2.0], [2.0]],
                 [[0.0], [3.0], [3.0], [1.0]], [[3.0], [3.0], [1.0], [0.0]]]], np.float32),
)


def G(expr, wrt="k"):
    """The gradients of ``expr``, each a tensor, or the string 'None' where there is none."""
    return f"[tf.constant('None') if g is None else tf.convert_to_tensor(g) for g in tf.gradients({expr}, [{wrt}])]"


CASES = []
# Kinks: what each op's gradient is where the function has none
for f in ["tf.abs(k)", "tf.nn.relu(k)", "tf.nn.relu6(k * 6 - 6)", "tf.nn.relu6(k * 3 + 6)", "tf.nn.elu(k)", "tf.nn.selu(k)",
          "tf.nn.leaky_relu(k)", "tf.nn.leaky_relu(k, 0.3)", "tf.nn.softplus(k)", "tf.nn.softsign(k)", "tf.sign(k)",
          "tf.round(k)", "tf.floor(k)", "tf.nn.crelu(k)", "tf.sqrt(tf.abs(k))", "tf.clip_by_value(k, -1.0, 1.0)",
          "tf.clip_by_value(k, 0.0, 0.5)", "tf.maximum(k, 0.0)", "tf.minimum(k, 0.0)", "tf.maximum(k, tf.reverse(k, [0]))",
          "tf.pow(k, 2.0)", "tf.pow(k, 0.0)", "tf.pow(tf.abs(k), 0.5)", "tf.pow(k, 3.0)", "k ** 1.5",
          "tf.math.xlogy(k, tf.abs(k))", "tf.math.xdivy(k, tf.abs(k))", "tf.math.xlog1py(k, tf.abs(k))",
          "tf.math.divide_no_nan(1.0, k)", "tf.atan2(k, tf.abs(k))", "tf.atan2(k, k)", "tf.math.squared_difference(k, 0.0)",
          "tf.norm(k)", "tf.norm(k * 0.0)", "tf.norm(k, 1)", "tf.norm(k, np.inf)", "tf.nn.l2_normalize(k, 0)",
          "tf.nn.l2_normalize(k * 0.0, 0)", "tf.math.reduce_euclidean_norm(k)", "tf.reduce_logsumexp(k)",
          "tf.math.reduce_std(k)", "tf.math.reduce_variance(k)", "tf.nn.log_softmax(k)", "tf.nn.softmax(k)",
          "tf.math.log_sigmoid(k)", "tf.math.sigmoid(k)", "tf.tanh(k)", "tf.math.erf(k)", "tf.math.erfc(k)",
          "tf.math.expm1(k)", "tf.math.log1p(tf.abs(k))", "tf.math.reciprocal_no_nan(k)", "tf.math.asinh(k)",
          "tf.math.atan(k)", "tf.sin(k)", "tf.cos(k)", "tf.math.sinh(k)", "tf.math.cosh(k)", "tf.math.square(k)",
          "tf.math.truediv(k, 2.0)", "tf.math.floordiv(k, 2.0)", "tf.math.floormod(k, 1.5)", "tf.math.truncatediv(k, 2.0)",
          "tf.math.truncatemod(k, 1.5)", "tf.math.mod(k, 1.5)", "tf.math.softplus(k * 30)", "tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.abs(k) / 2, logits=k)",
          "tf.nn.weighted_cross_entropy_with_logits(tf.abs(k) / 2, k, 2.0)", "tf.where(k > 0, k, tf.zeros_like(k))",
          "tf.where(k > 0, tf.sqrt(k), tf.zeros_like(k))", "tf.math.bessel_i0e(k)", "tf.math.bessel_i1e(k)",
          "tf.math.lgamma(tf.abs(k) + 0.5)", "tf.math.digamma(tf.abs(k) + 0.5)", "tf.math.erfinv(k / 3)", "tf.math.ndtri(tf.abs(k) / 3 + 0.1)",
          "tf.cumsum(k)", "tf.cumsum(k, exclusive=True, reverse=True)", "tf.cumprod(k)", "tf.cumprod(k, exclusive=True)",
          "tf.cumprod(k, reverse=True)", "tf.math.cumulative_logsumexp(k)", "tf.reduce_prod(k)", "tf.nn.top_k(k, 3)[0]",
          "tf.sort(k)", "tf.reduce_max(k)", "tf.reduce_min(k)", "tf.math.segment_max(k, [0, 0, 1, 1, 1, 2, 2, 2])",
          "tf.math.segment_min(k, [0, 0, 1, 1, 1, 2, 2, 2])", "tf.math.unsorted_segment_max(k, [0, 1, 0, 1, 1, 0, 2, 2], 3)",
          "tf.math.segment_prod(k, [0, 0, 1, 1, 1, 2, 2, 2])", "tf.math.unsorted_segment_prod(k, [0, 1, 0, 1, 1, 0, 2, 2], 3)",
          "tf.math.segment_mean(k, [0, 0, 1, 1, 1, 2, 2, 2])", "tf.math.unsorted_segment_sqrt_n(k, [0, 1, 0, 1, 1, 0, 2, 2], 4)",
          "tf.nn.moments(k, [0])[1]", "tf.math.polyval([k, k, k], 2.0)", "tf.linalg.norm(tf.reshape(k, [2, 4]), 'fro', [0, 1])",
          "tf.linalg.norm(tf.reshape(k, [2, 4]), 2, axis=1)", "tf.math.reduce_all(k > 0)"]:
    CASES.append(G(f"tf.reduce_sum(({f}) * tf.range(1.0, 9.0)[:tf.size({f})] if False else {f})"))
# Ties in reductions and pools
for f in ["tf.reduce_max(t)", "tf.reduce_max(t, 1)", "tf.reduce_min(t, 0)", "tf.reduce_max(t, [0, 1])", "tf.math.argmax(t, 1)",
          "tf.math.reduce_prod(z, 0)", "tf.math.reduce_prod(z, 1)", "tf.math.reduce_prod(z)", "tf.math.cumprod(z, 1)",
          "tf.math.cumprod(z, 0, exclusive=True)", "tf.linalg.norm(t, axis=1)", "tf.math.reduce_logsumexp(t, 1)",
          "tf.nn.top_k(t, 2).values", "tf.math.unsorted_segment_max(t, [1, 1], 3)", "tf.math.unsorted_segment_min(t, [0, 0], 2)",
          "tf.reduce_max(tf.maximum(t, 2.0))", "tf.math.reduce_mean(t, 1, keepdims=True)"]:
    CASES.append(G(f"tf.reduce_sum(({f}) * 1.0) if {f!r}.startswith('tf.math.argmax') else tf.reduce_sum(({f}) * tf.cast(tf.range(tf.size({f})), tf.float32)[None if False else 0] + ({f}) ** 2)", "t, z"))
for f in ["tf.nn.max_pool(ti, 2, 2, 'VALID')", "tf.nn.max_pool(ti, 3, 1, 'SAME')", "tf.nn.max_pool(ti, 2, 1, 'VALID')",
          "tf.nn.avg_pool(ti, 3, 2, 'SAME')", "tf.nn.max_pool_with_argmax(ti, 2, 2, 'VALID')[0]",
          "tf.nn.max_pool(ti * 0.0, 2, 2, 'SAME')", "tf.nn.fractional_max_pool(ti, [1.0, 1.44, 1.73, 1.0])[0] if False else tf.nn.max_pool(ti, [1, 1, 2, 1], [1, 1, 1, 1], 'VALID')"]:
    CASES.append(G(f"tf.reduce_sum(({f}) ** 2)", "ti"))
# Second derivatives
for f in ["tf.tanh(x)", "tf.sigmoid(x)", "tf.nn.softplus(x)", "tf.nn.elu(x)", "tf.nn.selu(x)", "tf.nn.relu(x) ** 2",
          "tf.exp(x) * y", "tf.sin(x) * tf.cos(y)", "x * x * y", "tf.nn.softmax(x)[:, 0]", "tf.nn.log_softmax(x)[:, 1]",
          "tf.math.log1p(x * x)", "tf.sqrt(p)", "tf.math.rsqrt(p)", "tf.math.reciprocal(p)", "tf.math.log(p)",
          "tf.math.lgamma(p)", "tf.math.digamma(p)", "tf.math.erf(x)", "tf.atan2(x, p)", "tf.pow(p, y)", "tf.math.abs(x) ** 3",
          "tf.nn.sigmoid_cross_entropy_with_logits(labels=u, logits=x)", "tf.nn.softmax_cross_entropy_with_logits_v2(labels=u, logits=x)",
          "tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 2], logits=x)", "tf.math.reduce_logsumexp(x, 1)",
          "tf.math.reduce_std(x, 1)", "tf.nn.l2_normalize(x, 1)", "tf.linalg.norm(x, axis=1)", "tf.math.xlogy(p, u)",
          "tf.math.asin(u)", "tf.math.acos(u)", "tf.math.atanh(u)", "tf.math.acosh(p + 1.0)", "tf.math.tan(u)", "tf.math.erfc(x)",
          "tf.math.square(tf.math.squared_difference(x, y))", "tf.math.igamma(p, u)", "tf.math.igammac(p, u)",
          "tf.math.betainc(p, p + 1.0, u)", "tf.math.polygamma(1.0, p)", "tf.math.zeta(p + 1.5, p)", "tf.math.bessel_i0(x)"]:
    CASES.append(G(f"tf.reduce_sum(tf.gradients(tf.reduce_sum({f}), x if 'x' in {f!r} else (p if 'p' in {f!r} else u))[0] * tf.sin(x + y))",
                   "x" if "x" in f else ("p" if "p" in f else "u")))
    CASES.append(G(f"tf.reduce_sum({f})", "x, y, p, u"))
# Matrices
for f in ["tf.linalg.det(m)", "tf.linalg.logdet(tf.matmul(m, m, transpose_b=True))", "tf.linalg.slogdet(m)[1]", "tf.linalg.inv(m)",
          "tf.linalg.cholesky(tf.matmul(m, m, transpose_b=True))", "tf.linalg.qr(m)[1]", "tf.linalg.qr(m)[0]", "tf.linalg.eigh(m + tf.transpose(m))[0]",
          "tf.linalg.svd(m, compute_uv=False)", "tf.linalg.solve(m, tf.ones([3, 1], tf.float64))", "tf.linalg.triangular_solve(m, tf.ones([3, 2], tf.float64))",
          "tf.linalg.triangular_solve(m, tf.ones([3, 2], tf.float64), lower=False, adjoint=True)", "tf.linalg.lstsq(m, tf.ones([3, 1], tf.float64))",
          "tf.linalg.trace(m)", "tf.linalg.band_part(m, 0, 1)", "tf.linalg.diag_part(m)", "tf.linalg.set_diag(m, [1.0, 2.0, 3.0])",
          "tf.linalg.expm(m / 4)", "tf.linalg.sqrtm(tf.matmul(m, m, transpose_b=True)) if False else tf.linalg.adjoint(m)", "tf.einsum('ij,jk->ik', m, m)",
          "tf.einsum('ii->i', m)", "tf.einsum('ij->', m)", "tf.linalg.matrix_transpose(m) @ m", "tf.linalg.cholesky_solve(tf.linalg.cholesky(tf.matmul(m, m, transpose_b=True)), tf.ones([3, 1], tf.float64))",
          "tf.linalg.tensor_diag(tf.linalg.diag_part(m))", "tf.linalg.lu_matrix_inverse(*tf.linalg.lu(m))", "tf.linalg.matrix_rank(m) if False else tf.linalg.normalize(m)[0]"]:
    CASES.append(G(f"tf.reduce_sum(({f}) * tf.cast(tf.range(1, tf.size({f}) + 1), tf.float64)[0] + tf.reduce_sum(tf.sin({f})))", "m"))
# Shape and gather ops
for f in ["tf.pad(img, [[0, 0], [2, 1], [1, 2], [0, 0]], 'REFLECT')", "tf.pad(img, [[0, 0], [2, 1], [1, 2], [0, 0]], 'SYMMETRIC')",
          "tf.pad(img, [[0, 0], [1, 1], [1, 0], [0, 0]], constant_values=3.0)", "tf.tile(img, [2, 1, 2, 1])", "tf.reverse(img, [1, 2])",
          "img[:, ::-2, 1::2, :]", "img[:, 3:0:-1, ..., 1]", "tf.space_to_depth(img, 2)", "tf.depth_to_space(tf.tile(img, [1, 1, 1, 2]), 2)",
          "tf.space_to_batch_nd(img, [2, 2], [[0, 0], [1, 1]])", "tf.batch_to_space_nd(tf.tile(img, [4, 1, 1, 1]), [2, 2], [[0, 1], [1, 0]])",
          "tf.gather_nd(img, [[0, 1, 1], [0, 1, 1], [0, 3, 0]])", "tf.gather(img, [3, 3, 0], axis=2)", "tf.gather(img, [[1, 1], [0, 2]], axis=1)",
          "tf.nn.embedding_lookup(tf.reshape(img, [16, 2]), [3, 3, 15])", "tf.nn.embedding_lookup_sparse(tf.reshape(img, [16, 2]), tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([1, 1, 5], tf.int64), [2, 2]), None, combiner='sqrtn')",
          "tf.dynamic_stitch([[0, 2], [1, 2]], [img[0, 0, :2], img[0, 1, :2]])", "tf.dynamic_partition(tf.reshape(img, [16, 2]), np.arange(16) % 3, 3)[1]",
          "tf.boolean_mask(img, tf.reshape(img[..., 0] > 0, [1, 4, 4]))", "tf.image.extract_patches(img, [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], 'VALID') if hasattr(tf.image, 'extract_patches') else tf.image.extract_image_patches(img, [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], 'VALID')",
          "tf.nn.local_response_normalization(img, 1, 1.0, 0.5, 0.75)", "tf.nn.bias_add(img, [1.0, -1.0])", "tf.transpose(img, [0, 3, 1, 2])",
          "tf.concat(tf.split(img, [1, 3], 1)[::-1], 2)", "tf.unstack(img, axis=2)[3]", "tf.broadcast_to(img[:, :1], [2, 4, 4, 2])",
          "tf.image.flip_left_right(img)", "tf.image.rot90(img, 3)", "tf.image.per_image_standardization(img)",
          "tf.image.adjust_contrast(img, 2.0)", "tf.image.adjust_saturation(tf.abs(img[..., :1]) * tf.ones([1, 1, 1, 3]), 0.5)", "tf.image.rgb_to_grayscale(tf.concat([img, img[..., :1]], 3))",
          "tf.image.total_variation(img)", "tf.image.image_gradients(img)[1]", "tf.nn.depthwise_conv2d(img, tf.ones([2, 2, 2, 2]), [1, 1, 1, 1], 'SAME')",
          "tf.nn.conv2d_transpose(img, tf.ones([3, 3, 1, 2]), [1, 8, 8, 1], [1, 2, 2, 1])", "tf.nn.conv3d(img[None], tf.ones([1, 2, 2, 2, 1]), [1] * 5, 'VALID')",
          "tf.nn.max_pool3d(img[None], 2, 1, 'VALID')", "tf.nn.avg_pool3d(img[None], 2, 1, 'SAME')", "tf.nn.pool(img, [2, 2], 'AVG', 'SAME', dilations=[2, 2])",
          "tf.nn.atrous_conv2d(img, tf.ones([2, 2, 2, 1]), 2, 'SAME')", "tf.nn.separable_conv2d(img, tf.ones([2, 2, 2, 1]), tf.ones([1, 1, 2, 3]), [1, 1, 1, 1], 'VALID')",
          "tf.nn.fused_batch_norm(img, [1.0, 2.0], [0.0, 1.0])[0]", "tf.nn.fused_batch_norm(img, [1.0, 2.0], [0.0, 1.0], data_format='NCHW')[0]",
          "tf.nn.batch_normalization(img, 0.5, 2.0, 1.0, 3.0, 1e-3)", "tf.nn.moments(img, [0, 1, 2])[1]",
          "tf.image.resize_bilinear(img, [7, 5])", "tf.image.crop_and_resize(img, [[0.1, 0.2, 0.8, 0.9]], [0], [3, 3])",
          "tf.scatter_nd([[1], [1], [3]], tf.reshape(img[0, :3], [3, 8]), [5, 8])", "tf.tensor_scatter_nd_update(tf.reshape(img, [16, 2]), [[1], [4]], img[0, 0, :2])",
          "tf.tensor_scatter_nd_add(tf.reshape(img, [16, 2]), [[1], [1]], img[0, 0, :2])", "tf.math.unsorted_segment_sum(tf.reshape(img, [16, 2]), np.arange(16) % 5, 6)",
          "tf.sparse.to_dense(tf.SparseTensor([[0, 0], [1, 2]], img[0, 0], [2, 3]))", "tf.sparse_tensor_dense_matmul(tf.SparseTensor([[0, 0], [1, 2]], img[0, 0], [2, 4]), img[0, 0])",
          "tf.linalg.matmul(img, img, transpose_b=True)", "tf.linalg.matvec(img[0], img[0, :, 0])", "tf.tensordot(img, img, [[1, 2], [2, 1]])",
          "tf.reduce_sum(tf.reshape(img, [4, 8]), 0, keepdims=True)", "tf.math.add_n([img, img * 2, img])", "tf.math.accumulate_n([img, img]) if False else tf.identity_n([img, img])[1]",
          "tf.stop_gradient(img) * img", "tf.clip_by_norm(img, 1.0)", "tf.clip_by_norm(img, 1.0, axes=[1, 2])", "tf.clip_by_global_norm([img, img * 2], 3.0)[0][1]",
          "tf.clip_by_average_norm(img, 0.5)", "tf.nn.dropout(img, rate=0.0) if False else tf.nn.relu6(img)", "tf.math.segment_sum(tf.reshape(img, [16, 2]), np.arange(16) // 3)"]:
    CASES.append(G(f"tf.reduce_sum(tf.cos(tf.cast({f}, tf.float32)) + tf.cast({f}, tf.float32))", "img"))
# Boxes of crop_and_resize (corners off the pixel grid: the gradient has kinks on it)
for method in ["bilinear", "nearest"]:
    CASES.append(G(f"tf.reduce_sum(tf.image.crop_and_resize(img, bx, [0, 0], [3, 4], method='{method}') ** 2)", "img, bx"))
INPUTS["bx"] = np.array([[0.113, 0.217, 0.781, 0.917], [-0.213, 0.131, 0.671, 1.107]], np.float32)
