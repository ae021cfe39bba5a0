"""tf.quantization: simulated quantization in float, against NumPy written the obvious way
(and TensorFlow 2.21's figures where its arithmetic is the point)."""

import numpy as np
import pytest

import distflow as tf


def run(t):
    with tf.Session() as sess:
        return sess.run(t)


X = np.array([-7.0, -1.2, -0.3, 0.0, 0.24, 0.26, 1.5, 5.9, 6.1, 100.0], np.float32)


@pytest.mark.parametrize("lo,hi,kw", [(-1.0, 1.0, {}), (-1.0, 2.0, {"num_bits": 4}),
                                      (-3.0, 1.0, {"num_bits": 4, "narrow_range": True}),
                                      (0.0, 6.0, {"signed_input": False})])
def test_a_given_range_clamps_and_rounds_to_the_grid_of_its_tighter_side(lo, hi, kw):
    got = run(tf.quantization.quantize_and_dequantize(X, lo, hi, range_given=True, **kw))
    bits, signed, narrow = kw.get("num_bits", 8), kw.get("signed_input", True), kw.get("narrow_range", False)
    q_min = (-(2 ** (bits - 1)) + narrow) if signed else 0
    q_max = 2 ** (bits - 1) - 1 if signed else 2 ** bits - 1
    from_min = q_min / lo if q_min * lo > 0 else np.inf
    from_max = q_max / hi if q_max * hi > 0 else np.inf
    step = 1 / min(from_min, from_max)
    expected = np.round(np.clip(X, q_min * step, q_max * step) / step) * step
    np.testing.assert_allclose(got, expected.astype(np.float32), rtol=1e-6, atol=1e-7)


def test_without_a_range_the_inputs_own_extremes_set_it_and_nothing_is_clamped():
    got = run(tf.quantization.quantize_and_dequantize(X, 0.0, 0.0, num_bits=4))
    step = 100.0 / 7  # (100 on 7 levels is tighter than 7 on 8)
    np.testing.assert_allclose(got, np.round(X / step) * step, rtol=1e-6)
    # unsigned over negative values: the step from the maximum, negatives kept (TF 2.21: -7.0588236 first)
    got = run(tf.quantization.quantize_and_dequantize(X, -1.0, 1.0, signed_input=False))
    assert got[0] == pytest.approx(-7.0588236) and got[-1] == pytest.approx(100.0)


def test_half_up_rounds_halves_up_and_half_to_even_to_even():
    x = np.array([0.5, 1.5, 2.5, -0.5], np.float32) / 8  # (a step of 1/8: 7 levels over 0.875)
    even = run(tf.quantization.quantize_and_dequantize(x, -0.875, 0.875, num_bits=4, range_given=True))
    up = run(tf.quantization.quantize_and_dequantize(x, -0.875, 0.875, num_bits=4, range_given=True,
                                                     round_mode="HALF_UP"))
    np.testing.assert_array_equal(even * 8, [0.0, 2.0, 2.0, -0.0])
    np.testing.assert_array_equal(up * 8, [1.0, 2.0, 3.0, 0.0])


def test_one_range_per_slice_along_an_axis():
    x = np.array([[-1.0, 0.3, 2.0], [0.5, -0.2, 7.0]], np.float32)
    got = run(tf.quantization.quantize_and_dequantize(x, [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], axis=1, num_bits=4))
    for c in range(3):
        lo, hi = x[:, c].min(), x[:, c].max()
        step = 1 / min(-8 / lo if lo < 0 else np.inf, 7 / hi if hi > 0 else np.inf)
        np.testing.assert_allclose(got[:, c], np.round(x[:, c] / step) * step, rtol=1e-6)
    with pytest.raises(ValueError, match="input_min must be a vector"):
        tf.quantization.quantize_and_dequantize(x, 0.0, 0.0, axis=1)


