"""``tf.contrib.training``: ``HParams``, a model's hyperparameters, typed by their first values,
set from a command-line string (``"learning_rate=0.1,layers=[64,32]"``), a dict or JSON; and
the training and evaluation loops (training_loops.py)."""

from __future__ import annotations

import json
import numbers
import re

from .._namespace import missing
from ..train.device_setter import GreedyLoadBalancingStrategy, RandomStrategy, byte_size_load_fn  # noqa: F401
from .bucket_ops import bucket, bucket_by_sequence_length  # noqa: F401
from .failure_tolerator import FailureTolerator  # noqa: F401
from .resample_ops import resample_at_rate, weighted_resample  # noqa: F401
from .sampling_ops import rejection_sample, stratified_sample  # noqa: F401
from .training_loops import (StopAfterNEvalsHook, SummaryAtEndHook, add_gradients_summaries,  # noqa: F401
                             checkpoints_iterator, clip_gradient_norms, clip_gradient_norms_fn, create_train_op,
                             evaluate_once, evaluate_repeatedly, get_or_create_eval_step, multiply_gradients, train,
                             wait_for_new_checkpoint)

_PAIR = re.compile(r"\s*(?P<name>[a-zA-Z][\w.]*)(?:\[(?P<index>\d+)\])?\s*=\s*"
                   r"(?:\[(?P<list>[^\]]*)\]|(?P<value>[^,\[]*))\s*(?:,|$)")


def _kind(value):
    """The type a hyperparameter keeps (bool before int: a bool is an int in Python); any
    other value keeps its own type, and None none (TF's HParams takes them so)."""
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return kind
    return type(value)


def _cast(name: str, kind, value, parse: bool = False):
    """``value`` as ``kind``, as TensorFlow's HParams casts: an int becomes a float, but no
    float an int, no number a bool or a string, nor the reverse; with ``parse`` (``parse()``'s
    values) a string is read as the type. A hyperparameter first set to None takes any
    value; one of another type takes values of that type."""
    if kind is type(None) or (kind not in (bool, int, float, str) and isinstance(value, kind)):
        return value
    if kind not in (bool, int, float, str):
        raise ValueError(f"Could not cast hparam '{name}' of type '{kind.__name__}' from value {value!r}")
    if isinstance(value, str) and kind is not str and not parse:
        raise ValueError(f"Could not cast hparam '{name}' of type '{kind.__name__}' from value {value!r}")
    if isinstance(value, str) and kind is not str:
        text = value.strip()
        if kind is bool:
            if text.lower() in ("true", "1"):
                return True
            if text.lower() in ("false", "0"):
                return False
            raise ValueError(f"Could not parse hparam '{name}' of type 'bool' with value {value!r}")
        try:
            value = int(text) if kind is int else float(text)
        except ValueError:
            raise ValueError(f"Could not parse hparam '{name}' of type '{kind.__name__}' with value "
                             f"{value!r}") from None
        return value
    if kind is bool:
        if not isinstance(value, bool):
            raise ValueError(f"Could not cast hparam '{name}' of type 'bool' from value {value!r}")
        return value
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise ValueError(f"Could not cast hparam '{name}' of type 'int' from value {value!r}")
        return int(value)
    if kind is float:
        if isinstance(value, bool) or not isinstance(value, numbers.Number):
            raise ValueError(f"Could not cast hparam '{name}' of type 'float' from value {value!r}")
        return float(value)
    if not isinstance(value, str):
        raise ValueError(f"Could not cast hparam '{name}' of type 'str' from value {value!r}")
    return value


def parse_values(values, type_map) -> dict:
    """``{name: value}`` of ``values`` ("a=1,b=[1,2],c=text"), each value (or each element of a
    list) read as its name's type in ``type_map``."""
    parsed = {}
    position = 0
    text = values.strip()
    while position < len(text):
        match = _PAIR.match(text, position)
        if not match or match.end() == position:
            raise ValueError(f"Malformed hyperparameter value: {text[position:]!r}")
        name, index = match.group("name"), match.group("index")
        if name not in type_map:
            raise ValueError(f"Unknown hyperparameter type for {name}")
        kind = type_map[name]
        if index is not None:  # ("arr[1]=10": {1: 10}, the positions of a list to set)
            if match.group("list") is not None:
                raise ValueError(f"Assignment of a list to a list index. In {values}")
            positions = parsed.setdefault(name, {})
            if not isinstance(positions, dict):
                raise ValueError(f"Multiple assignments to variable '{name}' in {values}")
            if int(index) in positions:
                raise ValueError(f"Multiple assignments to variable '{name}[{index}]' in {values}")
            positions[int(index)] = _cast(name, kind, match.group("value"), parse=True)
        elif name in parsed:
            raise ValueError(f"Multiple assignments to variable '{name}' in {values}")
        elif match.group("list") is not None:
            parsed[name] = [_cast(name, kind, v, parse=True) for v in match.group("list").split(",") if v.strip()]
        else:
            parsed[name] = _cast(name, kind, match.group("value"), parse=True)
        position = match.end()
    return parsed


