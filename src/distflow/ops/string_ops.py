"""String ops on string tensors (NumPy object arrays of bytes): join, strip, substr, regex replace,
number conversion, base64, length."""

from __future__ import annotations

import base64
import re

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import TensorShape
from . import array_ops, math_ops
from .op_util import broadcast_shape, constant_value, make_tensor


def _as_bytes(v) -> bytes:
    return v if isinstance(v, bytes) else str(v).encode()


def _map(fn, x):
    flat = np.asarray(x, dtype=object)
    out = np.empty(flat.shape, dtype=object)
    for i, v in np.ndenumerate(flat):
        out[i] = fn(_as_bytes(v))
    return out


def _strings(op):
    return op.inputs[0].shape


@register_op("StringJoin", shape=lambda op: _broadcast_all(op.inputs), dtype=lambda op: dtypes.string)
def _string_join_kernel(xp, *inputs, separator):
    arrays = np.broadcast_arrays(*[np.asarray(i, dtype=object) for i in inputs])
    out = np.empty(arrays[0].shape, dtype=object)
    for index in np.ndindex(arrays[0].shape):
        out[index] = _as_bytes(separator).join(_as_bytes(a[index]) for a in arrays)
    return out


def _broadcast_all(inputs):
    shape = inputs[0].shape
    for t in inputs[1:]:
        shape = broadcast_shape(shape, t.shape)
    return shape


@register_op("StringStrip", shape=_strings, dtype=lambda op: dtypes.string)
def _string_strip_kernel(xp, x):
    return _map(lambda b: b.strip(), x)


def _change_case(x, encoding: str, upper: bool):
    """ASCII letters only with no encoding (as TF's); every letter with ``encoding="utf-8"``."""
    if encoding == "":
        return _map(lambda b: b.upper() if upper else b.lower(), x)
    if encoding.lower().replace("-", "") != "utf8":
        raise errors.InvalidArgumentError(None, None, f"String case: encoding must be '' or 'utf-8', got "
                                          f"{encoding!r}")
    return _map(lambda b: (b.decode("utf-8").upper() if upper else b.decode("utf-8").lower()).encode("utf-8"), x)


@register_op("StringUpper", shape=_strings, dtype=lambda op: dtypes.string)
def _string_upper_kernel(xp, x, *, encoding):
    return _change_case(x, encoding, upper=True)


@register_op("StringLower", shape=_strings, dtype=lambda op: dtypes.string)
def _string_lower_kernel(xp, x, *, encoding):
    return _change_case(x, encoding, upper=False)


@register_op("StringLength", shape=_strings, dtype=lambda op: dtypes.int32)
def _string_length_kernel(xp, x, *, unit):
    return _map(lambda b: len(b.decode("utf-8")) if unit == "UTF8_CHAR" else len(b), x).astype(np.int32)


@register_op("Substr", shape=_strings, dtype=lambda op: dtypes.string)
def _substr_kernel(xp, x, pos, length, *, unit="BYTE"):
    strings, pos, length = np.broadcast_arrays(np.asarray(x, dtype=object), np.asarray(pos), np.asarray(length))
    out = np.empty(strings.shape, dtype=object)
    for i in np.ndindex(strings.shape):
        s = _as_bytes(strings[i])
        if unit == "UTF8_CHAR":  # (positions and lengths in characters; the result UTF-8 again)
            try:
                s = s.decode("utf-8")
            except UnicodeDecodeError:
                raise errors.InvalidArgumentError(None, None, f"Substr(unit='UTF8_CHAR'): the string at index "
                                                  f"{i} is not valid UTF-8") from None
        p = int(pos[i])
        if p > len(s) or p < -len(s):
            raise errors.InvalidArgumentError(None, None, f"pos {p} out of range for string b'{s!r}' at index {i}")
        part = s[p:p + int(length[i])] if p >= 0 else s[len(s) + p:len(s) + p + int(length[i])]
        out[i] = part.encode("utf-8") if isinstance(part, str) else part
    return out


