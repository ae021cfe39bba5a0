"""``tf.keras.preprocessing.image``: Keras's image augmentation (``ImageDataGenerator`` and its
iterators over arrays and folders) and the random transforms it draws from.

The transforms are Keras's: an affine map about the image's centre (rotation, shift, shear,
zoom), sampled with bilinear interpolation (``order=1``; 0 is nearest) and Keras's fill modes
(``nearest``, ``constant``, ``reflect``, ``wrap``), as scipy.ndimage samples them for Keras,
computed here with NumPy; then the channel shift, the flips and the brightness. Reading and
writing image files (``load_img``, ``flow_from_directory``) needs Pillow, as Keras's does.
"""

from __future__ import annotations

import os

import numpy as np

from .. import backend as K
from ..utils import Sequence, to_categorical

_EXTENSIONS = ("png", "jpg", "jpeg", "bmp", "ppm", "tif", "tiff")


# -- sampling an affine map -------------------------------------------------------------------
def _source_index(i, n: int, fill_mode: str):
    """Where index ``i`` (of an axis of ``n``) reads from under ``fill_mode``."""
    if fill_mode == "reflect":  # (d c b a | a b c d | d c b a)
        i = np.mod(i, 2 * n)
        return np.where(i >= n, 2 * n - 1 - i, i)
    return np.clip(i, 0, n - 1)  # (nearest; constant's out-of-image places are filled after)


def _wrap(coordinate, n: int):
    if n == 1:
        return np.zeros_like(coordinate)
    return np.where((coordinate < 0) | (coordinate > n - 1), np.mod(coordinate, n - 1), coordinate)


def _reflect(coordinate, n: int):
    """A place reflected about the image's edges (-0.5 and n - 0.5): period 2n."""
    u = np.mod(coordinate + 0.5, 2 * n)
    return np.where(u > n, 2 * n - u, u) - 0.5


def _affine_sample(channels, matrix, offset, fill_mode: str, cval: float, order: int):
    """``out[c, o] = channels[c, matrix @ o + offset]`` for each place ``o`` of the image
    (channels first), interpolated bilinearly (order 1) or from the nearest place (order 0)."""
    if fill_mode not in ("nearest", "constant", "reflect", "wrap"):
        raise ValueError(f"fill_mode should be one of nearest, constant, reflect, wrap; got {fill_mode!r}")
    if order not in (0, 1):
        raise NotImplementedError(f"interpolation order {order}: distflow samples with order 0 or 1 (Keras's "
                                  "default)")
    _, h, w = channels.shape
    rows, cols = np.meshgrid(np.arange(h, dtype=np.float64), np.arange(w, dtype=np.float64), indexing="ij")
    src_r = matrix[0, 0] * rows + matrix[0, 1] * cols + offset[0]
    src_c = matrix[1, 0] * rows + matrix[1, 1] * cols + offset[1]
    outside = (src_r < 0) | (src_r > h - 1) | (src_c < 0) | (src_c > w - 1)
    if fill_mode == "wrap":  # (scipy's: a place beyond the image reads at its place modulo n - 1)
        src_r, src_c = _wrap(src_r, h), _wrap(src_c, w)
    if order == 0:
        if fill_mode == "reflect":  # (the place itself reflected about the image's edges, then rounded)
            src_r, src_c = _reflect(src_r, h), _reflect(src_c, w)
        r, c = np.floor(src_r + 0.5).astype(np.int64), np.floor(src_c + 0.5).astype(np.int64)
        out = channels[:, np.clip(r, 0, h - 1), np.clip(c, 0, w - 1)]
    else:
        r0, c0 = np.floor(src_r).astype(np.int64), np.floor(src_c).astype(np.int64)
        fr, fc = src_r - r0, src_c - c0
        out = np.zeros(channels.shape, np.float64)
        for dr, weight_r in ((0, 1.0 - fr), (1, fr)):
            ri = _source_index(r0 + dr, h, fill_mode)
            for dc, weight_c in ((0, 1.0 - fc), (1, fc)):
                out += weight_r * weight_c * channels[:, ri, _source_index(c0 + dc, w, fill_mode)]
    if fill_mode == "constant":
        out = np.where(outside, cval, out)
    return out.astype(channels.dtype, copy=False)


