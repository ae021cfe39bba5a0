"""The op registry: one entry per op type, holding its shape function, kernel and gradient.

An op is declared once, in one block (docs/design.md, "Op block"):

    @register_op("MatMul", shape=_matmul_shape)
    def _matmul_kernel(xp, a, b, *, transpose_a=False, transpose_b=False): ...

    @register_gradient("MatMul")
    def _matmul_grad(op, grad): ...

Registering a type twice raises and names where the first registration came from.
A kernel's first parameter says what it is handed: ``xp`` (the array namespace of
the device, NumPy on CPU) or ``ctx`` (a per-op :class:`KernelContext`-like object
from the runtime with ``xp``, the device, its resource manager and the op's name).
Its other positional parameters are the op's inputs (``*inputs`` for a list) and
its keyword-only parameters are the attrs it reads.

That kernel is the op's CPU kernel. A device type with memory of its own (a GPU) has
kernels registered for it by its backend, as TensorFlow's ``REGISTER_KERNEL_BUILDER``
does: ``register_kernel("MatMul", "GPU")(fn)``. An op with no kernel for a device type
cannot run there; :func:`has_kernel` is what the placer asks.
"""

from __future__ import annotations

import inspect
import traceback
from typing import Callable

_NO_GRADIENT = object()


def _caller_location(depth: int = 3) -> str:
    frame = traceback.extract_stack(limit=depth)[0]
    return f"{frame.filename}:{frame.lineno}"


class OpRegistration:
    """Everything the framework and runtime know about one op type."""

    __slots__ = ("type", "shape_fn", "dtype_fn", "stateful", "blocking", "list_output", "inplace_input",
                 "may_alias", "kernel", "context_arg",
                 "attr_names", "accepts_all_attrs", "defined_at", "ref_inputs")

    def __init__(self, op_type, shape_fn, dtype_fn, stateful, blocking, list_output, inplace_input,
                 ref_inputs, defined_at, may_alias=False):
        self.type = op_type
        self.shape_fn = shape_fn
        self.dtype_fn = dtype_fn
        self.stateful = stateful
        self.blocking = blocking
        self.list_output = list_output
        self.inplace_input = inplace_input
        self.may_alias = may_alias
        self.ref_inputs = frozenset(ref_inputs)
        self.kernel = None
        self.context_arg = None  # "xp", "ctx" or None
        self.attr_names: frozenset = frozenset()
        self.accepts_all_attrs = False
        self.defined_at = defined_at

    # the CPU kernel's memory: every input and output is in host memory
    host_inputs = host_outputs = frozenset()
    device_type = "CPU"

    def set_kernel(self, kernel: Callable) -> None:
        self.context_arg, self.attr_names, self.accepts_all_attrs = _kernel_signature(kernel)
        self.kernel = kernel

    def kernel_attrs(self, attrs: dict) -> dict:
        """The subset of a node's attrs that its kernel takes as keyword arguments."""
        return _kernel_attrs(self, attrs)


def _kernel_signature(kernel: Callable) -> tuple[str | None, frozenset, bool]:
    """What a kernel is handed first ("xp", "ctx" or None), the attrs it takes, and whether
    it takes every attr (``**attrs``)."""
    params = list(inspect.signature(kernel).parameters.values())
    context_arg = None
    if params and params[0].name in ("xp", "ctx") and params[0].kind in (
            inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
        context_arg = params[0].name
    attr_names = frozenset(p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY)
    return context_arg, attr_names, any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)


def _kernel_attrs(kernel, attrs: dict) -> dict:
    """The subset of a node's attrs that ``kernel`` (a registration) takes as keyword arguments."""
    if kernel.accepts_all_attrs:  # (private "_" attrs only where the kernel names them)
        return {k: v for k, v in attrs.items() if not k.startswith("_") or k in kernel.attr_names}
    return {k: v for k, v in attrs.items() if k in kernel.attr_names}


