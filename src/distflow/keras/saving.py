"""Keras's HDF5 files: ``model.save``/``load_model`` (the model's config, its weights and how
it was compiled) and ``save_weights``/``load_weights`` to an ``.h5`` path, in the layout
Keras writes: the root's attributes ``model_config`` and ``training_config`` (JSON), and a
group per layer (under ``model_weights`` in a whole-model file) whose ``weight_names``
attribute lists its datasets, named as the variables are (``dense/kernel:0``).

Reading and writing needs h5py (``pip install 'distflow[keras]'``). With
``include_optimizer`` (the default) a compiled model's optimizer state goes under
``optimizer_weights`` (``weight_names`` and one dataset each), and ``load_model`` builds the
training step and sets it, so that training goes on where it stopped; a file whose state
does not fit the optimizer (another optimizer's, another library's) loads with a fresh
optimizer and a warning, as in TF 1.x.
"""

from __future__ import annotations

import json
import logging

import numpy as np

from . import backend as K
from . import losses

KERAS_VERSION = b"2.2.4-tf"
_log = logging.getLogger("distflow")


def h5py():
    try:
        import h5py as module  # noqa: PLC0415 - an optional extra
    except ImportError:
        raise ImportError("Keras's HDF5 files need h5py: pip install 'distflow[keras]' (or pip install h5py)") \
            from None
    return module


def yaml():
    """PyYAML, for ``to_yaml`` and ``model_from_yaml`` (optional, as in Keras)."""
    try:
        import yaml as module  # noqa: PLC0415 - optional
    except ImportError:
        raise ImportError("Requires yaml module installed (`pip install pyyaml`).") from None
    return module


def is_hdf5(filepath) -> bool:
    return str(filepath).endswith((".h5", ".hdf5", ".keras"))


def save_weights_to_hdf5_group(group, layers) -> None:
    group.attrs["layer_names"] = [layer.name.encode("utf8") for layer in layers]
    group.attrs["backend"] = b"tensorflow"
    group.attrs["keras_version"] = KERAS_VERSION
    for layer in layers:
        _write_weights(group.create_group(layer.name), _file_order(layer))


def _file_order(layer) -> list:
    """A layer's weights in the order Keras files list them: trainable, then not (for a model
    nested as a layer, its layers' trainable weights first, then the rest)."""
    return layer.trainable_weights + layer.non_trainable_weights


def _write_weights(group, weights) -> None:
    """``weights``' values into ``group``, one dataset each, named in its ``weight_names``."""
    group.attrs["weight_names"] = [w.name.encode("utf8") for w in weights]
    for w, value in zip(weights, K.batch_get_value(weights)):
        group.create_dataset(w.name, value.shape, dtype=value.dtype)[()] = value


def load_weights_from_hdf5_group(group, layers, by_name: bool = False) -> None:
    """Sets ``layers``' weights from ``group``: the layers with weights in order (Keras's
    default; by name where the file has the same layers in another order, as an older
    distflow listed a functional model's), or by layer name with ``by_name`` (layers the
    file lacks are left alone)."""
    names = [text(n) for n in group.attrs["layer_names"]]
    stored = {n: [text(w) for w in group[n].attrs["weight_names"]] for n in names}
    pairs = []
    if by_name:
        for layer in layers:
            if layer.name in stored:
                pairs += _matched(layer, group[layer.name], stored[layer.name])
    else:
        filled = [n for n in names if stored[n]]
        mine = [layer for layer in layers if layer.weights]
        if len(filled) != len(mine):
            raise ValueError(f"You are trying to load a weight file containing {len(filled)} layers into a model "
                             f"with {len(mine)} layers.")
        if sorted(filled) == sorted(layer.name for layer in mine):  # (the same layers, listed in another order)
            filled = [layer.name for layer in mine]
        for layer, name in zip(mine, filled):
            pairs += _matched(layer, group[name], stored[name])
    K.batch_set_value(pairs)


