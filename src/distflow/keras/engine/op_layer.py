"""TensorFlow ops between Keras layers (TF 1.14-1.15's ``TensorFlowOpLayer``).

In a functional model TF 1.14 and later let a program apply TensorFlow ops to Keras
tensors: ``tf.nn.relu(x) * 2.0`` between two layers. Each such op becomes a layer of the
model, so the model can follow its graph back to its inputs and build it again on other
inputs (a model nested in another, ``model_to_estimator``, a saved model). ``keras_history``
wraps the ops behind a tensor as those layers when a Keras layer or a Model is given it;
the ops are not made again, their outputs become the layers' outputs. An op whose inputs
are Keras tensors and constants is wrapped (the constants kept as values); one that also
reads another tensor (a placeholder of the program's, a variable) is not: the tensor stays
a plain TensorFlow tensor, as it was before.
"""

from __future__ import annotations

import numpy as np

from ...framework import ops, wire
from ...ops.op_util import constant_value, make_op
from ...protos import distflow_pb2 as pb
from . import base_layer
from .base_layer import Layer, history

PREFIX = "tf_op_layer_"


class TensorFlowOpLayer(Layer):
    """One TensorFlow op as a layer: ``node_def`` (a NodeDef, or its JSON form in a config)
    says the op; ``constants`` the values of its inputs that are not the layer's inputs, by
    position."""

    def __init__(self, node_def, constants=None, name=None, trainable=True, dtype=None, **kwargs):
        if isinstance(node_def, dict):
            from google.protobuf import json_format  # noqa: PLC0415

            node_def = json_format.ParseDict(node_def, pb.NodeDef())
        super().__init__(name=name or PREFIX + node_def.name, trainable=trainable, dtype=dtype, **kwargs)
        self.node_def = node_def
        self.constants = {int(k): _constant(v, node_def) for k, v in (constants or {}).items()}
        self.built = True

    def call(self, inputs):
        given = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        pending = iter(given)  # (the op's inputs: the layer's in order, the constants at their places)
        args = [ops.convert_to_tensor(self.constants[i]) if i in self.constants else next(pending)
                for i in range(len(given) + len(self.constants))]
        attrs = {key: wire.attr_from_proto(value) for key, value in self.node_def.attr.items()
                 if key not in ("_output_shapes", "_class")}
        op = make_op(self.node_def.op, args, attrs, name=self.node_def.name)
        return op.outputs[0] if len(op.outputs) == 1 else list(op.outputs)

    def get_config(self) -> dict:
        from google.protobuf import json_format  # noqa: PLC0415

        return {**super().get_config(), "node_def": json_format.MessageToDict(self.node_def),
                "constants": {str(i): {"value": value.tolist(), "dtype": value.dtype.name}
                              for i, value in self.constants.items()}}


def _constant(value, node_def) -> np.ndarray:
    """A constant input as an array of its dtype: given (an array, or a config's value and
    dtype), or, for a config of TensorFlow's (the value alone), the dtype of the op's ``T``."""
    if isinstance(value, dict):
        return np.asarray(value["value"], dtype=value["dtype"])
    if isinstance(value, np.ndarray) and value.dtype != object:
        return value
    value = np.asarray(value)
    if "T" in node_def.attr and node_def.attr["T"].WhichOneof("value") == "type":
        value = value.astype(wire.attr_from_proto(node_def.attr["T"]).as_numpy_dtype)
    return value


def keras_history(tensors) -> None:
    """Wraps the ops behind each of ``tensors`` that comes from Keras tensors through
    TensorFlow ops (the module's text); the others are left as they are."""
    for tensor in tensors:
        if isinstance(tensor, ops.Tensor) and history(tensor) is None:
            _resolve(tensor.op)


def _plain_ops(graph) -> set:
    """The ids of ``graph``'s ops found not to be wrapped (no Keras tensor behind them, or one
    mixed with other tensors): that stays so, as an op's inputs never change."""
    plain = getattr(graph, "_keras_plain_ops", None)
    if plain is None:
        plain = graph._keras_plain_ops = set()
    return plain


def _resolve(root) -> None:
    """Wraps ``root`` and the ops behind it that can be, inputs first (a walk with a stack of
    its own: the graphs behind a tensor can be deep)."""
    plain = _plain_ops(root.graph)
    state: dict = {}  # op id -> None (being walked), True (wrapped) or False (not)
    stack = [(root, False)]
    while stack:
        op, inputs_done = stack.pop()
        if id(op) in plain or (id(op) in state and not inputs_done):
            continue
        if not inputs_done:
            state[id(op)] = None
            stack.append((op, True))
            stack.extend((t.op, False) for t in op.inputs
                         if history(t) is None and id(t.op) not in state and id(t.op) not in plain)
            continue
        state[id(op)] = _wrap(op, state)
        if not state[id(op)]:
            plain.add(id(op))


def _wrap(op, state: dict) -> bool:
    """Makes ``op`` a layer if its inputs are Keras tensors and constants, at least one Keras."""
    keras = [history(t) is not None or state.get(id(t.op)) is True for t in op.inputs]
    if not any(keras) or op.control_inputs or op.type in _NOT_WRAPPED or op.type.startswith("TensorArray"):
        return False
    if any(t.dtype.is_ref_dtype or t.dtype.base_dtype.name in ("resource", "variant") for t in op.outputs):
        return False  # (a handle or a reference: not a value a layer can make again)
    constants = {}
    for i, (given, is_keras) in enumerate(zip(op.inputs, keras)):
        if not is_keras:
            value = constant_value(given)
            if value is None:  # (another tensor of the program's: not an op of the model)
                return False
            constants[i] = np.asarray(value)
    layer_inputs = [t for t, is_keras in zip(op.inputs, keras) if is_keras]
    try:
        node_def = op.node_def
    except (TypeError, ValueError):  # (an attr that has no NodeDef form: left a plain op)
        return False
    layer = TensorFlowOpLayer(node_def, constants)
    layer._record(layer_inputs, op.outputs[0] if len(op.outputs) == 1 else list(op.outputs), {},
                  len(layer_inputs) > 1)
    return True


# (ops with state or effects: made again on other inputs they would not be the same op)
_NOT_WRAPPED = {"VariableV2", "Variable", "VarHandleOp", "Assign", "AssignAdd", "AssignSub", "Placeholder",
                "PlaceholderWithDefault", "IteratorGetNext", "While", "If"}

base_layer._KERAS_HISTORY[:] = [keras_history]
