"""``tf.keras.initializers``: TF's initializer classes under Keras's names, and ``get``."""

from __future__ import annotations

from ..ops import init_ops
from ..ops.init_ops import (Constant, GlorotNormal, GlorotUniform, Identity, Initializer, Ones, Orthogonal,  # noqa: F401
                             RandomNormal, RandomUniform, TruncatedNormal, VarianceScaling, Zeros)
from ..ops.math_extra import he_normal, he_uniform, lecun_normal, lecun_uniform  # noqa: F401
from .object_registry import deserialize_with, lookup

zeros, ones, constant = Zeros, Ones, Constant
random_normal, random_uniform, truncated_normal = RandomNormal, RandomUniform, TruncatedNormal
glorot_normal, glorot_uniform, orthogonal, identity = GlorotNormal, GlorotUniform, Orthogonal, Identity
variance_scaling = VarianceScaling
normal, uniform = RandomNormal, RandomUniform  # (TF 1.x's Keras's short names)

_BY_NAME = {
    "zeros": Zeros, "ones": Ones, "constant": Constant, "random_normal": RandomNormal,
    "random_uniform": RandomUniform, "truncated_normal": TruncatedNormal, "glorot_normal": GlorotNormal,
    "glorot_uniform": GlorotUniform, "orthogonal": Orthogonal, "identity": Identity,
    "variance_scaling": VarianceScaling, "lecun_normal": lecun_normal, "lecun_uniform": lecun_uniform,
    "he_normal": he_normal, "he_uniform": he_uniform,
    # (Keras's short aliases, which its examples use)
    "uniform": RandomUniform, "normal": RandomNormal, "zero": Zeros, "one": Ones,
}


def _key(name: str) -> str:
    import re  # noqa: PLC0415
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower() if not name.islower() else name


def deserialize(config, custom_objects=None):
    """The initializer ``serialize`` described (``custom_objects``: classes by name)."""
    return deserialize_with(lambda c: lookup(_BY_NAME, _key(c["class_name"]), "initializer")(**c.get("config", {})),
                            config, custom_objects, "initializer")


def get(identifier):
    """An initializer from a name ('glorot_uniform', 'he_normal', 'Zeros'), a config dict, or
    the initializer (any callable) itself."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        key = _key(identifier)
        if key not in _BY_NAME:
            raise ValueError(f"Unknown initializer: {identifier} (one of {sorted(_BY_NAME)})")
        return _BY_NAME[key]()
    if isinstance(identifier, type):
        return identifier()
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret initializer identifier: {identifier!r}")


_CONFIG_KEYS = {
    "Zeros": (), "Ones": (), "Constant": ("value",), "RandomNormal": ("mean", "stddev", "seed"),
    "TruncatedNormal": ("mean", "stddev", "seed"), "RandomUniform": ("minval", "maxval", "seed"),
    "VarianceScaling": ("scale", "mode", "distribution", "seed"), "GlorotUniform": ("seed",),
    "GlorotNormal": ("seed",), "Orthogonal": ("gain", "seed"), "Identity": ("gain",),
}


def serialize(initializer):
    """``{"class_name": ..., "config": ...}`` as Keras writes an initializer into a model's config."""
    if initializer is None:
        return None
    name = type(initializer).__name__
    if name not in _CONFIG_KEYS:
        return {"class_name": name, "config": initializer.get_config()}
    config = {key: getattr(initializer, key) for key in _CONFIG_KEYS[name]}
    if hasattr(initializer, "dtype"):
        config["dtype"] = init_ops.dtypes.as_dtype(initializer.dtype).name
    return {"class_name": name, "config": config}
