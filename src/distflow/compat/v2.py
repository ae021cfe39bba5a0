"""``import distflow.compat.v2``: refused, with the reason (TF 2's API is out of scope)."""

from . import V2_REFUSED

raise ImportError(V2_REFUSED)
