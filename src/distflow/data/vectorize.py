"""A dataset function rewritten to take a batch of elements at once.

``dataset.map(f).batch(n)`` runs ``f`` once per element: for a cheap ``f`` the call costs
more than the work (8-10 us a call; parsing one tf.train.Example costs three times what
it costs in a batch). When every op of ``f``'s graph has a batched form listed here, the
batch stage instead stacks ``n`` of the map's input elements and runs the rewritten
function once (TensorFlow's ``map_vectorization``, which TF 1.x left off by default; here
its results are the per-element ones, so it is on). Each op of the rewrite gives, for a
batch, exactly what the op gives each element, stacked: elementwise ops (their operands'
ranks lined up behind the batch dimension), shape ops and slices with their axes moved past
it, and ``ParseExampleV2`` of dense features over all the batch's records. Ops that read none of
the element (constants, captured tensors) are copied as they are, unless they are stateful
(a random op draws once per element).

A function with any other op, a control dependency, a sparse component or an output that
does not depend on the element is not rewritten; nor are rows that do not stack. A batch
whose rewritten call fails is mapped element by element instead, so errors name the
element and ``ignore_errors`` drops only it.
"""

from __future__ import annotations

import logging

from ..framework import ops
from ..ops import array_ops, slicing_ops
from ..ops.op_util import constant_value
from ..runtime.partial_run import needed_ops
from . import structure
from .function import CapturingGraph, TracedFunction

_ELEMENTWISE = frozenset("""
    Cast Identity StopGradient Neg Abs Exp Expm1 Log Log1p Sqrt Rsqrt Square Sigmoid Tanh Relu Relu6
    Elu Selu Softplus Softsign Floor Ceil Round Rint Sign Reciprocal LogicalNot IsNan IsInf IsFinite
    Sin Cos Tan Erf StringToNumber StringToHashBucketFast StringToHashBucketStrong StringToHashBucket
    StringLength DecodeRaw
    AddV2 Add Sub Mul RealDiv DivNoNan FloorDiv FloorMod TruncateDiv TruncateMod Maximum Minimum Pow
    SquaredDifference Equal NotEqual Less LessEqual Greater GreaterEqual LogicalAnd LogicalOr
    SelectV2 ClipByValue
""".split())  # (each output element from the inputs' elements at its place, inputs broadcast)


_log = logging.getLogger(__name__)


class _Refused(Exception):
    """The function has an op with no batched form here."""


class BatchedFunction(TracedFunction):
    """``function`` (a TracedFunction) over a batch: its arguments and results each with a
    first dimension, the batch's. Build it with :func:`batched`."""

    def __init__(self, function: TracedFunction, input_spec: structure.Spec):  # noqa: PLW0231 - built here
        self._what = function._what
        self._graph = CapturingGraph(refuse_updates=True)
        self._graph.seed = function._graph.seed
        with self._graph.as_default():
            self._placeholders = [array_ops.placeholder(leaf.dtype, leaf.shape, name=f"arg{i}")
                                  for i, leaf in enumerate(input_spec.batched(None).leaves())]
            batched = dict(zip(function._placeholders, self._placeholders))
            # (the same captures, in the same order: the map passes the function's)
            for outer, inner in function._graph.captured:
                self._graph._capture(outer, None, None)
            new = {inner: (self._graph.captured[i][1], False) for i, (_, inner) in enumerate(function._graph.captured)}
            new.update({old: (t, True) for old, t in batched.items()})
            needed = needed_ops(function._outputs)
            for op in function._graph.get_operations():
                if op not in needed or (op.outputs and all(t in new for t in op.outputs)):
                    continue  # (an op the outputs do not read; an argument's or a capture's placeholder)
                if op.control_inputs:
                    raise _Refused(f"{op.name} has control inputs")
                inputs = [new[t] for t in op.inputs]
                if not any(b for _, b in inputs):
                    if op.is_stateful:
                        raise _Refused(f"{op.name} ({op.type}) is stateful")
                    copy = self._graph.create_op(op.type, [t for t, _ in inputs], op.attrs, name=op.name)
                    new.update({old: (t, False) for old, t in zip(op.outputs, copy.outputs)})
                    continue
                convert = _CONVERTERS.get(op.type, _elementwise if op.type in _ELEMENTWISE else None)
                if convert is None:
                    raise _Refused(f"{op.name} ({op.type}) has no batched form")
                outputs = convert(self._graph, op, inputs)
                new.update({old: (t, True) for old, t in zip(op.outputs, outputs)})
            outputs = [new[t] for t in function._outputs]
            if not all(b for _, b in outputs):
                raise _Refused("an output does not depend on the element")
            self._outputs = [t for t, _ in outputs]
        self.output_spec = function.output_spec.batched(None)
        self._graph.finalize()


