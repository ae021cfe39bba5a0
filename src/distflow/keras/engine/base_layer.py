"""Keras's Layer in graph mode: a layer builds its weights on its first call, under its own
name scope (``dense/kernel``, ``dense_1/kernel``, ...), and every call records a *node*: the
tensors that went in and came out. Those nodes are how a functional Model finds its layers
and runs them again on new inputs."""

from __future__ import annotations

import inspect
import re

from ... import Variable, placeholder
from ...data.function import CapturingGraph
from ...framework import dtypes, ops
from ...framework.tensor_shape import TensorShape
from .. import backend as K
from .. import constraints, initializers, regularizers
from ..object_registry import custom_object


def snake_case(name: str) -> str:
    """Dense -> dense, Conv2D -> conv2d, BatchNormalization -> batch_normalization (Keras's rule;
    a private class's leading underscore, which no scope name may start with, becomes
    ``private_``: _Gate -> private__gate)."""
    s = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    s = re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()
    return "private" + s if s.startswith("_") else s


class InputSpec:
    """What a layer expects of its inputs: dtype, shape, rank, and fixed sizes on some axes."""

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None, axes=None):
        self.dtype = dtype
        self.shape = shape
        self.ndim = len(shape) if shape is not None else ndim
        self.max_ndim, self.min_ndim, self.axes = max_ndim, min_ndim, axes or {}


class Node:
    """One call of a layer: its input tensors and its output tensors."""

    __slots__ = ("layer", "inputs", "outputs", "arguments", "list_input", "made")

    def __init__(self, layer, inputs: list, outputs: list, arguments: dict, list_input: bool = False):
        self.layer, self.inputs, self.outputs, self.arguments = layer, inputs, outputs, arguments
        self.list_input = list_input  # (the layer was called on a list)
        self.made: tuple = ()  # ("update" or "loss", tensor) that this call made, its inner layers' too


def history(tensor):
    """``(layer, node index, tensor index)`` of a tensor a Keras layer made, or None."""
    graph = getattr(tensor, "graph", None)
    return K._history_table(graph).get(tensor) if graph is not None else None


def _for_inputs(items: list, inputs) -> list:
    """Of a layer's updates or losses: with ``inputs`` None, the unconditional ones; else the
    conditional ones that ``inputs`` reach through the graph's data flow."""
    unconditional = K._unconditional_table(items[0].graph) if items else set()
    if inputs is None:
        return [x for x in items if id(x) in unconditional]
    wanted = {id(x) for x in items if id(x) not in unconditional}
    reached: set = set()
    seen: set = set()
    todo = list(_flat(inputs))
    while todo and len(reached) < len(wanted):
        x = todo.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if id(x) in wanted:
            reached.add(id(x))
        if isinstance(x, ops.Tensor):
            todo.extend(x.consumers())
        elif isinstance(x, ops.Operation):
            todo.extend(x.outputs)
        elif isinstance(getattr(x, "op", None), ops.Operation):  # (a variable the layer was called on)
            todo.append(x.op)
    return [x for x in items if id(x) in reached]


def _flat(x) -> list:
    if isinstance(x, (list, tuple)):
        return [t for item in x for t in _flat(item)]
    if isinstance(x, dict):
        return [t for item in x.values() for t in _flat(item)]
    return [x]


def _shapes(x):
    if isinstance(x, (list, tuple)):
        return [_shapes(t) for t in x]
    return TensorShape(x.shape) if hasattr(x, "shape") else None


_CLASSES: dict = {}  # class name -> the layer class of tf.keras with that name


