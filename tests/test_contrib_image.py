"""tf.contrib.image: projective transforms against a per-pixel NumPy loop of TensorFlow's
kernel, rotations and translations against NumPy's, and the gradient by central differences."""

import math

import numpy as np
import pytest

import distflow as tf
from gradcheck import check_gradients

RNG = np.random.default_rng(71)


def reference(images, transform, interpolation, out_hw=None):
    """TensorFlow's ImageProjectiveTransform, one output pixel at a time."""
    n, h, w, c = images.shape
    oh, ow = out_hw or (h, w)
    a0, a1, a2, b0, b1, b2, c0, c1 = transform
    out = np.zeros((n, oh, ow, c))

    def read(b, yy, xx):
        return images[b, yy, xx] if 0 <= yy < h and 0 <= xx < w else np.zeros(c)

    for b in range(n):
        for y in range(oh):
            for x in range(ow):
                k = c0 * x + c1 * y + 1
                if k == 0:
                    continue
                ix, iy = (a0 * x + a1 * y + a2) / k, (b0 * x + b1 * y + b2) / k
                if interpolation == "NEAREST":
                    out[b, y, x] = read(b, int(math.copysign(math.floor(abs(iy) + 0.5), iy)),
                                        int(math.copysign(math.floor(abs(ix) + 0.5), ix)))
                else:
                    y0, x0 = math.floor(iy), math.floor(ix)
                    top = (x0 + 1 - ix) * read(b, y0, x0) + (ix - x0) * read(b, y0, x0 + 1)
                    bottom = (x0 + 1 - ix) * read(b, y0 + 1, x0) + (ix - x0) * read(b, y0 + 1, x0 + 1)
                    out[b, y, x] = (y0 + 1 - iy) * top + (iy - y0) * bottom
    return out


TRANSFORMS = [[1.0, 0.0, 0.5, 0.0, 1.0, -1.5, 0.0, 0.0],  # (half-pixel moves: both roundings)
              [0.9, -0.3, 1.2, 0.25, 1.1, -0.7, 0.02, -0.03],  # (projective)
              [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.5, 0.0]]  # (k = 0 at x = 2: the fill)


