"""TensorFlow's TensorArray ops as its GraphDefs hold them (TensorArrayV3 and the ops on its
handle): what they give, checked against NumPy, and TensorFlow's checks and messages."""

import numpy as np
import pytest

import distflow as tf
from distflow.framework import ops


def _array(size, dtype=tf.float32, element_shape=None, **attrs):
    """A TensorArrayV3 node's handle and flow, with TensorFlow's defaults for its attrs."""
    attrs = {"dtype": dtype, "element_shape": tf.TensorShape(element_shape), "dynamic_size": False,
             "clear_after_read": True, "identical_element_shapes": False, "tensor_array_name": "ta", **attrs}
    op = ops.get_default_graph().create_op("TensorArrayV3", [tf.constant(size)], attrs)
    return op.outputs[0], op.outputs[1]


def _op(op_type, inputs, attrs=None):
    op = ops.get_default_graph().create_op(op_type, [tf.convert_to_tensor(t) for t in inputs], attrs or {})
    return op.outputs[0] if len(op.outputs) == 1 else op.outputs


def test_scatter_read_write_gather_concat_and_split_give_numpys_values():
    rng = np.random.RandomState(1)
    value = rng.randn(4, 2, 3).astype(np.float32)
    handle, flow = _array(4, element_shape=[2, 3])
    flow = _op("TensorArrayScatterV3", [handle, [3, 0, 1, 2], value, flow])
    read = _op("TensorArrayReadV3", [handle, 3, flow], {"dtype": tf.float32})
    out, out_flow = _array(2, clear_after_read=False)
    out_flow = _op("TensorArrayWriteV3", [out, 1, read * 2.0, out_flow])
    out_flow = _op("TensorArrayWriteV3", [out, 0, read, out_flow])
    gathered = _op("TensorArrayGatherV3", [out, [1, 0, 1], out_flow], {"dtype": tf.float32})
    size = _op("TensorArraySizeV3", [out, out_flow])
    assert read.shape.as_list() == [2, 3]  # (the element shape of its TensorArrayV3 node)
    pieces, pieces_flow = _array(3, dynamic_size=True)
    pieces_flow = _op("TensorArraySplitV3", [pieces, value.reshape(8, 3), np.array([1, 4, 3], np.int64),
                                             pieces_flow])
    concat, lengths = _op("TensorArrayConcatV3", [pieces, pieces_flow], {"dtype": tf.float32})
    with tf.Session() as sess:
        got = sess.run([read, gathered, size, concat, lengths])
    np.testing.assert_array_equal(got[0], value[0])
    np.testing.assert_array_equal(got[1], np.stack([2 * value[0], value[0], 2 * value[0]]))
    assert got[2] == 2
    np.testing.assert_array_equal(got[3], value.reshape(8, 3))
    assert got[4].tolist() == [1, 4, 3] and got[4].dtype == np.int64


def test_each_run_has_an_array_of_its_own():
    handle, flow = _array(1)
    flow = _op("TensorArrayWriteV3", [handle, 0, tf.constant([1.5]), flow])
    read = _op("TensorArrayReadV3", [handle, 0, flow], {"dtype": tf.float32})
    with tf.Session() as sess:
        assert sess.run(read).tolist() == [1.5]
        assert sess.run(read).tolist() == [1.5]  # (not "already written to")


def test_an_unwritten_element_reads_as_zeros_only_where_the_element_shape_is_known():
    known, known_flow = _array(2, element_shape=[3])
    unknown, unknown_flow = _array(2)
    with tf.Session() as sess:
        assert sess.run(_op("TensorArrayReadV3", [known, 1, known_flow], {"dtype": tf.float32})).tolist() == [0, 0, 0]
        assert sess.run(_op("TensorArrayGatherV3", [known, np.zeros(0, np.int32), known_flow],
                            {"dtype": tf.float32})).shape == (0, 3)
        with pytest.raises(tf.errors.InvalidArgumentError, match="TensorArray ta: Could not read from TensorArray "
                           "index 1 because it has not yet been written to"):
            sess.run(_op("TensorArrayReadV3", [unknown, 1, unknown_flow], {"dtype": tf.float32}))
        with pytest.raises(tf.errors.InvalidArgumentError, match="size zero, but element shape <unknown> is not "
                           "fully defined"):
            sess.run(_op("TensorArrayGatherV3", [unknown, np.zeros(0, np.int32), unknown_flow],
                         {"dtype": tf.float32}))


