"""``tf.contrib.slim.tfexample_decoder``: TF-Slim's decoding of serialized ``tf.train.Example``
and ``SequenceExample`` records into named items, as TF-Slim's datasets and TensorFlow's
object detection API read their TFRecords.

A decoder parses the record with ``keys_to_features`` (a FixedLenFeature reshaped to its
shape), then each item's handler turns the tensors of its keys into the item: ``Tensor``
(dense, reshaped by a shape or by shape keys), ``LookupTensor`` (through a table),
``SparseTensor`` (ids and values keyed apart), ``BoundingBox`` ([n, 4] from ymin, xmin, ymax,
xmax), ``Image`` (raw bytes, or PNG, BMP and JPEG), ``BackupHandler`` (a second handler where the first gives an empty item),
``ItemHandlerCallback`` (a function), and for sequences ``BoundingBoxSequence``,
``KeypointsSequence`` and ``NumBoxesSequence``.
"""

from __future__ import annotations

import abc

from ..framework import dtypes, ops
from ..ops import (array_ops, check_ops, control_flow_ops, image_ops, io_readers, math_ops, parsing_ops,
                   reduction_ops)
from ..ops import slicing_ops, sparse_ops
from ..ops.control_flow_v2 import case, cond
from ..ops.functional_ops import map_fn
from .slim_dataset import DataDecoder

_Sparse = sparse_ops.SparseTensor


class ItemHandler(abc.ABC):
    """Turns the tensors parsed under its ``keys`` into one item."""

    def __init__(self, keys):
        self._keys = keys if isinstance(keys, (tuple, list)) else [keys]

    @property
    def keys(self):
        return self._keys

    @abc.abstractmethod
    def tensors_to_item(self, keys_to_tensors):
        """The item made of ``keys_to_tensors`` (this handler's keys to their parsed tensors)."""


class ItemHandlerCallback(ItemHandler):
    """The item is ``func(keys_to_tensors)``."""

    def __init__(self, keys, func):
        super().__init__(keys)
        self._func = func

    def tensors_to_item(self, keys_to_tensors):
        return self._func(keys_to_tensors)


def _values(t):
    return t.values if isinstance(t, _Sparse) else t


def _dense(t):
    return sparse_ops.sparse_tensor_to_dense(t) if isinstance(t, _Sparse) else t


class BoundingBox(ItemHandler):
    """[num_boxes, 4] boxes from four keys (``prefix`` + ymin, xmin, ymax, xmax by default)."""

    def __init__(self, keys=None, prefix=""):
        keys = ["ymin", "xmin", "ymax", "xmax"] if keys is None else keys
        if len(keys) != 4:
            raise ValueError(f"BoundingBox expects 4 keys but got {len(keys)}")
        self._prefix = prefix
        self._full_keys = [prefix + k for k in keys]
        super().__init__(self._full_keys)

    def tensors_to_item(self, keys_to_tensors):
        sides = [array_ops.expand_dims(_values(keys_to_tensors[key]), 0) for key in self._full_keys]
        return array_ops.transpose(slicing_ops.concat(sides, 0))


class Tensor(ItemHandler):
    """The tensor of ``tensor_key``, made dense (``default_value`` where a sparse one has no
    value) and reshaped to ``shape``, or to the values of ``shape_keys``."""

    def __init__(self, tensor_key, shape_keys=None, shape=None, default_value=0):
        if shape_keys and shape is not None:
            raise ValueError("Cannot specify both shape_keys and shape parameters.")
        if shape_keys and not isinstance(shape_keys, list):
            shape_keys = [shape_keys]
        self._tensor_key, self._shape_keys = tensor_key, shape_keys
        self._shape, self._default_value = shape, default_value
        super().__init__([tensor_key] + list(shape_keys or []))

    def tensors_to_item(self, keys_to_tensors):
        tensor = keys_to_tensors[self._tensor_key]
        shape = self._shape
        if self._shape_keys:
            shape = array_ops.reshape(array_ops.stack([_dense(keys_to_tensors[k]) for k in self._shape_keys]), [-1])
        if isinstance(tensor, _Sparse):
            if shape is not None:
                tensor = sparse_ops.sparse_reshape(tensor, shape)
            return sparse_ops.sparse_tensor_to_dense(tensor, self._default_value)
        return tensor if shape is None else array_ops.reshape(tensor, shape)


class LookupTensor(Tensor):
    """A ``Tensor`` item looked up in ``table`` (strings to ids, say)."""

    def __init__(self, tensor_key, table, shape_keys=None, shape=None, default_value=""):
        self._table = table
        super().__init__(tensor_key, shape_keys, shape, default_value)

    def tensors_to_item(self, keys_to_tensors):
        return self._table.lookup(super().tensors_to_item(keys_to_tensors))