def transform_matrix_offset_center(matrix, x, y):
    """``matrix`` (3x3, on row and column coordinates) applied about the centre of an image of
    ``x`` rows and ``y`` columns, where Keras puts it: ``(x / 2 + 0.5, y / 2 + 0.5)``."""
    o_x, o_y = float(x) / 2 + 0.5, float(y) / 2 + 0.5
    offset = np.array([[1, 0, o_x], [0, 1, o_y], [0, 0, 1]])
    reset = np.array([[1, 0, -o_x], [0, 1, -o_y], [0, 0, 1]])
    return offset @ matrix @ reset


def apply_transform(x, transform_matrix, channel_axis=0, fill_mode="nearest", cval=0.0):
    """One image (of ``channel_axis`` and two spatial axes, in order) through the affine
    ``transform_matrix`` (3x3, on row and column coordinates: each output place reads the input
    at ``matrix @ place``), from the nearest place, as TF 1.x's Keras did."""
    x = np.asarray(x)
    matrix = np.asarray(transform_matrix, np.float64)
    channels = np.moveaxis(x, channel_axis, 0)
    out = _affine_sample(channels, matrix[:2, :2], matrix[:2, 2], fill_mode, cval, 0)
    return np.moveaxis(out, 0, channel_axis)


def apply_affine_transform(x, theta=0, tx=0, ty=0, shear=0, zx=1, zy=1, row_axis=0, col_axis=1, channel_axis=2,
                           fill_mode="nearest", cval=0.0, order=1):
    """One image rotated by ``theta`` degrees, shifted by ``tx`` rows and ``ty`` columns, sheared
    by ``shear`` degrees and zoomed by ``zx``, ``zy`` (a zoom above 1 shows less of it), about
    its centre; the places it leaves are filled as ``fill_mode`` says."""
    matrix = np.eye(3)
    if theta:
        t = np.deg2rad(theta)
        matrix = matrix @ np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0], [0, 0, 1]])
    if tx or ty:
        matrix = matrix @ np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]])
    if shear:
        s = np.deg2rad(shear)
        matrix = matrix @ np.array([[1, -np.sin(s), 0], [0, np.cos(s), 0], [0, 0, 1]])
    if zx != 1 or zy != 1:
        matrix = matrix @ np.array([[zx, 0, 0], [0, zy, 0], [0, 0, 1]])
    if not (theta or tx or ty or shear or zx != 1 or zy != 1):
        return x
    x = np.asarray(x)
    matrix = transform_matrix_offset_center(matrix, x.shape[row_axis], x.shape[col_axis])
    channels = np.moveaxis(x, [channel_axis, row_axis, col_axis], [0, 1, 2])
    out = _affine_sample(channels, matrix[:2, :2], matrix[:2, 2], fill_mode, cval, order)
    return np.moveaxis(out, [0, 1, 2], [channel_axis, row_axis, col_axis])


def random_rotation(x, rg, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest", cval=0.0,
                    interpolation_order=1):
    """Rotated by a uniform draw from [-rg, rg] degrees."""
    return apply_affine_transform(x, theta=np.random.uniform(-rg, rg), row_axis=row_axis, col_axis=col_axis,
                                  channel_axis=channel_axis, fill_mode=fill_mode, cval=cval, order=interpolation_order)


def random_shift(x, wrg, hrg, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest", cval=0.0,
                 interpolation_order=1):
    """Shifted by uniform draws of up to ``hrg`` of its height and ``wrg`` of its width."""
    tx = np.random.uniform(-hrg, hrg) * x.shape[row_axis]
    ty = np.random.uniform(-wrg, wrg) * x.shape[col_axis]
    return apply_affine_transform(x, tx=tx, ty=ty, row_axis=row_axis, col_axis=col_axis, channel_axis=channel_axis,
                                  fill_mode=fill_mode, cval=cval, order=interpolation_order)


