"""tf.keras.preprocessing.image: the affine transforms against scipy.ndimage, which Keras samples
with (the same matrix about Keras's centre, per channel), and ImageDataGenerator's
augmentation, standardization and iterators against NumPy."""

import os

import numpy as np
import pytest

import distflow as tf

image = tf.keras.preprocessing.image
RNG = np.random.RandomState(0)

pytestmark = pytest.mark.usefixtures("fresh_keras")  # (conftest.py: a fresh Keras session and a seed)


def keras_with_scipy(x, theta, tx, ty, shear, zx, zy, fill_mode, cval, order):
    """Keras's apply_affine_transform as Keras writes it, on scipy.ndimage."""
    ndimage = pytest.importorskip("scipy.ndimage")
    t, s = np.deg2rad(theta), np.deg2rad(shear)
    m = np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0], [0, 0, 1]])
    m = m @ np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]]) @ np.array([[1, -np.sin(s), 0], [0, np.cos(s), 0], [0, 0, 1]])
    m = m @ np.array([[zx, 0, 0], [0, zy, 0], [0, 0, 1]])
    o_x, o_y = x.shape[0] / 2 + 0.5, x.shape[1] / 2 + 0.5
    m = np.array([[1, 0, o_x], [0, 1, o_y], [0, 0, 1]]) @ m @ np.array([[1, 0, -o_x], [0, 1, -o_y], [0, 0, 1]])
    return np.stack([ndimage.affine_transform(x[:, :, c], m[:2, :2], m[:2, 2], order=order, mode=fill_mode, cval=cval)
                     for c in range(x.shape[2])], axis=2)


@pytest.mark.parametrize("fill_mode", ["nearest", "constant", "reflect", "wrap"])
@pytest.mark.parametrize("order", [0, 1])
def test_affine_transforms_sample_as_scipy_does_for_keras(fill_mode, order):
    x = RNG.rand(9, 11, 3)
    for theta, tx, ty, shear, zx, zy in [(23.0, 0, 0, 0, 1, 1), (0, 2.5, -3.25, 0, 1, 1), (0, 0, 0, 17.0, 1, 1),
                                         (0, 0, 0, 0, 0.7, 1.3), (-40.0, 1.5, 2.0, 8.0, 1.2, 0.9)]:
        got = image.apply_affine_transform(x, theta, tx, ty, shear, zx, zy, fill_mode=fill_mode, cval=0.25,
                                           order=order)
        want = keras_with_scipy(x, theta, tx, ty, shear, zx, zy, fill_mode, 0.25, order)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10, err_msg=str((theta, tx, ty, shear, zx, zy)))
    # channels first: the same image with its channels moved
    got = image.apply_affine_transform(np.moveaxis(x, 2, 0), 30.0, row_axis=1, col_axis=2, channel_axis=0,
                                       fill_mode=fill_mode, order=order)
    np.testing.assert_allclose(np.moveaxis(got, 0, 2), image.apply_affine_transform(x, 30.0, fill_mode=fill_mode,
                                                                                     order=order), atol=1e-12)


def test_shifts_by_whole_pixels_flips_and_channel_shift_are_exact():
    x = RNG.rand(5, 6, 2)
    shifted = image.apply_affine_transform(x, tx=2, ty=-1, fill_mode="constant", cval=-1.0)
    want = np.full_like(x, -1.0)
    want[:3, 1:] = x[2:, :5]  # (out[r, c] = x[r + 2, c - 1])
    np.testing.assert_allclose(shifted, want, atol=1e-12)
    np.testing.assert_array_equal(image.flip_axis(x, 1), x[:, ::-1])
    np.testing.assert_array_equal(image.apply_channel_shift(x, 0.5), np.clip(x + 0.5, x.min(), x.max()))
    assert image.apply_affine_transform(x) is x  # (no transform: the image itself)
    with pytest.raises(ValueError, match="fill_mode"):
        image.apply_affine_transform(x, theta=10, fill_mode="mirror")


def test_the_generator_draws_keras_transforms_and_flows_batches_with_their_labels():
    x = RNG.rand(10, 8, 8, 3).astype(np.float32) * 255
    y = np.arange(10)
    flipper = image.ImageDataGenerator(horizontal_flip=True, rescale=1.0 / 255)
    batches = flipper.flow(x, y, batch_size=4, shuffle=True, seed=5)
    assert len(batches) == 3
    seen = []
    for i in range(3):
        bx, by = batches[i]
        for img, label in zip(bx, by):
            original = x[label] / 255
            assert np.allclose(img, original, atol=1e-6) or np.allclose(img, original[:, ::-1], atol=1e-6)
        seen += list(by)
    assert sorted(seen) == list(range(10))  # (each sample once an epoch)
    again = flipper.flow(x, y, batch_size=4, shuffle=True, seed=5)
    np.testing.assert_array_equal(again[0][0], flipper.flow(x, y, batch_size=4, shuffle=True, seed=5)[0][0])
    bx, by = next(iter(flipper.flow(x, y, batch_size=4, shuffle=False)))
    np.testing.assert_array_equal(by, [0, 1, 2, 3])
    # pixel shifts: an int range draws whole pixels, below [0, n), either way
    shifter = image.ImageDataGenerator(width_shift_range=3, fill_mode="constant")
    draws = {shifter.get_random_transform((8, 8, 3))["ty"] for _ in range(200)}
    assert draws == {-2.0, -1.0, 0.0, 1.0, 2.0}
    fractions = image.ImageDataGenerator(height_shift_range=0.25, zoom_range=0.1, rotation_range=10)
    params = [fractions.get_random_transform((8, 8, 3)) for _ in range(100)]
    assert all(abs(p["tx"]) <= 2 and 0.9 <= p["zx"] <= 1.1 and abs(p["theta"]) <= 10 for p in params)
    # a validation subset: the first validation_split of the samples
    split = image.ImageDataGenerator(validation_split=0.3)
    assert split.flow(x, y, batch_size=10, shuffle=False, subset="validation")[0][1].tolist() == [0, 1, 2]
    assert split.flow(x, y, batch_size=10, shuffle=False, subset="training")[0][1].tolist() == list(range(3, 10))


