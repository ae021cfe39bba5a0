"""A Model's graph of layers: the functional API (``Model(inputs, outputs)``), where the
layers are found by walking back from the outputs through the nodes each call recorded, and
models that subclass Model, whose layers are the ones set as attributes."""

from __future__ import annotations

from .. import backend as K
from .base_layer import Layer, _flat, _for_inputs, deserialize, history, snake_case
from .input_layer import InputLayer
from .op_layer import keras_history


class Network(Layer):
    """Layers connected into a graph, callable as one layer."""

    def __init__(self, *args, **kwargs):
        inputs = kwargs.pop("inputs", args[0] if len(args) > 0 else None)
        outputs = kwargs.pop("outputs", args[1] if len(args) > 1 else None)
        name = kwargs.pop("name", None)
        object.__setattr__(self, "_layers", [])
        super().__init__(name=name or K.unique_name(snake_case(type(self).__name__)),
                         trainable=kwargs.pop("trainable", True), dtype=kwargs.pop("dtype", None), **kwargs)
        self.inputs = self.outputs = None
        self._nodes: list = []
        self._is_graph_network = False
        if inputs is not None:
            if outputs is None:
                raise ValueError("A functional Model needs both inputs and outputs")
            self._init_graph_network(inputs, outputs)

    def __setattr__(self, name, value):
        if isinstance(value, Layer) and value is not self and not name.startswith("_"):
            if value not in self._layers:
                self._layers.append(value)
        elif isinstance(value, (list, tuple)) and not name.startswith("_") and value and \
                all(isinstance(v, Layer) for v in value):
            for v in value:
                if v not in self._layers:
                    self._layers.append(v)
        object.__setattr__(self, name, value)

    @property
    def updates(self) -> list:
        """The updates of its layers that the inputs of its calls reach (its own inputs', and
        those of each call of it as a layer), and the unconditional ones: not those of a
        layer's calls in another model that shares it, as TF 1.15's Keras filters them."""
        every = Layer.updates.fget(self)
        if not every or not self._is_graph_network:
            return every
        inputs = list(self.inputs or []) + [t for node in self._inbound_nodes for t in node.inputs]
        keep = {id(u) for u in _for_inputs(every, inputs)} | {id(u) for u in _for_inputs(every, None)}
        return [u for u in every if id(u) in keep]

    def reset_states(self) -> None:
        """Resets the states of its stateful layers (and of the models inside it)."""
        for layer in self.layers:
            if hasattr(layer, "reset_states") and (getattr(layer, "stateful", False) or isinstance(layer, Network)):
                layer.reset_states()

    def _tracked_layers(self) -> list:
        return list(self._layers)

    @property
    def layers(self) -> list:
        return list(self._layers)

    def get_layer(self, name=None, index=None) -> Layer:
        if index is not None:
            if len(self._layers) <= index:
                raise ValueError(f"Was asked to retrieve layer at index {index} but model only has "
                                 f"{len(self._layers)} layers.")
            return self._layers[index]
        for layer in self._layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No such layer: {name}")

    # -- the functional API ----------------------------------------------------------------
    def _init_graph_network(self, inputs, outputs) -> None:
        self._nested_inputs, self._nested_outputs = inputs, outputs
        self.inputs, self.outputs = list(_flat(inputs)), list(_flat(outputs))
        keras_history(self.outputs)  # (outputs computed by TensorFlow ops on Keras tensors: those ops as layers)
        for t in self.inputs + self.outputs:
            if history(t) is None:
                raise ValueError(f"Input tensors to a Model must come from `tf.keras.Input`, and output tensors "
                                 f"from Keras layers. Received: {t} (missing previous layer metadata).")
        nodes, layers, done = [], [], set()
        starts = set(self.inputs)

        def visit(tensor):
            layer, node_index, _ = history(tensor)
            node = layer._inbound_nodes[node_index]
            if id(node) in done:
                return
            done.add(id(node))
            if tensor in starts:  # (a given input: what made it is not part of this model)
                if layer not in layers:
                    layers.append(layer)
                return
            if isinstance(layer, InputLayer):
                raise ValueError(f"Graph disconnected: cannot obtain value for tensor {tensor.name} at layer "
                                 f"\"{layer.name}\". It is not one of the model's inputs: {self.inputs}")
            for t in node.inputs:
                if history(t) is None:
                    raise ValueError(f"Graph disconnected: the tensor {t.name} that layer {layer.name} takes "
                                     "does not come from a Keras layer or Input")
                visit(t)
            if layer not in layers:
                layers.append(layer)
            nodes.append(node)

        for t in self.inputs:
            visit(t)
        for t in self.outputs:
            visit(t)
        self._nodes = nodes
        for layer in _in_keras_order(layers, self.outputs, starts):
            if layer not in self._layers:
                self._layers.append(layer)
        self._input_layers = [history(t)[0] for t in self.inputs]
        self._output_layers = [history(t)[0] for t in self.outputs]
        self.input_names = [layer.name for layer in self._input_layers]
        self.output_names = [layer.name for layer in self._output_layers]
        self._is_graph_network = True
        self.built = True
        self._record(self.inputs, self.outputs if len(self.outputs) > 1 else self.outputs[0], {})

    def _record(self, tensors: list, outputs, arguments: dict, list_input: bool = False) -> None:
        super()._record(tensors, outputs, arguments, list_input)
        if not self._is_graph_network or all(a is b for a, b in zip(tensors, self.inputs)):
            return
        # Called on other tensors, as a layer of an enclosing model: what it gave back is its
        # own output (a node of this model, as in TF), not the output of its last inner layer,
        # so that the enclosing model holds it as one layer.
        table = K._history_table()
        index = len(self._inbound_nodes) - 1
        for i, t in enumerate(_flat(outputs)):
            if t in table and not any(t is x for x in tensors):
                table[t] = (self, index, i)

    def call(self, inputs, training=None, mask=None):
        if not self._is_graph_network:
            raise NotImplementedError("When subclassing the `Model` class, you should implement a `call` method.")
        given = _flat(inputs)
        if len(given) != len(self.inputs):
            raise ValueError(f"Model {self.name} expects {len(self.inputs)} input(s), but it received "
                             f"{len(given)} input tensors.")
        if all(a is b for a, b in zip(given, self.inputs)):
            return self._nested_outputs
        mapped = {id(t): g for t, g in zip(self.inputs, given)}
        for node in self._nodes:
            ins = [mapped[id(t)] for t in node.inputs]
            args = dict(node.arguments)
            if training is not None and node.layer._call_takes("training"):
                args["training"] = training
            out = node.layer(ins if node.list_input else ins[0], **args)
            for t, o in zip(node.outputs, _flat(out)):
                mapped[id(t)] = o
        outs = [mapped[id(t)] for t in self.outputs]
        return outs if isinstance(self._nested_outputs, (list, tuple)) else outs[0]

    @property
    def weights(self) -> list:
        """Layer by layer, each layer's trainable then non-trainable weights, as Keras orders
        ``model.weights`` and ``get_weights``."""
        out = []
        for layer in self.layers:
            out += [w for w in layer.weights if w not in out]
        out += [w for w in self._trainable_weights + self._non_trainable_weights if w not in out]
        return out

    variables = weights

    @property
    def input(self):
        """The model's input tensor (a list for several), as its graph was built."""
        if getattr(self, "inputs", None) is None:
            return super().input
        return self.inputs[0] if len(self.inputs) == 1 else list(self.inputs)

    @property
    def output(self):
        if getattr(self, "outputs", None) is None:
            return super().output
        return self.outputs[0] if len(self.outputs) == 1 else list(self.outputs)

    @property
    def input_shape(self):
        if self.inputs is None:
            return super().input_shape
        shapes = [tuple(t.shape.as_list()) for t in self.inputs]
        return shapes[0] if len(shapes) == 1 else shapes

    @property
    def output_shape(self):
        if self.outputs is None:
            return super().output_shape
        shapes = [tuple(t.shape.as_list()) for t in self.outputs]
        return shapes[0] if len(shapes) == 1 else shapes

    def compute_output_shape(self, input_shape):
        if self._is_graph_network and self.outputs:
            shapes = [t.shape for t in self.outputs]
            return shapes if len(shapes) > 1 else shapes[0]
        return super().compute_output_shape(input_shape)

    def get_config(self) -> dict:
        """A functional model's config as Keras writes it: each layer with the nodes that feed
        it (``[layer name, node index, tensor index, kwargs]``), and the input and output layers."""
        if not self._is_graph_network:
            raise NotImplementedError("A subclassed model has no config (its call is Python code)")
        kept = {}  # (layer, node index) -> its index among this model's nodes of that layer
        for node in self._nodes:
            layer = node.layer
            # (a model's node 0 is the one that links its own inputs to its outputs: its calls
            # as a layer count from 1, as TF numbers them)
            first = 1 if isinstance(layer, Network) and layer._is_graph_network else 0
            kept[(id(layer), layer._inbound_nodes.index(node))] = first + sum(1 for k in kept if k[0] == id(layer))
        for t in self.inputs:
            layer, index, _ = history(t)
            kept.setdefault((id(layer), index), 0)

        def ref(tensor):
            layer, index, position = history(tensor)
            return [layer.name, kept.get((id(layer), index), index), position]

        layers = []
        for layer in self._layers:
            nodes = [node for node in layer._inbound_nodes if node in self._nodes]
            layers.append({"name": layer.name, "class_name": type(layer).__name__, "config": layer.get_config(),
                           "inbound_nodes": [[ref(t) + [dict(node.arguments)] for t in node.inputs]
                                             for node in nodes]})
        return {"name": self.name, "layers": layers, "input_layers": [ref(t) for t in self.inputs],
                "output_layers": [ref(t) for t in self.outputs]}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """The functional model ``get_config`` described (its layers made again, with fresh weights)."""
        inputs, outputs = graph_from_config(config, custom_objects)
        return cls(inputs if len(inputs) > 1 else inputs[0], outputs if len(outputs) > 1 else outputs[0],
                   name=config.get("name"))

    # -- summary -----------------------------------------------------------------------------
    def summary(self, line_length=None, positions=None, print_fn=None) -> None:
        """The layers, their output shapes and parameter counts, as Keras prints them."""
        print_fn = print_fn or print
        if not self.built:
            raise ValueError("This model has not yet been built. Build the model first by calling `build()` or "
                             "calling `fit()` with some data, or specify an `input_shape` argument in the first "
                             "layer(s) for automatic build.")
        functional = self._is_graph_network and type(self).__name__ != "Sequential" and any(
            len(n.inputs) > 1 for n in self._nodes)
        line_length = line_length or (98 if functional else 65)
        positions = positions or ([.33, .55, .67, 1.] if functional else [.45, .85, 1.])
        positions = [int(line_length * p) if p <= 1 else p for p in positions]
        headers = ["Layer (type)", "Output Shape", "Param #"] + (["Connected to"] if functional else [])

        def row(fields):
            line = ""
            for i, field in enumerate(fields):
                line = (line + str(field))[:positions[i]]
                line += " " * (positions[i] - len(line))
            print_fn(line)

        print_fn(f'Model: "{self.name}"')
        print_fn("_" * line_length)
        row(headers)
        print_fn("=" * line_length)
        layers = [layer for layer in self._layers if not (isinstance(layer, InputLayer) and
                                                          type(self).__name__ == "Sequential")]
        for i, layer in enumerate(layers):
            try:
                shape = layer.output_shape
            except AttributeError:
                shape = "multiple"
            fields = [f"{layer.name} ({type(layer).__name__})", _shape_text(shape),
                      layer.count_params() if layer.built else 0]
            if functional:
                sources = []
                for node in layer._inbound_nodes[:1]:
                    for t in node.inputs:
                        h = history(t)
                        if h is not None:
                            sources.append(f"{h[0].name}[{h[1]}][{h[2]}]")
                fields.append(sources[0] if sources else "")
            row(fields)
            if functional:
                for extra in sources[1:] if sources else []:
                    row(["", "", "", extra])
            print_fn(("=" if i == len(layers) - 1 else "_") * line_length)
        trainable = sum(K.count_params(w) for w in self.trainable_weights)
        total = sum(K.count_params(w) for w in self.weights)
        print_fn(f"Total params: {total:,}")
        print_fn(f"Trainable params: {trainable:,}")
        print_fn(f"Non-trainable params: {total - trainable:,}")
        print_fn("_" * line_length)


