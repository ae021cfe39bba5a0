"""Gradient checks for the op types that no other test's check reached, so that every op
with a registered gradient is checked by central differences in float64 (conftest.py
fails a full run of the suite that leaves one out; the second-order ones are reached
through ``order=2``, the gradient of the gradient)."""

import numpy as np
import pytest

import distflow as tf
from distflow.ops.op_util import make_tensor
from gradcheck import check_gradients

rng = np.random.default_rng(11)


def r(*shape):
    return rng.standard_normal(shape)


CASES = {
    "AvgPoolGrad": (lambda x: tf.nn.avg_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID") ** 2, [r(1, 4, 4, 2)], 2),
    "BatchToSpaceND": (lambda x: tf.batch_to_space_nd(x * 2.0, [2, 2], [[0, 0], [1, 0]]), [r(4, 2, 2, 1)], 1),
    "CheckNumerics": (lambda x: tf.check_numerics(x * 2.0, "finite"), [r(3)], 1),
    "CTCLoss": (lambda x: tf.nn.ctc_loss(tf.SparseTensor([[0, 0], [0, 1], [1, 0]], np.array([1, 1, 0], np.int32),
                                                        [2, 2]), x, [4, 3]), [r(4, 2, 3)], 1),
    "Conv3DBackpropFilterV2": (lambda x, w: tf.nn.conv3d(x, w, [1, 1, 1, 1, 1], "VALID") ** 2,
                               [r(1, 3, 3, 3, 1), r(2, 2, 2, 1, 2)], 2),
    "DepthwiseConv2dNativeBackpropFilter": (
        lambda x, w: tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "VALID") ** 2, [r(1, 4, 4, 2), r(2, 2, 2, 1)], 2),
    "DepthwiseConv2dNativeBackpropInput": (
        lambda x, w: tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME") ** 2, [r(1, 3, 3, 2), r(2, 2, 2, 2)], 2),
    "DepthToSpace": (lambda x: tf.depth_to_space(x, 2) ** 2, [r(1, 2, 3, 8)], 1),
    "SpaceToDepth": (lambda x: tf.space_to_depth(x, 2, data_format="NCHW") ** 2, [r(1, 2, 4, 2)], 1),
    "DynamicStitch": (lambda a, b: tf.dynamic_stitch([tf.constant([0, 2]), tf.constant([1])], [a, b]),
                      [r(2, 3), r(1, 3)], 1),
    "EnsureShape": (lambda x: tf.ensure_shape(x * 3.0, [2, 3]), [r(2, 3)], 1),
    "FFT2D": (lambda x: tf.real(tf.signal.fft2d(tf.complex(x, x * 0.5))), [r(3, 4)], 1),
    "FFT3D": (lambda x: tf.imag(tf.signal.fft3d(tf.complex(x, -x))), [r(2, 3, 2)], 1),
    "IFFT": (lambda x: tf.real(tf.signal.ifft(tf.complex(x, x * x))), [r(5)], 1),
    "IFFT3D": (lambda x: tf.real(tf.signal.ifft3d(tf.complex(x * 2.0, x))), [r(2, 2, 3)], 1),
    "Print": (lambda x: tf.Print(x * 2.0, [], "distflow gradient coverage"), [r(3)], 1),
    "ReverseSequence": (lambda x: tf.reverse_sequence(x, [1, 3, 2], seq_axis=1, batch_axis=0), [r(3, 4)], 1),
    "SoftplusGrad": (lambda x: tf.nn.softplus(x * 1.5), [r(4)], 2),
    # (the op of tf.sparse_matmul, which takes float32 as TensorFlow's; checked in float64)
    "SparseMatMul": (lambda a, b: make_tensor("SparseMatMul", [a, b], {
        "transpose_a": False, "transpose_b": True, "a_is_sparse": True, "b_is_sparse": False}, "SparseMatMul") ** 2,
        [r(3, 4), r(2, 4)], 1),
    # (a value's gradient is its entry's; the default value's, the sum over the rows it filled)
    "SparseFillEmptyRows": (lambda v, d: tf.sparse_fill_empty_rows(
        tf.SparseTensor([[0, 0], [1, 0], [1, 3], [3, 2]], v, [5, 6]), d)[0].values * [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        [r(4), np.float64(-1.0)], 1),
    # (each value's gradient is that of the place the reorder moved it to)
    "SparseReorder": (lambda v: tf.sparse_reorder(tf.SparseTensor([[2, 1], [0, 3], [1, 0], [0, 0]], v, [3, 4]))
                      .values * [1.0, 2.0, 3.0, 4.0], [r(4)], 1),
    "SparseSoftmax": (lambda v: tf.sparse_softmax(tf.SparseTensor([[0, 0, 1], [0, 0, 3], [0, 2, 0], [1, 1, 1],
                                                                  [1, 1, 2]], v, [2, 3, 4])).values * [1.0, 2.0, 3.0,
                                                                                                      4.0, 5.0],
                      [r(5)], 1),
    "StridedSliceGrad": (lambda x: tf.square(x[1:, ::2]), [r(3, 4)], 2),
    "TileGrad": (lambda x: tf.square(tf.tile(x, [2, 3])), [r(2, 2)], 2),
    "GatherV2Grad": (lambda x: tf.square(tf.gather(x, [2, 0, 2])), [r(4, 3)], 2),
    "UnsortedSegmentMin": (lambda x: tf.unsorted_segment_min(x, [0, 1, 0, 2], 3), [r(4, 2)], 1),
}


@pytest.mark.parametrize("op_type", sorted(CASES))
def test_gradient_of(op_type):
    build, inputs, order = CASES[op_type]
    check_gradients(build, inputs, order=order)


def test_gradient_of_tensor_list_scatter():
    check_gradients(lambda x: tf.TensorArray(tf.float64, size=3, element_shape=[2]).scatter([2, 0, 1], x * 2.0).stack()
                    ** 2, [r(3, 2)])
