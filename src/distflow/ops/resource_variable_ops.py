"""TensorFlow's resource variables as its GraphDefs hold them: ``VarHandleOp`` and the ops on
its handle (``ReadVariableOp``, ``AssignVariableOp``, ``ResourceGather``, ``ResourceApplyAdam``,
...), so that a meta graph or SavedModel that TensorFlow wrote with resource variables
(``use_resource=True``; every ``tf.keras`` model) imports, restores, trains and saves.

distflow's own ``tf.Variable`` is TF 1.x's reference variable (``VariableV2``). Both keep the
variable's value in the same per-device storage (state_ops.VariableStorage, found by the
variable's shared name in the device's resource manager); a ``VarHandleOp`` outputs that
storage itself as its ``resource`` tensor, and the ops on the handle read or update it.
``ReadVariableOp`` gives a copy, so later updates in the step never change a value read
before them (TensorFlow's semantics). Each ``ResourceApply*`` and ``ResourceSparseApply*``
op runs the kernel of its reference-variable twin (``ApplyAdam``, ...) on the storage; each
``ResourceScatter*`` that of ``Scatter*``.

They run on the CPU; ``tf.gradients`` differentiates ``ReadVariableOp`` and
``ResourceGather`` (the gradient of a read is the incoming one, of a gather an
IndexedSlices), which is what a loss needs for the variables it reads.
"""

from __future__ import annotations

import functools

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import get_registration, is_registered, not_differentiable, register_gradient, register_op
from ..framework.tensor_shape import TensorShape, as_shape, unknown_shape
from . import scatter_ops, training_ops  # noqa: F401 - their kernels are what the Resource* ops run
from .array_ops import expand_dims, reshape, size
from .indexed_slices import IndexedSlices
from .slicing_ops import concat
from .state_ops import VariableStorage, _update, locked


def _no_outputs(op):
    return []


def _variable_shape(op):
    """The shape of the variable ``op`` reads, where its VarHandleOp says it."""
    source = op.inputs[0].op
    if source.type == "VarHandleOp":
        return as_shape(source._attr("shape"))
    return unknown_shape()


@register_op("VarHandleOp", shape=lambda op: TensorShape([]), dtype=lambda op: dtypes.resource, stateful=True)
def _var_handle_kernel(ctx, *, dtype, shape, container="", shared_name="", debug_name="", allowed_devices=()):
    name = shared_name or ctx.op_name
    found = ctx.resource_mgr.lookup_or_create(container, name, lambda: VariableStorage(name, dtype, as_shape(shape)))
    if type(found) is not VariableStorage or found.dtype != dtype:
        raise errors.InvalidArgumentError(None, None, f"{ctx.op_name}: the resource '{name}' on {ctx.device.name} is "
                                          f"{found!r}, not a {dtype.name} variable")
    return found


not_differentiable("VarHandleOp")  # (the gradient of a variable stops at its handle)


def _checked_assignment(var: VariableStorage, value, what: str) -> np.ndarray:
    value = np.asarray(value)
    if dtypes.as_dtype(value.dtype).base_dtype != var.dtype:
        raise errors.InvalidArgumentError(None, None, f"{what}: variable '{var.name}' holds {var.dtype.name}, "
                                          f"and a {dtypes.as_dtype(value.dtype).name} value was assigned")
    return value


@register_op("ReadVariableOp", shape=_variable_shape, dtype=lambda op: op._attr("dtype"), stateful=True)
def _read_kernel(xp, resource, *, dtype=None):
    value = resource.read()
    if dtype is not None and dtype != resource.dtype:
        raise errors.InvalidArgumentError(None, None, f"ReadVariableOp: variable '{resource.name}' holds "
                                          f"{resource.dtype.name}, not {dtype.name}")
    return value.copy()


@register_gradient("ReadVariableOp")
def _read_grad(op, grad):
    return grad


@register_op("AssignVariableOp", shape=_no_outputs, stateful=True)
def _assign_kernel(xp, resource, value, *, dtype=None, validate_shape=False):
    value = _checked_assignment(resource, value, "AssignVariableOp")
    shape = resource.shape
    if validate_shape and shape.is_fully_defined() and tuple(shape.as_list()) != value.shape:
        raise errors.InvalidArgumentError(None, None, f"AssignVariableOp: variable '{resource.name}' has shape "
                                          f"{shape.as_list()}, and a value of shape {list(value.shape)} was assigned")
    new = np.array(value, copy=True)  # (never the input's array)
    with resource.lock:
        resource.value = new


@register_op("AssignAddVariableOp", shape=_no_outputs, stateful=True)
def _assign_add_kernel(xp, resource, value, *, dtype=None):
    with resource.lock:
        _update(resource, _checked_assignment(resource, value, "AssignAddVariableOp"), np.add)


@register_op("AssignSubVariableOp", shape=_no_outputs, stateful=True)
def _assign_sub_kernel(xp, resource, value, *, dtype=None):
    with resource.lock:
        _update(resource, _checked_assignment(resource, value, "AssignSubVariableOp"), np.subtract)


@register_op("VarIsInitializedOp", shape=lambda op: TensorShape([]), dtype=lambda op: dtypes.bool, stateful=True)
def _is_initialized_kernel(xp, resource):
    return np.array(resource.value is not None)


