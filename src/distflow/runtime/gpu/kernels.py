"""The GPU kernels: which ops run on a CUDA device, and how.

Most of distflow's kernels are written over an array namespace ``xp`` (docs/design.md, "Op
block"): NumPy on a CPU, CuPy here, with the same code. CuPy runs them as CUDA kernels
(elementwise kernels, reductions it generates and caches) and cuBLAS (matmul, and the
convolutions, which the shared kernels compute as patches times filters). An op is
listed below only where its shared kernel has been checked against the NumPy kernel on a
GPU (tests/test_gpu.py, marked ``gpu``); an op that is not listed has no GPU kernel and
runs on its task's CPU under soft placement, as in TensorFlow.

Each entry also says which inputs and outputs stay in host memory (TensorFlow's
``HostMemory``): shapes, axes and sizes, which a kernel reads on the host to decide what
to launch, and the outputs computed from shapes alone. A negative index counts from the
end (ConcatV2's axis follows its values).

Random ops draw their numbers on the host, from the same generator as the CPU kernel, so
one seed gives the same numbers on either device; the result is copied to the device that
reads it.
"""

from __future__ import annotations

import functools

from ...framework.registry import get_registration, register_kernel
from ...ops import (array_ops, collective_ops, control_flow_ops, conv_ops, intra_op, math_ops,  # noqa: F401
                    nn_ops, random_ops, reduction_ops, scatter_ops, slicing_ops, state_ops, training_ops,
                    unary_ops)  # (the op blocks)
from . import fused, products  # noqa: F401 - products registers MatMul and the convolutions

DEVICE_TYPE = "GPU"

_ELEMENTWISE = (
    # unary
    "Abs", "Neg", "Sign", "Square", "Sqrt", "Rsqrt", "Reciprocal", "Exp", "Log", "Log1p",
    "Sin", "Cos", "Tanh", "Sigmoid", "Relu", "Relu6", "Elu", "Softplus", "LeakyRelu", "Floor",
    "Ceil", "Round", "Rint", "IsNan", "IsInf", "IsFinite", "LogicalNot", "Cast",
    "ZerosLike", "OnesLike", "Identity", "IdentityN", "StopGradient", "CheckNumerics", "EnsureShape",
    "PlaceholderWithDefault",
    # their gradients
    "ReluGrad", "Relu6Grad", "EluGrad", "SoftplusGrad", "LeakyReluGrad", "TanhGrad", "SigmoidGrad",
    # binary
    "AddV2", "Sub", "Mul", "RealDiv", "DivNoNan", "FloorDiv", "FloorMod", "Pow", "Maximum", "Minimum",
    "SquaredDifference", "Atan2", "Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual",
    "LogicalAnd", "LogicalOr", "Select", "AddN",
)

_LINEAR_ALGEBRA_AND_NN = (
    "BatchMatMulV2", "BiasAdd", "Softmax", "LogSoftmax",
    "SoftmaxCrossEntropyWithLogits", "L2Loss", "AvgPool",
    "DepthwiseConv2dNative", "Pack", "Unpack", "Squeeze", "DepthToSpace", "SpaceToDepth",
)

_OPTIMIZERS = (
    "ApplyMomentum", "ApplyAdagrad", "ApplyRMSProp", "ApplyCenteredRMSProp", "ScatterUpdate", "ScatterAdd",
    "ScatterSub",
)

_STATE = ("VariableV2", "AssignAdd", "AssignSub", "NoOp", "Const", "Placeholder")

# The shared kernels that launch device work only (no host copy, no wait for a result):
# a step made of these (and of the kernels below marked so) can be replayed as a CUDA graph.
_CAPTURABLE = frozenset(_ELEMENTWISE + _STATE) - {"CheckNumerics", "Placeholder"} | {
    "BiasAdd", "Softmax", "LogSoftmax", "SoftmaxCrossEntropyWithLogits", "L2Loss",
    "AvgPool", "Pack", "Unpack", "Squeeze", "ApplyMomentum", "ApplyAdagrad", "ApplyRMSProp",
    "ApplyCenteredRMSProp", "Reshape", "Fill", "Tile", "ExpandDims", "BroadcastTo", "Transpose", "ConcatV2", "Slice",
    "StridedSlice", "Pad", "ArgMax", "ArgMin", "Split", "SplitV", "Sum", "Mean", "Max", "Min", "Prod",
    "All", "Any", "Shape", "Size", "Rank", "ReducedShape", "InvertPermutation", "TileGrad", "StridedSliceGrad",
    "AvgPoolGrad", "DepthToSpace", "SpaceToDepth"}

