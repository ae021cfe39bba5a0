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