def random_shear(x, intensity, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest", cval=0.0,
                 interpolation_order=1):
    """Sheared by a uniform draw from [-intensity, intensity] degrees."""
    return apply_affine_transform(x, shear=np.random.uniform(-intensity, intensity), row_axis=row_axis,
                                  col_axis=col_axis, channel_axis=channel_axis, fill_mode=fill_mode, cval=cval,
                                  order=interpolation_order)


def random_zoom(x, zoom_range, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest", cval=0.0,
                interpolation_order=1):
    """Zoomed by two uniform draws from ``zoom_range`` (a pair), one per axis."""
    if len(zoom_range) != 2:
        raise ValueError(f"`zoom_range` should be a tuple or list of two floats. Received: {zoom_range}")
    zx, zy = (1, 1) if tuple(zoom_range) == (1, 1) else np.random.uniform(zoom_range[0], zoom_range[1], 2)
    return apply_affine_transform(x, zx=zx, zy=zy, row_axis=row_axis, col_axis=col_axis, channel_axis=channel_axis,
                                  fill_mode=fill_mode, cval=cval, order=interpolation_order)


def apply_channel_shift(x, intensity, channel_axis=0):
    """``intensity`` added to every value, kept within the image's range."""
    return np.clip(x + intensity, np.min(x), np.max(x))


def random_channel_shift(x, intensity_range, channel_axis=0):
    return apply_channel_shift(x, np.random.uniform(-intensity_range, intensity_range), channel_axis)


def apply_brightness_shift(x, brightness):
    """The image's values times ``brightness``, within [0, 255]. (Keras blends the image with
    black through Pillow, after stretching it to [0, 255]: the same for images that span
    that range; this scales the values as they are, without Pillow.)"""
    return np.clip(np.asarray(x) * brightness, 0, 255)


def random_brightness(x, brightness_range):
    if len(brightness_range) != 2:
        raise ValueError(f"`brightness_range should be tuple or list of two floats. Received: {brightness_range}")
    return apply_brightness_shift(x, np.random.uniform(brightness_range[0], brightness_range[1]))


def flip_axis(x, axis):
    return np.flip(x, axis).copy()


# -- image files (Pillow) ---------------------------------------------------------------------
def _pil():
    try:
        from PIL import Image  # noqa: PLC0415 - optional, as in Keras
    except ImportError as e:
        raise ImportError("reading and writing image files needs Pillow (pip install pillow), as Keras's does") from e
    return Image


def array_to_img(x, data_format=None, scale=True, dtype=None):
    """A Pillow image of a [height, width, channels] array (1, 3 or 4 channels); with ``scale``
    its values are first stretched to [0, 255]."""
    image = _pil()
    x = np.asarray(x, dtype=dtype or K.floatx())
    if x.ndim != 3:
        raise ValueError(f"Expected image array to have rank 3 (single image). Got array with shape: {x.shape}")
    if (data_format or K.image_data_format()) == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        top = np.max(x)
        if top != 0:
            x = x / top * 255
    modes = {1: "L", 3: "RGB", 4: "RGBA"}
    if x.shape[2] not in modes:
        raise ValueError(f"Unsupported channel number: {x.shape[2]}")
    pixels = x.astype("uint8")
    return image.fromarray(pixels[:, :, 0] if x.shape[2] == 1 else pixels, modes[x.shape[2]])


def img_to_array(img, data_format=None, dtype=None):
    """A [height, width, channels] array (channels first with that data format) of a Pillow image."""
    x = np.asarray(img, dtype=dtype or K.floatx())
    if x.ndim == 2:
        x = x[:, :, None]
    elif x.ndim != 3:
        raise ValueError(f"Unsupported image shape: {x.shape}")
    return x.transpose(2, 0, 1) if (data_format or K.image_data_format()) == "channels_first" else x


def save_img(path, x, data_format=None, file_format=None, scale=True, **kwargs):
    array_to_img(x, data_format=data_format, scale=scale).save(path, format=file_format, **kwargs)


