"""``tf.map_fn``, ``tf.scan``, ``tf.foldl`` and ``tf.foldr``: loops over the first axis.

Each is one ``tf.while_loop`` that reads its elements from TensorArrays and (map, scan)
writes its results into others, as TF 1.x builds them; so they differentiate, nest and
run on any device like the loop itself.
"""

from __future__ import annotations

from ..framework import dtypes, ops
from ..framework import nest
from ..framework.tensor_shape import TensorShape
from . import array_ops
from .control_flow_v2 import while_loop
from .tensor_array_ops import TensorArray


def _elements(elems, name: str):
    """(flat element tensors, their common length as a tensor, the static length or None)."""
    flat = [ops.convert_to_tensor(e, name="elems") for e in nest.flatten(elems)]
    if not flat:
        raise ValueError(f"{name}: elems must be a Tensor or a (possibly nested) sequence of tensors; got nothing")
    for e in flat:
        if e.shape.ndims == 0:
            raise ValueError(f"{name}: elements in elems must be 1+ dimensional Tensors, not scalars: {e.name}")
    static = flat[0].shape[0].value if flat[0].shape.ndims else None
    for e in flat[1:]:
        other = e.shape[0].value if e.shape.ndims else None
        if static is not None and other is not None and other != static:
            raise ValueError(f"{name}: all elems must have the same first dimension, got {static} and {other}")
    n = array_ops.shape(flat[0], out_type=dtypes.int32)[0] if static is None else ops.convert_to_tensor(static)
    return flat, n, static


def _unstacked(flat, n):
    return [TensorArray(e.dtype, size=n, element_shape=e.shape[1:] if e.shape.ndims else None).unstack(e)
            for e in flat]


def _stacked_result(arrays, static):
    out = []
    for ta in arrays:
        value = ta.stack()
        if static is not None and value.shape.ndims is not None:
            value.set_shape(TensorShape([static]).concatenate(value.shape[1:]))
        out.append(value)
    return out


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False, infer_shape=True,
           name=None):
    """``fn`` applied to each element of ``elems`` (unpacked on the first axis), results stacked.

    ``dtype`` gives the structure and dtypes of ``fn``'s result when they differ from
    ``elems``'.
    """
    if not callable(fn):
        raise TypeError("fn must be callable.")
    with ops.name_scope(name, "map", nest.flatten(elems)):
        flat, n, static = _elements(elems, "map_fn")
        inputs = _unstacked(flat, n)
        out_structure = elems if dtype is None else dtype
        out_dtypes = [e.dtype for e in flat] if dtype is None else [dtypes.as_dtype(d) for d in nest.flatten(dtype)]
        outputs = [TensorArray(d, size=n, infer_shape=infer_shape) for d in out_dtypes]

        def body(i, arrays):
            packed = nest.pack_sequence_as(elems, [ta.read(i) for ta in inputs])
            result = fn(packed)
            nest.assert_same_structure(out_structure, result, check_types=False)
            return i + 1, [ta.write(i, value) for ta, value in zip(arrays, nest.flatten(result))]

        _, outputs = while_loop(lambda i, _: i < n, body, [ops.convert_to_tensor(0), outputs],
                                parallel_iterations=parallel_iterations or 10, back_prop=back_prop)
        return nest.pack_sequence_as(out_structure, _stacked_result(outputs, static))


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, infer_shape=True,
         reverse=False, name=None):
    """The running results ``a = fn(a, x)`` over the elements of ``elems``, stacked.

    Without ``initializer`` the first element starts ``a`` (and is the first result).
    """
    if not callable(fn):
        raise TypeError("fn must be callable.")
    with ops.name_scope(name, "scan", nest.flatten(elems)):
        flat, n, static = _elements(elems, "scan")
        inputs = _unstacked(flat, n)

        def element(i):
            return nest.pack_sequence_as(elems, [ta.read(i) for ta in inputs])

        if initializer is None:
            start = array_ops.identity(n - 1) if reverse else ops.convert_to_tensor(0)
            acc = element(start)
            structure = elems
            first = 1
        else:
            acc = initializer
            structure = initializer
            first = 0
        acc_flat = [ops.convert_to_tensor(a) for a in nest.flatten(acc)]
        outputs = [TensorArray(a.dtype, size=n, infer_shape=infer_shape) for a in acc_flat]
        if first:
            outputs = [ta.write(n - 1 if reverse else 0, a) for ta, a in zip(outputs, acc_flat)]

        def body(k, a, arrays):
            i = n - 1 - k if reverse else k
            result = fn(nest.pack_sequence_as(structure, a), element(i))
            nest.assert_same_structure(structure, result, check_types=False)
            result = [ops.convert_to_tensor(r) for r in nest.flatten(result)]
            return k + 1, result, [ta.write(i, r) for ta, r in zip(arrays, result)]

        _, _, outputs = while_loop(lambda k, a, arrays: k < n, body, [ops.convert_to_tensor(first), acc_flat, outputs],
                                   parallel_iterations=parallel_iterations, back_prop=back_prop)
        return nest.pack_sequence_as(structure, _stacked_result(outputs, static))


def _fold(fn, elems, initializer, parallel_iterations, back_prop, name, reverse: bool, what: str):
    if not callable(fn):
        raise TypeError("fn must be callable.")
    with ops.name_scope(name, what, nest.flatten(elems)):
        flat, n, _ = _elements(elems, what)
        inputs = _unstacked(flat, n)

        def element(i):
            return nest.pack_sequence_as(elems, [ta.read(i) for ta in inputs])

        if initializer is None:
            acc, structure, first = element(n - 1 if reverse else 0), elems, 1
        else:
            acc, structure, first = initializer, initializer, 0
        acc_flat = [ops.convert_to_tensor(a) for a in nest.flatten(acc)]

        def body(k, a):
            i = n - 1 - k if reverse else k
            result = fn(nest.pack_sequence_as(structure, a), element(i))
            nest.assert_same_structure(structure, result, check_types=False)
            return k + 1, [ops.convert_to_tensor(r) for r in nest.flatten(result)]

        _, acc_flat = while_loop(lambda k, a: k < n, body, [ops.convert_to_tensor(first), acc_flat],
                                 parallel_iterations=parallel_iterations, back_prop=back_prop)
        return nest.pack_sequence_as(structure, acc_flat)


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """``fn(...fn(fn(initializer, e0), e1)..., en)`` (without an initializer, e0 starts)."""
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, name, False, "foldl")


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """``fn(...fn(fn(initializer, en), en-1)..., e0)`` (without an initializer, en starts)."""
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, name, True, "foldr")
