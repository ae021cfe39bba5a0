"""Static shapes: ``TensorShape`` with unknown dimensions and unknown rank."""

from __future__ import annotations


class Dimension:
    """One dimension of a shape; ``value`` is an int or None (unknown), as in TF 1.x."""

    __slots__ = ("_value",)

    def __init__(self, value):
        if isinstance(value, Dimension):
            value = value.value
        if value is not None:
            try:
                iv = int(value)
            except (TypeError, ValueError):
                raise TypeError(f"Dimension value must be an int or None, got {value!r}") from None
            if (iv != value and not isinstance(value, (str, bytes))) or iv < 0:  # ("12" is 12, as in TF)
                raise ValueError(f"Dimension {value!r} must be a non-negative integer")
            value = iv
        self._value = value

    @property
    def value(self):
        return self._value

    def __int__(self) -> int:
        if self._value is None:
            raise TypeError("Cannot convert an unknown Dimension to an int")
        return self._value

    __index__ = __int__

    def __eq__(self, other):
        """True or False, or None where either side is unknown; False against what is no
        dimension at all ("_", 12.5), as TF's."""
        try:
            other_value = as_dimension(other).value
        except (TypeError, ValueError):
            return False
        if self._value is None or other_value is None:
            return None
        return self._value == other_value

    def __ne__(self, other):
        eq = self.__eq__(other)
        return None if eq is None else not eq

    def __hash__(self):
        return hash(self._value)

    def is_compatible_with(self, other) -> bool:
        other_value = other.value if isinstance(other, Dimension) else other
        return self._value is None or other_value is None or self._value == other_value

    def merge_with(self, other) -> "Dimension":
        other = as_dimension(other)
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {other} are not compatible")
        return self if self._value is not None else other

    def assert_is_compatible_with(self, other) -> None:
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {other} are not compatible")

    # Arithmetic and order as TF 1.x's: unknown when either side is unknown.
    def _combine(self, other, fn):
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other.value is None:
            return Dimension(None)
        return Dimension(fn(self._value, other.value))

    def __add__(self, other):
        return self._combine(other, lambda a, b: a + b)

    __radd__ = __add__

    def __sub__(self, other):
        return self._combine(other, lambda a, b: a - b)

    def __rsub__(self, other):
        return self._combine(other, lambda a, b: b - a)

    def __mul__(self, other):
        return self._combine(other, lambda a, b: a * b)

    __rmul__ = __mul__

    def __floordiv__(self, other):
        return self._combine(other, lambda a, b: a // b)

    def __rfloordiv__(self, other):
        return self._combine(other, lambda a, b: b // a)

    def __mod__(self, other):
        return self._combine(other, lambda a, b: a % b)

    def __rmod__(self, other):
        return self._combine(other, lambda a, b: b % a)

    def __truediv__(self, other):
        raise TypeError(f"unsupported operand type(s) for /: 'Dimension' and '{type(other).__name__}', "
                        "please use // instead")

    def _compare(self, other, fn):
        other = as_dimension(other)
        if self._value is None or other.value is None:
            return None
        return fn(self._value, other.value)

    def __lt__(self, other):
        return self._compare(other, lambda a, b: a < b)

    def __le__(self, other):
        return self._compare(other, lambda a, b: a <= b)

    def __gt__(self, other):
        return self._compare(other, lambda a, b: a > b)

    def __ge__(self, other):
        return self._compare(other, lambda a, b: a >= b)

    def __repr__(self):
        return f"Dimension({self._value})"

    def __str__(self):
        return "?" if self._value is None else str(self._value)


def as_dimension(value) -> Dimension:
    return value if isinstance(value, Dimension) else Dimension(value)


def dimension_value(dim):
    return dim.value if isinstance(dim, Dimension) else dim


class TensorShape:
    """A possibly partial shape: ``dims`` is None for unknown rank."""

    __slots__ = ("_dims",)

    def __init__(self, dims=None):
        if dims is None:
            self._dims = None
        elif dims.__class__ in (list, tuple) and all(d is None or d.__class__ is int and d >= 0 for d in dims):
            self._dims = tuple(dims)  # (the common case, without a Dimension a dimension)
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif hasattr(dims, "unknown_rank") and hasattr(dims, "dim"):  # a TensorShapeProto
            self._dims = None if dims.unknown_rank else tuple(None if d.size == -1 else int(d.size)
                                                              for d in dims.dim)
        elif isinstance(dims, (str, bytes)):
            raise TypeError(f"A string is not a shape: {dims!r}")
        else:
            if isinstance(dims, (int, Dimension)):
                dims = [dims]
            self._dims = tuple(dimension_value(as_dimension(d)) for d in dims)

    @property
    def dims(self):
        return None if self._dims is None else [Dimension(d) for d in self._dims]

    @property
    def ndims(self):
        return None if self._dims is None else len(self._dims)

    rank = ndims

    def as_list(self) -> list:
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def as_tuple(self):
        """The dims as a tuple of int/None, or None for unknown rank."""
        return self._dims

    def is_fully_defined(self) -> bool:
        return self._dims is not None and all(d is not None for d in self._dims)

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d
        return n

    def is_compatible_with(self, other) -> bool:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other) -> None:
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def merge_with(self, other) -> "TensorShape":
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        self.assert_is_compatible_with(other)
        return TensorShape([a if a is not None else b for a, b in zip(self._dims, other._dims)])

    def concatenate(self, other) -> "TensorShape":
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def assert_is_fully_defined(self) -> None:
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def assert_same_rank(self, other) -> None:
        other = as_shape(other)
        if self._dims is not None and other._dims is not None and len(self._dims) != len(other._dims):
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def most_specific_compatible_shape(self, other) -> "TensorShape":
        """The most specific shape that both this one and ``other`` are compatible with: each
        dimension where they agree, unknown where they differ; unknown rank if their ranks do."""
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return TensorShape(None)
        return TensorShape([a if a == b else None for a, b in zip(self._dims, other._dims)])

    def as_proto(self):
        """TensorFlow's TensorShapeProto of this shape (-1 for an unknown dimension)."""
        from ..protos import distflow_pb2  # noqa: PLC0415 - protobuf only for programs that ask

        proto = distflow_pb2.TensorShapeProto(unknown_rank=self._dims is None)
        for d in self._dims or ():
            proto.dim.add(size=-1 if d is None else d)
        return proto

    def with_rank(self, rank: int) -> "TensorShape":
        if self._dims is None:
            return TensorShape([None] * rank)
        if len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self

    def with_rank_at_least(self, rank: int) -> "TensorShape":
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank: int) -> "TensorShape":
        if self._dims is not None and len(self._dims) > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    def assert_has_rank(self, rank: int) -> None:
        self.with_rank(rank)

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of a shape with unknown rank.")
        return len(self._dims)

    def __bool__(self):
        return self._dims is not None

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(Dimension(d) for d in self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            return TensorShape(None) if isinstance(key, slice) else Dimension(None)
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return Dimension(self._dims[key])

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return hash(self._dims)

    def __repr__(self):
        return f"TensorShape({self.as_list() if self._dims is not None else None})"

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return f"({'?' if self._dims[0] is None else self._dims[0]},)"
        return "(" + ", ".join("?" if d is None else str(d) for d in self._dims) + ")"


def as_shape(shape) -> TensorShape:
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def unknown_shape(rank=None, ndims=None) -> TensorShape:
    """A shape of unknown dimensions: of ``rank`` (TF 1.x's ``ndims``) of them, or of unknown rank."""
    rank = ndims if rank is None else rank
    return TensorShape(None if rank is None else [None] * rank)


def scalar() -> TensorShape:
    return TensorShape([])


def vector(length) -> TensorShape:
    return TensorShape([length])


def matrix(rows, cols) -> TensorShape:
    return TensorShape([rows, cols])
