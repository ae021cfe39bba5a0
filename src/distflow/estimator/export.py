"""``tf.estimator.export``: what an exported model takes in (serving input receivers) and
gives out (export outputs, one SignatureDef each), as TF 1.x's."""

from __future__ import annotations

import logging

from ..framework import dtypes, ops
from ..ops import array_ops, parsing_ops
from ..ops.sparse_ops import SparseTensor
from ..saved_model import signature_constants, signature_def_utils

_log = logging.getLogger("distflow")
_SINGLE_FEATURE_KEY = "feature"
_SINGLE_RECEIVER_KEY = "input"


def _as_dict(value, key: str, what: str) -> dict:
    if isinstance(value, (ops.Tensor, SparseTensor)):
        return {key: value}
    if not isinstance(value, dict) or not value:
        raise ValueError(f"{what} must be a Tensor, a SparseTensor or a non-empty dict of them, got {value!r}")
    for name, tensor in value.items():
        if not isinstance(name, str):
            raise ValueError(f"{what} keys must be strings: {name!r}")
        if not isinstance(tensor, (ops.Tensor, SparseTensor)):
            raise ValueError(f"{what}[{name!r}] must be a Tensor or SparseTensor, got {tensor!r}")
    return dict(value)


class ServingInputReceiver:
    """What a serving input function returns: the ``receiver_tensors`` a request feeds
    (placeholders), and the ``features`` the model function gets from them."""

    def __init__(self, features, receiver_tensors, receiver_tensors_alternatives=None):
        self.features = _as_dict(features, _SINGLE_FEATURE_KEY, "features")
        self.receiver_tensors = _as_dict(receiver_tensors, _SINGLE_RECEIVER_KEY, "receiver_tensors")
        self.receiver_tensors_alternatives = {
            name: _as_dict(tensors, _SINGLE_RECEIVER_KEY, f"receiver_tensors_alternatives[{name!r}]")
            for name, tensors in (receiver_tensors_alternatives or {}).items()}


class TensorServingInputReceiver(ServingInputReceiver):
    """A receiver whose ``features`` is one tensor, given to the model function as it is."""

    def __init__(self, features, receiver_tensors, receiver_tensors_alternatives=None):
        if not isinstance(features, (ops.Tensor, SparseTensor)):
            raise ValueError(f"features must be a Tensor or SparseTensor, got {features!r}")
        super().__init__(features, receiver_tensors, receiver_tensors_alternatives)
        self.features = features


def build_raw_serving_input_receiver_fn(features, default_batch_size=None):
    """A serving input function that feeds each feature through a placeholder of its own
    (named as its key, the batch dimension ``default_batch_size``)."""

    def serving_input_receiver_fn():
        receivers = {}
        single = isinstance(features, ops.Tensor)
        for name, tensor in ({_SINGLE_FEATURE_KEY: features} if single else features).items():
            shape = tensor.shape.as_list() if tensor.shape.ndims is not None else None
            if shape:
                shape = [default_batch_size] + shape[1:]
            receivers[name] = array_ops.placeholder(tensor.dtype, shape, name=name)
        inputs = receivers[_SINGLE_FEATURE_KEY] if single else receivers
        return (TensorServingInputReceiver if single else ServingInputReceiver)(inputs, receivers)

    return serving_input_receiver_fn


def build_parsing_serving_input_receiver_fn(feature_spec, default_batch_size=None):
    """A serving input function that takes serialized tf.Examples (``examples``) and parses
    them by ``feature_spec``."""

    def serving_input_receiver_fn():
        serialized = array_ops.placeholder(dtypes.string, [default_batch_size], name="input_example_tensor")
        return ServingInputReceiver(parsing_ops.parse_example(serialized, feature_spec), {"examples": serialized})

    return serving_input_receiver_fn


class ExportOutput:
    """One output of an exported model: a SignatureDef of the receiver tensors and its own."""

    def as_signature_def(self, receiver_tensors):
        raise NotImplementedError


