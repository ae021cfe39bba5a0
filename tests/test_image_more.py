"""tf.image's colour, geometry, detection and codec functions against NumPy written the obvious way
(colorsys for HSV), and PNG files TensorFlow 2.21 wrote."""


import base64
import colorsys
import struct
import zlib

import numpy as np
import pytest

import distflow as tf

RNG = np.random.RandomState(8)

# PNG files TensorFlow 2.21's tf.io.encode_png wrote (libpng: rows filtered with None, Sub, Up
# and Average) for the images _tf_images() makes.
TF_PNGS = {
    "smooth": "iVBORw0KGgoAAAANSUhEUgAAAAoAAAAMCAIAAADUCbv3AAAAHElEQVQYlWNkYGDgYmXGhRjxyHGxMjONSpMhDQAchgh14MIGxgAAAABJRU5ErkJggg==",
    "noisy": "iVBORw0KGgoAAAANSUhEUgAAAAkAAAAGCAYAAAARx7TFAAAA6UlEQVQImQHeACH/AWqY+YNOMAeSRcvKVvwWwCp+/Vb/NbfH+ky9qkyeKLHlpj+xmwLb0HXe5aKY5kF0LkAo0sUbrm5+nekiJ2YkXeUmKqcQtYMkBV4Bx6X9rlrMBKdUBsmWB22Z8BQb7cUA88KrJ27NQu4+UTB8lsE/APICnCRa6KywO8q28ORb8RVxOGgnHaCwCSHv97zYNwvUinDQTABELCz7E5B44qeywSOt8jQBEr8C1+OUPtEW3OuHueGrIPxcPJABGzVrCPnTLcY4C8y7zp/Y/LpFI2SWWqo3I60jJ88mUWNs2J3uOllt/MaosLIAAAAASUVORK5CYII=",
    "wide": "iVBORw0KGgoAAAANSUhEUgAAAAQAAAAFEAAAAAAXVs5EAAAAOElEQVQImQEtANL/Ae2M3BSzjvheADfNLV0S2ORyAmwU91RYKyggA+Qpj2kUpyH9AhG+6+lOKfXgxt4UOgNc1AIAAAAASUVORK5CYII=",
}


def _tf_images():
    rng = np.random.RandomState(3)
    smooth = (np.add.outer(np.arange(12), np.arange(10))[:, :, None] * np.array([10, 5, 3])).astype(np.uint8)
    noisy = rng.randint(0, 256, size=(6, 9, 4)).astype(np.uint8)
    wide = (rng.rand(5, 4, 1) * 65535).astype(np.uint16)
    return {"smooth": smooth, "noisy": noisy, "wide": wide}


def _run(*fetches):
    with tf.Session() as sess:
        return sess.run(list(fetches))


def test_pngs_that_tensorflow_wrote_decode_and_ours_round_trip():
    images = _tf_images()
    decoded = _run(*[tf.image.decode_png(base64.b64decode(data), dtype=tf.uint16 if name == "wide" else tf.uint8)
                     for name, data in TF_PNGS.items()])
    for (name, _), got in zip(TF_PNGS.items(), decoded):
        np.testing.assert_array_equal(got, images[name])
    for image in (images["noisy"], images["wide"], images["smooth"][:, :, :1], images["noisy"][:, :, :2]):
        np.testing.assert_array_equal(_run(tf.image.decode_image(tf.image.encode_png(image),
                                                                 dtype=tf.as_dtype(image.dtype)))[0], image)
    gray, rgba = _run(tf.image.decode_png(base64.b64decode(TF_PNGS["smooth"]), channels=1),
                      tf.image.decode_png(base64.b64decode(TF_PNGS["smooth"]), channels=4))
    weights = np.array([0.2989, 0.587, 0.114])
    np.testing.assert_array_equal(gray[:, :, 0], np.round(images["smooth"] @ weights).astype(np.uint8))
    assert rgba.shape == (12, 10, 4) and np.all(rgba[:, :, 3] == 255)


