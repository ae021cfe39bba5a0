"""Layer objects (``tf.layers.Dense``, ``Conv2D``, ...): a layer made once and called on several
inputs creates its variables on the first call and shares them afterwards, as in TF 1.x.

``tf.layers.Layer`` is also the base of a program's own layers, as TF 1.x's: a subclass
defines ``build(input_shape)`` (its variables, by ``add_weight`` or ``tf.get_variable``) and
``call(inputs, ...)``. Its first call captures a variable scope of its own, named after the
class (``EmbeddingSharedWeights`` is ``embedding_shared_weights``, then
``embedding_shared_weights_1``), builds and calls the layer there; later calls re-enter that
scope reusing its variables, and the ops of every call go to the name scope of the first.
Its ``variables`` are every variable its first call made (``tf.get_variable``'s in
``build``, its inner layers'), where TF's list only those of ``add_weight``.
"""

from __future__ import annotations

import re

from ..framework import nest, ops
from ..ops.variable_scope import VariableScope, get_variable, get_variable_scope, variable_scope, variable_store
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
    # (distflow's own layers call ``call(inputs, reuse=, scope=)`` in scopes they open themselves;
    # a program's subclass is built and called in the scope its first call captures)
    _opens_own_scope = False

    def __init__(self, trainable=True, name=None, dtype=None, **kwargs):
        self.trainable = trainable
        self._reuse = kwargs.pop("_reuse", None)
        given_scope = kwargs.pop("_scope", None)
        self._given_name = name
        self.name = name if name is not None or self._opens_own_scope else _snake_case(type(self).__name__)
        self.dtype = dtype
        self._kwargs = kwargs
        self._scope = None
        self._captured = given_scope if isinstance(given_scope, VariableScope) else None  # (a subclass's scope)
        self._losses: list = []
        self._updates: list = []
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
        if not self._opens_own_scope:  # (a program's own layer: build and call)
            return self._call_subclass(inputs, *args, **kwargs)
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
        if type(self)._fn is None:
            raise NotImplementedError(f"{type(self).__name__} subclasses tf.layers.Layer: it must define call()")
        return type(self)._fn(inputs, name=self.name if scope is None else scope, reuse=reuse,
                              trainable=self.trainable, **self._kwargs, **kwargs)

    # -- a program's own layers ----------------------------------------------------------------
    def build(self, input_shape) -> None:
        """Creates the layer's variables (a subclass's own); called once, before the first call."""
        self.built = True

    def _capture_scope(self, scope=None) -> VariableScope:
        if self._captured is None:
            if self._reuse:
                with variable_scope(scope if scope is not None else self.name) as captured:
                    self._captured = captured
            else:
                with variable_scope(scope, default_name=self.name) as captured:
                    self._captured = captured
        return self._captured

    def _call_subclass(self, inputs, *args, **kwargs):
        scope = self._capture_scope(kwargs.pop("scope", None))
        reuse = True if self.built else self._reuse
        graph = ops.get_default_graph()
        before = None if self.built else {id(v) for v in ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES)}
        with variable_scope(scope, reuse=reuse, auxiliary_name_scope=False), \
                graph.name_scope(scope.original_name_scope or None):
            if not self.built:
                self.build(nest.map_structure(lambda t: ops.convert_to_tensor(t).shape, inputs))
                self.built = True
            outputs = self.call(inputs, *args, **kwargs)
        if before is not None:
            self._variables = [v for v in ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES) if id(v) not in before]
        return outputs

    def add_weight(self, name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=None,
                   constraint=None, partitioner=None, use_resource=None, synchronization=None, aggregation=None,
                   getter=None, **kwargs):
        """A variable of this layer, made by ``tf.get_variable`` in the layer's scope (found
        again where the scope reuses its variables)."""
        scope = self._capture_scope()
        trainable = self.trainable if trainable is None else trainable and self.trainable
        reuse = True if self.built else (self._reuse or scope.reuse)
        made = getter or get_variable
        regularized = len(ops.get_collection(ops.GraphKeys.REGULARIZATION_LOSSES))
        with variable_scope(scope, reuse=reuse, auxiliary_name_scope=False):
            variable = made(name, shape=shape, dtype=dtype or self.dtype, initializer=initializer,
                            regularizer=regularizer, trainable=trainable, constraint=constraint,
                            partitioner=partitioner)
        self._losses.extend(ops.get_collection(ops.GraphKeys.REGULARIZATION_LOSSES)[regularized:])
        owned = getattr(self, "_variables", None)
        if owned is not None and all(variable is not v for v in owned):
            owned.append(variable)
        return variable

    add_variable = add_weight

    def add_loss(self, losses, inputs=None) -> None:
        """Losses of this layer (a regularizer's), also in ``REGULARIZATION_LOSSES`` as TF's layers put them."""
        for loss in nest.flatten(losses):
            self._losses.append(loss)
            ops.add_to_collection(ops.GraphKeys.REGULARIZATION_LOSSES, loss)

    def add_update(self, updates, inputs=None) -> None:
        """Update ops of this layer (a moving average's), also in ``UPDATE_OPS``."""
        for update in nest.flatten(updates):
            self._updates.append(update)
            ops.add_to_collection(ops.GraphKeys.UPDATE_OPS, update)

    @property
    def losses(self) -> list:
        return list(self._losses)

    @property
    def updates(self) -> list:
        return list(self._updates)

    @property
    def scope_name(self) -> str:
        if self._captured is None:
            raise ValueError("No name available for layer scope because the layer \"" + str(self.name)
                             + "\" has not been used yet. The scope name is determined the first time the "
                               "layer instance is called. You must therefore call the layer before querying "
                               "`scope_name`.")
        return self._captured.name

    def count_params(self) -> int:
        total = 0
        for v in self.variables:
            count = 1
            for d in v.shape.as_list():
                count *= d
            total += count
        return total

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



def _snake_case(name: str) -> str:
    """A class's name as TF names its layers' scopes: ``SelfAttention`` is ``self_attention``."""
    snake = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    snake = re.sub(r"([a-z])([A-Z])", r"\1_\2", snake).lower()
    return "private" + snake if snake.startswith("_") else snake


def _layer_class(class_name, fn, default_name, positional):
    """A Layer subclass whose constructor takes ``positional`` arguments and keywords of ``fn``."""

    def __init__(self, *args, trainable=True, name=None, dtype=None, **kwargs):
        if len(args) > len(positional):
            raise TypeError(f"{class_name} takes at most {len(positional)} positional arguments")
        kwargs.update(zip(positional, args))
        Layer.__init__(self, trainable=trainable, name=name, dtype=dtype, **kwargs)

    # (a layer's variables by their names; as properties of TF's own layers only, so that a
    # subclass of tf.layers.Layer may set attributes of those names)
    kernel = property(lambda self: self._variable("kernel"))
    bias = property(lambda self: self._variable("bias"))
    return type(class_name, (Layer,), {"__init__": __init__, "_fn": staticmethod(fn), "_default_name": default_name,
                                       "kernel": kernel, "bias": bias, "_opens_own_scope": True,
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