def _in_keras_order(layers: list, outputs: list, starts: set) -> list:
    """``layers`` in the order Keras lists a functional model's layers (``model.layers``, the
    config, an HDF5 file): by depth, the layers farthest from the outputs first, and layers
    of one depth in the order a walk back from the outputs first meets them."""
    met: dict = {}  # layer -> when the walk first met it
    walked: list = []  # the nodes, each after the nodes it takes from
    seen: set = set()

    def walk(tensor):
        layer, node_index, _ = history(tensor)
        node = layer._inbound_nodes[node_index]
        if id(node) in seen:
            return
        seen.add(id(node))
        met.setdefault(layer, len(met))
        if tensor not in starts:
            for t in node.inputs:
                walk(t)
        walked.append((node, tensor not in starts))

    for t in outputs:
        walk(t)
    node_depth: dict = {}
    layer_depth: dict = {}
    for node, inner in reversed(walked):
        depth = max(node_depth.get(id(node), 0), layer_depth.get(node.layer, 0))
        layer_depth[node.layer] = node_depth[id(node)] = depth
        if inner:
            for t in node.inputs:
                before, index, _ = history(t)
                parent = id(before._inbound_nodes[index])
                node_depth[parent] = max(depth + 1, node_depth.get(parent, 0))
    # (an input that no output depends on: depth 0, first among them)
    return sorted(layers, key=lambda layer: (-layer_depth.get(layer, 0), met.get(layer, -1)))


