"""TensorFlow's type and count attrs of a node, from its inputs and outputs, for the GraphDefs
distflow exports, so that TensorFlow imports them.

TensorFlow's NodeDefs name the dtypes of their arguments in attrs (``T`` of ``AddV2``,
``SrcT``/``DstT`` of ``Cast``, ``Tidx`` of ``Sum``, ``dtypes`` of ``SaveV2``) and the lengths
of list arguments (``N`` of ``ConcatV2``); its importer requires those without defaults.
distflow knows the same from the tensors themselves, and does not keep them. Which
argument determines which attr is TensorFlow's op signature, read from a TensorFlow
installation into tf_op_signatures.json beside this file (tools/make_tf_op_signatures.py).
An attr the node has already is kept; one that cannot be determined (two list arguments
of unknown lengths) is left out. Ops TensorFlow does not have, or has in another form
(distflow's If and While with their functions, ResizeImage), stay as they are: TensorFlow
cannot import a graph holding them.
"""

from __future__ import annotations

import functools
import json
import os

from . import dtypes


@functools.lru_cache(maxsize=1)
def signatures() -> dict:
    """TensorFlow's op signatures: op type -> {"in", "out": [[type attr, count attr,
    type-list attr], ...] per argument, "attrs": its attr names, "required": those with no
    default}."""
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_op_signatures.json"),
              encoding="utf-8") as f:
        return json.load(f)


def _split(arguments: list, tensors: list, known: dict) -> list | None:
    """``tensors`` grouped by ``arguments`` (one tensor each, or a list for a count or
    type-list argument), or None where the lengths of the lists cannot be told."""
    lists = [k for k, (_, count, type_list) in enumerate(arguments) if count or type_list]
    lengths = {}
    for k in lists:
        count = arguments[k][1]
        if count and isinstance(known.get(count), int):
            lengths[k] = known[count]
    unknown = [k for k in lists if k not in lengths]
    if len(unknown) > 1:
        return None
    if unknown:
        lengths[unknown[0]] = len(tensors) - (len(arguments) - len(lists)) - sum(lengths.values())
    if lengths and min(lengths.values()) < 0:
        return None
    groups, position = [], 0
    for k in range(len(arguments)):
        n = lengths.get(k, 1) if k in lists else 1
        groups.append(tensors[position:position + n] if k in lists else tensors[position:position + 1])
        position += n
    return groups if position == len(tensors) else None


def tensorflow_attrs(op_type: str, inputs: list, outputs: list, attrs: dict) -> dict:
    """The attrs TensorFlow's ``op_type`` takes from its arguments (dtypes, and lengths of lists)
    that ``attrs`` lacks, from the dtypes of ``inputs`` and ``outputs`` (Tensors)."""
    signature = signatures().get(op_type)
    if signature is None:
        return {}
    found: dict = {}
    for arguments, tensors in ((signature["in"], inputs), (signature["out"], outputs)):
        groups = _split(arguments, tensors, {**attrs, **found})
        if groups is None:
            continue
        for (type_attr, count, type_list), group in zip(arguments, groups):
            types = [t.dtype.base_dtype for t in group]
            if type_attr and types and type_attr not in attrs:
                found.setdefault(type_attr, types[0])
            if count and count not in attrs:
                found.setdefault(count, len(group))
            if type_list and type_list not in attrs:
                found.setdefault(type_list, types)
    return {k: v for k, v in found.items() if k in signature["attrs"] and _storable(v)}


def _storable(value) -> bool:
    """A dtype TensorFlow's GraphDefs can name (distflow's variant lists are TensorFlow's too)."""
    values = value if isinstance(value, list) else [value]
    return all(not isinstance(v, dtypes.DType) or v.as_datatype_enum > 0 for v in values)