def load_img(path, grayscale=False, color_mode="rgb", target_size=None, interpolation="nearest"):
    """A Pillow image of the file: in ``color_mode`` (rgb, rgba, grayscale), resized to
    ``target_size`` (height, width)."""
    image = _pil()
    if grayscale:
        color_mode = "grayscale"
    img = image.open(path)
    mode = {"grayscale": "L", "rgba": "RGBA", "rgb": "RGB"}.get(color_mode)
    if mode is None:
        raise ValueError('color_mode must be "grayscale", "rgb", or "rgba"')
    if img.mode != mode:
        img = img.convert(mode)
    if target_size is not None and (img.size[1], img.size[0]) != tuple(target_size):
        methods = {"nearest": image.NEAREST, "bilinear": image.BILINEAR, "bicubic": image.BICUBIC}
        if interpolation not in methods:
            raise ValueError(f"Invalid interpolation method {interpolation!r}: one of {sorted(methods)}")
        img = img.resize((target_size[1], target_size[0]), methods[interpolation])
    return img


# -- iterators --------------------------------------------------------------------------------
class Iterator(Sequence):
    """Batches of ``n`` samples, ``batch_size`` at a time, in a new order each epoch with
    ``shuffle``: a ``keras.utils.Sequence`` (``fit_generator`` takes it) and a Python
    iterator that never ends (``next(it)``), as Keras's."""

    def __init__(self, n, batch_size, shuffle, seed):
        self.n, self.batch_size, self.shuffle, self.seed = n, batch_size, shuffle, seed
        self.batch_index = 0
        self.total_batches_seen = 0
        self.index_array = None

    def _set_index_array(self):
        self.index_array = np.random.permutation(self.n) if self.shuffle else np.arange(self.n)

    def __getitem__(self, idx):
        if idx >= len(self):
            raise ValueError(f"Asked to retrieve element {idx}, but the Sequence has length {len(self)}")
        if self.seed is not None:
            np.random.seed(self.seed + self.total_batches_seen)
        self.total_batches_seen += 1
        if self.index_array is None:
            self._set_index_array()
        return self._get_batches_of_transformed_samples(
            self.index_array[self.batch_size * idx:self.batch_size * (idx + 1)])

    def __len__(self):
        return (self.n + self.batch_size - 1) // self.batch_size

    def on_epoch_end(self):
        self._set_index_array()

    def reset(self):
        self.batch_index = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.seed is not None:
            np.random.seed(self.seed + self.total_batches_seen)
        if self.batch_index == 0:
            self._set_index_array()
        start = (self.batch_index * self.batch_size) % self.n
        self.batch_index = self.batch_index + 1 if self.n > start + self.batch_size else 0
        self.total_batches_seen += 1
        return self._get_batches_of_transformed_samples(self.index_array[start:start + self.batch_size])

    next = __next__

    def _get_batches_of_transformed_samples(self, index_array):
        raise NotImplementedError