def _paeth_png(image):
    """A PNG whose every row is Paeth-filtered (the filter written out), for the decoder."""
    rows = image.reshape(image.shape[0], -1).astype(np.int64)
    bpp = image.shape[2]
    out = b""
    previous = np.zeros(rows.shape[1], np.int64)
    for row in rows:
        filtered = []
        for x, value in enumerate(row):
            a = row[x - bpp] if x >= bpp else 0
            b = previous[x]
            c = previous[x - bpp] if x >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            guess = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            filtered.append((value - guess) % 256)
        out += bytes([4]) + bytes(filtered)
        previous = row

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", image.shape[1], image.shape[0], 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(out)) + chunk(b"IEND", b"")


def test_paeth_rows_decode_and_a_broken_jpeg_says_what_is_wrong():
    image = RNG.randint(0, 256, size=(7, 5, 3)).astype(np.uint8)
    np.testing.assert_array_equal(_run(tf.image.decode_png(_paeth_png(image)))[0], image)
    with pytest.raises(tf.errors.InvalidArgumentError, match="DecodeJpeg: .*(truncated|corrupt)"):
        _run(tf.image.decode_jpeg(tf.constant(b"\xff\xd8\xff")))
    with pytest.raises(tf.errors.InvalidArgumentError, match="DecodeJpeg: "):
        _run(tf.image.decode_image(tf.constant(b"\xff\xd8\xff\xe0rest")))


def test_hsv_hue_saturation_and_gamma_against_colorsys():
    rgb = RNG.rand(4, 6, 3).astype(np.float32)
    hsv, back, hue, saturated, gamma = _run(
        tf.image.rgb_to_hsv(rgb), tf.image.hsv_to_rgb(tf.image.rgb_to_hsv(rgb)), tf.image.adjust_hue(rgb, 0.2),
        tf.image.adjust_saturation(rgb, 1.7), tf.image.adjust_gamma(rgb, 2.0, 0.5))
    want = np.array([colorsys.rgb_to_hsv(*p) for p in rgb.reshape(-1, 3)]).reshape(rgb.shape)
    np.testing.assert_allclose(hsv, want, atol=1e-6)
    np.testing.assert_allclose(back, rgb, atol=1e-6)
    shifted = want.copy()
    shifted[..., 0] = (shifted[..., 0] + 0.2) % 1.0
    np.testing.assert_allclose(hue, np.array([colorsys.hsv_to_rgb(*p) for p in shifted.reshape(-1, 3)]).reshape(
        rgb.shape), atol=1e-5)
    more = want.copy()
    more[..., 1] = np.clip(more[..., 1] * 1.7, 0, 1)
    np.testing.assert_allclose(saturated, np.array([colorsys.hsv_to_rgb(*p) for p in more.reshape(-1, 3)]).reshape(
        rgb.shape), atol=1e-5)
    np.testing.assert_allclose(gamma, 0.5 * rgb ** 2, rtol=1e-6)


def test_rotations_transposes_gradients_variation_and_psnr():
    image = RNG.rand(3, 4, 2)
    batch = RNG.rand(2, 3, 4, 2)
    got = _run(*[tf.image.rot90(image, k) for k in range(4)], tf.image.rot90(batch, 1), tf.image.transpose_image(image),
               tf.image.total_variation(batch), *tf.image.image_gradients(batch), tf.image.psnr(batch, batch * 0.9, 1.0))
    for k in range(4):
        np.testing.assert_array_equal(got[k], np.rot90(image, k))
    np.testing.assert_array_equal(got[4], np.rot90(batch, 1, axes=(1, 2)))
    np.testing.assert_array_equal(got[5], image.transpose(1, 0, 2))
    want_tv = np.abs(np.diff(batch, axis=1)).sum((1, 2, 3)) + np.abs(np.diff(batch, axis=2)).sum((1, 2, 3))
    np.testing.assert_allclose(got[6], want_tv, rtol=1e-12)
    assert got[7].shape == batch.shape and np.all(got[7][:, -1] == 0)
    np.testing.assert_allclose(got[7][:, :-1], np.diff(batch, axis=1), rtol=1e-12)
    np.testing.assert_allclose(got[8][:, :, :-1], np.diff(batch, axis=2), rtol=1e-12)
    mse = ((batch - batch * 0.9) ** 2).mean((1, 2, 3))
    np.testing.assert_allclose(got[9], -10 * np.log10(mse), rtol=1e-5)


