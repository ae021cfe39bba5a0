"""Keras's custom objects and the (de)serialization of objects by name or config:
``tf.keras.utils.get_custom_objects``, ``CustomObjectScope``/``custom_object_scope``,
``serialize_keras_object`` and ``deserialize_keras_object``.

A class or function registered here (or given as ``custom_objects``) is found by the name a
config gives it: a layer, an initializer, a regularizer, a constraint, an optimizer or a
metric that Keras itself does not define.
"""

from __future__ import annotations

import inspect

_GLOBAL_CUSTOM_OBJECTS: dict = {}


def get_custom_objects() -> dict:
    """The process's custom objects by name: the dict itself, so that adding to it registers one."""
    return _GLOBAL_CUSTOM_OBJECTS


class CustomObjectScope:
    """``with CustomObjectScope({"MyLayer": MyLayer}):``: those names resolve inside the block,
    when a model is loaded or an object deserialized; the registry is as it was after it."""

    def __init__(self, *custom_objects):
        self.custom_objects = custom_objects
        self._saved = None

    def __enter__(self):
        self._saved = dict(_GLOBAL_CUSTOM_OBJECTS)
        for objects in self.custom_objects:
            _GLOBAL_CUSTOM_OBJECTS.update(objects or {})
        return self

    def __exit__(self, *exc):
        _GLOBAL_CUSTOM_OBJECTS.clear()
        _GLOBAL_CUSTOM_OBJECTS.update(self._saved)


def custom_object_scope(*custom_objects) -> CustomObjectScope:
    return CustomObjectScope(*custom_objects)


def custom_object(name, custom_objects=None):
    """The class or function ``name`` stands for in ``custom_objects`` or the registry, else None."""
    if not isinstance(name, str):
        return None
    found = (custom_objects or {}).get(name)
    return found if found is not None else _GLOBAL_CUSTOM_OBJECTS.get(name)


def serialize_keras_object(instance):
    """``{"class_name", "config"}`` for an object with ``get_config``, a function's name, or None."""
    if instance is None:
        return None
    if hasattr(instance, "get_config"):
        return {"class_name": type(instance).__name__, "config": instance.get_config()}
    if hasattr(instance, "__name__"):
        return instance.__name__
    raise ValueError(f"Cannot serialize {instance!r}: it has neither get_config nor a name")


def deserialize_keras_object(identifier, module_objects=None, custom_objects=None,
                             printable_module_name="object"):
    """The object a config ``{"class_name", "config"}`` or a name describes, looked up in
    ``custom_objects``, the registry, then ``module_objects``: a class is made with its
    ``from_config`` (else its constructor) from the config; a name gives the object itself."""
    if isinstance(identifier, dict):
        if "class_name" not in identifier or "config" not in identifier:
            raise ValueError(f"Improper config format for a {printable_module_name}: {identifier!r} "
                             "(expected the keys class_name and config)")
        name, config = identifier["class_name"], identifier["config"]
        cls = custom_object(name, custom_objects) or (module_objects or {}).get(name)
        if cls is None:
            raise ValueError(f"Unknown {printable_module_name}: {name} (pass it in custom_objects)")
        from_config = getattr(cls, "from_config", None)
        if from_config is None:
            return cls(**config)
        if "custom_objects" in inspect.signature(from_config).parameters:
            return from_config(config, custom_objects=custom_objects)
        return from_config(config)
    if isinstance(identifier, str):
        found = custom_object(identifier, custom_objects) or (module_objects or {}).get(identifier)
        if found is None:
            raise ValueError(f"Unknown {printable_module_name}: {identifier} (pass it in custom_objects)")
        return found
    raise ValueError(f"Could not interpret serialized {printable_module_name}: {identifier!r}")


def lookup(table: dict, name, what: str):
    """``table[name]``, or a ValueError that names the ``what`` and what is known."""
    if name not in table:
        raise ValueError(f"Unknown {what}: {name} (one of {sorted(table)}, or pass it in custom_objects)")
    return table[name]


def deserialize_with(get, config, custom_objects, what: str):
    """A module's ``deserialize``: a custom object the config names (given or registered), else
    what the module's ``get`` makes of it."""
    name = config.get("class_name") if isinstance(config, dict) else config
    if custom_object(name, custom_objects) is not None:
        return deserialize_keras_object(config, None, custom_objects, what)
    return get(config)
