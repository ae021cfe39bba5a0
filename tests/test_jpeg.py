"""tf.image.decode_jpeg and its kin: the NumPy decoder against libjpeg-turbo's decodes of the
same files (tests/data/jpeg: a synthetic 37x29 picture written by Pillow 13 with libjpeg-turbo
3 in each layout, and what libjpeg-turbo decodes from each, its luma plane for one). libjpeg's
inverse DCT is fixed point, distflow's floating point: pixels may differ by a level or two."""

import os
import struct
import zlib

import numpy as np
import pytest

import distflow as tf
from distflow.ops import jpeg

DATA = os.path.join(os.path.dirname(__file__), "data", "jpeg")
CASES = ["ycc420", "ycc444_restart", "ycc422_optimized", "ycc420_progressive", "gray_progressive"]


def _read(name):
    with open(os.path.join(DATA, name + ".jpg"), "rb") as f:
        return f.read()


def _close_to_libjpeg(got, want):
    diff = np.abs(got.astype(np.int64) - want.astype(np.int64))
    assert got.shape == want.shape and got.dtype == np.uint8
    assert diff.max() <= 3 and diff.mean() < 0.1, (diff.max(), diff.mean())


@pytest.mark.parametrize("name", CASES)
def test_each_layout_decodes_as_libjpeg_does(name):
    want = np.load(os.path.join(DATA, name + ".npy"))
    got = jpeg.decode(_read(name))
    _close_to_libjpeg(got if want.ndim == 3 else got[..., 0], want)


def test_decode_jpeg_in_a_graph_with_channels_and_the_images_other_ops():
    data = tf.placeholder(tf.string, [])
    color, luma = tf.image.decode_jpeg(data, channels=3), tf.image.decode_jpeg(data, channels=1)
    any_image = tf.image.decode_image(data)
    shape = tf.image.extract_jpeg_shape(data)
    crop = tf.image.decode_and_crop_jpeg(data, [3, 5, 10, 20], channels=3)
    half = tf.image.decode_jpeg(data, ratio=2)
    with tf.Session() as sess:
        c, y, a, s, cropped, h = sess.run([color, luma, any_image, shape, crop, half], {data: _read("ycc420")})
        gray_as_rgb = sess.run(color, {data: _read("gray_progressive")})
        assert sess.run(tf.image.is_jpeg(data), {data: _read("ycc420")})
    _close_to_libjpeg(c, np.load(os.path.join(DATA, "ycc420.npy")))
    _close_to_libjpeg(y[..., 0], np.load(os.path.join(DATA, "ycc420_luma.npy")))  # (libjpeg's luma plane)
    np.testing.assert_array_equal(a, c)
    assert s.tolist() == [29, 37, 3] and color.shape.as_list() == [None, None, 3]
    np.testing.assert_array_equal(cropped, c[3:13, 5:25])
    padded = np.pad(c.astype(np.float64), ((0, 1), (0, 1), (0, 0)), mode="edge")  # (29x37 to 15x19 squares)
    np.testing.assert_array_equal(h, np.rint(padded.reshape(15, 2, 19, 2, 3).mean((1, 3))).astype(np.uint8))
    assert (gray_as_rgb[..., 0] == gray_as_rgb[..., 2]).all() and gray_as_rgb.shape == (29, 37, 3)


def _png(pixels):
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    rows = b"".join(b"\x00" + row.tobytes() for row in pixels)
    header = struct.pack(">IIBBBBB", pixels.shape[1], pixels.shape[0], 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def test_decode_jpeg_decodes_a_png_as_tf_1x_did_and_a_gif_says_what_is_missing():
    pixels = np.arange(24, dtype=np.uint8).reshape(2, 4, 3)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(tf.image.decode_jpeg(_png(pixels))), pixels)
        with pytest.raises(tf.errors.UnimplementedError, match="GIF"):
            sess.run(tf.image.decode_image(b"GIF89a" + b"\x00" * 20))


