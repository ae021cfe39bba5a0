"""Persistent tensors: a value one ``Session.run`` leaves in the session for a later one
(``tf.get_session_handle``, ``tf.get_session_tensor``, ``tf.delete_session_tensor``).

``get_session_handle(t)`` makes an op that keeps ``t``'s value on its device and returns a
handle, a string ``"<op name>;<id>;<device>"``; ``Session.run`` gives it back as a
:class:`TensorHandle`. ``get_session_tensor(handle, dtype)`` makes a placeholder to feed a
handle and the tensor it stands for, placed on the handle's device; feeding a
``TensorHandle`` itself in place of any tensor feeds its value. The values live in the
session's store (runtime/device.py's ``SessionTensors``, one per session's devices, or per
task on a server) until the handle is deleted, its ``TensorHandle`` is garbage collected, or
the session closes.

Unlike TensorFlow, a handle keeps the value its tensor had: TF 1.x kept the tensor's buffer,
so a handle of a variable's read changed with later updates of the variable.
"""

from __future__ import annotations

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.device_spec import canonical_name
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import TensorShape, unknown_shape
from . import array_ops
from .op_util import make_op, make_tensor

# The op types whose outputs are handles: Session.run gives their values as TensorHandles.
HANDLE_OPS = frozenset({"GetSessionHandle"})
# The op types that take a handle: a TensorHandle fed to their placeholder is fed as its string.
_HANDLE_READERS = frozenset({"GetSessionTensor", "DeleteSessionTensor"})


def _store(ctx):
    return ctx.device.peers.session_tensors


def _handle_shape(op):
    # (made once per op, however it is made, built or imported: the graph notes that it holds
    # one, so that Session.run looks for handles among its fetches only in such a graph)
    op.graph._holds_session_handles = True
    return TensorShape([])


@register_op("GetSessionHandle", shape=_handle_shape, dtype=lambda op: dtypes.string, stateful=True)
def _get_session_handle_kernel(ctx, value):
    # (a copy: a later kernel may write into its input's buffer, a variable's read is its storage)
    kept = value.copy() if hasattr(value, "copy") else np.array(value)
    return np.array(_store(ctx).add(ctx.op_name, ctx.device, kept).encode(), dtype=object)


@register_op("GetSessionTensor", shape=lambda op: unknown_shape(), dtype=lambda op: op._attr("dtype"),
             stateful=True, may_alias=True)
def _get_session_tensor_kernel(ctx, handle, *, dtype):
    value = _store(ctx).get(handle_text(handle), ctx.op_name)
    wanted = dtypes.as_dtype(dtype).base_dtype
    got = dtypes.as_dtype(value.dtype).base_dtype
    if got != wanted:
        raise errors.InvalidArgumentError(None, None, f"GetSessionTensor '{ctx.op_name}': the tensor of handle "
                                          f"'{handle_text(handle)}' is {got.name}, and the op reads {wanted.name}")
    return ctx.device.accept(value)


@register_op("DeleteSessionTensor", shape=lambda op: [], dtype=lambda op: [], stateful=True, list_output=True)
def _delete_session_tensor_kernel(ctx, handle):
    _store(ctx).delete(handle_text(handle), ctx.op_name)
    return ()


for _op_type in ("GetSessionHandle", "GetSessionTensor", "DeleteSessionTensor"):
    not_differentiable(_op_type)


def handle_text(handle) -> str:
    value = np.asarray(handle, dtype=object)
    if value.shape != ():
        raise errors.InvalidArgumentError(None, None, f"A tensor handle is a scalar string, got shape "
                                          f"{list(value.shape)}")
    item = value.item()
    return item.decode() if isinstance(item, bytes) else str(item)


def handle_device(handle) -> str:
    """The device that holds the tensor of ``handle`` (a string or a TensorHandle)."""
    text = handle.handle if isinstance(handle, TensorHandle) else _as_text(handle)
    parts = text.split(";")
    if len(parts) < 3:
        raise ValueError(f"{text!r} is not a tensor handle: expected 'name;id;device', as "
                         "Session.run gives for tf.get_session_handle")
    return canonical_name(parts[-1])


def _as_text(handle) -> str:
    if isinstance(handle, bytes):
        return handle.decode()
    if isinstance(handle, str):
        return handle
    raise TypeError(f"A tensor handle is a string or a TensorHandle, got {type(handle).__name__}")


