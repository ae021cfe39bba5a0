"""``tf.keras.models``: Model, Sequential, and building models again from their configs."""

from __future__ import annotations

import json

from .engine.sequential import Sequential
from .engine.training import Model


def model_from_json(json_string, custom_objects=None):
    """A Sequential model from ``Sequential.to_json()`` (functional models: not yet)."""
    from . import layers  # noqa: PLC0415
    spec = json.loads(json_string)
    if spec.get("class_name") != "Sequential":
        raise NotImplementedError("model_from_json rebuilds Sequential models only (functional: not yet)")
    table = {**{k: getattr(layers, k) for k in dir(layers) if not k.startswith("_")}, **(custom_objects or {})}
    model = Sequential(name=spec["config"].get("name"))
    for entry in spec["config"]["layers"]:
        if entry["class_name"] == "InputLayer":
            continue
        config = dict(entry["config"])
        config.pop("name", None)
        model.add(table[entry["class_name"]](**config))
    return model


def load_model(filepath, custom_objects=None, compile=True):  # noqa: A002
    raise NotImplementedError("load_model reads HDF5 (h5py) or SavedModel files, neither supported yet; rebuild "
                              "the model and use load_weights")


def clone_model(model, input_tensors=None, clone_function=None):
    if isinstance(model, Sequential):
        return model_from_json(model.to_json())
    raise NotImplementedError("clone_model clones Sequential models only (functional: not yet)")


save_model = Model.save
