"""Control flow as ops with functions: ``If`` (tf.cond) and ``While`` (tf.while_loop).

A branch or loop function is built by calling the user's Python function while a
:class:`FunctionContext` is current; the ops it makes belong to that function (see
framework/function_body.py). Building the op then collects the function's ops, and the
tensors from outside that they read become the op's inputs ("captures"). At run time
the op's kernel runs the function's compiled plan: an ``If`` runs one branch, so the
other branch's ops (side effects included) do not run; a ``While`` runs its condition
and body in a Python loop of the executor, so the number of iterations has no recursion
limit, and it checks between iterations whether its step was cancelled or is past its
deadline.

Gradients are built the same way, as an ``If`` or ``While`` whose functions differentiate
the forward ones with ``tf.gradients``. What they read of the forward pass is handed
over by the forward op: a branch exports each such tensor as an extra output (no value
when the other branch ran), and a loop keeps its value at every iteration (an extra
``variant`` output holding the list), which the gradient loop reads from last to first.
So values are never recomputed: random ops (dropout) and side effects in the forward
functions run once.

Unlike TensorFlow 1.x (Switch, Merge, Enter, Exit, NextIteration and dead tensors),
the executor stays a flat list of kernel calls: graphs without control flow pay
nothing for it.
"""

from __future__ import annotations

import heapq

import contextlib
import time
import weakref

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.function_body import FuncBody, FunctionContext
from ..framework.registry import not_differentiable, register_gradient, register_op
from ..framework.tensor_shape import TensorShape, unknown_shape
from . import array_ops, math_ops, reduction_ops
from .gradients_impl import differentiable, gradients
from .indexed_slices import IndexedSlices, to_dense
from .op_util import make_tensor

# control-flow op -> {attr name: the FunctionContext its function was built in}; for an op
# of an imported graph they are made from its attrs when it is first differentiated
_CONTEXTS: "weakref.WeakKeyDictionary[ops.Operation, dict]" = weakref.WeakKeyDictionary()


# ---------------------------------------------------------------------------
# Building functions


@contextlib.contextmanager
def building(ctx: FunctionContext):
    """Makes ``ctx`` the function that new ops of the default graph belong to."""
    graph = ops.get_default_graph()
    saved = graph._function_context
    graph._function_context = ctx
    try:
        yield ctx
    finally:
        graph._function_context = saved


def current_context() -> FunctionContext | None:
    return ops.get_default_graph()._function_context


@register_op("_Arg", shape=lambda op: op._attr("shape"), dtype=lambda op: op._attr("dtype"))
def _arg_kernel(*, dtype=None, shape=None, index=0):
    raise errors.InternalError(None, None, f"function argument {index} was not fed")


def argument(index: int, dtype, shape, name: str) -> ops.Tensor:
    """A function's argument (a loop variable as the condition or body sees it)."""
    return ops.get_default_graph().create_op(
        "_Arg", [], {"dtype": dtypes.as_dtype(dtype).base_dtype, "shape": shape, "index": index},
        name=name).outputs[0]


def _members(ctx: FunctionContext, outputs, control_outputs=()):
    """The ops of ``ctx`` that ``outputs`` need, in creation order (a topological order),
    the tensors from outside that they (or the outputs themselves) read, and the ops
    from outside they wait for."""
    members, externals, seen, controls = set(), [], set(), []
    stack = [t.op for t in outputs if t.op._ctx is ctx] + [o for o in control_outputs if o._ctx is ctx]
    while stack:
        op = stack.pop()
        if op in members:
            continue
        members.add(op)
        for t in op.inputs:
            if t.op._ctx is ctx:
                stack.append(t.op)
            elif t not in seen:
                seen.add(t)
                externals.append(t)
        for c in op.control_inputs:
            if c._ctx is ctx:
                stack.append(c)
            elif c not in controls:
                controls.append(c)
    for t in outputs:
        if t.op._ctx is not ctx and t not in seen:
            seen.add(t)
            externals.append(t)
    return _in_order(members), externals, controls