def batched(function: TracedFunction, input_spec: structure.Spec) -> BatchedFunction | None:
    """``function`` rewritten for a batch of ``input_spec``'s elements, or None where it
    cannot be (module docstring)."""
    if input_spec.has_sparse() or function.output_spec.has_sparse():
        return None
    try:
        return BatchedFunction(function, input_spec)
    except _Refused as e:
        _log.debug("%s runs element by element: %s", function._what, e)
    except Exception as e:  # noqa: BLE001 - a rewrite that cannot be made leaves the pipeline as written
        _log.debug("%s runs element by element: its batched form failed to build: %s", function._what, e)
    return None


# --- the batched forms: each is given the new graph, the op, and its inputs' (new tensor,
# batched?) pairs, and returns the op's outputs for the batch ------------------------------


def _rank(t: ops.Tensor) -> int:
    rank = t.shape.ndims
    if rank is None:
        raise _Refused(f"{t.name} has an unknown rank")
    return rank


def _static(t: ops.Tensor, what: str):
    value = constant_value(t)
    if value is None:
        raise _Refused(f"{what} is not a constant")
    return value


def _elementwise(graph, op, inputs):
    """An elementwise op: a batched input of a lower rank than the op's other inputs gets
    unit dimensions after the batch's, so that broadcasting lines the elements up as it
    did for each element."""
    rank = max(_rank(t) for t in op.inputs)
    aligned = []
    for old, (t, is_batched) in zip(op.inputs, inputs):
        for _ in range(rank - _rank(old) if is_batched else 0):
            t = array_ops.expand_dims(t, 1)
        aligned.append(t)
    return graph.create_op(op.type, aligned, op.attrs).outputs


def _axis(axis: int, rank: int) -> int:
    """An element's axis (of a tensor of ``rank``) as the batch's."""
    return (axis + rank if axis < 0 else axis) + 1


def _only_first_batched(inputs):
    if not inputs[0][1] or any(b for _, b in inputs[1:]):
        raise _Refused("only the first input may be the element's")


def _reshape(graph, op, inputs):
    _only_first_batched(inputs)
    shape = op.outputs[0].shape
    if not shape.is_fully_defined():
        raise _Refused(f"{op.name}'s shape is not static")
    return [array_ops.reshape(inputs[0][0], [-1] + shape.as_list())]


def _squeeze(graph, op, inputs):
    rank = _rank(op.inputs[0])
    axes = list(op._attr("squeeze_dims"))
    if not axes:
        dims = op.inputs[0].shape.as_list()
        if None in dims:
            raise _Refused(f"{op.name} squeezes dimensions of unknown size")
        axes = [i for i, d in enumerate(dims) if d == 1]
    attrs = dict(op.attrs, squeeze_dims=[_axis(a, rank) for a in axes])
    return graph.create_op("Squeeze", [inputs[0][0]], attrs).outputs


def _expand_dims(graph, op, inputs):
    _only_first_batched(inputs)
    axis = int(_static(op.inputs[1], "ExpandDims's axis"))
    return [array_ops.expand_dims(inputs[0][0], _axis(axis, _rank(op.inputs[0]) + 1))]


def _transpose(graph, op, inputs):
    _only_first_batched(inputs)
    rank = _rank(op.inputs[0])
    perm = [int(p) for p in _static(op.inputs[1], "Transpose's perm")]
    return [array_ops.transpose(inputs[0][0], [0] + [_axis(p, rank) for p in perm])]


