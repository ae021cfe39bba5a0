"""``tf.keras.models``: Model, Sequential, saving and loading, and models made again from
their configs."""

from __future__ import annotations

import json

from ..framework import ops
from . import optimizers, saving
from .engine.network import graph_from_config
from .engine.sequential import Sequential
from .engine.training import Model
from .object_registry import CustomObjectScope, custom_object


def save_model(model, filepath, overwrite=True, include_optimizer=True):
    model.save(filepath, overwrite=overwrite, include_optimizer=include_optimizer)


def model_from_json(json_string, custom_objects=None):
    """The model a ``to_json`` described (Sequential or functional), with fresh weights."""
    return model_from_config(json.loads(json_string), custom_objects)


def model_from_yaml(yaml_string, custom_objects=None):
    """The model a ``to_yaml`` described (PyYAML's safe loader: plain values only)."""
    return model_from_config(saving.yaml().safe_load(yaml_string), custom_objects)


def clone_model(model, input_tensors=None, clone_function=None):
    """A model of the same architecture with fresh weights (from its config); with
    ``input_tensors`` (a tensor or a list, Keras's or not), built on them."""
    if clone_function is not None:
        raise NotImplementedError("clone_model with clone_function is not supported")
    if input_tensors is not None and not isinstance(input_tensors, (list, tuple)):
        input_tensors = [input_tensors]
    if input_tensors is not None:
        input_tensors = [ops.convert_to_tensor(t) for t in input_tensors]
    return model_from_config({"class_name": type(model).__name__, "config": model.get_config()},
                             input_tensors=input_tensors)


def load_model(filepath, custom_objects=None, compile=True):  # noqa: A002 - Keras's name
    """The model a ``model.save`` (TF 1.x's Keras or distflow's) wrote to an HDF5 file: built from
    its config, its weights set, and compiled as it was, with its optimizer's state where
    the file holds it."""
    with CustomObjectScope(custom_objects or {}), saving.h5py().File(str(filepath), "r") as f:
        config = f.attrs.get("model_config")
        if config is None:
            raise ValueError(f"{filepath} holds no model config: it was written by save_weights; build the model "
                             "and call load_weights")
        model = model_from_config(json.loads(saving.text(config)), custom_objects)
        saving.load_weights_from_hdf5_group(f["model_weights"], model.layers)
        training = f.attrs.get("training_config")
        if compile and training is not None:
            training = json.loads(saving.text(training))
            model.compile(optimizers.get(training["optimizer_config"]), loss=_custom(training["loss"]),
                          metrics=_custom(training.get("metrics")), loss_weights=training.get("loss_weights"),
                          sample_weight_mode=training.get("sample_weight_mode"))
            if "optimizer_weights" in f:
                saving.load_optimizer_weights(f, model)
    return model


def _custom(names):
    """Loss and metric names with those of custom objects replaced by the objects (a compiled
    model resolves its names later, outside the loading's scope)."""
    if isinstance(names, dict):
        return {k: _custom(v) for k, v in names.items()}
    if isinstance(names, (list, tuple)):
        return [_custom(v) for v in names]
    found = custom_object(names)
    return names if found is None else found


def model_from_config(config, custom_objects=None, input_tensors=None):
    """A Sequential or functional model from ``{"class_name", "config"}`` as Keras writes it;
    with ``input_tensors`` (a list, in the model's input order), built on those tensors
    instead of new placeholders."""
    given = list(input_tensors) if input_tensors is not None else None
    kind, body = config["class_name"], config["config"]
    with CustomObjectScope(custom_objects or {}):  # (for the initializers, regularizers... its layers name)
        if kind == "Sequential":
            return Sequential.from_config(body, custom_objects, given)
        if kind not in ("Model", "Functional"):
            raise ValueError(f"Unknown model class {kind!r} (a Sequential or functional model's config is needed; "
                             "subclassed models are rebuilt by their own code)")
        inputs, outputs = graph_from_config(body, custom_objects, given)
    return Model(inputs if len(inputs) > 1 else inputs[0], outputs if len(outputs) > 1 else outputs[0],
                 name=body.get("name"))