@pytest.mark.parametrize("case, message", [
    ("twice", "Could not write to TensorArray index 0 because it has already been written to"),
    ("past the end", "Tried to write to index 2 but array is not resizeable and size is: 2"),
    ("dtype", "TensorArray dtype is float32 but Op is trying to write dtype int32"),
    ("shape", r"Could not write to TensorArray index 0 because the value shape is \[2\] which is incompatible "
              r"with the TensorArray's inferred element shape: \(3,\)"),
    ("read twice", "Could not read index 0 twice because it was cleared after a previous read"),
    ("inconsistent", r"TensorArray has inconsistent shapes. Index 0 has shape: \[1\] but index 1 has shape: \[2\]"),
    ("scatter", r"Expected len\(indices\) == values.shape\[0\], but saw: 3 vs. 2"),
    ("split", "Expected sum of lengths to be equal to values.shape"),
])
def test_tensorflows_checks_fail_the_step_with_its_message(case, message):
    shape = [3] if case == "shape" else None
    handle, flow = _array(2, element_shape=shape, dtype=tf.float32)
    if case == "twice":
        flow = _op("TensorArrayWriteV3", [handle, 0, [1.0], flow])
        fetch = _op("TensorArrayWriteV3", [handle, 0, [2.0], flow])
    elif case == "past the end":
        fetch = _op("TensorArrayWriteV3", [handle, 2, [1.0], flow])
    elif case == "dtype":
        fetch = _op("TensorArrayWriteV3", [handle, 0, [1], flow])
    elif case == "shape":
        fetch = _op("TensorArrayWriteV3", [handle, 0, [1.0, 2.0], flow])
    elif case == "read twice":
        flow = _op("TensorArrayWriteV3", [handle, 0, [1.0], flow])
        first = _op("TensorArrayReadV3", [handle, 0, flow], {"dtype": tf.float32})
        with tf.control_dependencies([first]):
            fetch = _op("TensorArrayReadV3", [handle, 0, tf.identity(flow)], {"dtype": tf.float32})
    elif case == "inconsistent":
        flow = _op("TensorArrayWriteV3", [handle, 0, [1.0], flow])
        flow = _op("TensorArrayWriteV3", [handle, 1, [1.0, 2.0], flow])
        fetch = _op("TensorArrayGatherV3", [handle, [0, 1], flow], {"dtype": tf.float32})
    elif case == "scatter":
        fetch = _op("TensorArrayScatterV3", [handle, [0, 1, 1], [[1.0], [2.0]], flow])
    else:
        fetch = _op("TensorArraySplitV3", [handle, [1.0, 2.0, 3.0], np.array([1, 1], np.int64), flow])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match=f"TensorArray ta: {message}"):
            sess.run(fetch)


def test_a_gradient_array_is_one_per_source_and_adds_what_is_written_twice():
    handle, flow = _array(2, element_shape=[2])
    grad_op = ops.get_default_graph().create_op("TensorArrayGradV3", [handle, flow], {"source": "gradients"})
    grad, grad_flow = grad_op.outputs
    grad_flow = _op("TensorArrayWriteV3", [grad, 0, [1.0, 2.0], grad_flow])
    grad_flow = _op("TensorArrayWriteV3", [grad, 0, [0.5, 0.5], grad_flow])
    again = ops.get_default_graph().create_op("TensorArrayGradV3", [handle, grad_flow], {"source": "gradients"})
    other = ops.get_default_graph().create_op("TensorArrayGradV3", [handle, grad_flow], {"source": "other"})
    gathered = _op("TensorArrayGatherV3", [again.outputs[0], [0, 1], again.outputs[1]], {"dtype": tf.float32})
    other_gathered = _op("TensorArrayGatherV3", [other.outputs[0], [0, 1], other.outputs[1]], {"dtype": tf.float32})
    with tf.Session() as sess:
        got, got_other = sess.run([gathered, other_gathered])
    assert got.tolist() == [[1.5, 2.5], [0.0, 0.0]]  # (an element never written: zeros of the element shape)
    assert got_other.tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_stacks_pop_what_was_pushed_last_first_and_say_when_empty_or_full():
    graph = ops.get_default_graph()
    stack = graph.create_op("StackV2", [tf.constant(2)], {"elem_type": tf.float32, "stack_name": "acc"}).outputs[0]
    pushed = [graph.create_op("StackPushV2", [stack, tf.constant([float(k)])], {}).outputs[0] for k in range(3)]
    with tf.control_dependencies(pushed[:2]):
        pops = [graph.create_op("StackPopV2", [stack], {"elem_type": tf.float32}).outputs[0]]
    with tf.control_dependencies(pops):
        pops.append(graph.create_op("StackPopV2", [stack], {"elem_type": tf.float32}).outputs[0])
    with tf.control_dependencies(pops[1:]):
        empty = graph.create_op("StackPopV2", [stack], {"elem_type": tf.float32}).outputs[0]
    with tf.Session() as sess:
        assert [p.tolist() for p in sess.run(pops)] == [[1.0], [0.0]]
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Stack\[acc\] is empty"):
            sess.run(empty)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Stack\[acc\] overflowed its max_size \(2\)"):
            sess.run(pushed)


def test_concat_offset_says_where_each_input_starts_as_numpy_concatenates_them():
    shapes = [np.array([2, 3, 4], np.int32), np.array([2, 5, 4], np.int32), np.array([2, 1, 4], np.int32)]
    pieces = [np.zeros(s) for s in shapes]
    offsets = ops.get_default_graph().create_op("ConcatOffset", [tf.constant(1)] + [tf.constant(s) for s in shapes],
                                                {"N": 3}).outputs
    bad = ops.get_default_graph().create_op("ConcatOffset", [tf.constant(1), tf.constant([2, 3]), tf.constant([3, 3])],
                                            {"N": 2}).outputs
    with tf.Session() as sess:
        got = sess.run(list(offsets))
        starts = np.cumsum([0] + [p.shape[1] for p in pieces])[:-1]
        assert [g.tolist() for g in got] == [[0, int(k), 0] for k in starts]
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"input 1 should have shape \[2, 3\] except in "
                           "dimension 1, got \\[3, 3\\]"):
            sess.run(list(bad))
