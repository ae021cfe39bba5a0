"""The value of a ``variant`` tensor that holds a list of tensors (a TensorArray's contents).

Immutable: an op that changes a list makes a new one (sharing the element arrays), so
a loop can keep every iteration's list for its gradient without copying arrays.
``None`` marks an element not written yet; in a gradient list it stands for zeros.
"""

from __future__ import annotations


class TensorList:
    __slots__ = ("items", "dynamic")

    def __init__(self, items=(), dynamic: bool = False):
        self.items = tuple(items)
        self.dynamic = dynamic

    def __len__(self):
        return len(self.items)

    def replaced(self, index: int, value) -> "TensorList":
        items = list(self.items)
        if index >= len(items):
            items.extend([None] * (index + 1 - len(items)))
        items[index] = value
        return TensorList(items, self.dynamic)

    def zeros_like(self) -> "TensorList":
        """A gradient list of the same length with no values (zeros)."""
        return TensorList((None,) * len(self.items), self.dynamic)

    def add(self, other: "TensorList") -> "TensorList":
        """Element-wise sum of two gradient lists (a missing element is zeros)."""
        n = max(len(self.items), len(other.items))
        a = self.items + (None,) * (n - len(self.items))
        b = other.items + (None,) * (n - len(other.items))
        return TensorList([x if y is None else y if x is None else x + y for x, y in zip(a, b)], self.dynamic)

    def __repr__(self):
        return f"TensorList({len(self.items)} items)"
