"""``tf.cond``, ``tf.case`` and ``tf.while_loop``, built as If and While ops (function_ops.py).

TF 1.x's signatures, argument checks and error classes; its results have the
structure of the branch outputs and loop variables as in TF 1.x (``strict`` and
``return_same_structure`` included).
"""

from __future__ import annotations

import numbers

from ..framework import dtypes, ops
from ..framework import nest
from ..framework.function_body import FunctionContext
from ..framework.tensor_shape import TensorShape, as_shape
from . import array_ops, math_ops
from .check_ops import Assert, assert_less_equal
from .function_ops import argument, build_if, build_while, building, current_context
from .indexed_slices import IndexedSlices, to_dense
from .tensor_array_ops import TensorArray


def _branch_leaves(value, pred: ops.Tensor, what: str) -> list:
    """The leaves of a branch's result, each a tensor of the branch, a SparseTensor or an
    IndexedSlices: an op becomes the predicate's value once the op has run (as TF 1.x's cond
    does)."""
    out = []
    for leaf in nest.flatten(value):
        if leaf is None:
            raise ValueError(f"{what} returned None inside its result; every output needs a value")
        if isinstance(leaf, ops.Operation):
            with ops.control_dependencies([leaf]):
                out.append(array_ops.identity(pred))
        elif isinstance(leaf, TensorArray) or _kind(leaf) != "tensor":
            out.append(leaf)
        else:
            out.append(ops.convert_to_tensor(leaf))
    return out


def _kind(leaf) -> str:
    from .sparse_ops import SparseTensor  # noqa: PLC0415 - (sparse_ops builds on this module's neighbours)

    if isinstance(leaf, SparseTensor):
        return "sparse"
    if isinstance(leaf, IndexedSlices):
        return "slices" if leaf.dense_shape is not None else "slices_no_shape"
    return "tensor"


def _common_kind(a, b) -> str:
    """The kind both branches' leaves take, as TF's cond makes them alike: an IndexedSlices
    against a tensor becomes dense."""
    ka, kb = _loop_kind(a), _loop_kind(b)
    if ka == kb:
        return ka
    if {ka, kb} <= {"tensor", "slices"}:
        return "tensor"
    raise ValueError(f"Outputs of true_fn and false_fn must have the same type: {type(a).__name__}, "
                     f"{type(b).__name__}")


def _parts(kind, leaf) -> list:
    if kind == "array":  # (a TensorArray travels as its flow)
        return [leaf.flow]
    if kind == "sparse":
        return [leaf.indices, leaf.values, leaf.dense_shape]
    if kind == "slices":
        return [leaf.values, leaf.indices, ops.convert_to_tensor(leaf.dense_shape)]
    if kind == "slices_no_shape":
        return [leaf.values, leaf.indices]
    return [leaf]


def _leaf_of(kind, parts):
    """A leaf from its parts (those of :func:`_parts`)."""
    from .sparse_ops import SparseTensor  # noqa: PLC0415

    if kind == "sparse":
        return SparseTensor(*parts)
    if kind in ("slices", "slices_no_shape"):
        return IndexedSlices(*parts)
    return parts[0]


_KIND_NAMES = {"sparse": "SparseTensor", "slices": "IndexedSlices with a dense shape",
               "slices_no_shape": "IndexedSlices without a dense shape"}


def _loop_kind(value) -> str:
    return "array" if isinstance(value, TensorArray) else _kind(value)


def _loop_parts(leaves, kinds) -> list:
    """The tensors that carry ``leaves`` through a loop: a TensorArray's flow, a SparseTensor's
    or an IndexedSlices' parts, a tensor itself."""
    parts = []
    for leaf, kind in zip(leaves, kinds):
        if kind == "array":
            parts.append(leaf.flow)
        elif kind == "tensor":
            parts.append(_tensor_of(leaf))
        else:
            parts += _parts(kind, leaf)
    return parts


_PART_COUNTS = {"array": 1, "tensor": 1, "sparse": 3, "slices": 3, "slices_no_shape": 2}


def _grouped(flat, kinds) -> list:
    """``flat`` cut into each leaf's parts."""
    groups, i = [], 0
    for kind in kinds:
        groups.append(flat[i:i + _PART_COUNTS[kind]])
        i += _PART_COUNTS[kind]
    return groups


