"""Layer objects (``tf.layers.Dense``, ``Conv2D``, ...): a layer made once and called on several
inputs creates its variables on the first call and shares them afterwards, as in TF 1.x."""

from __future__ import annotations

from ..framework import ops
from ..ops.variable_scope import VariableScope, get_variable_scope, variable_scope, variable_store
from . import convolutional, core, normalization


class InputSpec:
    """What a layer expects of its input (kept for programs that declare it)."""

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None, axes=None):
        self.dtype, self.shape, self.ndim = dtype, shape, ndim
        self.max_ndim, self.min_ndim, self.axes = max_ndim, min_ndim, axes or {}


class Layer:
    """Base class: ``layer(inputs)`` builds the layer's ops; its variables are created once.

    Subclasses set ``_fn`` (the functional layer) and pass their arguments in ``_kwargs``.
    """

    _default_name = "layer"
    _fn = None

    def __init__(self, trainable=True, name=None, dtype=None, **kwargs):
        self.trainable = trainable
        self._given_name = name
        self.name = name
        self.dtype = dtype
        self._kwargs = kwargs
        self._scope = None
        self.built = False
        self.input_spec = None

    def _unique_scope_name(self) -> str:
        # The first of name, name_1, ... that no variable scope under the current one has used,
        # for a given name too, as TF's layer objects (two Dense(name="memory_layer"): the second
        # is "memory_layer_1"); a scope that reuses variables takes the name as it is.
        base = self._given_name or self._default_name
        if self._given_name and get_variable_scope().reuse:
            return base
        scope = get_variable_scope().name
        prefix = f"{scope}/" if scope else ""
        used = variable_store().scope_counts
        candidate, count = base, 0
        while f"{prefix}{candidate}" in used:
            count += 1
            candidate = f"{base}_{count}"
        return candidate

    def __call__(self, inputs, *args, **kwargs):
        if self._scope is None:
            self.name = self._unique_scope_name()
            self._outer_scope = get_variable_scope()  # (later calls, from any scope, find the variables there)
            parent = ops.get_default_graph().get_name_scope()
            before = set(id(v) for v in ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES))
            out = self.call(inputs, reuse=None, *args, **kwargs)
            self._variables = [v for v in ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES) if id(v) not in before]
            self._scope = self.name
            self._reentry = self._scope_of(out, parent) if self._variables else None
            self.built = True
            return out
        if self._reentry is not None:  # (the first call's scopes again: ops named dense/BiasAdd_1, as TF's)
            return self.call(inputs, reuse=True, scope=self._reentry, *args, **kwargs)
        with variable_scope(self._outer_scope, auxiliary_name_scope=False):
            return self.call(inputs, reuse=True, *args, **kwargs)

    apply = __call__

    def _scope_of(self, out, parent):
        """The first call's variable scope, with the name scope its ops went to, so that later
        calls re-enter both; None where the ops cannot tell it."""
        first = out
        while isinstance(first, (list, tuple)) and first:
            first = first[0]
        name = getattr(getattr(first, "op", None), "name", None)
        prefix = parent + "/" if parent else ""
        if name is None or not name.startswith(prefix) or "/" not in name[len(prefix):]:
            return None
        opened = name[len(prefix):].split("/", 1)[0]
        if opened != self.name and not (opened.startswith(self.name + "_") and opened[len(self.name) + 1:].isdigit()):
            return None
        outer = self._outer_scope.name
        scope = VariableScope(True, f"{outer}/{self.name}" if outer else self.name,
                              original_name_scope=prefix + opened + "/")
        scope._reopens_name_scope = True  # (entered again, it opens that name scope, not a new one)
        return scope

    def call(self, inputs, reuse=None, scope=None, **kwargs):
        return type(self)._fn(inputs, name=self.name if scope is None else scope, reuse=reuse,
                              trainable=self.trainable, **self._kwargs, **kwargs)

    @property
    def variables(self) -> list:
        return list(getattr(self, "_variables", []))

    weights = variables

    @property
    def trainable_variables(self) -> list:
        trainable = set(id(v) for v in ops.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES))
        return [v for v in self.variables if id(v) in trainable]

    trainable_weights = trainable_variables

    @property
    def non_trainable_variables(self) -> list:
        trainable = set(id(v) for v in self.trainable_variables)
        return [v for v in self.variables if id(v) not in trainable]

    def _variable(self, suffix):
        for v in self.variables:
            if v.op.name.endswith("/" + suffix):
                return v
        return None

    @property
    def kernel(self):
        return self._variable("kernel")

    @property
    def bias(self):
        return self._variable("bias")