def _pack(graph, op, inputs):
    if not all(b for _, b in inputs):
        raise _Refused("tf.stack of the element and something else")
    axis = _axis(op._attr("axis"), _rank(op.inputs[0]) + 1)
    return graph.create_op("Pack", [t for t, _ in inputs], dict(op.attrs, axis=axis)).outputs


def _concat(graph, op, inputs):
    values, axis = inputs[:-1], op.inputs[-1]
    if not all(b for _, b in values) or inputs[-1][1]:
        raise _Refused("tf.concat of the element and something else")
    axis = _axis(int(_static(axis, "ConcatV2's axis")), _rank(op.inputs[0]))
    return [slicing_ops.concat([t for t, _ in values], axis)]


def _one_hot(graph, op, inputs):
    _only_first_batched(inputs)
    axis = op._attr("axis")
    attrs = dict(op.attrs, axis=-1 if axis == -1 else _axis(axis, _rank(op.inputs[0]) + 1))
    return graph.create_op("OneHot", [t for t, _ in inputs], attrs).outputs


def _parse_example(graph, op, inputs):
    """Dense features of each element's records (``parse_single_example``'s one record):
    all the batch's records parsed at once, then each row put back under its element."""
    _only_first_batched(inputs)
    if op._attr("num_sparse") or _static(op.inputs[4], "the ragged keys").size or \
            _static(op.inputs[1], "the example names").size:
        raise _Refused("sparse or ragged features, or example names")
    records = op.inputs[0].shape
    shapes = [s for s in op._attr("dense_shapes")]
    if not records.is_fully_defined() or not all(s.is_fully_defined() for s in shapes):
        raise _Refused("records or features of unknown shape")
    flat = array_ops.reshape(inputs[0][0], [-1])
    parsed = graph.create_op(op.type, [flat] + [t for t, _ in inputs[1:]], op.attrs).outputs
    return [array_ops.reshape(t, [-1] + records.as_list() + s.as_list()) for t, s in zip(parsed, shapes)]


def _leading(t: ops.Tensor, value: int) -> ops.Tensor:
    """The vector ``t`` with ``value`` in front (the batch dimension's entry)."""
    return slicing_ops.concat([array_ops.constant([value], dtype=t.dtype), t], 0)


def _strided_slice(graph, op, inputs):
    """``x[...]``: the batch dimension kept whole in front of the element's slice (every mask
    moved by one place)."""
    _only_first_batched(inputs)
    x, begin, end, strides = (t for t, _ in inputs)
    attrs = dict(op.attrs, begin_mask=(op._attr("begin_mask") << 1) | 1, end_mask=(op._attr("end_mask") << 1) | 1,
                 ellipsis_mask=op._attr("ellipsis_mask") << 1, new_axis_mask=op._attr("new_axis_mask") << 1,
                 shrink_axis_mask=op._attr("shrink_axis_mask") << 1)
    return graph.create_op("StridedSlice", [x, _leading(begin, 0), _leading(end, 0), _leading(strides, 1)],
                           attrs).outputs


def _slice(graph, op, inputs):
    _only_first_batched(inputs)
    x, begin, size = (t for t, _ in inputs)
    return graph.create_op("Slice", [x, _leading(begin, 0), _leading(size, -1)], op.attrs).outputs


def _gather(graph, op, inputs):
    """``tf.gather(x, indices, axis)`` of an element's values by constant indices."""
    _only_first_batched(inputs)
    if op.attrs.get("batch_dims", 0):
        raise _Refused(f"{op.name} has batch_dims")
    axis = _axis(int(_static(op.inputs[2], "GatherV2's axis")), _rank(op.inputs[0]))
    return [slicing_ops.gather(inputs[0][0], inputs[1][0], axis=axis)]


_CONVERTERS = {"StridedSlice": _strided_slice, "Slice": _slice, "GatherV2": _gather, "Reshape": _reshape,
               "Squeeze": _squeeze, "ExpandDims": _expand_dims, "Transpose": _transpose, "Pack": _pack,
               "ConcatV2": _concat, "OneHot": _one_hot, "ParseExampleV2": _parse_example}