def _single_string_input(receiver_tensors, kind: str):
    if len(receiver_tensors) != 1:
        raise ValueError(f"{kind} input must be a single string Tensor; got {receiver_tensors}")
    (tensor,) = receiver_tensors.values()
    if not isinstance(tensor, ops.Tensor) or tensor.dtype.base_dtype != dtypes.string:
        raise ValueError(f"{kind} input must be a single string Tensor; got {receiver_tensors}")
    return tensor


class ClassificationOutput(ExportOutput):
    """Class names (strings) and/or their scores (floats), for TensorFlow Serving's Classify;
    it reads serialized tf.Examples (one string receiver tensor)."""

    def __init__(self, scores=None, classes=None):
        if scores is None and classes is None:
            raise ValueError("At least one of scores and classes must be set.")
        if scores is not None and not (isinstance(scores, ops.Tensor) and scores.dtype.is_floating):
            raise ValueError(f"Classification scores must be a float32 Tensor; got {scores}")
        if classes is not None and not (isinstance(classes, ops.Tensor) and classes.dtype == dtypes.string):
            raise ValueError(f"Classification classes must be a string Tensor; got {classes}")
        self.scores, self.classes = scores, classes

    def as_signature_def(self, receiver_tensors):
        return signature_def_utils.classification_signature_def(
            _single_string_input(receiver_tensors, "Classification"), self.classes, self.scores)


class RegressionOutput(ExportOutput):
    """One float per example, for TensorFlow Serving's Regress (serialized tf.Examples in)."""

    def __init__(self, value):
        if not (isinstance(value, ops.Tensor) and value.dtype.is_floating):
            raise ValueError(f"Regression output value must be a float32 Tensor; got {value}")
        self.value = value

    def as_signature_def(self, receiver_tensors):
        return signature_def_utils.regression_signature_def(
            _single_string_input(receiver_tensors, "Regression"), self.value)


class PredictOutput(ExportOutput):
    """Any tensors out (a dict, or one tensor as ``output``), for TensorFlow Serving's Predict."""

    def __init__(self, outputs):
        self.outputs = _as_dict(outputs, "output", "Prediction outputs")

    def as_signature_def(self, receiver_tensors):
        return signature_def_utils.predict_signature_def(receiver_tensors, self.outputs)


def signature_defs(receiver: ServingInputReceiver, export_outputs: dict) -> dict:
    """Every SignatureDef of an export: one per export output (and per alternative receiver,
    keyed ``<receiver>:<output>``). An output that cannot read the receiver (a Classify output
    fed raw tensors) is left out with a warning, as TensorFlow does."""
    out, left_out = {}, {}
    receivers = [(None, receiver.receiver_tensors)] + list(receiver.receiver_tensors_alternatives.items())
    for receiver_name, tensors in receivers:
        for key, output in export_outputs.items():
            name = key if receiver_name is None else f"{receiver_name}:{key}"
            try:
                out[name] = output.as_signature_def(tensors)
            except ValueError as e:
                left_out[name] = str(e)
    for name, why in left_out.items():
        _log.warning("Signature %r is not exported: %s", name, why)
    if not out:
        raise ValueError(f"No signature can be exported: {left_out}")
    if signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY not in out:
        _log.warning("Export includes no default signature!")
    return out


def export_outputs_of(spec) -> dict:
    """A model function's export outputs, with the default serving key: its predictions as a
    PredictOutput where it gave none; its one output where it gave one under another key."""
    return checked_export_outputs(spec.export_outputs, spec.predictions)


def checked_export_outputs(outputs, predictions) -> dict:
    """``export_outputs`` checked, with the default serving key (see export_outputs_of)."""
    if outputs is None:
        return {signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY: PredictOutput(predictions)}
    if not isinstance(outputs, dict):
        raise TypeError(f"export_outputs must be dict, given: {outputs!r}")
    if not all(isinstance(v, ExportOutput) for v in outputs.values()):
        raise TypeError(f"Values in export_outputs must be ExportOutput objects. Given: {outputs!r}")
    outputs = dict(outputs)
    if signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY not in outputs:
        if len(outputs) != 1:
            raise ValueError("Multiple export_outputs were provided, but none of them is specified as the default. "
                             "Do this by naming one of them with signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY.")
        outputs[signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY] = next(iter(outputs.values()))
    return outputs