def _iou(a, b):
    ay1, ax1, ay2, ax2 = min(a[0], a[2]), min(a[1], a[3]), max(a[0], a[2]), max(a[1], a[3])
    by1, bx1, by2, bx2 = min(b[0], b[2]), min(b[1], b[3]), max(b[0], b[2]), max(b[1], b[3])
    inter = max(0, min(ay2, by2) - max(ay1, by1)) * max(0, min(ax2, bx2) - max(ax1, bx1))
    return inter / ((ay2 - ay1) * (ax2 - ax1) + (by2 - by1) * (bx2 - bx1) - inter)


def test_non_max_suppression_keeps_the_best_boxes_that_do_not_overlap():
    corners = RNG.rand(30, 2) * 10
    boxes = np.concatenate([corners, corners + 1 + RNG.rand(30, 2) * 3], 1).astype(np.float32)
    scores = RNG.rand(30).astype(np.float32)
    got, capped, confident = _run(tf.image.non_max_suppression(boxes, scores, 30, 0.3),
                                  tf.image.non_max_suppression(boxes, scores, 4, 0.3),
                                  tf.image.non_max_suppression(boxes, scores, 30, 0.3, score_threshold=0.5))
    want = []
    for i in np.argsort(-scores):
        if all(_iou(boxes[i], boxes[j]) <= 0.3 for j in want):
            want.append(int(i))
    assert got.tolist() == want and capped.tolist() == want[:4]
    assert confident.tolist() == [i for i in want if scores[i] > 0.5]


def test_crop_and_resize_against_bilinear_interpolation():
    image = RNG.rand(2, 5, 6, 3).astype(np.float32)
    boxes = np.array([[0.1, 0.2, 0.9, 0.7], [0.0, 0.0, 1.0, 1.0], [0.5, -0.2, 1.2, 0.5]], np.float32)
    got = _run(tf.image.crop_and_resize(image, boxes, [1, 0, 1], [4, 3], extrapolation_value=-1.0))[0]
    assert got.shape == (3, 4, 3, 3)
    for n, (y1, x1, y2, x2) in enumerate(boxes.astype(np.float64)):
        src = image[[1, 0, 1][n]]
        for i in range(4):
            for j in range(3):
                y = y1 * 4 + i * (y2 - y1) * 4 / 3
                x = x1 * 5 + j * (x2 - x1) * 5 / 2
                if not (0 <= y <= 4 and 0 <= x <= 5):
                    assert np.all(got[n, i, j] == -1.0)
                    continue
                y0, x0 = int(np.floor(y)), int(np.floor(x))
                y1_, x1_ = min(y0 + 1, 4), min(x0 + 1, 5)
                top = src[y0, x0] + (src[y0, x1_] - src[y0, x0]) * (x - x0)
                bottom = src[y1_, x0] + (src[y1_, x1_] - src[y1_, x0]) * (x - x0)
                np.testing.assert_allclose(got[n, i, j], top + (bottom - top) * (y - y0), rtol=1e-5, atol=1e-6)