def _loop_leaves(flat, kinds, templates) -> list:
    """The leaves again from their parts (a TensorArray like its template, around its flow)."""
    return [template._with_flow(parts[0]) if kind == "array" else _leaf_of(kind, parts)
            for kind, parts, template in zip(kinds, _grouped(flat, kinds), templates)]


def _invariant_shapes(kind, parts, invariant) -> list:
    """Each part's shape invariant from the one given for a leaf, as TF 1.x reads it: for a
    SparseTensor, the shape of its dense_shape vector (indices and values may change length);
    for an IndexedSlices, the shape of its values (indices as many as the values' rows)."""
    if kind == "array":
        return [parts[0].shape]
    invariant = as_shape(invariant)
    if kind == "tensor":
        return [invariant]
    if kind == "sparse":
        rank = invariant[0].value if invariant.ndims else None
        return [TensorShape([None, rank]), TensorShape([None]), invariant]
    rows = TensorShape([invariant[0].value if invariant.ndims else None])
    if kind == "slices":
        return [invariant, rows, TensorShape([invariant.ndims])]
    return [invariant, rows]


def _tensor_of(value) -> ops.Tensor:
    if isinstance(value, IndexedSlices):
        return to_dense(value)
    return ops.convert_to_tensor(value)


def _unpack_singleton(value, strict: bool):
    if not strict and isinstance(value, (list, tuple)) and len(value) == 1:
        return value[0]
    return value


