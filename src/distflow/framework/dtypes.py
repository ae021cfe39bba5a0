"""Element types (``tf.float32`` and friends), each with a reference twin.

A *reference* dtype (``float32_ref``) is the type of a variable's own output: it
names the variable's storage rather than a value. Ops that update a variable take
a reference input; everything else sees the value.
"""

from __future__ import annotations

import numpy as np


class DType:
    """An element type. Compare with ``==``; ``as_numpy_dtype`` gives NumPy's."""

    __slots__ = ("_name", "_np", "_is_ref", "_enum")

    def __new__(cls, name, np_type=None, enum=None, is_ref: bool = False):
        if np_type is None and enum is None:  # TF's DType(type_enum): the registered type
            if not isinstance(name, int) or isinstance(name, type(True)):  # (this module names its bool type "bool")
                raise TypeError(f"DType(type_enum) needs a DataType enum value, got {name!r}")
            return as_dtype(name)
        return super().__new__(cls)

    def __init__(self, name: str, np_type=None, enum: int | None = None, is_ref: bool = False):
        if np_type is None and enum is None:
            return  # (DType(type_enum): __new__ gave the registered type, already made)
        self._name = name
        self._np = np_type
        self._enum = enum
        self._is_ref = is_ref

    @property
    def name(self) -> str:
        return self._name

    @property
    def as_numpy_dtype(self):
        return self._np

    @property
    def as_datatype_enum(self) -> int:
        """TensorFlow's DataType enum value (``+100`` for reference types)."""
        return self._enum + (100 if self._is_ref else 0)

    @property
    def is_ref_dtype(self) -> bool:
        return self._is_ref

    @property
    def base_dtype(self) -> "DType":
        return _BY_NAME[self._name[:-4]] if self._is_ref else self

    @property
    def _as_ref(self) -> "DType":
        return self if self._is_ref else _BY_NAME[self._name + "_ref"]

    @property
    def is_floating(self) -> bool:
        return self.base_dtype._name in ("float16", "float32", "float64")

    @property
    def is_integer(self) -> bool:
        return self.base_dtype._name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")

    @property
    def is_unsigned(self) -> bool:
        return self.base_dtype._name in ("uint8", "uint16", "uint32", "uint64")

    @property
    def is_complex(self) -> bool:
        return self.base_dtype._name in ("complex64", "complex128")

    @property
    def real_dtype(self) -> "DType":
        """float32 for complex64, float64 for complex128, the dtype itself otherwise."""
        return {"complex64": float32, "complex128": float64}.get(self.base_dtype._name, self.base_dtype)

    @property
    def is_bool(self) -> bool:
        return self.base_dtype._name == "bool"

    @property
    def is_numeric(self) -> bool:
        return self.is_floating or self.is_integer or self.is_complex

    @property
    def size(self) -> int:
        """Bytes per element (strings count as 8, a pointer)."""
        return 8 if self.base_dtype._name == "string" else np.dtype(self._np).itemsize

    @property
    def min(self):
        return np.finfo(self._np).min if self.is_floating else np.iinfo(self._np).min

    @property
    def max(self):
        return np.finfo(self._np).max if self.is_floating else np.iinfo(self._np).max

    def is_compatible_with(self, other) -> bool:
        return self.base_dtype == as_dtype(other).base_dtype

    def __eq__(self, other) -> bool:
        if other is None:
            return False
        if not isinstance(other, DType):
            try:
                other = as_dtype(other)
            except TypeError:
                return False
        return self._name == other._name

    def __ne__(self, other) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(self._name)

    def __repr__(self) -> str:
        return "tf." + self._name

    def __reduce__(self):
        return as_dtype, (self._name,)


_SPECS = [  # name, numpy type, TensorFlow DataType enum
    ("float32", np.float32, 1),
    ("float64", np.float64, 2),
    ("int32", np.int32, 3),
    ("uint8", np.uint8, 4),
    ("int16", np.int16, 5),
    ("int8", np.int8, 6),
    ("string", np.object_, 7),
    ("int64", np.int64, 9),
    ("bool", np.bool_, 10),
    ("float16", np.float16, 19),
    ("uint16", np.uint16, 17),
    ("uint32", np.uint32, 22),
    ("uint64", np.uint64, 23),
    ("complex64", np.complex64, 8),
    ("complex128", np.complex128, 18),
]
_BY_NAME: dict[str, DType] = {}
for _name, _np_type, _enum in _SPECS:
    _BY_NAME[_name] = DType(_name, _np_type, _enum)
    _BY_NAME[_name + "_ref"] = DType(_name + "_ref", _np_type, _enum, is_ref=True)

float16 = half = _BY_NAME["float16"]
float32 = _BY_NAME["float32"]
float64 = double = _BY_NAME["float64"]
int8 = _BY_NAME["int8"]
int16 = _BY_NAME["int16"]
int32 = _BY_NAME["int32"]
int64 = _BY_NAME["int64"]
uint8 = _BY_NAME["uint8"]
uint16 = _BY_NAME["uint16"]
uint32 = _BY_NAME["uint32"]
uint64 = _BY_NAME["uint64"]
complex64 = _BY_NAME["complex64"]
complex128 = _BY_NAME["complex128"]
bool = _BY_NAME["bool"]  # noqa: A001 - TensorFlow's name
string = _BY_NAME["string"]
float32_ref = _BY_NAME["float32_ref"]
float64_ref = _BY_NAME["float64_ref"]
int32_ref = _BY_NAME["int32_ref"]
int64_ref = _BY_NAME["int64_ref"]

_BY_NUMPY = {np.dtype(spec[1]): _BY_NAME[spec[0]] for spec in _SPECS}

# A value of no fixed element type: what a loop keeps per iteration for its gradient (a
# list of arrays) and a TensorArray's contents. It never comes from a NumPy array.
variant = _BY_NAME["variant"] = DType("variant", np.object_, 21)
# A handle to state a kernel keeps (TensorFlow's DT_RESOURCE): what the TensorArray ops of a
# TensorFlow GraphDef pass between them. It never comes from a NumPy array either.
resource = _BY_NAME["resource"] = DType("resource", np.object_, 20)
_BY_ENUM = {d.as_datatype_enum: d for d in _BY_NAME.values()}
_ALIASES = {"float": float32, "double": float64, "half": float16, "str": string,
            "bytes": string, "object": string}


def as_dtype(type_value) -> DType:
    """Converts a DType, NumPy dtype, type name or DataType enum to a DType.

    Raises:
      TypeError: if ``type_value`` names no supported type.
    """
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, str):
        found = _BY_NAME.get(type_value) or _ALIASES.get(type_value)
        if found is not None:
            return found
    elif isinstance(type_value, int) and not isinstance(type_value, (np.generic,)):
        if type_value in _BY_ENUM:
            return _BY_ENUM[type_value]
    else:
        try:
            np_dtype = np.dtype(type_value)
        except TypeError:
            np_dtype = None
        if np_dtype is not None:
            if np_dtype.kind in "US":
                return string
            if np_dtype in _BY_NUMPY:
                return _BY_NUMPY[np_dtype]
    raise TypeError(f"Cannot convert {type_value!r} to a distflow DType; supported types are "
                    f"{sorted(n for n in _BY_NAME if not n.endswith('_ref'))}")