class NumpyArrayIterator(Iterator):
    """Batches of arrays (``x``, with ``y`` and ``sample_weight`` if given), each image drawn a
    random transform of ``image_data_generator`` and standardized."""

    def __init__(self, x, y, image_data_generator, batch_size=32, shuffle=False, sample_weight=None, seed=None,
                 data_format=None, save_to_dir=None, save_prefix="", save_format="png", subset=None, dtype=None):
        extra = None
        if isinstance(x, (tuple, list)):  # (an image array, then arrays that go with each batch as they are)
            x, extra = x[0], [np.asarray(xx) for xx in x[1:]]
        x = np.asarray(x, dtype=dtype or K.floatx())
        if y is not None and len(x) != len(y):
            raise ValueError(f"`x` (images tensor) and `y` (labels) should have the same length. Found: "
                             f"x.shape = {x.shape}, y.shape = {np.asarray(y).shape}")
        if sample_weight is not None and len(x) != len(sample_weight):
            raise ValueError("`x` (images tensor) and `sample_weight` should have the same length.")
        if x.ndim != 4:
            raise ValueError(f"Input data in `NumpyArrayIterator` should have rank 4. You passed an array with "
                             f"shape {x.shape}")
        if subset is not None:
            if subset not in ("training", "validation"):
                raise ValueError(f"Invalid subset name: {subset}; expected 'training' or 'validation'")
            split = int(len(x) * image_data_generator._validation_split)
            part = slice(None, split) if subset == "validation" else slice(split, None)
            x = x[part]
            y = None if y is None else np.asarray(y)[part]
            sample_weight = None if sample_weight is None else np.asarray(sample_weight)[part]
            extra = None if extra is None else [e[part] for e in extra]
        self.x, self.x_misc = x, extra
        self.y = None if y is None else np.asarray(y)
        self.sample_weight = None if sample_weight is None else np.asarray(sample_weight)
        self.image_data_generator = image_data_generator
        self.data_format = data_format or K.image_data_format()
        self.save_to_dir, self.save_prefix, self.save_format = save_to_dir, save_prefix, save_format
        super().__init__(len(x), batch_size, shuffle, seed)

    def _get_batches_of_transformed_samples(self, index_array):
        generator = self.image_data_generator
        batch_x = np.zeros((len(index_array),) + self.x.shape[1:], dtype=self.x.dtype)
        for i, j in enumerate(index_array):
            params = generator.get_random_transform(self.x[j].shape)
            batch_x[i] = generator.standardize(generator.apply_transform(self.x[j], params))
        if self.save_to_dir:
            for i, j in enumerate(index_array):
                name = f"{self.save_prefix}_{j}_{np.random.randint(10_000)}.{self.save_format}"
                save_img(os.path.join(self.save_to_dir, name), batch_x[i], self.data_format)
        x = batch_x if self.x_misc is None else [batch_x] + [e[index_array] for e in self.x_misc]
        if self.y is None:
            return x
        out = (x, self.y[index_array])
        return out + (self.sample_weight[index_array],) if self.sample_weight is not None else out


class DirectoryIterator(Iterator):
    """Batches of the images in ``directory``'s class folders (one folder a class, sorted by
    name unless ``classes`` says), loaded with Pillow at ``target_size``, transformed as
    ``image_data_generator`` says; labels as ``class_mode`` says (categorical one-hot rows,
    binary, sparse indices, the images themselves with ``input``, none with None)."""

    def __init__(self, directory, image_data_generator, target_size=(256, 256), color_mode="rgb", classes=None,
                 class_mode="categorical", batch_size=32, shuffle=True, seed=None, data_format=None,
                 save_to_dir=None, save_prefix="", save_format="png", follow_links=False, subset=None,
                 interpolation="nearest", dtype=None):
        if class_mode not in ("categorical", "binary", "sparse", "input", None):
            raise ValueError(f"Invalid class_mode: {class_mode}; expected one of categorical, binary, sparse, input "
                             "or None")
        if color_mode not in ("rgb", "rgba", "grayscale"):
            raise ValueError(f"Invalid color mode: {color_mode}; expected 'rgb', 'rgba' or 'grayscale'")
        self.directory, self.image_data_generator = directory, image_data_generator
        self.target_size, self.color_mode, self.class_mode = tuple(target_size), color_mode, class_mode
        self.data_format = data_format or K.image_data_format()
        self.dtype, self.interpolation = dtype or K.floatx(), interpolation
        self.save_to_dir, self.save_prefix, self.save_format = save_to_dir, save_prefix, save_format
        depth = {"rgb": 3, "rgba": 4, "grayscale": 1}[color_mode]
        self.image_shape = (depth,) + self.target_size if self.data_format == "channels_first" else \
            self.target_size + (depth,)
        if not classes:
            classes = sorted(d for d in os.listdir(directory) if os.path.isdir(os.path.join(directory, d)))
        self.class_indices = {name: i for i, name in enumerate(classes)}
        self.num_classes = len(classes)
        files, labels = [], []
        for name in classes:
            folder = os.path.join(directory, name)
            found = sorted(os.path.relpath(os.path.join(root, f), directory)
                           for root, _, names in os.walk(folder, followlinks=follow_links)
                           for f in names if f.lower().rsplit(".", 1)[-1] in _EXTENSIONS)
            if subset is not None:
                if subset not in ("training", "validation"):
                    raise ValueError(f"Invalid subset name: {subset}; expected 'training' or 'validation'")
                split = int(len(found) * image_data_generator._validation_split)
                found = found[:split] if subset == "validation" else found[split:]
            files += found
            labels += [self.class_indices[name]] * len(found)
        self.filenames, self.classes = files, np.array(labels, dtype="int32")
        self.samples = len(files)
        print(f"Found {self.samples} images belonging to {self.num_classes} classes.")
        super().__init__(self.samples, batch_size, shuffle, seed)

    @property
    def filepaths(self) -> list:
        return [os.path.join(self.directory, f) for f in self.filenames]

    def _get_batches_of_transformed_samples(self, index_array):
        generator = self.image_data_generator
        batch_x = np.zeros((len(index_array),) + self.image_shape, dtype=self.dtype)
        for i, j in enumerate(index_array):
            img = load_img(self.filepaths[j], color_mode=self.color_mode, target_size=self.target_size,
                           interpolation=self.interpolation)
            x = img_to_array(img, data_format=self.data_format, dtype=self.dtype)
            params = generator.get_random_transform(x.shape)
            batch_x[i] = generator.standardize(generator.apply_transform(x, params))
        if self.save_to_dir:
            for i, j in enumerate(index_array):
                name = f"{self.save_prefix}_{j}_{np.random.randint(10_000)}.{self.save_format}"
                save_img(os.path.join(self.save_to_dir, name), batch_x[i], self.data_format)
        labels = self.classes[index_array]
        if self.class_mode == "input":
            return batch_x, batch_x.copy()
        if self.class_mode == "sparse":
            return batch_x, labels.astype(self.dtype)
        if self.class_mode == "binary":
            return batch_x, labels.astype(self.dtype)
        if self.class_mode == "categorical":
            return batch_x, to_categorical(labels, self.num_classes).astype(self.dtype)
        return batch_x