@register_op("RegexReplace", shape=_strings, dtype=lambda op: dtypes.string)
def _regex_replace_kernel(xp, x, pattern, rewrite, *, replace_global):
    regex = re.compile(_as_bytes(np.asarray(pattern).item()))
    rewrite = re.sub(rb"\\(\d)", rb"\\g<\1>", _as_bytes(np.asarray(rewrite).item()))
    return _map(lambda b: regex.sub(rewrite, b, count=0 if replace_global else 1), x)


@register_op("StringToNumber", shape=_strings, dtype=lambda op: op._attr("out_type"))
def _string_to_number_kernel(xp, x, *, out_type):
    def convert(b):
        try:
            return float(b) if out_type.is_floating else int(b)
        except ValueError:
            raise errors.InvalidArgumentError(None, None, f"StringToNumberOp could not correctly convert string: "
                                                          f"{b.decode(errors='replace')}") from None
    return _map(convert, x).astype(out_type.as_numpy_dtype)


@register_op("AsString", shape=_strings, dtype=lambda op: dtypes.string)
def _as_string_kernel(xp, x, *, precision, scientific=False, shortest=False, width=-1, fill=""):
    # TF's kernel builds one printf format ("%" fill width "." precision conversion), as here
    x = np.asarray(x)
    if x.dtype == np.bool_:
        return _map_values(lambda v: (b"true" if v else b"false"), x)
    spec = "%" + (f"{fill}{width}" if width > -1 else "")
    if x.dtype.kind in "fc":
        spec += (f".{precision}" if precision > -1 else "") + ("g" if shortest else "e" if scientific else "f")
    else:
        spec += "d"
    if x.dtype.kind == "c":
        return _map_values(lambda v: (f"({spec % v.real},{spec % v.imag})").encode(), x)
    return _map_values(lambda v: (spec % v).encode(), x)


def _map_values(fn, x):
    out = np.empty(np.shape(x), dtype=object)
    for i, v in np.ndenumerate(np.asarray(x)):
        out[i] = fn(v)
    return out


@register_op("EncodeBase64", shape=_strings, dtype=lambda op: dtypes.string)
def _encode_base64_kernel(xp, x, *, pad):
    return _map(lambda b: base64.urlsafe_b64encode(b) if pad else base64.urlsafe_b64encode(b).rstrip(b"="), x)


@register_op("DecodeBase64", shape=_strings, dtype=lambda op: dtypes.string)
def _decode_base64_kernel(xp, x):
    def decode(b):
        if not _WEB_SAFE.fullmatch(b):
            raise errors.InvalidArgumentError(None, None, f"DecodeBase64: invalid character found in web-safe "
                                                          f"base64: {b[:40]!r}")
        if len(b.rstrip(b"=")) % 4 == 1:
            raise errors.InvalidArgumentError(None, None, f"DecodeBase64: invalid base64 length: "
                                                          f"{len(b.rstrip(b'='))}, 1 modulo 4: {b[:40]!r}")
        return base64.urlsafe_b64decode(b.rstrip(b"=") + b"=" * (-len(b.rstrip(b"=")) % 4))
    return _map(decode, x)


_WEB_SAFE = re.compile(rb"[A-Za-z0-9_-]*={0,2}")


def _join_axes(axes, rank: int, fail) -> list:
    """``axes`` as non-negative axes, checked as TF's ReduceJoin checks them (``fail`` raises)."""
    out = []
    for a in axes:
        if not -rank <= a < rank:
            fail(f"Invalid reduction dimension {a} for input with {rank} dimension(s)")
        if a % rank in out:
            fail(f"Duplicate reduction dimension {a}")
        out.append(a % rank)
    return out


def _reduce_join_shape(op):
    x, axis = op.inputs[0].shape, constant_value(op.inputs[1])
    if x.ndims is None or axis is None:
        return TensorShape(None)

    def fail(message):
        raise ValueError(message)

    axes = _join_axes([int(a) for a in np.reshape(axis, -1)], x.ndims, fail)
    dims = x.as_list()
    if op._attr("keep_dims"):
        return TensorShape([1 if i in axes else d for i, d in enumerate(dims)])
    return TensorShape([d for i, d in enumerate(dims) if i not in axes])