@register_op("VariableShape", shape=lambda op: TensorShape([None]),
             dtype=lambda op: op._attrs.get("out_type", dtypes.int32), stateful=True)
def _variable_shape_kernel(xp, input, *, out_type=dtypes.int32):  # noqa: A002 - TF's name
    return np.array(input.read().shape, out_type.as_numpy_dtype)


def _gather_shape(op):
    indices, params = op.inputs[1].shape, _variable_shape(op)
    if params.ndims is None:
        return unknown_shape()
    return indices.concatenate(params[1:])


@register_op("ResourceGather", shape=_gather_shape, dtype=lambda op: op._attr("dtype"), stateful=True)
def _gather_kernel(xp, resource, indices, *, dtype=None, batch_dims=0, validate_indices=True):
    if batch_dims:
        raise errors.UnimplementedError(None, None, f"ResourceGather of variable '{resource.name}': batch_dims "
                                        f"{batch_dims} (distflow gathers whole rows: batch_dims 0)")
    value = resource.read()
    rows = value.shape[0] if value.ndim else 0
    bad = (indices < 0) | (indices >= rows)
    if np.any(bad):
        raise errors.InvalidArgumentError(None, None, f"ResourceGather of variable '{resource.name}': indices"
                                          f"[...] = {int(indices[bad].reshape(-1)[0])} is not in [0, {rows})")
    return value[indices]


@register_gradient("ResourceGather")
def _gather_grad(op, grad):
    """An IndexedSlices of the incoming gradient's rows, in the variable's shape."""
    handle, indices = op.inputs
    params_shape = ops.get_default_graph().create_op("VariableShape", [handle], {"out_type": dtypes.int32},
                                                     name="VariableShape").outputs[0]
    count = expand_dims(size(indices), 0)
    values = reshape(grad, concat([count, params_shape[1:]], 0))
    return IndexedSlices(values, reshape(indices, count), params_shape), None


def _resource_twin(op_type: str, resource_type: str) -> None:
    """``resource_type``: the kernel of ``op_type`` (a reference-variable op) run on the storages
    that the handles are, with no outputs."""
    registration = get_registration(op_type)
    kernel = registration.kernel

    @functools.wraps(kernel)  # (its signature, so the same attrs reach it)
    def resource_kernel(*args, **kwargs):
        kernel(*args, **kwargs)

    # (its slots may be reference variables, distflow's optimizers' for a resource variable:
    # their storages pass as a handle's does)
    register_op(resource_type, shape=_no_outputs, stateful=True, ref_inputs=registration.ref_inputs)(resource_kernel)


for _op_type in ("ApplyGradientDescent", "ApplyMomentum", "ApplyAdam", "ApplyAdagrad", "ApplyAdagradV2",
                 "ApplyAdagradDA", "ApplyAdadelta", "ApplyRMSProp", "ApplyCenteredRMSProp", "ApplyFtrlV2",
                 "ApplyProximalAdagrad", "ApplyProximalGradientDescent", "SparseApplyMomentum", "SparseApplyAdagrad",
                 "SparseApplyAdagradDA", "SparseApplyAdadelta", "SparseApplyRMSProp", "SparseApplyCenteredRMSProp",
                 "SparseApplyFtrlV2", "SparseApplyProximalAdagrad", "SparseApplyProximalGradientDescent"):
    if is_registered(_op_type):
        _resource_twin(_op_type, "Resource" + _op_type)
for _kind in ("Update", "Add", "Sub", "Mul", "Div", "Min", "Max"):
    _resource_twin(f"Scatter{_kind}", f"ResourceScatter{_kind}")


def _keras_momentum(w, a, lr, grad, momentum, use_nesterov):
    """Keras's momentum, in place on arrays (or rows): accum = momentum * accum - lr * grad;
    var += accum (Nesterov's: var += momentum * accum - lr * grad)."""
    a *= momentum
    a -= lr * grad
    w += a * momentum - lr * grad if use_nesterov else a


@register_op("ResourceApplyKerasMomentum", shape=_no_outputs, stateful=True)
def _keras_momentum_kernel(xp, var, accum, lr, grad, momentum, *, use_locking=False, use_nesterov=False):
    with locked(var, use_locking):
        _keras_momentum(var.read(), accum.read(), lr, grad, momentum, use_nesterov)


@register_op("ResourceSparseApplyKerasMomentum", shape=_no_outputs, stateful=True)
def _sparse_keras_momentum_kernel(xp, var, accum, lr, grad, indices, momentum, *, use_locking=False,
                                  use_nesterov=False):
    with locked(var, use_locking):
        w, a = var.read(), accum.read()
        for k, row in enumerate(np.reshape(indices, -1)):  # (row by row, as TensorFlow's kernel: repeats apply again)
            if not 0 <= row < w.shape[0]:
                raise errors.InvalidArgumentError(None, None, f"ResourceSparseApplyKerasMomentum of variable "
                                                  f"'{var.name}': index {row} is not in [0, {w.shape[0]})")
            _keras_momentum(w[row:row + 1], a[row:row + 1], lr, grad[k:k + 1], momentum, use_nesterov)
