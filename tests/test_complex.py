"""Complex tensors and FFTs: NumPy is the oracle for values; central differences on the real
inputs of real-valued losses are the oracle for the gradients through complex ops."""

import numpy as np
import pytest

import distflow as tf
from conftest import assert_oracle, evaluate
from gradcheck import check_gradients

RE = np.array([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]])
IM = np.array([[0.5, 1.5, -2.0], [-1.0, 2.0, 0.75]])
Z = RE + 1j * IM


def test_complex_parts_and_arithmetic_match_numpy():
    z = tf.complex(RE, IM)
    assert z.dtype == tf.complex128 and tf.complex(RE.astype(np.float32), IM.astype(np.float32)).dtype == tf.complex64
    assert_oracle(evaluate(z), Z)
    assert_oracle(evaluate(tf.real(z)), RE)
    assert_oracle(evaluate(tf.imag(z)), IM)
    assert_oracle(evaluate(tf.conj(z)), np.conj(Z))
    assert_oracle(evaluate(tf.abs(z)), np.abs(Z), rtol=1e-12)
    assert_oracle(evaluate(tf.angle(z)), np.angle(Z), rtol=1e-12)
    assert_oracle(evaluate(z * tf.conj(z) + z / (z + 1)), Z * np.conj(Z) + Z / (Z + 1), rtol=1e-12)
    assert_oracle(evaluate(tf.to_complex64(RE)), RE.astype(np.complex64))
    assert evaluate(tf.real(RE)).tolist() == RE.tolist() and (evaluate(tf.imag(RE)) == 0).all()
    with pytest.raises(TypeError, match="float32 or float64"):
        tf.complex([1, 2], [3, 4])


@pytest.mark.parametrize("name,ref,axes", [("fft", np.fft.fft, (-1,)), ("ifft", np.fft.ifft, (-1,)),
                                           ("fft2d", np.fft.fft2, (-2, -1)), ("ifft2d", np.fft.ifft2, (-2, -1)),
                                           ("fft3d", np.fft.fftn, (-3, -2, -1)),
                                           ("ifft3d", np.fft.ifftn, (-3, -2, -1))])
def test_ffts_match_numpy(name, ref, axes):
    z = np.random.default_rng(0).standard_normal((2, 3, 4, 5)) + 1j * np.random.default_rng(1).standard_normal(
        (2, 3, 4, 5))
    want = ref(z, axes=axes) if ref in (np.fft.fftn, np.fft.ifftn, np.fft.fft2, np.fft.ifft2) else ref(z, axis=-1)
    assert_oracle(evaluate(getattr(tf, name)(z)), want, rtol=1e-10, atol=1e-12)
    assert_oracle(evaluate(getattr(tf.signal, name)(z)), want, rtol=1e-10, atol=1e-12)


def test_gradients_through_complex_ops():
    def power_spectrum(re, im):
        spectrum = tf.fft(tf.complex(re, im) * tf.complex(re, -im * 0.5))
        return tf.abs(spectrum) + tf.angle(spectrum + 3.0)

    check_gradients(power_spectrum, [RE, IM])
    check_gradients(lambda re, im: tf.real(tf.ifft2d(tf.complex(re, im)) / tf.complex(im + 5.0, re)) +
                    tf.imag(tf.conj(tf.complex(re, im))), [RE, IM])


def test_complex_values_cross_the_wire_and_feed():
    z = tf.placeholder(tf.complex64, [2])
    with tf.Session() as sess:
        got = sess.run(z * 2, {z: np.array([1 + 1j, 2 - 3j], np.complex64)})
    assert got.tolist() == [2 + 2j, 4 - 6j]
    from distflow.framework import wire

    value = np.array([[1 + 2j, -3j]], np.complex128)
    assert_oracle(wire.tensor_from_proto(wire.tensor_to_proto(value)), value)


# ---------------------------------------------------------------------------
# Complex arguments of the elementwise functions, sums, means and products


def _complex_gradient(loss_of, z0, eps=1e-6):
    """dL/dx + i dL/dy at z0 by central differences: TensorFlow's gradient of a real loss
    of complex inputs."""
    out = np.zeros(z0.shape, complex)
    for index in np.ndindex(*z0.shape):
        step = np.zeros(z0.shape, complex)
        step[index] = eps
        dx = (loss_of(z0 + step) - loss_of(z0 - step)) / (2 * eps)
        dy = (loss_of(z0 + 1j * step) - loss_of(z0 - 1j * step)) / (2 * eps)
        out[index] = dx + 1j * dy
    return out