@register_op("ReduceJoin", shape=_reduce_join_shape, dtype=lambda op: dtypes.string)
def _reduce_join_kernel(xp, x, axis, *, keep_dims, separator):
    """Joins along each axis in the order given (TF's: the first one given joined first)."""
    arr = np.asarray(x, dtype=object)

    def fail(message):
        raise errors.InvalidArgumentError(None, None, f"ReduceJoin: {message}")

    axes = _join_axes([int(a) for a in np.reshape(axis, -1)], arr.ndim, fail)
    glue = _as_bytes(separator)
    for a in axes:  # (not apply_along_axis: it sizes its output by the first row's string, truncating others)
        rows = np.moveaxis(arr, a, -1)
        joined = np.empty(rows.shape[:-1], dtype=object)
        for index in np.ndindex(joined.shape):
            joined[index] = glue.join(_as_bytes(v) for v in rows[index])
        arr = np.expand_dims(joined, a)
    return arr if keep_dims else arr.reshape([d for i, d in enumerate(arr.shape) if i not in axes])


for _t in ("StringJoin", "StringStrip", "StringLength", "Substr", "RegexReplace", "StringToNumber", "AsString",
           "EncodeBase64", "DecodeBase64", "ReduceJoin", "StringUpper", "StringLower"):
    not_differentiable(_t)


def _strings_input(x):
    return ops.convert_to_tensor(x, dtype=dtypes.string)


def string_join(inputs, separator="", name=None):
    """The element-wise concatenation of string tensors (broadcast), with ``separator`` between them."""
    return make_tensor("StringJoin", [_strings_input(i) for i in inputs], {"separator": separator}, name or "StringJoin")


def string_strip(input, name=None):  # noqa: A002
    return make_tensor("StringStrip", [_strings_input(input)], None, name or "StringStrip")


def upper(input, encoding="", name=None):  # noqa: A002
    """Each string with its letters upper-cased: ASCII ones only, unless ``encoding="utf-8"``."""
    return make_tensor("StringUpper", [_strings_input(input)], {"encoding": encoding}, name or "StringUpper")


def lower(input, encoding="", name=None):  # noqa: A002
    """Each string with its letters lower-cased: ASCII ones only, unless ``encoding="utf-8"``."""
    return make_tensor("StringLower", [_strings_input(input)], {"encoding": encoding}, name or "StringLower")


def string_length(input, name=None, unit="BYTE"):  # noqa: A002
    return make_tensor("StringLength", [_strings_input(input)], {"unit": unit}, name or "StringLength")


def substr(input, pos, len, name=None, unit="BYTE"):  # noqa: A002
    """``len`` bytes (or, with ``unit="UTF8_CHAR"``, characters) of each string from ``pos``
    (negative: from the end)."""
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise ValueError(f"substr: unit must be 'BYTE' or 'UTF8_CHAR', got {unit!r}")
    return make_tensor("Substr", [_strings_input(input), ops.convert_to_tensor(pos, dtype=dtypes.int32),
                                  ops.convert_to_tensor(len, dtype=dtypes.int32)], {"unit": unit},
                       name or "Substr")


def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    """Replaces matches of ``pattern`` (RE2-like; Python's re here) with ``rewrite`` (\\1 for groups)."""
    return make_tensor("RegexReplace", [_strings_input(input), _strings_input(pattern), _strings_input(rewrite)],
                       {"replace_global": bool(replace_global)}, name or "RegexReplace")