@pytest.mark.parametrize("interpolation", ["NEAREST", "BILINEAR"])
@pytest.mark.parametrize("transform", TRANSFORMS)
def test_transform_reads_each_output_pixel_where_the_transform_maps_it(interpolation, transform):
    images = RNG.standard_normal((2, 5, 6, 3))
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run(tf.contrib.image.transform(images, transform, interpolation))
        shaped = sess.run(tf.contrib.image.transform(images, transform, interpolation, output_shape=[4, 7]))
    np.testing.assert_allclose(got, reference(images, transform, interpolation), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(shaped, reference(images, transform, interpolation, (4, 7)), rtol=1e-5, atol=1e-6)


def test_rotate_and_translate_move_the_pixels_as_numpy_does():
    square = RNG.standard_normal((5, 5))
    tall = RNG.integers(0, 255, (4, 6, 3)).astype(np.uint8)
    with tf.Graph().as_default(), tf.Session() as sess:
        rotated = sess.run(tf.contrib.image.rotate(square, math.pi / 2))
        moved = sess.run(tf.contrib.image.translate(tall, [1, 2]))
        twice = sess.run(tf.contrib.image.transform(tall, tf.contrib.image.compose_transforms(
            tf.contrib.image.translations_to_projective_transforms([1, 0]),
            tf.contrib.image.translations_to_projective_transforms([0, 2]))))
    np.testing.assert_allclose(rotated, np.rot90(square), atol=1e-6)  # (counterclockwise)
    want = np.zeros_like(tall)
    want[2:, 1:] = tall[:-2, :-1]
    np.testing.assert_array_equal(moved, want)
    np.testing.assert_array_equal(twice, want)
    assert moved.dtype == np.uint8


@pytest.mark.parametrize("interpolation", ["NEAREST", "BILINEAR"])
def test_the_gradient_is_the_exact_adjoint(interpolation):
    images = RNG.standard_normal((1, 4, 5, 2))
    check_gradients(lambda x: tf.contrib.image.transform(x, TRANSFORMS[1], interpolation), [images])


def _greedy_match(distance, valid, top_k=-1):
    """The obvious greedy matching: the smallest remaining distance first."""
    rows, columns = distance.shape
    row_match, column_match = [-1] * rows, [-1] * columns
    for _ in range(top_k if top_k > 0 else min(valid, columns)):
        best = min(((distance[r, c], r, c) for r in range(valid) for c in range(columns)
                    if row_match[r] == -1 and column_match[c] == -1), default=None)
        if best is None:
            break
        row_match[best[1]], column_match[best[2]] = best[2], best[1]
    return row_match, column_match


def test_bipartite_match_is_the_greedy_matching_of_the_smallest_distances():
    distance = np.array([[0.5, 0.8, 0.1], [0.3, 0.2, 0.15]], np.float32)
    rng = np.random.default_rng(6)
    random = rng.random((6, 4)).astype(np.float32)
    with tf.Graph().as_default(), tf.Session() as sess:
        for valid, expected in [(2, ([2, 1], [-1, 1, 0])), (1, ([2, -1], [-1, -1, 0])), (0, ([-1, -1], [-1] * 3)),
                                (-1, ([2, 1], [-1, 1, 0]))]:
            got = sess.run(tf.contrib.image.bipartite_match(distance, valid))
            assert [g.tolist() for g in got] == list(expected)
        for valid, top_k in [(6, -1), (5, 2), (-1, 3)]:
            got = sess.run(tf.contrib.image.bipartite_match(random, valid, top_k=top_k))
            assert tuple(g.tolist() for g in got) == _greedy_match(random, 6 if valid < 0 else valid, top_k)


def test_hue_saturation_and_value_change_in_yiq_space():
    rgb_to_yiq = np.array([[0.299, 0.587, 0.114], [0.596, -0.274, -0.322], [0.211, -0.523, 0.312]])
    x = np.random.default_rng(8).random((2, 4, 3)).astype(np.float32)
    hue, saturation, value = 0.7, 0.6, 1.2
    u, w = np.cos(hue), np.sin(hue)
    in_yiq = np.array([[value, 0, 0], [0, value * saturation * u, -value * saturation * w],
                       [0, value * saturation * w, value * saturation * u]])
    expected = x @ (np.linalg.inv(rgb_to_yiq) @ in_yiq @ rgb_to_yiq).T
    pixels = np.array([[[0, 128, 255]]], np.uint8)
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run(tf.contrib.image.adjust_hsv_in_yiq(x, hue, saturation, value))
        np.testing.assert_allclose(got, expected, atol=1e-5)
        same = sess.run(tf.contrib.image.adjust_hsv_in_yiq(pixels))  # (uint8 in, uint8 out, nothing changed)
        assert same.dtype == np.uint8 and np.abs(same.astype(int) - pixels).max() <= 1
        drawn = sess.run(tf.contrib.image.random_hsv_in_yiq(x, 0.5, 0.8, 1.2, 0.9, 1.1, seed=3))
        assert drawn.shape == x.shape and not np.allclose(drawn, x)
    with pytest.raises(ValueError, match="lower_saturation must be < upper_saturation"):
        tf.contrib.image.random_hsv_in_yiq(x, 0.1, 1.5, 1.0)


def _bilinear(image, y, x):
    """One channel vector of image [h, w, c] at (y, x), as TF's warp takes it: the lower
    neighbour clamped to [0, size - 2], the weight to [0, 1]."""
    h, w, _ = image.shape
    y0, x0 = min(max(0, np.floor(y)), h - 2), min(max(0, np.floor(x)), w - 2)
    a, b = min(max(0.0, y - y0), 1.0), min(max(0.0, x - x0), 1.0)
    y0, x0 = int(y0), int(x0)
    top = image[y0, x0] + b * (image[y0, x0 + 1] - image[y0, x0])
    bottom = image[y0 + 1, x0] + b * (image[y0 + 1, x0 + 1] - image[y0 + 1, x0])
    return top + a * (bottom - top)


def test_dense_image_warp_against_numpy_and_its_gradients():
    rng = np.random.RandomState(7)
    image = rng.rand(2, 4, 5, 3)
    flow = rng.randn(2, 4, 5, 2) * 1.5  # (some points fall outside the image)
    want = np.zeros_like(image)
    for n in range(2):
        for i in range(4):
            for j in range(5):
                want[n, i, j] = _bilinear(image[n], i - flow[n, i, j, 0], j - flow[n, i, j, 1])
    x, f = tf.constant(image), tf.constant(flow)
    warped = tf.contrib.image.dense_image_warp(x, f)
    points = tf.constant(rng.rand(2, 6, 2) * 3)
    xy = tf.contrib.image.interpolate_bilinear(x, points[:, :, ::-1], indexing="xy")
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(warped), want, rtol=1e-12)
        np.testing.assert_allclose(sess.run(xy), sess.run(tf.contrib.image.interpolate_bilinear(x, points)))
        assert tf.test.compute_gradient_error(x, [2, 4, 5, 3], warped, [2, 4, 5, 3], x_init_value=image) < 1e-8
        # (the flow's gradient, away from the cells' edges where bilinear weights have kinks)
        smooth = np.full((2, 4, 5, 2), 0.3) + rng.rand(2, 4, 5, 2) * 0.4
        assert tf.test.compute_gradient_error(f, [2, 4, 5, 2], warped, [2, 4, 5, 3], x_init_value=smooth,
                                              delta=1e-6) < 1e-6
    with pytest.raises(ValueError, match="Indexing mode"):
        tf.contrib.image.interpolate_bilinear(x, points, indexing="yx")