def _in_order(members: set) -> list:
    """``members`` each after the members it reads or waits for, in creation order where that
    leaves a choice (an op made after its readers, a loop's own read of a variable, comes
    before them)."""
    before = {op: {t.op for t in op.inputs if t.op in members} | {c for c in op.control_inputs if c in members}
              for op in members}
    after: dict = {op: [] for op in members}
    for op, preceding in before.items():
        for p in preceding:
            after[p].append(op)
    waiting = {op: len(preceding) for op, preceding in before.items()}
    ready = [(op._id, op) for op, n in waiting.items() if n == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _, op = heapq.heappop(ready)
        order.append(op)
        for nxt in after[op]:
            waiting[nxt] -= 1
            if not waiting[nxt]:
                heapq.heappush(ready, (nxt._id, nxt))
    return order


def _lift(t: ops.Tensor, ctx: FunctionContext) -> tuple[ops.Tensor, bool]:
    """What the op owning ``ctx`` takes as input for ``t``, read inside ``ctx``; and whether
    it is a per-iteration stack (a gradient loop reading its forward loop's values)."""
    while True:
        source = t.op._ctx
        if source is None:
            return t, False
        owner = source.owner
        if source is ctx.forward and owner is not None and owner.type == "While":
            return _keep_per_iteration(source, t), True
        if _plainly_visible(source, ctx.outer):
            return t, False
        if owner is not None and owner.type == "If":
            t = _export_from_branch(source, t)
            continue
        raise ValueError(f"'{t.name}' was made in {source.what} and cannot be used in {ctx.what}")


def _plainly_visible(source: FunctionContext, reader: FunctionContext | None) -> bool:
    """Whether an op built in ``reader`` can take a tensor made in ``source`` as it is: in
    ``reader`` or around it, or (for a gradient) in the function it differentiates or a
    branch inside that, which hands the tensor over when that gradient is built. A
    tensor of a loop nested in the forward function is not: it has a value per iteration."""
    if reader is None:
        return False
    for ctx in reader.chain():
        if ctx is source:
            return True
        forward = ctx.forward
        if forward is not None and source.is_within(forward):
            inner = source
            while inner is not forward:
                if inner.owner is not None and inner.owner.type == "While":
                    return False
                inner = inner.outer
            return True
    return False


def _export_from_branch(branch: FunctionContext, t: ops.Tensor) -> ops.Tensor:
    """``t`` (made in a branch of an If) as a new output of the If: its value when that
    branch ran, no value when the other did."""
    found = branch.exports.get(t)
    if found is not None:
        return found
    op = branch.owner
    for attr in ("then_branch", "else_branch"):
        body = op._attrs[attr]
        if attr == branch.role and t.op.name not in body.ops:
            raise ValueError(f"'{t.name}' is not computed by {branch.what}")
        op._attrs[attr] = body.with_outputs(body.outputs + (t.name if attr == branch.role else "",))
    found = branch.exports[t] = _add_output(op, t.dtype.base_dtype, t.shape)
    return found


def _keep_per_iteration(body_ctx: FunctionContext, t: ops.Tensor) -> ops.Tensor:
    """A new output of the While owning ``body_ctx``: the list of ``t``'s values, one per iteration."""
    found = body_ctx.exports.get(t)
    if found is not None:
        return found
    op = body_ctx.owner
    body = op._attrs["body"]
    if t.op.name not in body.ops and t.name not in {k for k, _ in body.feeds}:
        raise ValueError(f"'{t.name}' is not computed by {body_ctx.what}")
    op._attrs["body"] = body.with_outputs(body.outputs + (t.name,))
    found = body_ctx.exports[t] = _add_output(op, dtypes.variant, unknown_shape())
    return found


def _add_output(op: ops.Operation, dtype, shape) -> ops.Tensor:
    op._attrs["Tout"] = list(op._attrs["Tout"]) + [dtype]
    op._attrs["output_shapes"] = list(op._attrs["output_shapes"]) + [shape]
    tensor = ops.Tensor(op, len(op.outputs), dtype, shape)
    op._outputs = op._outputs + (tensor,)
    return tensor


class _Inputs:
    """The inputs of a control-flow op being built: each captured tensor once, after
    ``first`` (a loop's initial values, which change as it runs, so are not shared)."""

    def __init__(self, first=()):
        self.tensors = list(first)
        self._position: dict = {}

    def position(self, t: ops.Tensor) -> int:
        if t not in self._position:
            self._position[t] = len(self.tensors)
            self.tensors.append(t)
        return self._position[t]


def _function(ctx: FunctionContext, outputs, inputs: _Inputs, stacked: _Inputs | None, feeds=(),
              controls=None) -> FuncBody:
    """``ctx``'s function computing ``outputs``, reading its captures through ``inputs``."""
    order, externals, waits = _members(ctx, outputs)
    feeds = list(feeds)
    for t in externals:
        outer, per_iteration = _lift(t, ctx)
        if per_iteration:
            if stacked is None:
                raise ValueError(f"'{t.name}' cannot be read per iteration in {ctx.what}")
            feeds.append((t.name, -1 - stacked.position(outer)))  # made final once the captures are known
        else:
            feeds.append((t.name, inputs.position(outer)))
    if controls is not None:
        outer = ctx.outer
        controls.extend(c for c in waits if c._ctx is None or c._ctx.visible_in(outer))
    return FuncBody([op.name for op in order], feeds, [t.name for t in outputs])


def _merged_shape(a: TensorShape, b: TensorShape) -> TensorShape:
    if a.ndims is None or b.ndims is None or a.ndims != b.ndims:
        return unknown_shape()
    return TensorShape([x if x == y else None for x, y in zip(a.as_list(), b.as_list())])


def _zero_gradient(t: ops.Tensor) -> ops.Tensor:
    """Zeros for the gradient of an input ``t`` of a cond or loop: of its value; for a resource
    variable's handle (whose gradient is its reads'), of the variable's value."""
    if t.dtype.base_dtype == dtypes.resource:
        t = make_tensor("ReadVariableOp", [t], {"dtype": t.op._attr("dtype")}, "ReadVariableOp")
    return array_ops.zeros_like(t)


def _dense(value) -> ops.Tensor:
    return to_dense(value) if isinstance(value, IndexedSlices) else ops.convert_to_tensor(value)


# ---------------------------------------------------------------------------
# If


def _output_shapes(op):
    return op._attr("output_shapes")


def _output_dtypes(op):
    return op._attr("Tout")


def _on_host(ctx, value) -> np.ndarray:
    """A predicate's value where the host can read it (copied back from a GPU's memory)."""
    backend = ctx.device.backend
    return np.asarray(value if backend is None else backend.to_host(value))


@register_op("If", shape=_output_shapes, dtype=_output_dtypes, stateful=True, list_output=True, may_alias=True)
def _if_kernel(ctx, *inputs, then_branch, else_branch, Tout=(), output_shapes=()):  # noqa: N803 - TF's attr
    pred = _on_host(ctx, inputs[0])
    if pred.shape != ():
        raise errors.InvalidArgumentError(None, None, f"The predicate of tf.cond must be a scalar, got shape "
                                          f"{list(pred.shape)}")
    return (then_branch if pred else else_branch)(inputs, ctx.step)


def build_if(pred: ops.Tensor, then_ctx: FunctionContext, then_outputs: list, else_ctx: FunctionContext,
             else_outputs: list, name: str) -> ops.Operation:
    """The If op running ``then_ctx``'s function when ``pred`` is true, else ``else_ctx``'s."""
    inputs, controls = _Inputs([pred]), []
    then_body = _function(then_ctx, then_outputs, inputs, None, controls=controls)
    else_body = _function(else_ctx, else_outputs, inputs, None, controls=controls)
    attrs = {"then_branch": then_body, "else_branch": else_body,
             "Tout": [t.dtype.base_dtype for t in then_outputs],
             "output_shapes": [_merged_shape(a.shape, b.shape) for a, b in zip(then_outputs, else_outputs)]}
    op = ops.get_default_graph().create_op("If", inputs.tensors, attrs, name=name, control_inputs=controls)
    for ctx, role in ((then_ctx, "then_branch"), (else_ctx, "else_branch")):
        ctx.owner, ctx.role = op, role
    _CONTEXTS[op] = {"then_branch": then_ctx, "else_branch": else_ctx}
    return op


def _contexts(op: ops.Operation) -> dict:
    found = _CONTEXTS.get(op)
    return found if found is not None else _rebuilt_contexts(op)


# An imported graph (import_meta_graph, import_graph_def) has its control-flow ops and their
# functions' ops, but not the FunctionContexts a gradient needs: they are made anew from
# the FuncBody attrs, with the function each op belongs to, when an op is first differentiated.
_ROLES = {"While": (("cond", "the condition of tf.while_loop"), ("body", "the body of tf.while_loop")),
          "If": (("then_branch", "the true branch of tf.cond"), ("else_branch", "the false branch of tf.cond"))}


def _rebuilt_contexts(op: ops.Operation) -> dict:
    """The functions of an imported If or While, made from its attrs."""
    if op.type not in _ROLES:
        raise LookupError(f"Cannot differentiate '{op.name}' ({op.type}): it is not a cond or a loop")
    outer = _owner_context(op)
    graph = op.graph
    contexts = {}
    for role, what in _ROLES[op.type]:
        ctx = FunctionContext(f"{what} '{op.name}'", outer)
        ctx.owner, ctx.role = op, role
        body = op._attrs[role]
        for name in body.ops:
            graph.get_operation_by_name(name)._ctx = ctx
        # a function's outputs are the owner's outputs while it runs; a loop's beyond its
        # variables (and its count) are the values it keeps per iteration
        first = op._attr("num_loop_vars") + 1 if op.type == "While" else 0
        skip = op._attr("num_loop_vars") if op.type == "While" else 0
        for k, name in enumerate(body.outputs[skip:]):
            if name and (op.type == "If" or role == "body"):
                ctx.exports[graph.get_tensor_by_name(name)] = op.outputs[first + k]
        contexts[role] = ctx
    _CONTEXTS[op] = contexts
    return contexts


def _owner_context(op: ops.Operation):
    """The function ``op`` belongs to (its owner's functions rebuilt first), or None."""
    if op._ctx is None:
        for other in op.graph.get_operations():
            if other.type in _ROLES and other is not op and other not in _CONTEXTS and any(
                    op.name in other._attrs[role].ops for role, _ in _ROLES[other.type]):
                _rebuilt_contexts(other)
                break
    return op._ctx


def _tensor(graph, name: str) -> ops.Tensor:
    return graph.get_tensor_by_name(name)


@register_gradient("If")
def _if_grad(op, *grads):
    contexts = _contexts(op)
    graph = op.graph
    wanted = [i for i in range(1, len(op.inputs)) if differentiable(op.inputs[i])]
    flowing = [i for i, g in enumerate(grads) if g is not None and differentiable(op.outputs[i])]
    results, grad_ctxs = {}, []
    for role in ("then_branch", "else_branch"):
        forward = contexts[role]
        body = op._attrs[role]
        inside = {p: _tensor(graph, name) for name, p in body.feeds}  # input position -> tensor read inside
        grad_ctx = FunctionContext(f"the gradient of {forward.what}", current_context(), forward=forward)
        with building(grad_ctx):
            outs = [i for i in flowing if body.outputs[i]]  # (an exported tensor has a value in one branch)
            ys = [_tensor(graph, body.outputs[i]) for i in outs]
            xs = [inside[p] for p in wanted if p in inside]
            dxs = gradients(ys, xs, grad_ys=[grads[i] for i in outs], stop_gradients=xs) if ys and xs else []
            by_input = dict(zip([p for p in wanted if p in inside], dxs))
            results[role] = [_dense(by_input[p]) if by_input.get(p) is not None
                             else _zero_gradient(op.inputs[p]) for p in wanted]
        grad_ctxs.append(grad_ctx)
    grad_op = build_if(op.inputs[0], grad_ctxs[0], results["then_branch"], grad_ctxs[1], results["else_branch"],
                       name="If")
    out = [None] * len(op.inputs)
    for k, p in enumerate(wanted):
        out[p] = grad_op.outputs[k]
    return out


# ---------------------------------------------------------------------------
# While


def _count_and_check(step, name: str, count: int) -> None:
    if step is None:
        return
    if step.error is not None:
        raise errors.CancelledError(None, None, f"Loop '{name}' was cancelled after {count} iterations "
                                    f"({type(step.error).__name__})")
    deadline = step.deadline
    if deadline is not None and time.monotonic() > deadline:
        raise errors.DeadlineExceededError(None, None, f"Loop '{name}' passed its deadline after {count} iterations")


@register_op("While", shape=_output_shapes, dtype=_output_dtypes, stateful=True, blocking=True, list_output=True,
             may_alias=True)
def _while_kernel(ctx, *inputs, cond, body, num_loop_vars, num_stacked=0, Tout=(),  # noqa: N803 - TF's attr
                  output_shapes=(), parallel_iterations=10, back_prop=True):
    n = num_loop_vars
    values = list(inputs)
    first_stacked = len(values) - num_stacked
    stacks = values[first_stacked:]
    kept = [[] for _ in range(len(body.outputs) - n)]
    step, count = ctx.step, 0
    while True:
        _count_and_check(step, ctx.op_name, count)
        keep_going = _on_host(ctx, cond(values, step)[0])
        if keep_going.shape != ():
            raise errors.InvalidArgumentError(None, None, f"The condition of loop '{ctx.op_name}' must give a "
                                              f"scalar, got shape {list(keep_going.shape)}")
        if not keep_going:
            break
        for k, stack in enumerate(stacks):  # a gradient loop reads its forward loop's values, last first
            values[first_stacked + k] = stack[len(stack) - 1 - count]
        out = body(values, step)
        values[:n] = out[:n]
        for kept_values, value in zip(kept, out[n:]):
            kept_values.append(value)
        count += 1
    return (*values[:n], np.int32(count), *kept)


def build_while(cond_ctx: FunctionContext, cond_output: ops.Tensor, body_ctx: FunctionContext, body_outputs: list,
                cond_args: list, body_args: list, inits: list, shapes: list, name: str, back_prop: bool = True,
                parallel_iterations: int = 10, keep=()) -> ops.Operation:
    """The While op: ``body_ctx``'s function runs while ``cond_ctx``'s gives true.

    Outputs: the loop variables' last values, then the number of iterations (int32),
    then the lists of per-iteration values of ``keep`` (tensors of the body), then those
    the gradient asks for.
    """
    n = len(inits)
    inputs, stacked, controls = _Inputs(inits), _Inputs(), []
    cond_body = _function(cond_ctx, [cond_output], inputs, stacked,
                          feeds=[(a.name, i) for i, a in enumerate(cond_args)], controls=controls)
    loop_body = _function(body_ctx, list(body_outputs) + list(keep), inputs, stacked,
                          feeds=[(a.name, i) for i, a in enumerate(body_args)], controls=controls)
    # the per-iteration inputs come after the captures
    first = len(inputs.tensors)

    def final(fb: FuncBody) -> FuncBody:
        return FuncBody(fb.ops, [(k, p if p >= 0 else first + (-1 - p)) for k, p in fb.feeds], fb.outputs)

    attrs = {"cond": final(cond_body), "body": final(loop_body), "num_loop_vars": n,
             "num_stacked": len(stacked.tensors), "back_prop": bool(back_prop),
             "parallel_iterations": int(parallel_iterations),
             "Tout": [t.dtype.base_dtype for t in inits] + [dtypes.int32] + [dtypes.variant] * len(keep),
             "output_shapes": list(shapes) + [TensorShape([])] + [unknown_shape()] * len(keep)}
    op = ops.get_default_graph().create_op("While", inputs.tensors + stacked.tensors, attrs, name=name,
                                           control_inputs=controls)
    for ctx, role in ((cond_ctx, "cond"), (body_ctx, "body")):
        ctx.owner, ctx.role = op, role
    for k, t in enumerate(keep):
        body_ctx.exports[t] = op.outputs[n + 1 + k]
    _CONTEXTS[op] = {"cond": cond_ctx, "body": body_ctx}
    return op


@register_gradient("While")
def _while_grad(op, *grads):
    n = op._attr("num_loop_vars")
    if not op._attr("back_prop"):
        return [None] * len(op.inputs)
    contexts = _contexts(op)
    graph = op.graph
    forward = contexts["body"]
    body = op._attrs["body"]
    inside = {}
    for name, p in body.feeds:
        inside.setdefault(p, _tensor(graph, name))
    loop = [i for i in range(n) if differentiable(op.inputs[i])]
    n_captured = len(op.inputs) - op._attr("num_stacked")
    captured = [p for p in range(n, n_captured) if differentiable(op.inputs[p]) and p in inside]
    count = op.outputs[n]
    outer = current_context()
    inits = [array_ops.zeros([], dtypes.int32)]
    inits += [_dense(grads[i]) if grads[i] is not None else array_ops.zeros_like(op.outputs[i]) for i in loop]
    zeros = [_zero_gradient(op.inputs[p]) for p in captured]
    inits += zeros
    shapes = [TensorShape([])] + [op.outputs[i].shape for i in loop] + [z.shape for z in zeros]
    what = f"the gradient of {forward.what}"
    cond_ctx = FunctionContext(f"the condition of {what}", outer)
    with building(cond_ctx):
        cond_args = [argument(k, t.dtype, s, f"arg{k}") for k, (t, s) in enumerate(zip(inits, shapes))]
        keep_going = math_ops.less(cond_args[0], count)
    body_ctx = FunctionContext(what, outer, forward=forward)
    with building(body_ctx):
        args = [argument(k, t.dtype, s, f"arg{k}") for k, (t, s) in enumerate(zip(inits, shapes))]
        dys = args[1:1 + len(loop)]
        accumulated = args[1 + len(loop):]
        ys = [_tensor(graph, body.outputs[i]) for i in loop]
        xs = [inside[i] for i in loop] + [inside[p] for p in captured]
        dxs = gradients(ys, xs, grad_ys=dys, stop_gradients=xs) if ys else [None] * len(xs)
        nexts = [math_ops.add(args[0], 1)]
        for k, i in enumerate(loop):
            g = dxs[k]
            nexts.append(_dense(g) if g is not None else array_ops.zeros_like(dys[k]))
        after = {}  # captured position -> the op whose per-iteration results are summed after the loop
        for k, p in enumerate(captured):
            g = dxs[len(loop) + k]
            if g is not None and _summed_after_the_loop(g, body_ctx):
                after[k] = g.op
                nexts.append(accumulated[k])  # (stays zero)
            else:
                nexts.append(math_ops.add_n([accumulated[k], _dense(g)]) if g is not None else accumulated[k])
    keep = list(dict.fromkeys(t for g_op in after.values() for t in g_op.inputs))
    grad_op = build_while(cond_ctx, keep_going, body_ctx, nexts, cond_args, args, inits, shapes, name="While",
                          keep=keep)
    out = [None] * len(op.inputs)
    for k, i in enumerate(loop):
        out[i] = grad_op.outputs[1 + k]
    for k, p in enumerate(captured):
        if k in after:
            out[p] = _sum_over_iterations(after[k], {t: grad_op.outputs[len(nexts) + 1 + j] for j, t in
                                                     enumerate(keep)})
        else:
            out[p] = grad_op.outputs[1 + len(loop) + k]
    return out


# A gradient loop's sum over iterations of W's gradient x_t^T g_t (W a matrix the loop
# body multiplies by) is one product of the stacked x and g after the loop: for the LSTM
# of bench_rnn.py, 35 products of 400x32 by 32x800 and 35 additions of 400x800 took 11.4 ms
# a step, the one product of 400x1120 by 1120x800 5.5 ms. A bias's gradient likewise.
def _summed_after_the_loop(g: ops.Tensor, body_ctx: FunctionContext) -> bool:
    op = g.op
    if op._ctx is not body_ctx or any(t.shape.ndims != 2 or t.shape[-1].value is None for t in op.inputs):
        return False
    if op.type == "MatMul":
        return op._attr("transpose_a") and not op._attr("transpose_b")
    return op.type == "BiasAddGrad" and op._attrs.get("data_format", "NHWC") == "NHWC"


def _sum_over_iterations(g_op: ops.Operation, kept: dict) -> ops.Tensor:
    rows = [array_ops.reshape(make_tensor("_StackKept", [kept[t]], {"dtype": t.dtype.base_dtype,
                                                                    "element_shape": t.shape}),
                              [-1, t.shape[-1].value]) for t in g_op.inputs]
    if g_op.type == "MatMul":
        return math_ops.matmul(rows[0], rows[1], transpose_a=True)
    return reduction_ops.reduce_sum(rows[0], axis=0)


@register_op("_StackKept", shape=lambda op: TensorShape([None]).concatenate(op._attr("element_shape")),
             dtype=lambda op: op._attr("dtype"))
def _stack_kept_kernel(xp, values, *, dtype=None, element_shape=None):
    """A loop's per-iteration values of one tensor, stacked (none: an empty stack)."""
    if not values:
        dims = [0] + [d if d is not None else 0 for d in (element_shape.as_list() if element_shape.ndims else [])]
        return xp.zeros(dims, dtype=dtype.as_numpy_dtype)
    return xp.stack(values)


not_differentiable("_StackKept")