def string_to_number(string_tensor, out_type=dtypes.float32, name=None):
    return make_tensor("StringToNumber", [_strings_input(string_tensor)], {"out_type": dtypes.as_dtype(out_type)},
                       name or "StringToNumber")


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):  # noqa: A002
    """Each number as a string, as C's printf writes it (TF's AsString): floats "%f" by
    default ("1.500000"), ``precision`` digits after the point, ``scientific`` ("%e") or
    ``shortest`` ("%g"), at least ``width`` characters padded with ``fill`` ("" for
    spaces, or one of "0", " ", "-", "+")."""
    x = ops.convert_to_tensor(input)
    if scientific and shortest:
        raise ValueError("Cannot select both scientific and shortest notation")
    if len(fill) > 1 or fill not in ("", "0", " ", "-", "+"):
        raise ValueError(f"as_string: fill must be '', '0', ' ', '-' or '+' (a printf flag, as TF's kernel uses "
                         f"it), got {fill!r}")
    if precision > -1 and not (x.dtype.is_floating or x.dtype.is_complex):
        raise ValueError(f"as_string: precision not supported for {x.dtype.name}")
    if (scientific or shortest) and not (x.dtype.is_floating or x.dtype.is_complex):
        raise ValueError(f"as_string: scientific and shortest are for floats, not {x.dtype.name}")
    attrs = {"precision": int(precision), "scientific": bool(scientific), "shortest": bool(shortest),
             "width": int(width), "fill": fill}
    return make_tensor("AsString", [x], attrs, name or "AsString")


def encode_base64(input, pad=False, name=None):  # noqa: A002
    """Web-safe base64 (``-`` and ``_``), unpadded unless ``pad``, as TF."""
    return make_tensor("EncodeBase64", [_strings_input(input)], {"pad": bool(pad)}, name or "EncodeBase64")


def decode_base64(input, name=None):  # noqa: A002
    return make_tensor("DecodeBase64", [_strings_input(input)], None, name or "DecodeBase64")


def reduce_join(inputs, axis=None, keep_dims=False, separator="", name=None, reduction_indices=None, keepdims=None):
    """Joins the strings along ``axis`` (all of them when None)."""
    inputs = _strings_input(inputs)
    axis = reduction_indices if axis is None else axis
    if axis is None:  # (every axis, the last first: TF's default order)
        axis = list(range(inputs.shape.ndims - 1, -1, -1)) if inputs.shape.ndims is not None else \
            math_ops.range_(array_ops.rank(inputs) - 1, -1, -1)
    keep = bool(keepdims if keepdims is not None else keep_dims)
    return make_tensor("ReduceJoin", [inputs, ops.convert_to_tensor(axis, dtype=dtypes.int32)],
                       {"keep_dims": keep, "separator": separator}, name or "ReduceJoin")


# ---------------------------------------------------------------------------
# regex_full_match, format, unsorted_segment_join, ngrams


@register_op("RegexFullMatch", shape=_strings, dtype=lambda op: dtypes.bool)
def _regex_full_match_kernel(xp, x, pattern):
    regex = re.compile(_as_bytes(np.asarray(pattern).item()))
    flat = np.asarray(x, dtype=object)
    out = np.empty(flat.shape, dtype=bool)
    for i, v in np.ndenumerate(flat):
        out[i] = regex.fullmatch(_as_bytes(v)) is not None
    return out


@register_op("StaticRegexFullMatch", shape=_strings, dtype=lambda op: dtypes.bool)
def _static_regex_full_match_kernel(xp, x, *, pattern):
    return _regex_full_match_kernel(xp, x, np.asarray(pattern, dtype=object))


not_differentiable("StaticRegexFullMatch")


def regex_full_match(input, pattern, name=None):  # noqa: A002
    """Whether each whole string matches ``pattern`` (RE2-like; Python's re here). A pattern
    given as a Python string is an attribute of the op (TF's StaticRegexFullMatch, which
    TF's Saver graphs hold)."""
    if isinstance(pattern, (str, bytes)):
        return make_tensor("StaticRegexFullMatch", [_strings_input(input)],
                           {"pattern": pattern.decode() if isinstance(pattern, bytes) else pattern},
                           name or "StaticRegexFullMatch")
    return make_tensor("RegexFullMatch", [_strings_input(input), _strings_input(pattern)], None,
                       name or "RegexFullMatch")


