"""``Sequential``: a linear stack of layers. With an input shape on its first layer (or an
``InputLayer``) it is built at once; otherwise on its first data or call."""

from __future__ import annotations

from .. import backend as K
from .base_layer import Layer, deserialize
from .input_layer import Input, InputLayer
from .training import Model


class Sequential(Model):
    def __init__(self, layers=None, name=None):
        super().__init__(name=name)
        self._stack: list[Layer] = []
        for layer in layers or ():
            self.add(layer)

    def add(self, layer: Layer) -> None:
        if not isinstance(layer, Layer):
            raise TypeError(f"The added layer must be an instance of class Layer. Found: {layer!r}")
        if isinstance(layer, InputLayer):
            if self._stack:
                raise ValueError("An InputLayer can only be the first layer of a Sequential model")
            self._layers.append(layer)
            self._set_outputs([layer.output], layer.output)
            return
        # (one layer may come twice, as a pooling layer shared by two blocks; two layers of
        # one name may not)
        if any(other.name == layer.name and other is not layer for other in self._stack):
            raise ValueError(f"All layers added to a Sequential model should have unique names. Name "
                             f"\"{layer.name}\" is already the name of a layer in this model. Update the "
                             f"`name` argument to pass a unique name.")
        self._stack.append(layer)
        batch_shape, dtype = _input_of(layer)
        if self.outputs is None and len(self._stack) == 1 and batch_shape is not None:
            start = Input(batch_shape=batch_shape, dtype=dtype, name=f"{layer.name}_input")
            self._layers.append(_input_layer_of(start))
            self._set_outputs([start], start)
        if self.outputs is not None:
            out = layer(self.outputs[0])
            if isinstance(out, (list, tuple)):
                raise TypeError("All layers in a Sequential model should have a single output tensor. For "
                                "multi-output layers, use the functional API.")
            self._keep(layer)
            self._set_outputs(self.inputs, out)
        else:
            self._keep(layer)

    def _keep(self, layer: Layer) -> None:
        if all(layer is not kept for kept in self._layers):
            self._layers.append(layer)

    def _set_outputs(self, inputs, output) -> None:
        from .base_layer import history  # noqa: PLC0415
        self.inputs, self.outputs = list(inputs), [output]
        self._nested_inputs, self._nested_outputs = self.inputs[0], output
        self._input_layers = [history(t)[0] for t in self.inputs]
        self.input_names = [layer.name for layer in self._input_layers]
        self.output_names = [history(output)[0].name]
        self._is_graph_network = True
        self._nodes = _chain(output, self.inputs)
        self.built = True

    @property
    def layers(self) -> list:
        """The stacked layers (without the input layer, as Keras lists them), a layer added
        twice once."""
        out: list = []
        for layer in self._stack:
            if all(layer is not seen for seen in out):
                out.append(layer)
        return out

    def predict_proba(self, x, batch_size=32, verbose=0):
        """``predict``, for a model whose outputs are probabilities (a warning says if not)."""
        probabilities = self.predict(x, batch_size=batch_size, verbose=verbose)
        if probabilities.min() < 0.0 or probabilities.max() > 1.0:
            K._warn("Network returning invalid probability values. The last layer might not normalize predictions "
                    "into probabilities (like softmax or sigmoid would).")
        return probabilities

    def predict_classes(self, x, batch_size=32, verbose=0):
        """The class of each sample: its most probable, or for one sigmoid output, 1 above 0.5."""
        probabilities = self.predict(x, batch_size=batch_size, verbose=verbose)
        if probabilities.shape[-1] > 1:
            return probabilities.argmax(axis=-1)
        return (probabilities > 0.5).astype("int32")

    def pop(self) -> None:
        if not self._stack:
            raise TypeError("There are no layers in the model.")
        layer = self._stack.pop()
        if all(layer is not other for other in self._stack):
            self._layers.remove(layer)
        if self._stack and self.inputs is not None:  # (the popped layer's input in the model's chain)
            self._set_outputs(self.inputs, self._nodes[-1].inputs[0])
        elif self.inputs is not None:
            self._set_outputs(self.inputs, self.inputs[0])

    def build(self, input_shape=None) -> None:
        if self.inputs is None and input_shape is not None:
            self._build_from([tuple(input_shape)], [self._stack[0].dtype if self._stack else "float32"])

    def _build_from(self, shapes, dtype_names) -> None:
        start = Input(batch_shape=shapes[0], dtype=dtype_names[0])
        self._layers.insert(0, _input_layer_of(start))
        out = start
        for layer in self._stack:
            out = layer(out)
        self._set_outputs([start], out)

    def _build_from_dict(self, keys, shapes, dtype_names) -> None:
        start = {k: Input(batch_shape=s, dtype=d, name=k) for k, s, d in zip(keys, shapes, dtype_names)}
        for k in keys:
            self._layers.insert(0, _input_layer_of(start[k]))
        out = start
        for layer in self._stack:
            out = layer(out)
        self._set_outputs([start[k] for k in keys], out)
        self._nested_inputs = start

    def call(self, inputs, training=None, mask=None):
        if self.inputs is not None and inputs is self.inputs[0]:
            return self.outputs[0]
        out = inputs
        for layer in self._stack:
            kwargs = {"training": training} if training is not None and layer._call_takes("training") else {}
            out = layer(out, **kwargs)
        return out

    @classmethod
    def from_config(cls, config, custom_objects=None, input_tensors=None):
        """The Sequential model ``get_config`` (or a Keras file) described, with fresh weights;
        built on ``input_tensors[0]`` where given."""
        entries = config["layers"] if isinstance(config, dict) else config
        model = cls(name=config.get("name") if isinstance(config, dict) else None)
        if input_tensors:
            model.add(InputLayer(input_tensor=input_tensors[0]))
        for entry in entries:
            if input_tensors and entry["class_name"] == "InputLayer":
                continue
            model.add(deserialize(entry, custom_objects))
        return model

    def get_config(self) -> dict:
        layers = [{"class_name": type(layer).__name__, "config": layer.get_config()} for layer in self._stack]
        if layers and self.inputs is not None and "batch_input_shape" not in layers[0]["config"]:
            layers[0]["config"]["batch_input_shape"] = tuple(self.inputs[0].shape.as_list())
        return {"name": self.name, "layers": layers}


def _input_of(layer) -> tuple:
    """The batch shape and dtype a first layer says its input has: its own input shape, or a
    model's one input (a model added first to a Sequential builds it at once, as in TF)."""
    if layer._batch_input_shape is not None:
        return layer._batch_input_shape, layer.dtype
    inputs = getattr(layer, "inputs", None)
    if getattr(layer, "_is_graph_network", False) and inputs and len(inputs) == 1 and inputs[0].shape.ndims is not None:
        return tuple(inputs[0].shape.as_list()), inputs[0].dtype.base_dtype.name
    return None, layer.dtype


def _chain(output, inputs) -> list:
    """The nodes that made ``output`` from ``inputs``, first to last (a layer that comes
    twice has a node for each time)."""
    from .base_layer import history  # noqa: PLC0415
    nodes, tensor = [], output
    while all(tensor is not t for t in inputs):
        made = history(tensor)
        if made is None:
            break
        node = made[0]._inbound_nodes[made[1]]
        nodes.append(node)
        if not node.inputs:
            break
        tensor = node.inputs[0]
    return nodes[::-1]


def _input_layer_of(tensor):
    from .base_layer import history  # noqa: PLC0415
    return history(tensor)[0]