def test_fit_computes_featurewise_statistics_and_zca_whitening():
    x = RNG.rand(40, 4, 4, 2).astype(np.float32) * [1.0, 5.0] + [0.0, 3.0]
    gen = image.ImageDataGenerator(featurewise_center=True, featurewise_std_normalization=True)
    gen.fit(x)
    np.testing.assert_allclose(gen.mean.reshape(-1), x.mean((0, 1, 2)), rtol=1e-5)
    np.testing.assert_allclose(gen.std.reshape(-1), (x - x.mean((0, 1, 2))).std((0, 1, 2)), rtol=1e-4)
    standardized = gen.standardize(x.copy())
    np.testing.assert_allclose(standardized.mean((0, 1, 2)), 0, atol=1e-5)
    np.testing.assert_allclose(standardized.std((0, 1, 2)), 1, rtol=1e-3)
    small = RNG.rand(200, 2, 2, 1).astype(np.float64)
    zca = image.ImageDataGenerator(zca_whitening=True, zca_epsilon=1e-9)
    zca.fit(small)
    white = zca.standardize(small.copy()).reshape(200, -1)
    np.testing.assert_allclose(white.T @ white / 200, np.eye(4), atol=1e-4)  # (whitened: identity covariance)
    with pytest.raises(ValueError, match="rank 4"):
        gen.fit(x[0])
    # (with rescale, the statistics are of the rescaled images, which standardize centres)
    pixels = x * 255
    scaled = image.ImageDataGenerator(featurewise_center=True, featurewise_std_normalization=True, rescale=1 / 255.0)
    scaled.fit(pixels)
    np.testing.assert_allclose(scaled.mean.reshape(-1), x.mean((0, 1, 2)), rtol=1e-4)
    np.testing.assert_allclose(scaled.standardize(pixels.copy()).mean((0, 1, 2)), 0, atol=1e-4)


def test_flow_from_directory_reads_class_folders(tmp_path):
    pil = pytest.importorskip("PIL.Image")
    for label, colour in (("cats", 40), ("dogs", 200)):
        os.makedirs(tmp_path / label)
        for i in range(3):
            pil.fromarray(np.full((6, 5, 3), colour + i, np.uint8)).save(tmp_path / label / f"{i}.png")
    batches = image.ImageDataGenerator(rescale=1.0).flow_from_directory(
        str(tmp_path), target_size=(6, 5), batch_size=6, shuffle=False)
    assert batches.class_indices == {"cats": 0, "dogs": 1} and batches.samples == 6
    bx, by = batches[0]
    assert bx.shape == (6, 6, 5, 3)
    np.testing.assert_array_equal(bx[:, 0, 0, 0], [40, 41, 42, 200, 201, 202])
    np.testing.assert_array_equal(by, np.eye(2)[[0, 0, 0, 1, 1, 1]])
    resized = image.ImageDataGenerator().flow_from_directory(str(tmp_path), target_size=(3, 4), color_mode="grayscale",
                                                             class_mode="sparse", batch_size=2)
    bx, by = resized[0]
    assert bx.shape == (2, 3, 4, 1) and set(by) <= {0.0, 1.0}
    img = image.load_img(str(tmp_path / "cats" / "0.png"))
    np.testing.assert_array_equal(image.img_to_array(img)[0, 0], [40, 40, 40])


def test_apply_transform_reads_each_place_through_the_matrix_from_the_nearest_place():
    x = np.arange(2 * 5 * 6, dtype=np.float32).reshape(2, 5, 6)  # (channels first)
    shift = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 2.0], [0.0, 0.0, 1.0]])  # (each place reads 1 row, 2 columns on)
    out = image.apply_transform(x, shift, channel_axis=0, fill_mode="constant", cval=-1.0)
    np.testing.assert_array_equal(out[:, :4, :4], x[:, 1:, 2:])
    assert np.all(out[:, 4, :] == -1.0) and np.all(out[:, :, 4:] == -1.0)
    rotation = image.transform_matrix_offset_center(
        np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]), 5, 6)
    last = np.moveaxis(x, 0, -1)  # (channels last, as apply_affine_transform takes it by default)
    np.testing.assert_array_equal(image.apply_transform(last, rotation, channel_axis=2),
                                  image.apply_affine_transform(last, theta=90, order=0))


def test_convert_all_kernels_in_model_flips_the_convolutions_spatial_axes():
    kernel = np.arange(2 * 3 * 1 * 2, dtype=np.float32).reshape(2, 3, 1, 2)
    np.testing.assert_array_equal(tf.keras.utils.convert_kernel(kernel), kernel[::-1, ::-1])
    with tf.Graph().as_default():
        model = tf.keras.Sequential([tf.keras.layers.Conv2D(2, (2, 3), input_shape=(4, 4, 1)),
                                     tf.keras.layers.Flatten(), tf.keras.layers.Dense(1)])
        dense = tf.keras.backend.get_value(model.layers[2].kernel)
        tf.keras.backend.set_value(model.layers[0].kernel, kernel)
        tf.keras.utils.convert_all_kernels_in_model(model)
        np.testing.assert_array_equal(tf.keras.backend.get_value(model.layers[0].kernel), kernel[::-1, ::-1])
        np.testing.assert_array_equal(tf.keras.backend.get_value(model.layers[2].kernel), dense)