class BackupHandler(ItemHandler):
    """``handler``'s item, or ``backup``'s where that one is empty (decided when run)."""

    def __init__(self, handler, backup):
        for what, value in (("Primary", handler), ("Backup", backup)):
            if not isinstance(value, ItemHandler):
                raise ValueError(f"{what} handler is of type {type(value)} instead of ItemHandler")
        self._handler, self._backup = handler, backup
        super().__init__(handler.keys + backup.keys)

    def tensors_to_item(self, keys_to_tensors):
        item = self._handler.tensors_to_item(keys_to_tensors)
        return cond(math_ops.equal(reduction_ops.reduce_prod(array_ops.shape(item)), 0),
                    lambda: self._backup.tensors_to_item(keys_to_tensors), lambda: item)


class SparseTensor(ItemHandler):
    """A SparseTensor whose last index comes from the ids of ``indices_key`` and whose values
    from ``values_key``; its shape from ``shape_key``, ``shape`` or the ids' own. With
    ``densify``, made dense (``default_value`` elsewhere)."""

    def __init__(self, indices_key=None, values_key=None, shape_key=None, shape=None, densify=False,
                 default_value=0):
        self._indices_key, self._values_key = indices_key or "indices", values_key or "values"
        self._shape_key, self._shape = shape_key, shape
        self._densify, self._default_value = densify, default_value
        super().__init__([self._indices_key, self._values_key] + ([shape_key] if shape_key else []))

    def tensors_to_item(self, keys_to_tensors):
        indices, values = keys_to_tensors[self._indices_key], keys_to_tensors[self._values_key]
        if self._shape_key:
            shape = _dense(keys_to_tensors[self._shape_key])
        elif self._shape:
            shape = self._shape
        else:
            shape = indices.dense_shape
        rank = array_ops.shape(indices.indices)[1]
        kept = slicing_ops.slice(indices.indices, [0, 0], array_ops.stack([-1, rank - 1]))
        ids = array_ops.reshape(math_ops.cast(indices.values, dtypes.int64), [-1, 1])
        tensor = _Sparse(slicing_ops.concat([kept, ids], 1), values.values,
                         math_ops.cast(ops.convert_to_tensor(shape), dtypes.int64))
        return sparse_ops.sparse_tensor_to_dense(tensor, self._default_value) if self._densify else tensor


class Image(ItemHandler):
    """An image decoded from ``image_key`` by the format in ``format_key``: 'raw' (or 'RAW')
    bytes of ``dtype``, else PNG, BMP or JPEG; [height, width, channels], or reshaped to
    ``shape``. With ``repeated``, each of
    a list of images."""

    def __init__(self, image_key=None, format_key=None, shape=None, channels=3, dtype=dtypes.uint8, repeated=False,
                 dct_method=""):
        self._image_key = image_key or "image/encoded"
        self._format_key = format_key or "image/format"
        super().__init__([self._image_key, self._format_key])
        self._shape, self._channels, self._dtype = shape, channels, dtype
        self._repeated, self._dct_method = repeated, dct_method

    def tensors_to_item(self, keys_to_tensors):
        image_buffer, image_format = keys_to_tensors[self._image_key], keys_to_tensors[self._format_key]
        if self._repeated:
            return map_fn(lambda x: self._decode(x, image_format), image_buffer, dtype=self._dtype)
        return self._decode(image_buffer, image_format)

    def _decode(self, image_buffer, image_format):
        def decode_image():
            return math_ops.cast(image_ops.decode_image(image_buffer, channels=self._channels, dtype=self._dtype),
                                 self._dtype)

        def decode_raw():
            return io_readers.decode_raw(image_buffer, out_type=self._dtype)

        is_raw = math_ops.logical_or(math_ops.equal(image_format, "raw"), math_ops.equal(image_format, "RAW"))
        image = case([(is_raw, decode_raw)], default=decode_image, exclusive=True)
        if self._shape is not None:
            return array_ops.reshape(image, self._shape)
        image.set_shape([None, None, self._channels])
        return image


def _stacked_coordinates(keys_to_tensors, keys, return_dense, default_value):
    """The sparse [frames, n] tensors of ``keys`` as one [frames, n, len(keys)], dense if asked."""
    parts = []
    for key in keys:
        value = keys_to_tensors[key]
        expanded = slicing_ops.concat([math_ops.cast(array_ops.shape(value), dtypes.int64),
                                       ops.convert_to_tensor([1], dtype=dtypes.int64)], 0)
        parts.append(sparse_ops.sparse_reshape(value, expanded))
    stacked = sparse_ops.sparse_concat(2, parts)
    return sparse_ops.sparse_tensor_to_dense(stacked, default_value=default_value) if return_dense else stacked


