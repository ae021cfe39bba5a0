"""tf.image's resizing (bilinear, nearest neighbour, bicubic and area; legacy sampling, corners
aligned, half-pixel centres) against loops over output pixels, its gradients against float64
central differences, and the colour and dtype conversions around it."""

import math

import numpy as np
import pytest

import distflow as tf
from gradcheck import check_gradients

RNG = np.random.RandomState(5)


def _source(i, size, new_size, align_corners, half_pixel):
    scale = (size - 1) / (new_size - 1) if align_corners and new_size > 1 else size / new_size
    return (i + 0.5) * scale - 0.5 if half_pixel else i * scale


def _keys(d, a):
    d = abs(d)
    return ((a + 2) * d - (a + 3)) * d * d + 1 if d <= 1 else ((a * d - 5 * a) * d + 8 * a) * d - 4 * a


def _resize_loops(image, new_h, new_w, method, align_corners=False, half_pixel=False):
    """One output pixel at a time, each method as TensorFlow describes its sampling."""
    n, h, w, c = image.shape
    out = np.zeros((n, new_h, new_w, c))
    clamp_y, clamp_x = (lambda v: min(max(v, 0), h - 1)), (lambda v: min(max(v, 0), w - 1))
    for i in range(new_h):
        for j in range(new_w):
            sy, sx = _source(i, h, new_h, align_corners, half_pixel), _source(j, w, new_w, align_corners, half_pixel)
            if method == "bilinear":
                y0, x0 = math.floor(sy), math.floor(sx)
                fy, fx = sy - y0, sx - x0
                for dy, wy in ((0, 1 - fy), (1, fy)):
                    for dx, wx in ((0, 1 - fx), (1, fx)):
                        out[:, i, j] += wy * wx * image[:, clamp_y(y0 + dy), clamp_x(x0 + dx)]
            elif method == "bicubic":
                a = -0.5 if half_pixel else -0.75
                y0, x0 = math.floor(sy), math.floor(sx)
                fy = math.floor((sy - y0) * 1024 + 0.5) / 1024  # (TensorFlow's table of 1024 steps)
                fx = math.floor((sx - x0) * 1024 + 0.5) / 1024
                taps = [(y0 + ty, x0 + tx, _keys(fy - ty, a) * _keys(fx - tx, a))
                        for ty in (-1, 0, 1, 2) for tx in (-1, 0, 1, 2)]
                if half_pixel:  # (taps outside drop out; the rest renormalized)
                    wy = [_keys(fy - t, a) * (0 <= y0 + t < h) for t in (-1, 0, 1, 2)]
                    wx = [_keys(fx - t, a) * (0 <= x0 + t < w) for t in (-1, 0, 1, 2)]
                    taps = [(y0 + ty, x0 + tx, wy[ty + 1] * wx[tx + 1] / sum(wy) / sum(wx))
                            for ty in (-1, 0, 1, 2) for tx in (-1, 0, 1, 2)]
                for y, x, weight in taps:
                    out[:, i, j] += weight * image[:, clamp_y(y), clamp_x(x)]
            elif method == "area":
                scale_y = (h - 1) / (new_h - 1) if align_corners and new_h > 1 else h / new_h
                scale_x = (w - 1) / (new_w - 1) if align_corners and new_w > 1 else w / new_w
                y_lo, y_hi, x_lo, x_hi = i * scale_y, (i + 1) * scale_y, j * scale_x, (j + 1) * scale_x
                for y in range(math.floor(y_lo), math.ceil(y_hi)):
                    for x in range(math.floor(x_lo), math.ceil(x_hi)):
                        overlap = (min(y + 1, y_hi) - max(y, y_lo)) * (min(x + 1, x_hi) - max(x, x_lo))
                        out[:, i, j] += overlap * image[:, clamp_y(y), clamp_x(x)] / (scale_y * scale_x)
            else:  # nearest
                if half_pixel:
                    y, x = math.floor((i + 0.5) * (h / new_h)), math.floor((j + 0.5) * (w / new_w))
                else:  # (corners aligned: the nearest, halves rounded up)
                    y, x = (math.floor(sy + 0.5), math.floor(sx + 0.5)) if align_corners else (math.floor(sy),
                                                                                               math.floor(sx))
                out[:, i, j] = image[:, clamp_y(y), clamp_x(x)]
    return out