def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """``true_fn()`` if ``pred`` else ``false_fn()``, as one op: only the taken branch's ops run.

    Args:
      pred: a scalar boolean Tensor (not a Python bool, as in TF 1.x).
      true_fn, false_fn: callables returning the same structure of tensors (or ops).
      strict: keep a one-element list or tuple as it is (by default it is unpacked).
      fn1, fn2: TF 1.x's deprecated names of true_fn and false_fn.

    Raises:
      TypeError: a branch is not callable, pred is a Python bool or not boolean.
      ValueError: the branches return different structures or dtypes.
    """
    if fn1 is not None:
        if true_fn is not None:
            raise TypeError("cond(): true_fn and fn1 may not be set simultaneously.")
        true_fn = fn1
    if fn2 is not None:
        if false_fn is not None:
            raise TypeError("cond(): false_fn and fn2 may not be set simultaneously.")
        false_fn = fn2
    if not callable(true_fn):
        raise TypeError("true_fn must be callable.")
    if not callable(false_fn):
        raise TypeError("false_fn must be callable.")
    if isinstance(pred, bool):
        raise TypeError("pred must not be a Python bool")
    with ops.name_scope(name, "cond", [pred]) as scope:
        pred = ops.convert_to_tensor(pred, name="pred")
        if pred.dtype.base_dtype != dtypes.bool:
            raise TypeError(f"pred must be a boolean Tensor, got {pred.dtype.name} ('{pred.name}')")
        if pred.shape.ndims not in (None, 0):
            raise ValueError(f"pred must be a scalar, got shape {pred.shape} ('{pred.name}')")
        label = scope.rstrip("/")
        outer = current_context()
        results, contexts = [], []
        for which, fn in (("true", true_fn), ("false", false_fn)):
            ctx = FunctionContext(f"the {which} branch of tf.cond '{label}'", outer)
            with building(ctx):
                value = fn()
                results.append((value, _branch_leaves(value, pred, f"{which}_fn") if value is not None else []))
            contexts.append(ctx)
        (true_value, true_leaves), (false_value, false_leaves) = results
        if (true_value is None) != (false_value is None):
            raise ValueError("true_fn and false_fn must both return a value, or both return None")
        try:
            nest.assert_same_structure(_unpack_singleton(true_value, strict), _unpack_singleton(false_value, strict),
                                       check_types=False)
        except (TypeError, ValueError) as e:
            raise ValueError(f"Outputs of true_fn and false_fn must have the same structure: {e}") from None
        kinds, true_out, false_out = [], [], []
        for a, b in zip(true_leaves, false_leaves):
            kind = _common_kind(a, b)
            parts = []
            for ctx, leaf in zip(contexts, (a, b)):
                with building(ctx):  # (each branch's conversions are its own ops)
                    parts.append(_parts(kind, to_dense(leaf) if kind == "tensor" and _kind(leaf) != "tensor" else leaf))
            if kind not in ("tensor", "array"):  # (int32 indices against int64 ones: int64 in both, as TF's cond)
                k = 0 if kind == "sparse" else 1
                if parts[0][k].dtype.base_dtype != parts[1][k].dtype.base_dtype:
                    for ctx, branch_parts in zip(contexts, parts):
                        with building(ctx):
                            branch_parts[k] = math_ops.cast(branch_parts[k], dtypes.int64)
            kinds.append(kind)
            true_out += parts[0]
            false_out += parts[1]
        for a, b in zip(true_out, false_out):
            if a.dtype.base_dtype != b.dtype.base_dtype:
                raise ValueError(f"Outputs of true_fn and false_fn must have the same type: "
                                 f"{a.dtype.base_dtype.name}, {b.dtype.base_dtype.name}")
        op = build_if(pred, contexts[0], true_out, contexts[1], false_out, name=scope)  # (named as its scope)
        if true_value is None:
            return None
        leaves = _loop_leaves([op.outputs[i] for i in range(len(true_out))], kinds, true_leaves)
        return _unpack_singleton(nest.pack_sequence_as(true_value, leaves), strict)


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """The function paired with the first true predicate (``default`` when none is).

    ``pred_fn_pairs`` is a list of (predicate, callable) pairs, or a dict of them (as TF
    1.x; order then follows the dict). ``exclusive=True`` also checks at run time that at
    most one predicate is true.
    """
    if isinstance(pred_fn_pairs, dict):
        pairs = list(pred_fn_pairs.items())
    elif isinstance(pred_fn_pairs, (list, tuple)):
        pairs = list(pred_fn_pairs)
    else:
        raise TypeError("fns must be a list, tuple, or dict")
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in pred_fn_pairs must be a 2-tuple, got {pair!r}")
        if not callable(pair[1]):
            raise TypeError(f"fn for pred {pair[0]!r} must be callable.")
    if default is not None and not callable(default):
        raise TypeError("default must be callable.")
    if default is None and not pairs:
        raise ValueError("case needs at least one predicate or a default")
    with ops.name_scope(name, "case", [p for p, _ in pairs]):
        if default is None:  # (as TF: the last function runs when no other does, if its own predicate holds)
            *pairs, (last_pred, last_fn) = pairs
            every = array_ops.stack([ops.convert_to_tensor(p) for p, _ in pairs] + [ops.convert_to_tensor(last_pred)],
                                    name="preds_c")

            def default():
                none_true = Assert(last_pred, ["Input error: None of conditions evaluated as True:", every])
                with ops.control_dependencies([none_true]):
                    return nest.map_structure(lambda t: array_ops.identity(t) if isinstance(t, ops.Tensor) else t,
                                              last_fn())
        preds = [ops.convert_to_tensor(p) for p, _ in pairs]
        if exclusive and len(preds) > 1:
            count = math_ops.add_n([math_ops.cast(p, dtypes.int32) for p in preds])
            check = assert_less_equal(count, 1, message="Input error: exclusive=True: more than 1 conditions "
                                      "evaluated as True:")
            with ops.control_dependencies([check]):
                preds = [array_ops.identity(p) for p in preds]

        def chain(k):
            if k == len(preds):
                return default()
            return cond(preds[k], pairs[k][1], lambda: chain(k + 1), strict=strict, name=f"case_{k}")

        return chain(0)


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """The branch ``branch_fns[branch_index]`` (``tf.switch_case``).

    ``branch_fns``: a list of callables, a list of ``(index, callable)`` pairs or a dict of
    them, the indices 0 to n-1. An index with no branch runs ``default``, or, without one,
    the last branch, as TensorFlow's.
    """
    if isinstance(branch_fns, dict):
        pairs = sorted(branch_fns.items())
    elif isinstance(branch_fns, (list, tuple)) and branch_fns and all(
            isinstance(p, tuple) and len(p) == 2 for p in branch_fns):
        pairs = sorted(branch_fns)
    elif isinstance(branch_fns, (list, tuple)):
        pairs = list(enumerate(branch_fns))
    else:
        raise TypeError("branch_fns must be a list, tuple, or dict")
    if not pairs:
        raise ValueError("Must provide at least one item in branch_fns")
    keys = [k for k, _ in pairs]
    if any(not isinstance(k, int) for k in keys) or keys != list(range(len(keys))):
        raise ValueError(f"branch indices (keys) must form contiguous range of [0 to {len(keys)}) but found {keys}")
    if any(not callable(fn) for _, fn in pairs) or (default is not None and not callable(default)):
        raise TypeError("branch_fns and default must be callables")
    with ops.name_scope(name, "switch_case", [branch_index]):
        index = ops.convert_to_tensor(branch_index, name="branch_index")
        if index.dtype.base_dtype != dtypes.int32:
            raise TypeError(f"branch_index must be an int32 Tensor, got {index.dtype.name}")
        if default is None:
            *pairs, (_, default) = pairs
        return case([(math_ops.equal(index, k), fn) for k, fn in pairs], default=default, exclusive=False)