# op type: (host inputs, host outputs)
_HOST_MEMORY = {
    "Reshape": ((1,), ()), "Fill": ((0,), ()), "Tile": ((1,), ()), "ExpandDims": ((1,), ()),
    "BroadcastTo": ((1,), ()), "Transpose": ((1,), ()), "ConcatV2": ((-1,), ()), "Slice": ((1, 2), ()),
    "StridedSlice": ((1, 2, 3), ()), "Pad": ((1,), ()), "ArgMax": ((1,), ()),
    "ArgMin": ((1,), ()), "Split": ((0,), ()), "SplitV": ((1, 2), ()), "OneHot": ((1,), ()),
    "GatherV2": ((2,), ()), "Cumsum": ((1,), ()), "ReverseV2": ((1,), ()),
    "Sum": ((1,), ()), "Mean": ((1,), ()), "Max": ((1,), ()), "Min": ((1,), ()), "Prod": ((1,), ()),
    "All": ((1,), ()), "Any": ((1,), ()),
    "Shape": ((), (0,)), "Size": ((), (0,)), "Rank": ((), (0,)), "IsVariableInitialized": ((), (0,)),
    "Range": ((0, 1, 2), ()),
    # gradients
    "ReducedShape": ((0, 1), (0,)), "InvertPermutation": ((0,), (0,)), "TileGrad": ((1, 2), ()),
    "ProdGrad": ((2,), ()), "AvgPoolGrad": ((0,), ()),
    "DepthwiseConv2dNativeBackpropInput": ((0,), ()), "DepthwiseConv2dNativeBackpropFilter": ((1,), ()),
    "StridedSliceGrad": ((0, 1, 2, 3), ()),
    # control flow: a loop's functions run on its device, and the lists (TensorArrays) it
    # threads hold that device's arrays; their sizes and indices stay on the host
    "While": ((), ()), "If": ((), ()), "_Arg": ((), ()), "_StackKept": ((), ()),
    "EmptyTensorList": ((0,), ()), "TensorListSetItem": ((1,), ()), "TensorListGetItem": ((1,), ()),
    "TensorListStack": ((), ()), "TensorListFromTensor": ((), ()), "TensorListGather": ((1,), ()),
    "TensorListScatter": ((1,), ()), "TensorListLength": ((), (0,)), "TensorListConcat": ((), ()),
    "TensorListSplit": ((1,), ()), "_TensorListPut": ((1,), ()), "_TensorListTake": ((1,), ()),
    "_TensorListClear": ((1,), ()), "_TensorListTakeAll": ((1,), ()), "_TensorListStackGrads": ((), ()),
    "_TensorListPutAll": ((1,), ()),
    "RandomUniform": ((0,), (0,)), "RandomStandardNormal": ((0,), (0,)), "TruncatedNormal": ((0,), (0,)),
    "RandomUniformInt": ((0, 1, 2), (0,)),
    # all-reduce: each member is its GPU (a group of a process's GPUs has one member a
    # device, as a MirroredStrategy's replicas need), and reduces its tensor in host memory,
    # as on a CPU (tf.contrib.nccl's NcclAllReduce too: NCCL's all-reduce between the GPUs'
    # memories is not used yet)
    "CollectiveReduce": ((0,), (0,)), "_CollectiveReduceStart": ((0,), (0,)),
    "_CollectiveReduceDone": ((0,), (0,)), "NcclAllReduce": ((0,), (0,)),
}


@register_kernel("Assign", DEVICE_TYPE, capturable=True)
def _assign(xp, ref, value, *, validate_shape, use_locking):
    """Into the variable's own memory where it has some of that shape and dtype (as TF's
    Assign reuses its buffer): a replayed step keeps writing where its graph was recorded."""
    current = ref.value
    if current is not None and current.shape == value.shape and current.dtype == value.dtype \
            and getattr(current, "device", None) == getattr(value, "device", None):
        with state_ops.locked(ref, use_locking):
            xp.copyto(current, value)
        return ref
    return get_registration("Assign").kernel(xp, ref, value, validate_shape=validate_shape, use_locking=use_locking)


@register_kernel("ApplyGradientDescent", DEVICE_TYPE, capturable=True)
def _apply_gradient_descent(xp, var, alpha, delta, *, use_locking=False):
    with state_ops.locked(var, use_locking):
        fused.sgd(xp, training_ops.checked_value(var, delta, "ApplyGradientDescent"), alpha, delta)
    return var


@register_kernel("ApplyAdam", DEVICE_TYPE, capturable=True)
def _apply_adam(xp, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, *,
                use_locking=False, use_nesterov=False):
    if use_nesterov:  # (rare: the shared kernel, pass by pass)
        return get_registration("ApplyAdam").kernel(xp, var, m, v, beta1_power, beta2_power, lr, beta1, beta2,
                                                    epsilon, grad, use_locking=use_locking, use_nesterov=True)
    with state_ops.locked(var, use_locking):
        fused.adam(xp, training_ops.checked_value(var, grad, "ApplyAdam"), m.read(), v.read(), beta1_power,
                   beta2_power, lr, beta1, beta2, epsilon, grad)
    return var


@register_kernel("SparseSoftmaxCrossEntropyWithLogits", DEVICE_TYPE, capturable=True)
def _sparse_softmax_xent(xp, logits, labels):
    return fused.sparse_softmax_xent(xp, logits, labels)


@register_kernel("MaxPool", DEVICE_TYPE, capturable=True)
def _max_pool(xp, x, *, ksize, strides, padding):
    y = fused.max_pool(xp, x, ksize, strides, padding)
    return y if y is not None else _whole(get_registration("MaxPool").kernel)(
        xp, x, ksize=ksize, strides=strides, padding=padding)


@register_kernel("MaxPoolGrad", DEVICE_TYPE, capturable=True)
def _max_pool_grad(xp, x, y, grad, *, ksize, strides, padding):
    dx = fused.max_pool_grad(xp, x, y, grad, ksize, strides, padding)
    return dx if dx is not None else _whole(get_registration("MaxPoolGrad").kernel)(
        xp, x, y, grad, ksize=ksize, strides=strides, padding=padding)


def _whole(kernel):
    """A shared kernel run on a device: its work is not cut into pieces for CPU threads."""
    @functools.wraps(kernel)
    def run(*args, **kwargs):
        with intra_op.whole():
            return kernel(*args, **kwargs)
    return run


def _register() -> None:
    same = {t: ((), ()) for t in _ELEMENTWISE + _LINEAR_ALGEBRA_AND_NN + _OPTIMIZERS + _STATE}
    same.update(_HOST_MEMORY)
    for op_type, (host_inputs, host_outputs) in same.items():
        register_kernel(op_type, DEVICE_TYPE, host_inputs=host_inputs, host_outputs=host_outputs,
                        capturable=op_type in _CAPTURABLE)(_whole(get_registration(op_type).kernel))


_register()