# -- the generator ----------------------------------------------------------------------------
class ImageDataGenerator:
    """Batches of images with random augmentation (rotation, shifts, shear, zoom, channel shift,
    flips, brightness) and standardization (rescaling, a function, sample- or feature-wise
    centring and scaling, ZCA whitening: ``fit`` computes the feature-wise statistics), from
    arrays (``flow``) or a folder of class folders (``flow_from_directory``)."""

    def __init__(self, featurewise_center=False, samplewise_center=False, featurewise_std_normalization=False,
                 samplewise_std_normalization=False, zca_whitening=False, zca_epsilon=1e-6, rotation_range=0,
                 width_shift_range=0.0, height_shift_range=0.0, brightness_range=None, shear_range=0.0,
                 zoom_range=0.0, channel_shift_range=0.0, fill_mode="nearest", cval=0.0, horizontal_flip=False,
                 vertical_flip=False, rescale=None, preprocessing_function=None, data_format=None,
                 validation_split=0.0, interpolation_order=1, dtype=None):
        self.featurewise_center, self.samplewise_center = featurewise_center, samplewise_center
        self.featurewise_std_normalization = featurewise_std_normalization
        self.samplewise_std_normalization = samplewise_std_normalization
        self.zca_whitening, self.zca_epsilon = zca_whitening, zca_epsilon
        self.rotation_range = rotation_range
        self.width_shift_range, self.height_shift_range = width_shift_range, height_shift_range
        self.brightness_range, self.shear_range = brightness_range, shear_range
        self.channel_shift_range, self.fill_mode, self.cval = channel_shift_range, fill_mode, cval
        self.horizontal_flip, self.vertical_flip = horizontal_flip, vertical_flip
        self.rescale, self.preprocessing_function = rescale, preprocessing_function
        self.interpolation_order, self.dtype = interpolation_order, dtype or K.floatx()
        self.data_format = data_format or K.image_data_format()
        if self.data_format not in ("channels_last", "channels_first"):
            raise ValueError(f"`data_format` should be 'channels_last' or 'channels_first'. Received: {data_format}")
        first = self.data_format == "channels_first"
        self.channel_axis, self.row_axis, self.col_axis = (1, 2, 3) if first else (3, 1, 2)
        if not 0 <= validation_split < 1:
            raise ValueError(f"`validation_split` must be strictly between 0 and 1. Received: {validation_split}")
        self._validation_split = validation_split
        if fill_mode not in ("nearest", "constant", "reflect", "wrap"):
            raise ValueError(f"fill_mode should be one of nearest, constant, reflect, wrap; got {fill_mode!r}")
        if np.isscalar(zoom_range):
            self.zoom_range = [1 - zoom_range, 1 + zoom_range]
        elif len(zoom_range) == 2:
            self.zoom_range = [zoom_range[0], zoom_range[1]]
        else:
            raise ValueError(f"`zoom_range` should be a float or a tuple or list of two floats. Received: "
                             f"{zoom_range}")
        if zca_whitening and not featurewise_center:
            K._warn("This ImageDataGenerator specifies `zca_whitening`, which overrides setting of "
                    "`featurewise_center`.")
            self.featurewise_center = True
        self.mean = self.std = self.principal_components = None

    # (the random transform of one image, as a dict of its parameters)
    def _shift(self, shift_range, size: int) -> float:
        """Keras's draw: one of a list's values, or of [0, n) for an int n, either way; else a
        uniform one from [-range, range]; a fraction of the image's size when below 1."""
        if not shift_range:
            return 0.0
        if isinstance(shift_range, (list, tuple, np.ndarray, int, np.integer)):
            shift = float(np.random.choice(shift_range)) * np.random.choice([-1, 1])
        else:
            shift = np.random.uniform(-shift_range, shift_range)
        return shift * size if np.max(shift_range) < 1 else shift

    def get_random_transform(self, img_shape, seed=None) -> dict:
        if seed is not None:
            np.random.seed(seed)
        rows, cols = img_shape[self.row_axis - 1], img_shape[self.col_axis - 1]
        theta = np.random.uniform(-self.rotation_range, self.rotation_range) if self.rotation_range else 0
        tx = self._shift(self.height_shift_range, rows)
        ty = self._shift(self.width_shift_range, cols)
        shear = np.random.uniform(-self.shear_range, self.shear_range) if self.shear_range else 0
        if self.zoom_range[0] == 1 and self.zoom_range[1] == 1:
            zx, zy = 1, 1
        else:
            zx, zy = np.random.uniform(self.zoom_range[0], self.zoom_range[1], 2)
        flip_horizontal = bool(np.random.random() < 0.5) and self.horizontal_flip
        flip_vertical = bool(np.random.random() < 0.5) and self.vertical_flip
        channel_shift = np.random.uniform(-self.channel_shift_range, self.channel_shift_range) \
            if self.channel_shift_range else None
        brightness = np.random.uniform(*self.brightness_range) if self.brightness_range is not None else None
        return {"theta": theta, "tx": tx, "ty": ty, "shear": shear, "zx": zx, "zy": zy,
                "flip_horizontal": flip_horizontal, "flip_vertical": flip_vertical,
                "channel_shift_intensity": channel_shift, "brightness": brightness}

    def apply_transform(self, x, transform_parameters: dict):
        """One image (no batch axis) transformed as ``transform_parameters`` say."""
        p = transform_parameters
        row, col, channel = self.row_axis - 1, self.col_axis - 1, self.channel_axis - 1
        x = apply_affine_transform(x, p.get("theta", 0), p.get("tx", 0), p.get("ty", 0), p.get("shear", 0),
                                   p.get("zx", 1), p.get("zy", 1), row_axis=row, col_axis=col, channel_axis=channel,
                                   fill_mode=self.fill_mode, cval=self.cval, order=self.interpolation_order)
        if p.get("channel_shift_intensity") is not None:
            x = apply_channel_shift(x, p["channel_shift_intensity"], channel)
        if p.get("flip_horizontal", False):
            x = flip_axis(x, col)
        if p.get("flip_vertical", False):
            x = flip_axis(x, row)
        if p.get("brightness") is not None:
            x = apply_brightness_shift(x, p["brightness"])
        return x

    def random_transform(self, x, seed=None):
        return self.apply_transform(x, self.get_random_transform(x.shape, seed))

    def standardize(self, x):
        """One image (or a batch) as the generator standardizes it, in place where it can."""
        if self.preprocessing_function:
            x = self.preprocessing_function(x)
        if self.rescale:
            x = x * self.rescale
        if self.samplewise_center:
            x = x - np.mean(x, keepdims=True)
        if self.samplewise_std_normalization:
            x = x / (np.std(x, keepdims=True) + 1e-6)
        for flag, stat, what in ((self.featurewise_center, self.mean, "featurewise_center"),
                                 (self.featurewise_std_normalization, self.std, "featurewise_std_normalization"),
                                 (self.zca_whitening, self.principal_components, "zca_whitening")):
            if flag and stat is None:
                K._warn(f"This ImageDataGenerator specifies `{what}`, but it hasn't been fit on any training data. "
                        "Fit it first by calling `.fit(numpy_data)`.")
        if self.featurewise_center and self.mean is not None:
            x = x - self.mean
        if self.featurewise_std_normalization and self.std is not None:
            x = x / (self.std + 1e-6)
        if self.zca_whitening and self.principal_components is not None:
            flat = np.reshape(x, (-1, int(np.prod(x.shape[-3:]))))
            x = np.reshape(flat @ self.principal_components, x.shape)
        return x

    def fit(self, x, augment=False, rounds=1, seed=None) -> None:
        """The feature-wise mean and deviation (one per channel) and the ZCA whitening of ``x``
        (of ``rounds`` random transforms of it with ``augment``), taken after ``rescale``, as
        ``standardize`` applies them (keras-preprocessing 1.1.1's fix: 1.1.0, TF 1.15's first,
        took them from the images unscaled)."""
        x = np.asarray(x, dtype=self.dtype)
        if x.ndim != 4:
            raise ValueError(f"Input to `.fit()` should have rank 4. Got array with shape: {x.shape}")
        if seed is not None:
            np.random.seed(seed)
        x = np.copy(x)
        if self.rescale:
            x *= self.rescale
        if augment:
            x = np.stack([self.random_transform(x[i]) for _ in range(rounds) for i in range(len(x))])
        spread = [1, 1, 1]
        spread[self.channel_axis - 1] = x.shape[self.channel_axis]
        axes = (0, self.row_axis, self.col_axis)
        if self.featurewise_center:
            self.mean = np.reshape(np.mean(x, axis=axes), spread)
            x = x - self.mean
        if self.featurewise_std_normalization:
            self.std = np.reshape(np.std(x, axis=axes), spread)
            x = x / (self.std + 1e-6)
        if self.zca_whitening:
            flat = np.reshape(x, (len(x), -1))
            sigma = flat.T @ flat / len(flat)
            u, s, _ = np.linalg.svd(sigma)
            self.principal_components = (u * (1.0 / np.sqrt(s[None] + self.zca_epsilon))) @ u.T

    def flow(self, x, y=None, batch_size=32, shuffle=True, sample_weight=None, seed=None, save_to_dir=None,
             save_prefix="", save_format="png", subset=None):
        return NumpyArrayIterator(x, y, self, batch_size=batch_size, shuffle=shuffle, sample_weight=sample_weight,
                                  seed=seed, data_format=self.data_format, save_to_dir=save_to_dir,
                                  save_prefix=save_prefix, save_format=save_format, subset=subset, dtype=self.dtype)

    def flow_from_directory(self, directory, target_size=(256, 256), color_mode="rgb", classes=None,
                            class_mode="categorical", batch_size=32, shuffle=True, seed=None, save_to_dir=None,
                            save_prefix="", save_format="png", follow_links=False, subset=None,
                            interpolation="nearest"):
        return DirectoryIterator(directory, self, target_size=target_size, color_mode=color_mode, classes=classes,
                                 class_mode=class_mode, batch_size=batch_size, shuffle=shuffle, seed=seed,
                                 data_format=self.data_format, save_to_dir=save_to_dir, save_prefix=save_prefix,
                                 save_format=save_format, follow_links=follow_links, subset=subset,
                                 interpolation=interpolation, dtype=self.dtype)