def test_bad_and_truncated_data_are_clear_errors():
    data = _read("ycc420_progressive")
    cut = data[:len(data) // 2]
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="truncated.*try_recover_truncated"):
            sess.run(tf.image.decode_jpeg(cut))
        recovered = sess.run(tf.image.decode_jpeg(cut, try_recover_truncated=True))
    assert recovered.shape == (29, 37, 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="not a JPEG"):
        jpeg.decode(b"\xff\xd9not a jpeg")
    huge = bytearray(_read("gray_progressive"))
    at = huge.index(b"\xff\xc2") + 5  # (the progressive frame header's height and width)
    huge[at:at + 4] = struct.pack(">HH", 60000, 60000)
    with pytest.raises(tf.errors.InvalidArgumentError, match="60000x60000 pixels.*larger than distflow decodes"):
        jpeg.decode(bytes(huge))
    arithmetic = bytearray(_read("ycc420"))
    arithmetic[arithmetic.index(b"\xff\xc0") + 1] = 0xC9
    with pytest.raises(tf.errors.UnimplementedError, match="arithmetic-coded sequential"):
        jpeg.decode(bytes(arithmetic))
    with pytest.raises(ValueError, match="channels must be 0, 1 or 3"):
        tf.image.decode_jpeg(data, channels=4)


@pytest.mark.parametrize("name", CASES)
def test_damaged_files_never_crash_the_decoder(name):
    data = _read(name)
    rng = np.random.default_rng(len(name))
    for _ in range(60):
        damaged = bytearray(data)
        for at in rng.integers(2, len(data), rng.integers(1, 4)):
            damaged[at] = rng.integers(0, 256)
        try:
            out = jpeg.decode(bytes(damaged), try_recover_truncated=True)
        except (tf.errors.InvalidArgumentError, tf.errors.UnimplementedError):
            continue
        assert out.dtype == np.uint8 and out.ndim == 3


def test_tf_slims_image_handler_decodes_a_jpeg_of_an_example():
    from distflow.contrib import slim_tfexample_decoder as decoder_lib

    data = _read("ycc420")
    example = tf.train.Example(features=tf.train.Features(feature={
        "image/encoded": tf.train.Feature(bytes_list=tf.train.BytesList(value=[data])),
        "image/format": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"jpeg"]))}))
    keys_to_features = {"image/encoded": tf.FixedLenFeature((), tf.string),
                        "image/format": tf.FixedLenFeature((), tf.string, default_value="jpeg")}
    decoder = decoder_lib.TFExampleDecoder(keys_to_features, {"image": decoder_lib.Image()})
    [image] = decoder.decode(tf.constant(example.SerializeToString()), ["image"])
    with tf.Session() as sess:
        _close_to_libjpeg(sess.run(image), np.load(os.path.join(DATA, "ycc420.npy")))


def _segments_of(data):
    """{marker: [payload, ...]} of a JPEG file's segments before its scan data."""
    out, pos = {}, 2
    while data[pos + 1] != 0xDA:
        marker, length = data[pos + 1], struct.unpack(">H", data[pos + 2:pos + 4])[0]
        out.setdefault(marker, []).append(data[pos + 4:pos + 2 + length])
        pos += 2 + length
    return out


def test_encode_jpeg_writes_libjpegs_tables_and_decodes_back():
    y, x = np.mgrid[0:29, 0:37]
    smooth = np.stack([x * 7, y * 8, (x + y) * 3], -1).astype(np.uint8)
    with tf.Session() as sess:
        q90 = sess.run(tf.image.encode_jpeg(smooth, quality=90))
        q95_444 = sess.run(tf.image.encode_jpeg(smooth, chroma_downsampling=False))
        gray = sess.run(tf.image.encode_jpeg(smooth[..., :1], format="grayscale", density_unit="cm"))
        back = sess.run(tf.image.decode_jpeg(q95_444))
        with pytest.raises(tf.errors.InvalidArgumentError, match="format 'rgb' needs 3 channel"):
            sess.run(tf.image.encode_jpeg(smooth[..., :1], format="rgb"))
    # (the quantization tables of a libjpeg-turbo file of quality 90, in the same order)
    assert _segments_of(q90)[0xDB] == _segments_of(_read("ycc420"))[0xDB]
    frame = _segments_of(q90)[0xC0][0]
    assert struct.unpack(">BHHB", frame[:6]) == (8, 29, 37, 3) and frame[6:9] == bytes([1, 0x22, 0])
    assert _segments_of(q95_444)[0xC0][0][6:9] == bytes([1, 0x11, 0])
    assert _segments_of(gray)[0xE0][0][:8] == b"JFIF\x00\x01\x01\x02" and jpeg.jpeg_shape(gray) == (29, 37, 1)
    error = back.astype(np.float64) - smooth
    assert 10 * np.log10(255 ** 2 / np.mean(error ** 2)) > 40  # (PSNR, in dB)
    with pytest.raises(TypeError, match="uint8"):
        tf.image.encode_jpeg(smooth.astype(np.float32))