CASES = [(method, size, align) for method in ("bilinear", "nearest", "bicubic", "area")
         for size in ([8, 3], [3, 11], [10, 14], [9, 13], [1, 1]) for align in (False, True)]


@pytest.mark.parametrize("method,size,align_corners", CASES)
def test_resize_samples_as_the_loops_do(method, size, align_corners):
    image = RNG.rand(2, 5, 7, 3).astype(np.float32)
    code = {"bilinear": 0, "nearest": 1, "bicubic": 2, "area": 3}[method]
    got = tf.image.resize_images(image, size, method=code, align_corners=align_corners)
    with tf.Session() as sess:
        value = sess.run(got)
    assert value.dtype == np.float32 and value.shape == (2, *size, 3)
    np.testing.assert_allclose(value, _resize_loops(image.astype(np.float64), *size, method, align_corners),
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("fn,method", [(tf.image.resize_bilinear, "bilinear"),
                                       (tf.image.resize_nearest_neighbor, "nearest"),
                                       (tf.image.resize_bicubic, "bicubic")])
def test_resize_with_half_pixel_centers(fn, method):
    image = RNG.rand(1, 5, 7, 2).astype(np.float32)
    with tf.Session() as sess:
        for size in ([8, 3], [3, 11], [10, 14]):
            np.testing.assert_allclose(sess.run(fn(image, size, half_pixel_centers=True)),
                                       _resize_loops(image.astype(np.float64), *size, method, half_pixel=True),
                                       rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("method", [0, 1, 2, 3])
def test_the_resize_gradient_against_central_differences(method):
    image = RNG.rand(1, 4, 5, 2)
    for size, align in (([7, 3], False), ([3, 8], True)):
        check_gradients(lambda x: tf.image.resize_images(x, size, method=method, align_corners=align), [image])
    # (the gradient's own gradient, through a square)
    check_gradients(lambda x: tf.gradients(tf.reduce_sum(tf.square(tf.image.resize_images(x, [7, 3], method=method))),
                                           x)[0], [image])


def test_aspect_ratio_padding_crops_and_integer_images():
    image = RNG.rand(5, 7, 3).astype(np.float32)
    u8 = (RNG.rand(4, 6, 3) * 255).astype(np.uint8)
    i16 = (RNG.rand(3, 3, 1) * 30000).astype(np.int16)
    fetches = [tf.image.resize_image_with_pad(image, 6, 6), tf.image.resize_images(image, [10, 10],
                                                                                    preserve_aspect_ratio=True),
               tf.image.central_crop(image, 0.5), tf.image.adjust_brightness(u8, 0.1),
               tf.image.adjust_brightness(u8, -0.5), tf.image.adjust_contrast(u8, 1.7),
               tf.image.convert_image_dtype(u8, tf.uint16), tf.image.convert_image_dtype(i16, tf.uint8),
               tf.image.convert_image_dtype(image * 2 - 0.5, tf.uint8, saturate=True)]
    with tf.Session() as sess:
        pad, aspect, crop, bright, dark, contrast, u16, down, saturated = sess.run(fetches)
    # 5x7 into 6x6: resized to 4x6 (floors of 5/ratio, 7/ratio), padded below only
    # (the padding is floored from the unfloored 4.29 rows)
    np.testing.assert_allclose(pad[:4], _resize_loops(image[None].astype(np.float64), 4, 6, "bilinear")[0], atol=1e-6)
    assert not pad[4:].any()
    assert aspect.shape == (7, 10, 3)
    # (TensorFlow truncates the offsets, int((5 - 2.5) / 2) = int((7 - 3.5) / 2) = 1, and keeps the rest)
    np.testing.assert_array_equal(crop, image[1:4, 1:6])
    as_float = u8 / 255.0
    np.testing.assert_array_equal(bright, np.floor(np.clip(as_float + 0.1, 0, 1) * 255.5).astype(np.uint8))
    np.testing.assert_array_equal(dark, np.floor(np.clip(as_float - 0.5, 0, 1) * 255.5).astype(np.uint8))
    mean = as_float.mean((0, 1))
    np.testing.assert_allclose(contrast, np.floor(np.clip((as_float - mean) * 1.7 + mean, 0, 1) * 255.5), atol=1)
    np.testing.assert_array_equal(u16, u8.astype(np.uint16) * 256)
    np.testing.assert_array_equal(down, (i16 // 128).astype(np.uint8))
    np.testing.assert_array_equal(saturated, np.clip(np.floor((image * 2 - 0.5) * 255.5), 0, 255).astype(np.uint8))


def test_colour_spaces_round_trip_and_keep_the_luma():
    image = RNG.rand(2, 4, 5, 3)
    with tf.Session() as sess:
        yiq, yuv, back_yiq, back_yuv = sess.run([tf.image.rgb_to_yiq(image), tf.image.rgb_to_yuv(image),
                                                 tf.image.yiq_to_rgb(tf.image.rgb_to_yiq(image)),
                                                 tf.image.yuv_to_rgb(tf.image.rgb_to_yuv(image))])
    luma = image @ [0.299, 0.587, 0.114]
    np.testing.assert_allclose(yiq[..., 0], luma, atol=1e-12)
    np.testing.assert_allclose(yuv[..., 0], luma, atol=1e-12)
    # (TensorFlow's matrices have eight decimals: the round trip is that close)
    np.testing.assert_allclose(back_yiq, image, atol=2e-4)
    np.testing.assert_allclose(back_yuv, image, atol=2e-4)
    # (U and V: the blue and red differences from the luma, scaled by 0.492 and 0.877)
    np.testing.assert_allclose(yuv[..., 1], 0.492111 * (image[..., 2] - luma), atol=1e-5)
    np.testing.assert_allclose(yuv[..., 2], 0.877283 * (image[..., 0] - luma), atol=1e-5)


def test_sobel_edges_against_a_loop_over_pixels():
    image = RNG.rand(2, 5, 6, 3)
    padded = np.pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="reflect")
    dy = np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]])
    want = np.zeros(image.shape + (2,))
    for i in range(5):
        for j in range(6):
            window = padded[:, i:i + 3, j:j + 3]
            want[:, i, j, :, 0] = np.einsum("nabc,ab->nc", window, dy)
            want[:, i, j, :, 1] = np.einsum("nabc,ab->nc", window, dy.T)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(tf.image.sobel_edges(image)), want, atol=1e-12)