class HParams:
    """Hyperparameters as attributes: ``HParams(learning_rate=0.1, layers=[64, 32])``."""

    def __init__(self, hparam_def=None, model_structure=None, **kwargs):
        if hparam_def is not None:
            raise ValueError("HParams(hparam_def=...) (a protocol buffer) is not supported: give the values as "
                             "keyword arguments")
        self._hparam_types: dict = {}
        self._model_structure = model_structure
        for name, value in kwargs.items():
            self.add_hparam(name, value)

    def add_hparam(self, name, value):
        if getattr(self, name, None) is not None or name in self._hparam_types:
            raise ValueError(f"Hyperparameter name is reserved: {name}")
        if isinstance(value, (list, tuple)):
            if not value:
                raise ValueError(f"Multi-valued hyperparameters cannot be empty: {name}")
            self._hparam_types[name] = (_kind(value[0]), True)
        else:
            self._hparam_types[name] = (_kind(value), False)
        setattr(self, name, list(value) if isinstance(value, (list, tuple)) else value)

    def set_hparam(self, name, value):
        kind, is_list = self._hparam_types[name]
        if isinstance(value, (list, tuple)):
            if not is_list:
                raise ValueError(f"Must not pass a list for single-valued parameter: {name}")
            setattr(self, name, [_cast(name, kind, v) for v in value])
        else:
            if is_list:
                raise ValueError(f"Must pass a list for multi-valued parameter: {name}.")
            setattr(self, name, _cast(name, kind, value))

    def del_hparam(self, name):
        if name in self._hparam_types:
            delattr(self, name)
            del self._hparam_types[name]

    def parse(self, values):
        """Sets the hyperparameters that ``values`` ("a=1,b=[1,2],c=text") names; returns self."""
        parsed = parse_values(values, {name: kind for name, (kind, _) in self._hparam_types.items()})
        for name, value in parsed.items():
            is_list = self._hparam_types[name][1]
            if isinstance(value, dict) and is_list:  # (positions of the list set)
                current = list(getattr(self, name))
                for i, item in value.items():
                    if i >= len(current):
                        raise ValueError(f"Index {i} is out of range for hyperparameter {name} of "
                                         f"{len(current)} values")
                    current[i] = item
                value = current
            if isinstance(value, list) != is_list:
                raise ValueError(f"Must {'' if is_list else 'not '}pass a list for "
                                 f"{'multi' if is_list else 'single'}-valued parameter: {name}")
            self.set_hparam(name, value)
        return self

    def override_from_dict(self, values_dict):
        for name, value in values_dict.items():
            self.set_hparam(name, value)
        return self

    def set_model_structure(self, model_structure):
        self._model_structure = model_structure

    def get_model_structure(self):
        return self._model_structure

    def to_json(self, indent=None, separators=None, sort_keys=False) -> str:
        return json.dumps(self.values(), indent=indent, separators=separators, sort_keys=sort_keys)

    def parse_json(self, values_json):
        return self.override_from_dict(json.loads(values_json))

    def values(self) -> dict:
        return {name: getattr(self, name) for name in self._hparam_types}

    def get(self, key, default=None):
        """The hyperparameter's value, or ``default`` if there is none; a default of a type
        that the hyperparameter's could not take is a ValueError, as in TF."""
        if key not in self._hparam_types:
            return default
        if default is not None:
            kind, is_list = self._hparam_types[key]
            problem = f"Hparam '{key}' of type '{'list<' + kind.__name__ + '>' if is_list else kind.__name__}' is " \
                      f"incompatible with default={default!r}"
            if is_list != isinstance(default, list):
                raise ValueError(problem)
            try:
                for v in (default if is_list else [default]):
                    _cast(key, kind, v)
            except ValueError as e:
                raise ValueError(f"{problem}. {e}") from None
        return getattr(self, key)

    def __contains__(self, key):
        return key in self._hparam_types

    def __str__(self):
        return str(sorted(self.values().items()))

    def __repr__(self):
        return f"HParams({self.values()!r})"


__getattr__ = missing("tf.contrib.training")