def _read_assigned_variables_afresh(start: int, cond_ctx: FunctionContext, body_ctx: FunctionContext,
                                    nexts: list) -> list:
    """A variable that the loop's body assigns is read anew inside the loop, at each
    iteration, as TF 1.x reads a reference variable there: the reads from outside that the
    condition and body use (a variable's cached value, computed once before the loop) are
    replaced by reads of their own. Returns the body's outputs, such reads replaced too.
    Variables the loop only reads keep their one read before the loop."""
    made = []
    for op in reversed(ops.get_default_graph()._nodes):  # (the ops made while the loop was built)
        if op._id <= start:
            break
        made.append(op)
    made.reverse()
    assigned = {op.inputs[i] for op in made if op.is_stateful and op._ctx is not None
                and op._ctx.is_within(body_ctx) for i in op._reg.ref_inputs}
    if not assigned:
        return nexts
    for ctx in (cond_ctx, body_ctx):
        fresh: dict = {}

        def afresh(t, ctx=ctx, fresh=fresh):
            """``t`` read again in ``ctx`` if it is a read from outside of an assigned variable."""
            if t.op.type != "Identity" or t.op.inputs[0] not in assigned or (
                    t.op._ctx is not None and t.op._ctx.is_within(ctx)):
                return t
            if t not in fresh:
                with building(ctx), ops.colocate_with(t.op.inputs[0].op):
                    fresh[t] = array_ops.identity(t.op.inputs[0], name="read")
            return fresh[t]

        for op in made:
            if op._ctx is ctx:
                for index, t in enumerate(op.inputs):
                    if afresh(t) is not t:
                        op._replace_input(index, afresh(t))
        if ctx is body_ctx:
            nexts = [afresh(t) for t in nexts]
    return nexts


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True,  # noqa: C901
               swap_memory=False, name=None, maximum_iterations=None, return_same_structure=False):
    """Repeats ``body`` while ``cond`` is true, as one op: ``loop_vars = body(*loop_vars)``.

    Args:
      cond, body: callables taking the loop variables (unpacked from ``loop_vars``).
      loop_vars: a (nested) tuple, list or namedtuple of tensors (or values).
      shape_invariants: the shape each loop variable may have across iterations
        (default: its initial shape, which the body must keep).
      parallel_iterations, swap_memory: accepted; distflow runs iterations one at a time
        and keeps what the gradient needs in memory.
      back_prop: False: no gradient flows through the loop.
      maximum_iterations: stop after this many iterations even if ``cond`` is still true.
      return_same_structure: return ``loop_vars``' structure even for one variable.

    Raises:
      TypeError: cond or body not callable; a loop variable changes dtype.
      ValueError: no loop variables; body returns another structure; a loop variable
        leaves its shape invariant.
    """
    if not callable(cond):
        raise TypeError("cond must be callable.")
    if not callable(body):
        raise TypeError("body must be callable.")
    if not isinstance(parallel_iterations, numbers.Integral) or parallel_iterations < 1:
        raise TypeError("parallel_iterations must be a positive integer.")
    if loop_vars is None or (isinstance(loop_vars, (list, tuple)) and not loop_vars):
        raise ValueError("No loop variables provided")
    with ops.name_scope(name, "while", nest.flatten(loop_vars)) as scope:
        label = scope.rstrip("/")
        # a TensorArray travels as its flow, a SparseTensor or an IndexedSlices as its parts, and
        # each is rebuilt around them on the other side
        templates = nest.flatten(loop_vars)
        kinds = [_loop_kind(v) for v in templates]
        flat = _loop_parts(templates, kinds)
        if shape_invariants is None:
            shapes = [t.shape for t in flat]
        else:
            nest.assert_same_structure(loop_vars, shape_invariants, check_types=False)
            shapes = []
            for kind, parts, s in zip(kinds, _grouped(flat, kinds), nest.flatten(shape_invariants)):
                shapes += _invariant_shapes(kind, parts, s)
            for t, s in zip(flat, shapes):
                if not s.is_compatible_with(t.shape):
                    raise ValueError(f"The shape invariant specified for {t.name} is not compatible with the "
                                     f"initial shape of the loop variable. It enters the loop with shape "
                                     f"{t.shape}, but the specified shape invariant is {s}.")
        counted = maximum_iterations is not None
        if counted:
            limit = ops.convert_to_tensor(maximum_iterations, name="maximum_iterations")
            if limit.shape.ndims not in (None, 0):
                raise ValueError(f"maximum_iterations must be a scalar, got shape {limit.shape}")
            flat = [array_ops.zeros([], limit.dtype.base_dtype, name="iteration_counter")] + flat
            shapes = [TensorShape([])] + shapes

        def rebuilt(values):
            values = values[1:] if counted else values
            return _loop_leaves(values, kinds, templates)

        def call(fn, args):
            packed = nest.pack_sequence_as(loop_vars, rebuilt(args))
            return fn(*packed) if isinstance(loop_vars, (list, tuple)) else fn(packed)

        outer = current_context()
        start = ops.get_default_graph().version
        cond_ctx = FunctionContext(f"the condition of tf.while_loop '{label}'", outer)
        with building(cond_ctx):
            cond_args = [argument(i, t.dtype, s, f"arg{i}") for i, (t, s) in enumerate(zip(flat, shapes))]
            keep_going = ops.convert_to_tensor(call(cond, cond_args))
            if keep_going.dtype.base_dtype != dtypes.bool:
                raise TypeError(f"cond of tf.while_loop '{label}' must return a boolean, got "
                                f"{keep_going.dtype.name}")
            if counted:
                keep_going = math_ops.logical_and(math_ops.less(cond_args[0], limit), keep_going)
        body_ctx = FunctionContext(f"the body of tf.while_loop '{label}'", outer)
        with building(body_ctx):
            body_args = [argument(i, t.dtype, s, f"arg{i}") for i, (t, s) in enumerate(zip(flat, shapes))]
            result = call(body, body_args)
            expected, got = loop_vars, result
            if isinstance(loop_vars, (list, tuple)):  # (a list for a tuple will do, as in TF 1.x)
                expected, got = list(loop_vars), list(result) if nest.is_nested(result) else [result]
            try:
                nest.assert_same_structure(expected, got, check_types=False)
            except (TypeError, ValueError) as e:
                raise ValueError(f"body of tf.while_loop '{label}' must return the structure of loop_vars: "
                                 f"{e}") from None
            results = nest.flatten(result)
            for kind, value in zip(kinds, results):
                if (kind == "array") != isinstance(value, TensorArray):
                    raise TypeError(f"body of tf.while_loop '{label}' must return a TensorArray where loop_vars "
                                    f"has one, and only there; got {value!r}")
                if kind in ("sparse", "slices", "slices_no_shape") and _loop_kind(value) != kind:
                    raise TypeError(f"body of tf.while_loop '{label}' must return a {_KIND_NAMES[kind]} where "
                                    f"loop_vars has one; got {value!r}")
            out_templates = results
            nexts = _loop_parts(results, kinds)
            if counted:
                nexts = [math_ops.add(body_args[0], 1)] + nexts
        for arg, init, nxt, shape in zip(body_args, flat, nexts, shapes):
            if nxt.dtype.base_dtype != init.dtype.base_dtype:
                raise TypeError(f"Loop variable {init.name} enters tf.while_loop '{label}' as "
                                f"{init.dtype.base_dtype.name} but the body returns {nxt.dtype.base_dtype.name}")
            if not shape.is_compatible_with(nxt.shape):
                raise ValueError(f"Input tensor '{init.name}' enters the loop with shape {shape}, but has shape "
                                 f"{nxt.shape} after one iteration. To allow the shape to vary across "
                                 "iterations, use the `shape_invariants` argument of tf.while_loop to specify "
                                 "a less-specific shape.")
        nexts = _read_assigned_variables_afresh(start, cond_ctx, body_ctx, nexts)
        op = build_while(cond_ctx, keep_going, body_ctx, nexts, cond_args, body_args, flat, shapes, name=scope,
                         back_prop=back_prop, parallel_iterations=parallel_iterations)
        values = list(op.outputs[:len(flat)])
        outputs = _loop_leaves(values[1:] if counted else values, kinds, out_templates)
        if not return_same_structure and len(outputs) == 1 and isinstance(loop_vars, (list, tuple)) \
                and len(nest.flatten(loop_vars)) == 1:
            return outputs[0]
        return nest.pack_sequence_as(loop_vars, outputs)