class _CoordinateSequence(ItemHandler):
    """[frames, n, len(keys)] coordinates of a SequenceExample's frames, one key each
    (``default_value`` pads, or a SparseTensor when not ``return_dense``)."""

    _default_keys: list = []

    def __init__(self, keys=None, prefix=None, return_dense=True, default_value=-1.0):
        keys = list(self._default_keys) if keys is None else keys
        if len(keys) != len(self._default_keys):
            raise ValueError(f"{type(self).__name__} expects {len(self._default_keys)} keys but got {len(keys)}")
        self._full_keys = [(prefix or "") + k for k in keys]
        self._return_dense, self._default_value = return_dense, default_value
        super().__init__(self._full_keys)

    def tensors_to_item(self, keys_to_tensors):
        return _stacked_coordinates(keys_to_tensors, self._full_keys, self._return_dense, self._default_value)


class BoundingBoxSequence(_CoordinateSequence):
    """[frames, boxes, 4] boxes (ymin, xmin, ymax, xmax) of a SequenceExample's frames."""

    _default_keys = ["ymin", "xmin", "ymax", "xmax"]


class KeypointsSequence(_CoordinateSequence):
    """[frames, keypoints, 2] (y, x) keypoints of a SequenceExample's frames."""

    _default_keys = ["y", "x"]


class NumBoxesSequence(ItemHandler):
    """How many boxes each frame has (from the sparse coordinates of ``keys``, checked to agree
    when run unless ``check_consistency`` is False)."""

    def __init__(self, keys=None, check_consistency=True):
        if not keys:
            raise ValueError("keys must not be empty.")
        self._check_consistency = check_consistency
        super().__init__(keys)

    def tensors_to_item(self, keys_to_tensors):
        def num_boxes(tensor):
            if not isinstance(tensor, _Sparse):
                raise ValueError("tensor must be of type tf.SparseTensor.")
            box_ids = sparse_ops.sparse_tensor_to_dense(_Sparse(tensor.indices, tensor.indices[:, 1],
                                                                tensor.dense_shape), default_value=-1)
            return reduction_ops.reduce_max(array_ops.pad(box_ids + 1, [[0, 0], [0, 1]]), axis=1)

        counts = num_boxes(keys_to_tensors[self._keys[0]])
        checks = [check_ops.assert_equal(counts, num_boxes(keys_to_tensors[key])) for key in self._keys[1:]] \
            if self._check_consistency else []
        return control_flow_ops.with_dependencies(checks, counts) if checks else array_ops.identity(counts)


def _items(handlers, items, tensors):
    return [handlers[item].tensors_to_item({key: tensors(key) for key in handlers[item].keys})
            for item in (items or handlers.keys())]


def _shaped(parsed, keys_to_features):
    for key in sorted(keys_to_features):
        feature = keys_to_features[key]
        if isinstance(feature, parsing_ops.FixedLenFeature):
            parsed[key] = array_ops.reshape(parsed[key], feature.shape)


class TFExampleDecoder(DataDecoder):
    """Decodes a serialized Example into the items of ``items_to_handlers``."""

    def __init__(self, keys_to_features, items_to_handlers):
        self._keys_to_features, self._items_to_handlers = keys_to_features, items_to_handlers

    def list_items(self):
        return list(self._items_to_handlers.keys())

    def decode(self, serialized_example, items=None):
        """The tensors of ``items`` (all, in ``items_to_handlers``' order, by default)."""
        example = parsing_ops.parse_single_example(serialized_example, self._keys_to_features)
        _shaped(example, self._keys_to_features)
        return _items(self._items_to_handlers, items, example.__getitem__)


class TFSequenceExampleDecoder(DataDecoder):
    """Decodes a serialized SequenceExample (context and per-frame features) into items."""

    def __init__(self, keys_to_context_features, keys_to_sequence_features, items_to_handlers):
        shared = set(keys_to_context_features) & set(keys_to_sequence_features)
        if shared:
            raise ValueError(f"Context and sequence keys are not unique. \n Context keys: "
                             f"{list(keys_to_context_features)} \n Sequence keys: {list(keys_to_sequence_features)}")
        self._context_features = keys_to_context_features
        self._sequence_features = keys_to_sequence_features
        self._items_to_handlers = items_to_handlers

    def list_items(self):
        return list(self._items_to_handlers.keys())

    def decode(self, serialized_example, items=None):
        context, frames = parsing_ops.parse_single_sequence_example(serialized_example, self._context_features,
                                                                    self._sequence_features)
        _shaped(context, self._context_features)
        return _items(self._items_to_handlers, items, lambda key: context[key] if key in context else frames[key])