class Layer:
    """The base of every Keras layer (and of Model). Subclasses write ``build(input_shape)``,
    which makes the weights with ``add_weight``, and ``call(inputs, **kwargs)``."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__module__.startswith("distflow."):
            _CLASSES.setdefault(cls.__name__, cls)

    def __init__(self, trainable=True, name=None, dtype=None, dynamic=False, **kwargs):
        allowed = {"input_shape", "batch_input_shape", "batch_size", "weights", "activity_regularizer",
                   "input_dim", "input_length", "autocast"}
        unknown = set(kwargs) - allowed
        if unknown:
            raise TypeError(f"Keyword argument not understood: {sorted(unknown)[0]!r} "
                            f"(a {type(self).__name__} takes {sorted(allowed)} besides its own)")
        self.name = name or K.unique_name(snake_case(type(self).__name__))
        self._trainable = trainable
        self.dtype = dtypes.as_dtype(dtype).name if dtype is not None else K.floatx()
        self._trainable_weights: list = []
        self._non_trainable_weights: list = []
        self._updates: list = []
        self._losses: list = []
        self._added_metrics: list = []  # (name, metric object, its value tensor), of add_metric
        self._weight_regularizers: list = []  # (regularizer, variable): made again per replica
        self._inbound_nodes: list[Node] = []
        self.built = False
        self.input_spec = None
        self.supports_masking = False
        self.stateful = False
        self.activity_regularizer = regularizers.get(kwargs.get("activity_regularizer"))
        batch_input_shape = kwargs.get("batch_input_shape")
        if batch_input_shape is None and "input_shape" in kwargs:
            batch_input_shape = (kwargs.get("batch_size"),) + tuple(kwargs["input_shape"])
        if batch_input_shape is None and "input_dim" in kwargs:
            batch_input_shape = (kwargs.get("batch_size"), kwargs["input_dim"])
            if "input_length" in kwargs:
                batch_input_shape = (kwargs.get("batch_size"), kwargs["input_length"], kwargs["input_dim"])
        self._batch_input_shape = tuple(batch_input_shape) if batch_input_shape is not None else None
        self._initial_weights = kwargs.get("weights")

    # -- what subclasses write ----------------------------------------------------------
    def build(self, input_shape) -> None:
        self.built = True

    def call(self, inputs, **kwargs):
        return inputs

    def compute_output_shape(self, input_shape):
        """The output shape for ``input_shape``: by default found by building the layer on a
        placeholder in a scratch graph (which reads the layer's weights, if it has them, as
        placeholders of their shapes: nothing is added to the model's graph)."""
        many = isinstance(input_shape, list) and input_shape and not isinstance(input_shape[0], (int, type(None)))
        with CapturingGraph().as_default():
            probe = [placeholder(self.dtype, TensorShape(s)) for s in input_shape] if many else \
                placeholder(self.dtype, TensorShape(input_shape))
            out = self.call(probe)
            return [TensorShape(t.shape) for t in out] if isinstance(out, (list, tuple)) else TensorShape(out.shape)

    def compute_mask(self, inputs, mask=None):
        """The mask of the outputs: the input's, for a layer that supports masking."""
        if not self.supports_masking or mask is None:
            return None
        return mask

    def get_config(self) -> dict:
        """The arguments that make this layer again (``type(layer).from_config(config)``), as
        Keras writes them into a model's config."""
        config = {"name": self.name, "trainable": self.trainable, "dtype": self.dtype}
        if self._batch_input_shape is not None:
            config["batch_input_shape"] = self._batch_input_shape
        config.update(self._options_config(*self._config_keys))
        return config

    # (the constructor's own arguments that a layer's config holds, serialized by _options_config)
    _config_keys: tuple = ()

    def _options_config(self, *names) -> dict:
        """The named attributes, initializers, regularizers, constraints and activations
        serialized as Keras does."""
        from .. import activations  # noqa: PLC0415
        out = {}
        for name in names:
            value = getattr(self, name)
            if name.endswith("initializer"):
                value = initializers.serialize(value)
            elif name.endswith("regularizer"):
                value = regularizers.serialize(value)
            elif name.endswith("constraint"):
                value = constraints.serialize(value)
            elif name.endswith("activation"):
                value = activations.serialize(value)
            out[name] = value
        return out

    @classmethod
    def from_config(cls, config: dict):
        return cls(**config)

    # -- weights -------------------------------------------------------------------------
    def _set_weight_options(self, **options) -> None:
        """Sets each ``<weight>_initializer``, ``_regularizer`` and ``_constraint`` argument as
        an attribute, read by name (or taken as the object) through its module's ``get``."""
        for name, value in options.items():
            kind = name.rsplit("_", 1)[1]
            getter = {"initializer": initializers.get, "regularizer": regularizers.get,
                      "constraint": constraints.get}[kind]
            setattr(self, name, getter(value))

    def add_weight(self, name=None, shape=None, dtype=None, initializer=None, regularizer=None, trainable=None,
                   constraint=None, **kwargs):
        """A new variable of this layer (``<layer name>/<name>``), trainable unless said."""
        dtype = dtypes.as_dtype(dtype or self.dtype)
        trainable = True if trainable is None else trainable
        if initializer is None:
            initializer = "glorot_uniform" if dtype.is_floating else "zeros"
        init = initializers.get(initializer)
        shape = tuple(int(d) for d in shape)
        var = Variable(lambda: init(shape, dtype=dtype), name=name, dtype=dtype, trainable=trainable and self.trainable,
                       constraint=constraints.get(constraint))
        (self._trainable_weights if trainable else self._non_trainable_weights).append(var)
        regularizer = regularizers.get(regularizer)
        if regularizer is not None:
            self._weight_regularizers.append((regularizer, var))
            with ops.name_scope(f"{name}/Regularizer"):
                self.add_loss(regularizer(var))
        return var

    add_variable = add_weight

    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        self._trainable = bool(value)
        for layer in self._tracked_layers():
            layer.trainable = value

    def _tracked_layers(self) -> list:
        return []

    @property
    def trainable_weights(self) -> list:
        if not self.trainable:
            return []
        own = list(self._trainable_weights)
        for layer in self._tracked_layers():
            own += [w for w in layer.trainable_weights if w not in own]
        return own

    @property
    def non_trainable_weights(self) -> list:
        """The weights not trained; a frozen layer's trainable ones first, in TF 1.x's order
        (a BatchNormalization's gamma, beta, moving mean, moving variance), which is the
        order an HDF5 file lists them in."""
        own = ([] if self.trainable else list(self._trainable_weights)) + list(self._non_trainable_weights)
        for layer in self._tracked_layers():
            extra = ([] if self.trainable else layer.trainable_weights) + layer.non_trainable_weights
            own += [w for w in extra if w not in own]
        return own

    @property
    def weights(self) -> list:
        return self.trainable_weights + self.non_trainable_weights

    variables = weights
    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights

    def get_weights(self) -> list:
        return K.batch_get_value(self.weights)

    def set_weights(self, weights) -> None:
        mine = self.weights
        weights = list(weights)
        if len(weights) != len(mine):
            raise ValueError(f"You called `set_weights(weights)` on layer \"{self.name}\" with a weight list of "
                             f"length {len(weights)}, but the layer was expecting {len(mine)} weights.")
        for var, value in zip(mine, weights):
            if tuple(var.shape.as_list()) != tuple(getattr(value, "shape", ())):
                raise ValueError(f"Layer weight shape {tuple(var.shape.as_list())} not compatible with provided "
                                 f"weight shape {tuple(getattr(value, 'shape', ()))}")
        K.batch_set_value(zip(mine, weights))

    def count_params(self) -> int:
        if not self.built:
            raise ValueError(f"You tried to call `count_params` on {self.name}, but the layer isn't built.")
        return sum(K.count_params(w) for w in self.weights)

    # -- losses and updates ------------------------------------------------------------------
    def add_loss(self, losses, inputs=None) -> None:
        """Adds loss tensors. Those added while the layer is called (an activity regularizer's),
        or with ``inputs``, belong to that call: a model trains with its own calls' losses
        (``Model._own_losses``), and :meth:`get_losses_for` chooses by inputs, as TF 1.x."""
        added = [t for t in _flat(losses) if t is not None]
        self._losses += added
        self._note_origin(added, inputs, "loss")

    def add_update(self, updates, inputs=None) -> None:
        """Adds update ops. Those added while the layer is called (BatchNormalization's moving
        statistics), or with ``inputs``, belong to that call: a model runs its own calls'
        updates (``Model._own_updates``), and :meth:`get_updates_for` chooses by inputs, as
        TF 1.x."""
        added = [u for u in _flat(updates) if u is not None]
        self._updates += added
        self._note_origin(added, inputs)

    def add_metric(self, value, aggregation=None, name=None) -> None:
        """Adds a metric the model reports beside its compiled ones: ``value`` the output of a
        metric object's call, or, with ``aggregation='mean'``, a tensor whose mean over each
        epoch's batches is reported under ``name``. One added while the layer is called
        belongs to that call, as an update does."""
        if aggregation not in (None, "mean"):
            raise ValueError(f"We currently only support passing `aggregation='mean'`; got {aggregation!r}")
        metric = metric_of(value)
        if aggregation is None:
            if metric is None:
                raise ValueError("We do not support adding an aggregated metric result tensor that is not the output "
                                 "of a `tf.keras.metrics.Metric` metric instance: its totals could not be reset each "
                                 "epoch. Pass the output of a metric object's call, or a value to average with "
                                 "`aggregation='mean'`, e.g. `self.add_metric(tf.reduce_sum(inputs), "
                                 "name='mean_activation', aggregation='mean')`")
        else:
            if name is None:
                raise ValueError("Please provide a name for your metric like `self.add_metric(tf.reduce_sum(inputs), "
                                 "name='mean_activation', aggregation='mean')`")
            metric = _MEAN_METRIC[0](name=name)  # (tf.keras.metrics.Mean: metric_objects.py registers it)
            value = metric(value)
        self._added_metrics.append((name or metric.name, metric, value))
        self._note_origin([value], None, "metric")

    def _all_added_metrics(self) -> list:
        out = list(self._added_metrics)
        for layer in self._tracked_layers():
            out += [m for m in layer._all_added_metrics() if m not in out]
        return out

    def _note_origin(self, added: list, inputs, kind: str = "update") -> None:
        """Notes where ``added`` came from: no call (unconditional), or the call under way."""
        if not added:
            return
        if inputs is None and not getattr(self, "_calling", False):
            K._unconditional_table(added[0].graph).update(id(x) for x in added)
        else:  # (made by a call: the node of the call, and of every call around it, keeps it)
            K._made_in_calls(added[0].graph).extend((kind, x) for x in added)

    def get_updates_for(self, inputs) -> list:
        """The updates that follow from ``inputs`` (tensors of the graph), or with None, those
        that follow from no call (TF 1.x's rule: a layer called twice, in a model and outside
        it, has each call's updates run only by what feeds that call)."""
        return _for_inputs(self.updates, inputs)

    def get_losses_for(self, inputs) -> list:
        """As :meth:`get_updates_for`, for the losses."""
        return _for_inputs(self.losses, inputs)

    @property
    def losses(self) -> list:
        out = list(self._losses)
        for layer in self._tracked_layers():
            out += [t for t in layer.losses if t not in out]
        return out

    @property
    def updates(self) -> list:
        if not self.trainable and not self.stateful:
            return []
        out = list(self._updates)
        for layer in self._tracked_layers():
            out += [u for u in layer.updates if u not in out]
        return out

    # -- calling -----------------------------------------------------------------------------
    def __call__(self, inputs, *args, **kwargs):
        tensors = _flat(inputs)
        if not all(isinstance(t, ops.Tensor) or hasattr(t, "_as_graph_element") for t in tensors):
            inputs = _to_tensors(inputs)
            tensors = _flat(inputs)
        if _KERAS_HISTORY:  # (TensorFlow ops applied to Keras tensors become layers: op_layer.py)
            _KERAS_HISTORY[0](tensors)
        graph = tensors[0].graph if tensors and isinstance(tensors[0], ops.Tensor) else ops.get_default_graph()
        with graph.as_default(), ops.name_scope(self.name):
            if not self.built:  # (the weights are made under the layer's name: dense/kernel)
                self._check_input(inputs)
                self.build(_shapes(inputs))
                self.built = True
                if self._initial_weights is not None:
                    self.set_weights(self._initial_weights)
                    self._initial_weights = None
            if "training" in kwargs and kwargs["training"] is None:
                kwargs.pop("training")
            if "training" in kwargs and not self._call_takes("training"):
                kwargs.pop("training")
            recorded = dict(kwargs)
            masks = K._mask_table()
            in_masks = [masks.get(t) for t in tensors]
            mask = kwargs.get("mask", in_masks if isinstance(inputs, (list, tuple)) else in_masks[0])
            if any(m is not None for m in in_masks) and "mask" not in kwargs and self._call_takes("mask"):
                kwargs["mask"] = mask
            made = K._made_in_calls(graph)
            first_made = len(made)
            self._calling = getattr(self, "_calling", 0) + 1
            try:
                outputs = self.call(inputs, *args, **kwargs)
            finally:
                self._calling -= 1
            outputs = _copied_inputs(outputs, tensors)
            out_mask = self.compute_mask(inputs, mask)
            if out_mask is not None:
                for out, m in zip(_flat(outputs), _flat(out_mask) if isinstance(out_mask, list) else
                                  [out_mask] * len(_flat(outputs))):
                    if m is not None:
                        masks[out] = m
            if self.activity_regularizer is not None:
                for out in _flat(outputs):
                    self.add_loss(self.activity_regularizer(out) / K.cast(K.shape(out)[0], out.dtype), inputs=tensors)
        recorded.pop("mask", None)  # (a model run again on new inputs finds their masks itself)
        self._record(tensors, outputs, recorded, isinstance(inputs, (list, tuple)))
        self._inbound_nodes[-1].made = tuple(made[first_made:])
        return outputs

    def _call_takes(self, name: str) -> bool:
        params = inspect.signature(self.call).parameters
        return name in params or any(p.kind == p.VAR_KEYWORD for p in params.values())

    def _check_input(self, inputs) -> None:
        spec = self.input_spec
        if spec is None or isinstance(inputs, (list, tuple)):
            return
        rank = inputs.shape.ndims
        if rank is None:
            return
        if spec.ndim is not None and rank != spec.ndim:
            raise ValueError(f"Input 0 of layer {self.name} is incompatible with the layer: expected ndim="
                             f"{spec.ndim}, found ndim={rank}. Full shape received: {inputs.shape.as_list()}")
        if spec.min_ndim is not None and rank < spec.min_ndim:
            raise ValueError(f"Input 0 of layer {self.name} is incompatible with the layer: expected min_ndim="
                             f"{spec.min_ndim}, found ndim={rank}. Full shape received: {inputs.shape.as_list()}")

    def _record(self, tensors: list, outputs, arguments: dict, list_input: bool = False) -> None:
        table = K._history_table()
        outs = _flat(outputs)
        node = Node(self, list(tensors), outs, arguments, list_input)
        self._inbound_nodes.append(node)
        index = len(self._inbound_nodes) - 1
        for i, t in enumerate(outs):
            if isinstance(t, ops.Tensor) and t not in table:
                table[t] = (self, index, i)

    def _node_attr(self, attr: str, what: str):
        if not self._inbound_nodes:
            raise AttributeError(f"The layer {self.name} has never been called and thus has no defined {what}.")
        return self._one_or_list([_shape_tuple(t) for t in getattr(self._inbound_nodes[0], attr)])

    @property
    def input_shape(self):
        return self._node_attr("inputs", "input shape")

    @property
    def output_shape(self):
        return self._node_attr("outputs", "output shape")

    def _node_mask(self, attr: str):
        if not self._inbound_nodes:
            raise AttributeError(f"Layer {self.name} has never been called and thus has no defined {attr} mask.")
        return self._one_or_list([K._mask_table().get(t) for t in getattr(self._inbound_nodes[0], attr)])

    @property
    def input_mask(self):
        """The mask of the layer's input (its first call), None where it has none."""
        return self._node_mask("inputs")

    @property
    def output_mask(self):
        """The mask the layer gave its output (its first call), None where it gave none."""
        return self._node_mask("outputs")

    @property
    def input(self):
        node = self._inbound_nodes[0] if self._inbound_nodes else None
        if node is None:
            raise AttributeError(f"Layer {self.name} is not connected, no input to return.")
        return node.inputs[0] if len(node.inputs) == 1 else node.inputs

    @property
    def output(self):
        node = self._inbound_nodes[0] if self._inbound_nodes else None
        if node is None:
            raise AttributeError(f"Layer {self.name} has no inbound nodes.")
        return node.outputs[0] if len(node.outputs) == 1 else node.outputs

    def _node_at(self, node_index: int, what: str):
        if not self._inbound_nodes:
            raise RuntimeError(f"The layer {self.name} has never been called and thus has no defined {what}.")
        if not 0 <= node_index < len(self._inbound_nodes):
            raise ValueError(f"Asked to get {what} at node {node_index}, but the layer has only "
                             f"{len(self._inbound_nodes)} inbound nodes.")
        return self._inbound_nodes[node_index]

    @staticmethod
    def _one_or_list(values):
        return values[0] if len(values) == 1 else list(values)

    def get_input_at(self, node_index):
        """The input tensor(s) of the layer's ``node_index``-th call."""
        return self._one_or_list(self._node_at(node_index, "input").inputs)

    def get_output_at(self, node_index):
        """The output tensor(s) of the layer's ``node_index``-th call."""
        return self._one_or_list(self._node_at(node_index, "output").outputs)

    def get_input_shape_at(self, node_index):
        return self._one_or_list([_shape_tuple(t) for t in self._node_at(node_index, "input shape").inputs])

    def get_output_shape_at(self, node_index):
        return self._one_or_list([_shape_tuple(t) for t in self._node_at(node_index, "output shape").outputs])

    def get_input_mask_at(self, node_index):
        return self._one_or_list([K._mask_table().get(t) for t in self._node_at(node_index, "input mask").inputs])

    def get_output_mask_at(self, node_index):
        return self._one_or_list([K._mask_table().get(t) for t in self._node_at(node_index, "output mask").outputs])

    def __repr__(self):
        return f"<{type(self).__module__.replace('distflow.', 'tf.')}.{type(self).__name__} {self.name!r}>"


def _shape_tuple(tensor):
    return tuple(tensor.shape.as_list()) if tensor.shape.ndims is not None else None


def serialize(layer) -> dict:
    """A layer as ``{"class_name": ..., "config": ...}``."""
    return {"class_name": type(layer).__name__, "config": layer.get_config()}


def deserialize(config, custom_objects=None):
    """The layer that ``serialize`` described (``custom_objects``: classes by name)."""
    name = config["class_name"]
    cls = custom_object(name, custom_objects) or _CLASSES.get(_LATER_CLASS_NAMES.get(name, name))
    if cls is None:
        raise ValueError(f"Unknown layer: {name} (pass its class in custom_objects)")
    config = _from_later_keras(name, dict(config["config"]))
    if getattr(cls.from_config, "__func__", None) is not None and "custom_objects" in \
            inspect.signature(cls.from_config).parameters:
        return cls.from_config(config, custom_objects=custom_objects)
    return cls.from_config(config)


_LATER_CLASS_NAMES = {"Functional": "Model"}  # class names of later Keras releases' configs -> TF 1.x's


# Arguments that Keras releases after TF 1.x's write into a layer's config (TensorFlow 2's
# tf.keras files), with the value that means what TF 1.x's layers do.
_LATER_ARGUMENTS = {"groups": 1, "ragged": False, "optional": False, "keepdims": False}


def _from_later_keras(class_name: str, config: dict) -> dict:
    """A layer config written by a later Keras, as TF 1.x's layer takes it: the arguments
    TF 1.x's Keras did not have are dropped where they hold the value that means TF 1.x's
    behaviour (else a ValueError says which), and an axis list of one becomes that axis."""
    for key, plain in _LATER_ARGUMENTS.items():
        if key in config:
            value = config.pop(key)
            if value != plain:
                raise ValueError(f"{class_name} '{config.get('name')}' has {key}={value!r}, which TF 1.x's "
                                 f"Keras does not have (only {key}={plain!r} loads)")
    axis = config.get("axis")
    if isinstance(axis, list) and len(axis) == 1:
        config["axis"] = axis[0]
    return config


_MEAN_METRIC: list = []  # the Mean metric class, set by the module that defines it (a subclass of Layer)
_KERAS_HISTORY: list = []  # op_layer.keras_history, set by op_layer.py (whose layers are Layers)


def metric_values(graph) -> dict:
    """id of a tensor a metric object's call gave -> (the tensor, the object), in ``graph``."""
    table = getattr(graph, "_keras_metric_values", None)
    if table is None:
        table = graph._keras_metric_values = {}
    return table


def metric_of(tensor):
    """The metric object whose call gave ``tensor``, or None."""
    found = metric_values(tensor.graph).get(id(tensor)) if hasattr(tensor, "graph") else None
    return found[1] if found is not None and found[0] is tensor else None


def _copied_inputs(outputs, inputs: list):
    """``outputs`` with any of the call's own input tensors among them copied (an identity), as
    Keras copies them: the output then has this call as its history, so a model keeps the layer
    (and what it added)."""
    given = {id(t) for t in inputs}
    if not any(id(t) in given for t in _flat(outputs)):
        return outputs
    from ... import identity  # noqa: PLC0415

    def copy(t):
        return identity(t) if id(t) in given else t
    if isinstance(outputs, (list, tuple)):
        return type(outputs)(copy(t) for t in outputs)
    return copy(outputs)


def _to_tensors(inputs):
    """Arrays and numbers given to a layer as tensors (Python floats as floatx)."""
    from ... import convert_to_tensor  # noqa: PLC0415
    if isinstance(inputs, (list, tuple)):
        return type(inputs)(_to_tensors(t) for t in inputs)
    return convert_to_tensor(inputs, dtype=None if hasattr(inputs, "dtype") else K.floatx())