def _matched(layer, group, weight_names) -> list:
    """(weight, value) pairs of ``layer`` from its group in a file: by name where the file
    names exactly the layer's weights, else in the file's order. (Keras releases list a
    frozen nested model's weights in different orders: TF 1.x every layer's trainable
    weights before any moving statistics, later ones layer by layer.)"""
    weights = _file_order(layer)
    if len(weights) != len(weight_names):
        raise ValueError(f"Layer {layer.name} expects {len(weights)} weights, but the saved weights have "
                         f"{len(weight_names)} elements.")
    names = [w.name for w in weights]
    if sorted(names) == sorted(weight_names) and len(set(names)) == len(names):
        weight_names = names
    pairs = []
    for w, name in zip(weights, weight_names):
        value = np.asarray(group[name])
        if tuple(w.shape.as_list()) != value.shape:
            raise ValueError(f"Layer {layer.name}: weight {w.name} has shape {tuple(w.shape.as_list())}, the file's "
                             f"{name} has shape {value.shape}")
        pairs.append((w, value))
    return pairs


def text(value) -> str:
    return value.decode("utf8") if isinstance(value, bytes) else str(value)


def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):  # (a Lambda layer's argument, as Keras writes it)
        return {"type": "ndarray", "value": value.tolist()}
    if isinstance(value, tuple):
        return list(value)
    if hasattr(value, "as_list"):
        return value.as_list()
    if hasattr(value, "get_config"):  # (an object of the config: its class and config, as Keras writes it)
        return {"class_name": type(value).__name__, "config": value.get_config()}
    if callable(value) and hasattr(value, "__name__"):  # (a loss or metric function: its name)
        return value.__name__
    raise TypeError(f"Not JSON serializable: {value!r}")


def save_model(model, filepath, overwrite=True, include_optimizer=True) -> None:
    if not model._is_graph_network or type(model).__name__ not in ("Model", "Sequential"):
        raise NotImplementedError("Saving a subclassed model to HDF5 is not possible (its call is Python code); "
                                  "use save_weights, as TF 1.x's Keras says")
    with h5py().File(str(filepath), "w") as f:
        f.attrs["keras_version"] = KERAS_VERSION
        f.attrs["backend"] = b"tensorflow"
        f.attrs["model_config"] = json.dumps({"class_name": type(model).__name__, "config": model.get_config()},
                                             default=_json_default).encode("utf8")
        if include_optimizer and model._compiled is not None and type(model.optimizer).__name__ == "TFOptimizer":
            _log.warning("TensorFlow optimizers do not make it possible to access optimizer attributes or optimizer "
                         "state after instantiation. As a result, we cannot save the optimizer as part of the model "
                         "save file. You will have to compile your model again after loading it.")
        elif include_optimizer and model._compiled is not None:
            compiled = model._compiled
            f.attrs["training_config"] = json.dumps({
                "optimizer_config": {"class_name": type(model.optimizer).__name__,
                                     "config": model.optimizer.get_config()},
                "loss": _loss_names(compiled["loss"]), "metrics": compiled["metrics"],
                "weighted_metrics": compiled["weighted_metrics"], "sample_weight_mode": compiled.get("sample_weight_mode"),
                "loss_weights": compiled["loss_weights"]}, default=_json_default).encode("utf8")
            if model.optimizer.weights:
                _write_weights(f.create_group("optimizer_weights"), model.optimizer.weights)
        save_weights_to_hdf5_group(f.create_group("model_weights"), model.layers)


def load_optimizer_weights(f, model) -> None:
    """Builds ``model``'s training step and sets its optimizer's state from the file ``f``."""
    group = f["optimizer_weights"]
    values = [np.asarray(group[text(name)]) for name in group.attrs["weight_names"]]
    model._train_op()
    try:
        model.optimizer.set_weights(values)
    except ValueError as e:
        _log.warning("Error in loading the saved optimizer state (%s). As a result, your model is starting with "
                     "a freshly initialized optimizer.", e)


def _loss_names(loss):
    if isinstance(loss, dict):
        return {k: _loss_names(v) for k, v in loss.items()}
    if isinstance(loss, (list, tuple)):
        return [_loss_names(v) for v in loss]
    return loss if isinstance(loss, str) else losses.name_of(loss)