def _layer_class(class_name, fn, default_name, positional):
    """A Layer subclass whose constructor takes ``positional`` arguments and keywords of ``fn``."""

    def __init__(self, *args, trainable=True, name=None, dtype=None, **kwargs):
        if len(args) > len(positional):
            raise TypeError(f"{class_name} takes at most {len(positional)} positional arguments")
        kwargs.update(zip(positional, args))
        Layer.__init__(self, trainable=trainable, name=name, dtype=dtype, **kwargs)

    return type(class_name, (Layer,), {"__init__": __init__, "_fn": staticmethod(fn), "_default_name": default_name,
                                       "__doc__": f"``tf.layers.{class_name}``: the layer object of "
                                                  f"``tf.layers.{fn.__name__}``."})


def _stateless(fn):
    def call(inputs, name=None, reuse=None, trainable=True, **kwargs):
        return fn(inputs, name=name, **kwargs)

    call.__name__ = fn.__name__
    return call


def _dropout(inputs, name=None, reuse=None, trainable=True, training=False, **kwargs):
    return core.dropout(inputs, name=name, training=training, **kwargs)


def _batch_norm(inputs, name=None, reuse=None, trainable=True, training=False, **kwargs):
    return normalization.batch_normalization(inputs, name=name, reuse=reuse, trainable=trainable, training=training,
                                             **kwargs)


_batch_norm.__name__ = "batch_normalization"
_dropout.__name__ = "dropout"

Dense = _layer_class("Dense", core.dense, "dense", ["units"])
Conv1D = _layer_class("Conv1D", convolutional.conv1d, "conv1d", ["filters", "kernel_size"])
Conv2D = _layer_class("Conv2D", convolutional.conv2d, "conv2d", ["filters", "kernel_size"])
Conv2DTranspose = _layer_class("Conv2DTranspose", convolutional.conv2d_transpose, "conv2d_transpose",
                               ["filters", "kernel_size"])
BatchNormalization = _layer_class("BatchNormalization", _batch_norm, "batch_normalization", [])
Flatten = _layer_class("Flatten", _stateless(core.flatten), "flatten", [])
Dropout = _layer_class("Dropout", _dropout, "dropout", ["rate"])
MaxPooling1D = _layer_class("MaxPooling1D", _stateless(convolutional.max_pooling1d), "max_pooling1d",
                            ["pool_size", "strides"])
MaxPooling2D = _layer_class("MaxPooling2D", _stateless(convolutional.max_pooling2d), "max_pooling2d",
                            ["pool_size", "strides"])
AveragePooling1D = _layer_class("AveragePooling1D", _stateless(convolutional.average_pooling1d), "average_pooling1d",
                                ["pool_size", "strides"])
AveragePooling2D = _layer_class("AveragePooling2D", _stateless(convolutional.average_pooling2d),
                                "average_pooling2d", ["pool_size", "strides"])
Conv3D = _layer_class("Conv3D", convolutional.conv3d, "conv3d", ["filters", "kernel_size"])
Conv3DTranspose = _layer_class("Conv3DTranspose", convolutional.conv3d_transpose, "conv3d_transpose",
                               ["filters", "kernel_size"])
MaxPooling3D = _layer_class("MaxPooling3D", _stateless(convolutional.max_pooling3d), "max_pooling3d",
                            ["pool_size", "strides"])
AveragePooling3D = _layer_class("AveragePooling3D", _stateless(convolutional.average_pooling3d),
                                "average_pooling3d", ["pool_size", "strides"])
SeparableConv1D = _layer_class("SeparableConv1D", convolutional.separable_conv1d, "separable_conv1d",
                               ["filters", "kernel_size"])
SeparableConv2D = _layer_class("SeparableConv2D", convolutional.separable_conv2d, "separable_conv2d",
                               ["filters", "kernel_size"])
