"""SignatureDefs: a meta graph's named entry points (the tensors to feed and to fetch), as
TensorFlow Serving reads them."""

from __future__ import annotations

from ..framework import dtypes
from ..protos import distflow_pb2 as pb
from . import signature_constants as sc
from .utils import build_tensor_info


def build_signature_def(inputs=None, outputs=None, method_name=None) -> pb.SignatureDef:
    """A SignatureDef of ``inputs`` and ``outputs`` (dicts of key -> TensorInfo) and ``method_name``."""
    signature = pb.SignatureDef()
    for key, info in (inputs or {}).items():
        signature.inputs[key].CopyFrom(info)
    for key, info in (outputs or {}).items():
        signature.outputs[key].CopyFrom(info)
    if method_name is not None:
        signature.method_name = method_name
    return signature


def predict_signature_def(inputs, outputs) -> pb.SignatureDef:
    """A Predict signature: any tensors in (``inputs``, a dict of key -> Tensor) and out."""
    if not inputs:
        raise ValueError("Prediction inputs cannot be None or empty.")
    if not outputs:
        raise ValueError("Prediction outputs cannot be None or empty.")
    return build_signature_def({k: build_tensor_info(t) for k, t in inputs.items()},
                               {k: build_tensor_info(t) for k, t in outputs.items()}, sc.PREDICT_METHOD_NAME)


def _check(tensor, what: str, allowed, kind: str):
    if tensor is None or tensor.dtype.base_dtype not in allowed:
        got = "None" if tensor is None else tensor.dtype.base_dtype.name
        raise ValueError(f"{what} must be a {kind} Tensor, got {got}")


_FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)


def classification_signature_def(examples, classes, scores) -> pb.SignatureDef:
    """A Classify signature: serialized tf.Examples in (a string tensor), class names
    (strings) and/or their scores (floats) out."""
    _check(examples, "Classification examples", (dtypes.string,), "string")
    if classes is None and scores is None:
        raise ValueError("Classification classes and scores cannot both be None.")
    outputs = {}
    if classes is not None:
        _check(classes, "Classification classes", (dtypes.string,), "string")
        outputs[sc.CLASSIFY_OUTPUT_CLASSES] = build_tensor_info(classes)
    if scores is not None:
        _check(scores, "Classification scores", _FLOATS, "float")
        outputs[sc.CLASSIFY_OUTPUT_SCORES] = build_tensor_info(scores)
    return build_signature_def({sc.CLASSIFY_INPUTS: build_tensor_info(examples)}, outputs,
                               sc.CLASSIFY_METHOD_NAME)


def regression_signature_def(examples, predictions) -> pb.SignatureDef:
    """A Regress signature: serialized tf.Examples in (a string tensor), floats out."""
    _check(examples, "Regression examples", (dtypes.string,), "string")
    _check(predictions, "Regression predictions", _FLOATS, "float")
    return build_signature_def({sc.REGRESS_INPUTS: build_tensor_info(examples)},
                               {sc.REGRESS_OUTPUTS: build_tensor_info(predictions)}, sc.REGRESS_METHOD_NAME)


def is_valid_signature(signature_def) -> bool:
    """Whether ``signature_def`` is a Predict, Classify or Regress signature as TensorFlow
    Serving takes them (keys, dtypes and encodings as their method needs)."""
    if signature_def is None or not signature_def.method_name:
        return False
    inputs, outputs = signature_def.inputs, signature_def.outputs

    def dtype(info):
        return dtypes.as_dtype(info.dtype) if info.dtype else None

    if any(info.WhichOneof("encoding") is None for info in [*inputs.values(), *outputs.values()]):
        return False
    method = signature_def.method_name
    if method == sc.PREDICT_METHOD_NAME:
        return bool(inputs) and bool(outputs)
    if method == sc.CLASSIFY_METHOD_NAME:
        if set(inputs) != {sc.CLASSIFY_INPUTS} or dtype(inputs[sc.CLASSIFY_INPUTS]) != dtypes.string:
            return False
        if not outputs or set(outputs) - {sc.CLASSIFY_OUTPUT_CLASSES, sc.CLASSIFY_OUTPUT_SCORES}:
            return False
        return (sc.CLASSIFY_OUTPUT_CLASSES not in outputs
                or dtype(outputs[sc.CLASSIFY_OUTPUT_CLASSES]) == dtypes.string) and \
            (sc.CLASSIFY_OUTPUT_SCORES not in outputs or dtype(outputs[sc.CLASSIFY_OUTPUT_SCORES]) in _FLOATS)
    if method == sc.REGRESS_METHOD_NAME:
        return (set(inputs) == {sc.REGRESS_INPUTS} and dtype(inputs[sc.REGRESS_INPUTS]) == dtypes.string
                and set(outputs) == {sc.REGRESS_OUTPUTS} and dtype(outputs[sc.REGRESS_OUTPUTS]) in _FLOATS)
    return False