def test_the_gradient_passes_straight_through_and_bad_arguments_are_refused():
    x = tf.constant(X)
    (g,) = tf.gradients(tf.reduce_sum(tf.quantization.quantize_and_dequantize(x, -1.0, 1.0, range_given=True) * 3), x)
    np.testing.assert_array_equal(run(g), np.full(10, 3, np.float32))
    with pytest.raises(ValueError, match="round_mode"):
        tf.quantization.quantize_and_dequantize(x, -1.0, 1.0, round_mode="DOWN")
    with pytest.raises(TypeError, match="floating"):
        tf.quantization.quantize_and_dequantize(tf.constant([1, 2]), 0, 1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="input_min"):
        run(tf.quantization.quantize_and_dequantize(x, 1.0, -1.0, range_given=True))
    assert tf.quantization.fake_quant_with_min_max_args is tf.fake_quant_with_min_max_args
    with pytest.raises(AttributeError, match="does not implement"):
        tf.quantization.quantized_concat  # noqa: B018


def test_scatter_updates_of_the_wrong_shape_are_refused_when_the_graph_is_built():
    v = tf.Variable([[1.0, 2.0]])
    with pytest.raises(ValueError, match=r"updates must have shape \(1, 2\)"):
        tf.scatter_update(v, [0], [[5.0, 6.0, 7.0]])
    fed = tf.placeholder(tf.float32)
    update = tf.scatter_update(v, [0], fed)
    with tf.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"updates must have shape \[1, 2\]"):
            sess.run(update, {fed: [[5.0, 6.0, 7.0]]})
        sess.run(update, {fed: 3.0})  # (a scalar goes to every row named)
        np.testing.assert_array_equal(sess.run(v), [[3.0, 3.0]])


def test_a_py_func_with_no_outputs_is_an_op():
    seen = []
    op = tf.py_func(lambda a: seen.append(a.sum()), [tf.constant([1.0, 2.0])], [])
    assert isinstance(op, tf.Operation)
    run(op)
    assert seen == [3.0]


def test_fake_quantization_rounds_a_tie_as_tensorflow_does():
    # -1.2 lies half-way between two levels of [-6, 6] on 255 steps; TensorFlow 2.21's kernel
    # multiplies by the inverse step in float32 and rounds it up: -1.1764706, not -1.2235294
    got = run(tf.quantization.fake_quant_with_min_max_args(np.array([-1.2, 0.24, 1.5], np.float32)))
    np.testing.assert_allclose(got, [-1.1764706, 0.23529412, 1.5058824], rtol=0, atol=1e-6)


def test_fake_quantization_ops_are_tensorflows_op_types_and_the_per_channel_one_divides():
    x = np.array([[-1.0, 0.3, 2.0], [0.5, -0.2, 7.0]], np.float32)
    per_channel = tf.fake_quant_with_min_max_vars_per_channel(x, [-1.0, 0.0, 0.5], [1.0, 0.5, 6.0], num_bits=4,
                                                               narrow_range=True)
    # 0.5 is a tie on [-1, 1]'s 14 steps: this kernel divides by the step and rounds it up
    # (TensorFlow 2.21's figures)
    np.testing.assert_allclose(run(per_channel), [[-1.0, 0.2857143, 1.9642856], [0.5714286, 0.0, 5.5]], atol=1e-6)
    ops_ = [per_channel.op, tf.fake_quant_with_min_max_args(x).op, tf.fake_quant_with_min_max_vars(x, -1.0, 1.0).op]
    assert [o.type for o in ops_] == ["FakeQuantWithMinMaxVarsPerChannel", "FakeQuantWithMinMaxArgs",
                                      "FakeQuantWithMinMaxVars"]
    assert ops_[1].get_attr("min") == -6.0 and ops_[1].get_attr("num_bits") == 8
    grads = tf.gradients([tf.reduce_sum(o.outputs[0]) for o in ops_], [ops_[0].inputs[0]])
    assert grads[0].op.type == "FakeQuantWithMinMaxVarsPerChannelGradient"