def _ssim_loops(a, b, max_val, size, sigma, k1=0.01, k2=0.03):
    coords = np.arange(size) - (size - 1) / 2
    window = np.exp(-(coords[:, None] ** 2 + coords[None] ** 2) / (2 * sigma ** 2))
    window /= window.sum()
    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    n, h, w, c = a.shape
    scores = np.zeros((n, h - size + 1, w - size + 1, c))
    for i in range(h - size + 1):
        for j in range(w - size + 1):
            x, y = a[:, i:i + size, j:j + size], b[:, i:i + size, j:j + size]
            mx, my = np.einsum("nabc,ab->nc", x, window), np.einsum("nabc,ab->nc", y, window)
            vx = np.einsum("nabc,ab->nc", x * x, window) - mx * mx
            vy = np.einsum("nabc,ab->nc", y * y, window) - my * my
            cov = np.einsum("nabc,ab->nc", x * y, window) - mx * my
            scores[:, i, j] = ((2 * mx * my + c1) / (mx * mx + my * my + c1)) * ((2 * cov + c2) / (vx + vy + c2))
    return scores.mean((1, 2, 3))


def test_ssim_against_windows_computed_one_by_one():
    a = RNG.rand(2, 12, 13, 3).astype(np.float32)
    b = np.clip(a * 0.8 + 0.1 * RNG.rand(2, 12, 13, 3), 0, 1).astype(np.float32)
    u8 = (a * 255).astype(np.uint8)
    with tf.Session() as sess:
        default, small, same, integers = sess.run([tf.image.ssim(a, b, 1.0), tf.image.ssim(a, b, 1.0, filter_size=3,
                                                                                          filter_sigma=0.8, k1=0.02),
                                                   tf.image.ssim(a, a, 1.0), tf.image.ssim(u8, u8 // 2, 255)])
    np.testing.assert_allclose(default, _ssim_loops(a.astype(np.float64), b.astype(np.float64), 1.0, 11, 1.5), atol=1e-5)
    np.testing.assert_allclose(small, _ssim_loops(a.astype(np.float64), b.astype(np.float64), 1.0, 3, 0.8, k1=0.02),
                               atol=1e-5)
    np.testing.assert_allclose(same, [1.0, 1.0], atol=1e-6)
    np.testing.assert_allclose(integers, _ssim_loops(u8 / 255.0, (u8 // 2) / 255.0, 1.0, 11, 1.5), atol=1e-5)
    with pytest.raises(ValueError, match="smaller than"):
        tf.image.ssim(a[:, :5], b[:, :5], 1.0)


def test_multiscale_ssim_against_windows_computed_one_by_one():
    a = RNG.rand(1, 24, 24, 2).astype(np.float32)
    b = np.clip(a * 0.7 + 0.2 * RNG.rand(1, 24, 24, 2), 0, 1).astype(np.float32)
    powers = (0.3, 0.3, 0.4)
    with tf.Session() as sess:
        got = sess.run(tf.image.ssim_multiscale(a, b, 1.0, power_factors=powers, filter_size=3))

    def halve(x):
        return 0.25 * (x[:, ::2, ::2] + x[:, 1::2, ::2] + x[:, ::2, 1::2] + x[:, 1::2, 1::2])

    def cs_map(x, y):
        coords = np.arange(3) - 1.0
        window = np.exp(-(coords[:, None] ** 2 + coords[None] ** 2) / (2 * 1.5 ** 2))
        window /= window.sum()
        c2 = (0.03) ** 2
        cs, full = [], []
        for i in range(x.shape[1] - 2):
            for j in range(x.shape[2] - 2):
                p, q = x[:, i:i + 3, j:j + 3], y[:, i:i + 3, j:j + 3]
                mx, my = np.einsum("nabc,ab->nc", p, window), np.einsum("nabc,ab->nc", q, window)
                vx = np.einsum("nabc,ab->nc", p * p, window) - mx * mx
                vy = np.einsum("nabc,ab->nc", q * q, window) - my * my
                cov = np.einsum("nabc,ab->nc", p * q, window) - mx * my
                term = (2 * cov + c2) / (vx + vy + c2)
                cs.append(term)
                full.append(term * (2 * mx * my + 0.01 ** 2) / (mx * mx + my * my + 0.01 ** 2))
        return np.mean(cs, 0), np.mean(full, 0)  # [batch, channels]

    x, y = a.astype(np.float64), b.astype(np.float64)
    terms = []
    for k in range(3):
        if k:
            x, y = halve(x), halve(y)
        cs, full = cs_map(x, y)
        terms.append(full if k == 2 else cs)
    want = np.prod([np.maximum(t, 0) ** p for t, p in zip(terms, powers)], axis=0).mean(-1)
    np.testing.assert_allclose(got, want, rtol=1e-4)
