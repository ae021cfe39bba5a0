import numpy as np
INPUTS = dict(a=np.ones((2, 3), np.float32), i=np.arange(6, dtype=np.int32).reshape(2, 3), b=np.array([True, False]))
CASES = [
 "tf.reshape(a, [4, 2])", "tf.reshape(a, [-1, -1])", "tf.add(a, tf.ones([3, 2]))", "tf.matmul(a, a)", "tf.concat([a, tf.ones([2, 2, 1])], 0)",
 "tf.add(a, i)", "tf.gather(a, [3])", "tf.gather(a, [2.0])", "tf.one_hot(a, 3)", "tf.slice(a, [0, 0], [3, 1])", "tf.split(a, 2, 1)",
 "tf.reduce_sum(a, 2)", "tf.transpose(a, [0, 0])", "tf.tile(a, [2])", "tf.squeeze(a, [0])", "tf.expand_dims(a, 5)", "tf.pad(a, [[1, 1]])",
 "tf.strided_slice(a, [0], [5], [0])", "a[5]", "a[:, 7]", "tf.zeros([-1])", "tf.fill([2], 'x')", "tf.range(0, 5, 0)", "tf.cast('a', tf.int32)",
 "tf.string_to_number('abc')", "tf.decode_base64('@@@')", "tf.matrix_inverse(tf.zeros([2, 2]))", "tf.cholesky(-tf.eye(2))", "tf.log(-1.0)",
 "tf.check_numerics(tf.log(-1.0), 'bad')", "tf.assert_equal(1, 2)", "tf.Assert(False, [1])", "tf.debugging.assert_shapes([(a, ('x', 'y')), (i, ('x', 'y'))]) if hasattr(tf.debugging, 'assert_shapes') else tf.no_op()",
 "tf.where(b, a, a)", "tf.where(tf.ones([2, 3]) > 0, a, tf.zeros([3]))", "tf.boolean_mask(a, [True])", "tf.scatter_nd([[5]], [1.0], [3])", "tf.unsorted_segment_sum(a, [0, 5], 2)",
 "tf.segment_sum(a, [1, 0])", "tf.nn.softmax_cross_entropy_with_logits(labels=a, logits=tf.ones([2, 2]))", "tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 5], logits=a)",
 "tf.nn.conv2d(tf.ones([1, 2, 2, 1]), tf.ones([3, 3, 1, 1]), [1, 1, 1, 1], 'VALID')", "tf.nn.max_pool(tf.ones([1, 2, 2, 1]), [1, 3, 3, 1], [1, 1, 1, 1], 'VALID')",
 "tf.image.resize_images(tf.ones([4, 4]), [2, 2])", "tf.dynamic_partition(a, [0, 3], 2)", "tf.dynamic_stitch([[0, 5]], [a])", "tf.invert_permutation([0, 0])", "tf.sequence_mask([1, -1])",
]