def get_session_handle(data, name=None) -> ops.Tensor:
    """A scalar string tensor: the handle of ``data``'s value, kept in the session when the op
    runs. ``Session.run`` gives it back as a :class:`TensorHandle`.

    Raises:
      TypeError: ``data`` is not a Tensor.
    """
    if not isinstance(data, ops.Tensor):
        raise TypeError("`data` must be of type Tensor.")
    with ops.colocate_with(data):
        return make_tensor("GetSessionHandle", [data], {"T": data.dtype.base_dtype}, name or "GetSessionHandle")


def get_session_tensor(handle, dtype, name=None) -> tuple:
    """``(placeholder, tensor)``: feed the placeholder a handle (its string, or the
    TensorHandle) and ``tensor`` is the value kept for it, of ``dtype``. Both are placed on
    the device of ``handle``; a handle of another device fed later is moved to it."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    graph = ops.get_default_graph()
    with graph.device(handle_device(handle)):
        holder = array_ops.placeholder(dtypes.string)
        tensor = make_tensor("GetSessionTensor", [holder], {"dtype": dtype}, name or "GetSessionTensor")
    return holder, tensor


def delete_session_tensor(handle, name=None) -> tuple:
    """``(placeholder, op)``: running ``op`` with the placeholder fed a handle deletes its
    tensor from the session."""
    graph = ops.get_default_graph()
    with graph.device(handle_device(handle)):
        holder = array_ops.placeholder(dtypes.string)
        deleter = make_op("DeleteSessionTensor", [holder], {}, name or "DeleteSessionTensor")
    return holder, deleter


def feeds_handles(tensor: ops.Tensor) -> bool:
    """Whether ``tensor`` is a placeholder of handles (what get_session_tensor and
    delete_session_tensor feed): a TensorHandle fed to it is fed as its string."""
    return tensor.dtype.base_dtype == dtypes.string and any(c.type in _HANDLE_READERS for c in tensor.consumers())


class TensorHandle:
    """The handle of a tensor kept in a session, as ``Session.run`` gives a fetched
    ``tf.get_session_handle``: ``handle`` is its string, ``eval()`` its value, ``delete()``
    lets it go. The value is deleted from the session, too, when this object is garbage
    collected, unless ``get_raw_handle()`` took the string out for the caller to delete."""

    def __init__(self, handle, dtype, session):
        self._handle = handle.decode() if isinstance(handle, bytes) else str(handle)
        self._dtype = dtypes.as_dtype(dtype).base_dtype
        self._session = session
        self._auto_gc_enabled = True

    def __del__(self):
        if getattr(self, "_auto_gc_enabled", False):
            try:
                self._session._register_dead_handle(self._handle)
            except Exception:  # noqa: BLE001 - never raise from a finalizer
                pass

    def __str__(self):
        return self._handle

    def __repr__(self):
        return f"<TensorHandle {self._handle!r} ({self._dtype.name})>"

    @property
    def handle(self) -> str:
        """The string form of the handle (what get_session_tensor's placeholder is fed)."""
        return self._handle

    @property
    def dtype(self):
        return self._dtype

    def eval(self):
        """The value of the tensor this handle stands for."""
        if not self._auto_gc_enabled:
            raise TypeError(f"Persistent tensor {self._handle} may have already been deleted.")
        return self._session._session_tensor_value(self._handle, self._dtype)

    def _fed_to(self, tensor: ops.Tensor):
        """What feeding this handle to ``tensor`` feeds: the handle (moved to the device of
        its reader where that is another task's) for a placeholder of handles, else the value."""
        if not feeds_handles(tensor):
            return self.eval()
        readers = [c.device for c in tensor.consumers() if c.type in _HANDLE_READERS]
        return self._session._handle_for(self._handle, self._dtype, readers[0] if readers else "")

    def delete(self) -> None:
        """Deletes the tensor from the session now."""
        if not self._auto_gc_enabled:
            raise TypeError(f"Persistent tensor {self._handle} may have already been deleted.")
        self._auto_gc_enabled = False
        self._session._delete_session_tensor(self._handle)

    def get_raw_handle(self) -> str:
        """The string of the handle; the tensor is then the caller's to delete
        (``delete_session_tensor``): this object no longer deletes it when collected."""
        self._auto_gc_enabled = False
        return self._handle