def _format_scalar(v) -> str:
    if isinstance(v, (bytes, np.bytes_)):
        return '"' + bytes(v).decode("utf-8", "replace") + '"'
    if isinstance(v, str):
        return '"' + v + '"'
    if isinstance(v, (np.floating, float)):
        # (TensorFlow's: 6 significant digits (15 for a double) where they read back as the
        # same number, else 9 (17))
        short, full = (6, 9) if isinstance(v, np.float32) else (15, 17)
        text = f"{v:.{short}g}"
        return text if type(v)(text) == v else f"{v:.{full}g}"
    if isinstance(v, (np.bool_, bool)):
        return "1" if v else "0"
    return str(v)


def _format_tensor(x: np.ndarray, summarize: int, depth: int = 0) -> str:
    """TensorFlow's summary of a tensor: nested brackets, rows on lines of their own, and
    at most ``summarize`` entries at each end of a dimension (``...`` between)."""
    if x.ndim == 0:
        return _format_scalar(x[()])
    n = x.shape[0]
    shown = list(range(n)) if summarize < 0 or n <= 2 * summarize else (
        list(range(summarize)) + [None] + list(range(n - summarize, n)))
    parts = ["..." if i is None else _format_tensor(x[i, ...], summarize, depth + 1) for i in shown]
    if x.ndim == 1:
        return "[" + " ".join(parts) + "]"
    return "[" + ("\n" * (x.ndim - 1) + " " * (depth + 1)).join(parts) + "]"


def _string_format_kernel(xp, *inputs, template, placeholder, summarize):
    pieces = template.split(placeholder)
    if len(pieces) - 1 != len(inputs):
        raise errors.InvalidArgumentError(None, None, f"StringFormat: the template has {len(pieces) - 1} "
                                          f"placeholders but {len(inputs)} inputs were given")
    out = pieces[0]
    for value, piece in zip(inputs, pieces[1:]):
        out += _format_tensor(np.asarray(value), summarize) + piece
    return np.asarray(out.encode(), dtype=object)


register_op("StringFormat", shape=lambda op: TensorShape([]), dtype=lambda op: dtypes.string)(_string_format_kernel)


def string_format(template, inputs, placeholder="{}", summarize=3, name=None):
    """``template`` with each ``placeholder`` replaced by a summary of the next input tensor
    (``summarize`` entries at each end of every dimension; -1 for all)."""
    if not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    tensors = [ops.convert_to_tensor(t) for t in inputs]
    if template.count(placeholder) != len(tensors):
        raise ValueError(f"string_format: {template.count(placeholder)} placeholders in {template!r} for "
                         f"{len(tensors)} inputs")
    return make_tensor("StringFormat", tensors, {"template": template, "placeholder": placeholder,
                                                 "summarize": int(summarize)}, name or "StringFormat")


def _segment_join_shape(op):
    return TensorShape([None]).concatenate(op.inputs[0].shape[op.inputs[1].shape.ndims or 1:]) \
        if op.inputs[0].shape.ndims is not None and op.inputs[1].shape.ndims is not None else TensorShape(None)


@register_op("UnsortedSegmentJoin", shape=_segment_join_shape, dtype=lambda op: dtypes.string)
def _unsorted_segment_join_kernel(xp, x, segment_ids, num_segments, *, separator):
    x, ids = np.asarray(x, dtype=object), np.asarray(segment_ids)
    n = int(num_segments)
    if x.shape[:ids.ndim] != ids.shape:
        raise errors.InvalidArgumentError(None, None, f"UnsortedSegmentJoin: segment_ids's shape {list(ids.shape)} "
                                          f"must be a prefix of the input's {list(x.shape)}")
    rows = x.reshape((-1,) + x.shape[ids.ndim:])
    out = np.empty((n,) + rows.shape[1:], dtype=object)
    joined = {i: [] for i in range(n)}
    for k, segment in enumerate(ids.reshape(-1)):
        if not 0 <= segment < n:
            raise errors.InvalidArgumentError(None, None, f"UnsortedSegmentJoin: segment id {segment} is not in "
                                              f"[0, {n})")
        joined[int(segment)].append(k)
    sep = separator.encode()
    for i in range(n):
        for index in np.ndindex(*rows.shape[1:]):
            out[(i,) + index] = sep.join(_as_bytes(rows[(k,) + index]) for k in joined[i])
    return out