class DeviceKernel:
    """An op's kernel for a device type other than CPU, or a compiled library's CPU kernel.

    ``host_inputs``/``host_outputs`` are the indices of the inputs and outputs that stay in
    host memory (TensorFlow's ``HostMemory``): a shape, an axis, a size; the runtime copies
    the others to and from the device's memory. ``capturable`` says that the kernel only
    launches device work on the current stream (no wait for the device, no copy from the
    host), so a step of such kernels can be captured once and replayed.
    """

    __slots__ = ("type", "device_type", "kernel", "context_arg", "attr_names", "accepts_all_attrs",
                 "host_inputs", "host_outputs", "capturable", "defined_at", "when")

    def __init__(self, op_type: str, device_type: str, kernel: Callable, host_inputs, host_outputs,
                 defined_at: str, capturable: bool = False, when: Callable[[], bool] | None = None):
        self.type, self.device_type, self.kernel, self.when = op_type, device_type, kernel, when
        self.context_arg, self.attr_names, self.accepts_all_attrs = _kernel_signature(kernel)
        self.host_inputs, self.host_outputs = frozenset(host_inputs), frozenset(host_outputs)
        self.capturable = capturable
        self.defined_at = defined_at

    def kernel_attrs(self, attrs: dict) -> dict:
        return _kernel_attrs(self, attrs)


_OPS: dict[str, OpRegistration] = {}
_GRADIENTS: dict[str, object] = {}
_GRADIENT_SOURCES: dict[str, str] = {}


def register_op(op_type: str, *, shape: Callable, dtype: Callable | None = None,
                stateful: bool = False, blocking: bool = False, list_output: bool = False,
                inplace_input: int | None = None, ref_inputs=(), may_alias: bool = False):
    """Registers ``op_type`` now; the returned decorator attaches its kernel.

    Args:
      shape: ``shape(op) -> TensorShape | list[TensorShape]``, one per output; it sees
        the op's inputs and attrs and raises ValueError for incompatible inputs.
      dtype: ``dtype(op) -> DType | list[DType]``; by default every output has the
        base dtype of input 0.
      stateful: the op has side effects or state (never pruned as a constant, runs
        once per step).
      blocking: the kernel may wait for another partition or step (a queue, a
        barrier): steps holding it always run their partitions concurrently.
      list_output: the kernel returns a tuple of outputs even when there is one
        (ops with a list of outputs, such as Split); with several outputs it must.
      inplace_input: the kernel takes a keyword ``inplace``; when the runtime passes
        True, the array of this input is the kernel's alone (no later op reads it,
        nothing else refers to it) and the kernel may write its result into it,
        as TensorFlow forwards input buffers. It must still check shape and dtype.
      ref_inputs: indices of inputs that take a variable reference, not its value.
      may_alias: the kernel may return an input, or an array it keeps (a view of
        either): the runtime then never lets a later kernel write into the output in
        place, and copies it when it is fetched.

    Raises:
      KeyError: ``op_type`` is already registered (the message names where).
    """
    if op_type in _OPS:
        raise KeyError(f"Op type '{op_type}' is already registered at {_OPS[op_type].defined_at}")
    reg = OpRegistration(op_type, shape, dtype, stateful, blocking, list_output, inplace_input, ref_inputs,
                         _caller_location(), may_alias)
    _OPS[op_type] = reg

    def attach_kernel(kernel: Callable) -> Callable:
        if reg.kernel is not None:
            raise KeyError(f"Op type '{op_type}' already has a kernel")
        reg.set_kernel(kernel)
        if reg.blocking and reg.context_arg != "ctx":
            raise TypeError(f"Op type '{op_type}' is blocking: its kernel must take 'ctx' first (the step "
                            "it waits in comes through it)")
        if reg.inplace_input is not None and "inplace" not in reg.attr_names:
            raise TypeError(f"Op type '{op_type}' declares inplace_input but its kernel takes no "
                            "keyword-only 'inplace' argument")
        return kernel

    return attach_kernel