COMPLEX_FUNCTIONS = [("exp", np.exp), ("log", np.log), ("sqrt", np.sqrt), ("rsqrt", lambda v: 1 / np.sqrt(v)),
                     ("reciprocal", lambda v: 1 / v), ("tanh", np.tanh), ("sin", np.sin), ("cos", np.cos),
                     ("sigmoid", lambda v: 1 / (1 + np.exp(-v))), ("log1p", np.log1p), ("square", np.square),
                     ("expm1", np.expm1), ("sinh", np.sinh), ("cosh", np.cosh), ("tan", np.tan),
                     ("asinh", np.arcsinh), ("acosh", np.arccosh), ("atanh", np.arctanh), ("asin", np.arcsin),
                     ("acos", np.arccos), ("atan", np.arctan)]


@pytest.mark.parametrize("name,reference", COMPLEX_FUNCTIONS)
def test_elementwise_functions_of_complex_numbers_and_their_gradients(name, reference):
    rng = np.random.default_rng(4)
    z0 = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    w = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    z = tf.placeholder(tf.complex128, [4])
    y = getattr(tf, name)(z)
    loss = tf.reduce_sum(tf.real(y * w))
    grad = tf.gradients(loss, z)[0]
    with tf.Session() as sess:
        got_y, got_grad = sess.run([y, grad], {z: z0})
        want_grad = _complex_gradient(lambda v: sess.run(loss, {z: v}), z0)
    np.testing.assert_allclose(got_y, reference(z0), rtol=1e-12)
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("shape,flags", [((3, 3), {}), ((3, 3), {"adjoint_a": True}), ((3, 3), {"transpose_b": True}),
                                         ((3, 3), {"transpose_a": True, "adjoint_b": True}), ((2, 3, 3), {}),
                                         ((2, 3, 3), {"adjoint_a": True}), ((2, 3, 3), {"transpose_b": True}),
                                         ((2, 3, 3), {"transpose_a": True, "adjoint_b": True})])
def test_complex_matrix_products_sums_and_means_with_gradients(shape, flags):
    rng = np.random.default_rng(5)
    a0, b0 = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape) for _ in range(2))
    a, b = tf.placeholder(tf.complex128, shape), tf.placeholder(tf.complex128, shape)
    product = tf.matmul(a, b, **flags)
    loss = tf.abs(tf.reduce_mean(product)) ** 2 + tf.real(tf.reduce_sum(product * tf.conj(product)))
    grads = tf.gradients(loss, [a, b])

    def op(m, transpose, adjoint):
        m = np.swapaxes(m, -1, -2) if transpose or adjoint else m
        return np.conj(m) if adjoint else m

    want = op(a0, flags.get("transpose_a"), flags.get("adjoint_a")) @ op(b0, flags.get("transpose_b"),
                                                                         flags.get("adjoint_b"))
    with tf.Session() as sess:
        got, got_grads = sess.run([product, grads], {a: a0, b: b0})
        want_a = _complex_gradient(lambda v: sess.run(loss, {a: v, b: b0}), a0)
        want_b = _complex_gradient(lambda v: sess.run(loss, {a: a0, b: v}), b0)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(got_grads[0], want_a, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(got_grads[1], want_b, rtol=1e-6, atol=1e-7)


def test_the_parts_of_a_complex_scalar_and_a_bitcast_scalar_are_scalars():
    z = tf.constant(1.5 - 2j)
    with tf.Session() as sess:
        real, imag, bits = sess.run([tf.real(z), tf.imag(z), tf.bitcast(tf.constant(1.0), tf.int32)])
    assert np.shape(real) == np.shape(imag) == np.shape(bits) == ()
    assert (real, imag, int(bits)) == (1.5, -2.0, 0x3F800000)


def test_the_sign_of_a_complex_number_is_its_direction():
    z = np.array([3 + 4j, 0j, -2j])
    with tf.Graph().as_default(), tf.Session() as sess:
        np.testing.assert_allclose(sess.run(tf.sign(z)), [0.6 + 0.8j, 0, -1j])