def test_padded_and_soft_non_max_suppression_and_drawn_boxes():
    boxes = np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], [0, 10.1, 1, 11.1],
                      [0, 100, 1, 101]], np.float32)
    scores = np.array([0.9, 0.75, 0.6, 0.95, 0.5, 0.3], np.float32)
    hard = tf.image.non_max_suppression(boxes, scores, 5, 0.5)
    padded, valid = tf.image.non_max_suppression_padded(boxes, scores, 5, 0.5, pad_to_max_output_size=True)
    soft = tf.image.non_max_suppression_with_scores(boxes, scores, 6, 1.0, soft_nms_sigma=0.5)
    soft_thresholded = tf.image.non_max_suppression_with_scores(boxes, scores, 6, 0.6, score_threshold=0.2,
                                                                soft_nms_sigma=0.3)
    drawn = tf.image.draw_bounding_boxes(np.zeros((1, 4, 5, 3), np.float32),
                                         [[[0.0, 0.0, 1.0, 1.0], [0.3, 0.3, 0.7, 0.9]]])
    gray = tf.image.draw_bounding_boxes(np.zeros((1, 4, 5, 1), np.float32), [[[0.3, 0.3, 0.7, 0.9]]])
    with tf.Session() as sess:
        got = sess.run([hard, padded, valid, soft, soft_thresholded, drawn, gray])
    assert got[1].tolist() == got[0].tolist() + [0] * (5 - len(got[0])) and got[2] == len(got[0])
    # (TensorFlow 2.21's selections and decayed scores for the same boxes)
    assert got[3][0].tolist() == [3, 0, 1, 5, 4, 2]
    np.testing.assert_allclose(got[3][1], [0.95, 0.9, 0.384004, 0.3, 0.256003, 0.196972], rtol=1e-5)
    assert got[4][0].tolist() == [3, 0, 5, 1]
    np.testing.assert_allclose(got[4][1], [0.95, 0.9, 0.3, 0.245764], rtol=1e-5)
    # (TF's first two colors, yellow and blue; the second box, rows int(0.3 * 3) = 0 to 2 and
    # columns 1 to 3, drawn over the first)
    y, b, o = [1.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]
    assert got[5][0].tolist() == [[y, b, b, b, y], [y, b, o, b, y], [y, b, b, b, y], [y, y, y, y, y]]
    assert got[6][0, :3, :, 0].tolist() == [[0, 1, 1, 1, 0], [0, 1, 0, 1, 0], [0, 1, 1, 1, 0]]  # (gray: white boxes)


def test_sample_distorted_bounding_box_keeps_its_constraints():
    box = np.array([[[0.2, 0.3, 0.7, 0.9]]], np.float32)
    begin, size, bbox = tf.image.sample_distorted_bounding_box([40, 60, 3], box, seed=4, min_object_covered=0.5,
                                                               aspect_ratio_range=(0.5, 2.0), area_range=(0.1, 0.8))
    whole = tf.image.sample_distorted_bounding_box([40, 60, 3], np.zeros((1, 0, 4), np.float32), seed=1,
                                                   min_object_covered=0.9, area_range=(0.01, 0.02),
                                                   use_image_if_no_bounding_boxes=True)
    crop = tf.slice(tf.zeros([40, 60, 3]), begin, size)
    assert begin.dtype == tf.int32 and bbox.shape.as_list() == [1, 1, 4]
    with tf.Session() as sess:
        for _ in range(50):
            (y, x, _), (h, w, depth), ((got_box,),), shape = sess.run([begin, size, bbox, tf.shape(crop)])
            assert depth == -1 and shape.tolist() == [h, w, 3]
            assert 0 <= y and y + h <= 40 and 0 <= x and x + w <= 60
            np.testing.assert_allclose(got_box, [y / 40, x / 60, (y + h) / 40, (x + w) / 60], rtol=1e-6)
            assert 0.1 * 2400 <= h * w <= 0.8 * 2400 and 0.5 - 0.05 <= w / h <= 2.0 + 0.1
            inter = max(0, min(y + h, 28) - max(y, 8)) * max(0, min(x + w, 54) - max(x, 18))
            assert inter >= 0.5 * 20 * 36  # (half of the box covered)
        # (no crop can hold 90% of a whole image in 1-2% of it: every attempt fails, the image is used)
        assert [v.tolist() for v in sess.run(whole)[:2]] == [[0, 0, 0], [40, 60, -1]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="no bounding boxes"):
        with tf.Session() as sess:
            sess.run(tf.image.sample_distorted_bounding_box([4, 4, 1], np.zeros((1, 0, 4), np.float32))[0])