def get_registration(op_type: str) -> OpRegistration:
    try:
        return _OPS[op_type]
    except KeyError:
        raise KeyError(f"Op type '{op_type}' is not registered; registered op types include "
                       f"{sorted(_OPS)[:12]}...") from None


_DEVICE_KERNELS: dict[tuple[str, str], DeviceKernel] = {}


def register_kernel(op_type: str, device_type: str, *, host_inputs=(), host_outputs=(), capturable=False,
                    when: Callable[[], bool] | None = None):
    """Decorator: ``fn`` is ``op_type``'s kernel on devices of ``device_type``. It takes what
    a CPU kernel takes; ``xp`` is then that device's array namespace.

    On "CPU" the op block's own kernel is the reference; another CPU kernel comes from a
    compiled library that may be missing, and says so with ``when`` (asked when a step is
    compiled, not at import): where it answers False, the op block's kernel runs.

    Raises:
      KeyError: the op type is not registered, or already has a kernel for that device type.
      ValueError: a CPU kernel without ``when``.
    """
    reg = get_registration(op_type)
    if device_type == "CPU" and when is None:
        raise ValueError(f"The CPU kernel of '{op_type}' is the one its op block registers; "
                         "a library's CPU kernel says when it is there (when=...)")

    def attach(fn: Callable) -> Callable:
        key = (op_type, device_type)
        if key in _DEVICE_KERNELS:
            raise KeyError(f"Op type '{op_type}' already has a {device_type} kernel, registered at "
                           f"{_DEVICE_KERNELS[key].defined_at}")
        _DEVICE_KERNELS[key] = DeviceKernel(reg.type, device_type, fn, host_inputs, host_outputs,
                                            _caller_location(), capturable, when)
        return fn

    return attach


def kernel_for(op_type: str, device_type: str) -> "OpRegistration | DeviceKernel | None":
    """``op_type``'s kernel for ``device_type``: on CPU a library's kernel where one is there,
    else the registration itself; elsewhere the device kernel, or None where there is none."""
    if device_type == "CPU":
        library = _DEVICE_KERNELS.get((op_type, "CPU"))
        if library is not None and library.when():
            return library
        reg = get_registration(op_type)
        return reg if reg.kernel is not None else None
    return _DEVICE_KERNELS.get((op_type, device_type))


def has_kernel(op_type: str, device_type: str) -> bool:
    return kernel_for(op_type, device_type) is not None


def device_kernel_types(device_type: str) -> list[str]:
    """The op types with a kernel registered for ``device_type`` (not CPU)."""
    return sorted(t for t, d in _DEVICE_KERNELS if d == device_type)


def is_registered(op_type: str) -> bool:
    return op_type in _OPS


def registered_ops() -> list[str]:
    return sorted(_OPS)


def register_gradient(op_type: str):
    """Decorator: ``grad(op, *out_grads) -> tuple`` with one entry per input of ``op``."""

    def decorate(fn):
        _add_gradient(op_type, fn)
        return fn

    return decorate


RegisterGradient = register_gradient


def not_differentiable(op_type: str) -> None:
    """Declares that ``op_type`` has no gradient (its inputs get None)."""
    _add_gradient(op_type, _NO_GRADIENT)


NotDifferentiable = not_differentiable


def _add_gradient(op_type: str, fn) -> None:
    if op_type in _GRADIENTS:
        raise KeyError(f"Gradient for op type '{op_type}' is already registered at "
                       f"{_GRADIENT_SOURCES[op_type]}")
    _GRADIENTS[op_type] = fn
    _GRADIENT_SOURCES[op_type] = _caller_location(4)


def get_gradient_function(op_type: str):
    """The gradient function of ``op_type``, or None if it is not differentiable.

    Raises:
      LookupError: no gradient was registered for ``op_type``.
    """
    try:
        fn = _GRADIENTS[op_type]
    except KeyError:
        raise LookupError(f"No gradient defined for operation type '{op_type}'") from None
    return None if fn is _NO_GRADIENT else fn