def graph_from_config(config: dict, custom_objects=None, input_tensors=None) -> tuple[list, list]:
    """The input and output tensors of a functional model's config (``get_config``, or a Keras
    file's), its layers made again and called as the config's nodes say; ``input_tensors`` (in
    the model's input order) stand in for new placeholders."""
    starts = dict(zip([name for name, _, _ in config["input_layers"]], input_tensors or []))
    outputs_of: dict = {}  # layer name -> one list of output tensors per node
    pending: dict = {}  # layer -> its calls (nodes) still to make, in order
    for entry in config["layers"]:
        if entry["name"] in starts:
            layer = InputLayer(input_tensor=starts[entry["name"]], name=entry["name"])
        else:
            layer = deserialize({"class_name": entry["class_name"], "config": entry["config"]}, custom_objects)
        if entry["class_name"] == "InputLayer":
            outputs_of[layer.name] = [[layer.output]]
            continue
        # (a nested model's node 0 links its own inputs to its outputs; its calls count from 1)
        outputs_of[layer.name] = [list(layer.outputs)] if isinstance(layer, Network) and layer._is_graph_network \
            else []
        pending[layer] = list(entry.get("inbound_nodes", []))

    def ready(node) -> bool:
        return all(name in outputs_of and index < len(outputs_of[name]) for name, index, *_ in node)

    # (a layer shared at several depths has calls whose inputs later layers make: each layer's
    # next call is made once its inputs exist, as Keras defers them)
    while any(pending.values()):
        progress = False
        for layer, nodes in pending.items():
            while nodes and ready(nodes[0]):
                node = nodes.pop(0)
                inputs = [outputs_of[name][index][tensor] for name, index, tensor, *_ in node]
                kwargs = node[0][3] if node and len(node[0]) > 3 else {}
                out = layer(inputs if len(inputs) > 1 else inputs[0], **kwargs)
                outputs_of[layer.name].append(out if isinstance(out, list) else [out])
                progress = True
        if not progress:
            stuck = {layer.name: nodes[0] for layer, nodes in pending.items() if nodes}
            raise ValueError(f"The model's config calls layers on tensors that no layer of it makes: {stuck}")

    def tensors(refs):
        return [outputs_of[name][index][tensor] for name, index, tensor in refs]

    return tensors(config["input_layers"]), tensors(config["output_layers"])


def _shape_text(shape) -> str:
    if isinstance(shape, list):
        return str(shape) if len(shape) > 1 else str(shape[0])
    return str(shape)