def unsorted_segment_join(inputs, segment_ids, num_segments, separator="", name=None):
    """The strings of each segment joined with ``separator`` (segments with none are empty)."""
    return make_tensor("UnsortedSegmentJoin", [_strings_input(inputs), ops.convert_to_tensor(segment_ids),
                                               ops.convert_to_tensor(num_segments)],
                       {"separator": separator}, name or "UnsortedSegmentJoin")


def _ngrams_shape(op):
    return TensorShape(None) if op.inputs[0].shape.ndims is None else TensorShape(
        op.inputs[0].shape.as_list()[:-1] + [None])


@register_op("StringNGrams", shape=_ngrams_shape, dtype=lambda op: dtypes.string)
def _string_ngrams_kernel(xp, data, *, ngram_widths, separator, left_pad, right_pad, pad_width,
                          preserve_short_sequences):
    data = np.asarray(data, dtype=object)
    sep, left, right = separator.encode(), left_pad.encode(), right_pad.encode()
    rows = []
    for tokens in data.reshape(-1, data.shape[-1]) if data.ndim else [[data[()]]]:
        tokens = [_as_bytes(t) for t in tokens]
        grams = []
        for width in ngram_widths:
            pad = (width - 1 if pad_width < 0 else min(pad_width, width - 1)) if (left or right) else 0
            padded = [left] * pad + tokens + [right] * pad
            grams.extend(sep.join(padded[i:i + width]) for i in range(len(padded) - width + 1))
        if not grams and preserve_short_sequences and tokens:
            grams = [sep.join([left] * (pad_width if pad_width > 0 else 0) + tokens
                              + [right] * (pad_width if pad_width > 0 else 0))]
        rows.append(grams)
    widths = {len(r) for r in rows}
    if len(widths) > 1:
        raise errors.InvalidArgumentError(None, None, "StringNGrams: the rows give different numbers of n-grams")
    count = widths.pop() if widths else 0
    return np.array(rows, dtype=object).reshape(data.shape[:-1] + (count,))


def ngrams(data, ngram_width, separator=" ", pad_values=None, padding_width=None, preserve_short_sequences=False,
           name=None):
    """The n-grams of the last axis of a dense string tensor, for each width of ``ngram_width``
    (an int or a list), joined with ``separator``; ``pad_values`` (a string or a (left,
    right) pair) pads each sequence by ``padding_width`` (default: width - 1) on both sides."""
    widths = [int(ngram_width)] if isinstance(ngram_width, (int, np.integer)) else [int(w) for w in ngram_width]
    if any(w < 1 for w in widths):
        raise ValueError(f"ngrams: every ngram_width must be at least 1, got {widths}")
    if pad_values is None:
        left = right = ""
    elif isinstance(pad_values, (tuple, list)):
        left, right = pad_values
    else:
        left = right = pad_values
    if padding_width is not None and padding_width < 1:
        raise ValueError(f"ngrams: padding_width must be at least 1, got {padding_width}")
    data = _strings_input(data)
    if data.shape.ndims == 0:
        raise ValueError("ngrams needs a tensor of rank at least 1")
    return make_tensor("StringNGrams", [data], {
        "ngram_widths": widths, "separator": separator,
        "left_pad": left.decode() if isinstance(left, bytes) else left,
        "right_pad": right.decode() if isinstance(right, bytes) else right,
        "pad_width": -1 if padding_width is None else int(padding_width),
        "preserve_short_sequences": bool(preserve_short_sequences)}, name or "StringNGrams")


for _op_type in ("RegexFullMatch", "StringFormat", "UnsortedSegmentJoin", "StringNGrams"):
    not_differentiable(_op_type)
