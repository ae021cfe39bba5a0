"""Hashing strings into buckets, as TensorFlow's three ops do.

- ``string_to_hash_bucket_fast`` (StringToHashBucketFast): FarmHash's 64-bit Fingerprint
  (``Fingerprint64``, the same on every platform and release), modulo the bucket count,
  both unsigned. distflow computes the same fingerprint, written here from the published
  algorithm, so that a hash-bucket feature column puts every string in the bucket TF puts
  it in, and checkpoints of TF's embeddings keep their meaning.
- ``string_to_hash_bucket`` (StringToHashBucket, the older op): TensorFlow's ``Hash64``, a
  64-bit MurmurHash2 (MurmurHash64A) with the seed 0xDECAFCAFFE.
- ``string_to_hash_bucket_strong`` (StringToHashBucketStrong): SipHash-2-4 keyed by the two
  64-bit halves of ``key``, for inputs an adversary may choose.
- ``fingerprint`` (Fingerprint): each row's Fingerprint64, as 8 bytes.
"""

from __future__ import annotations

import functools
import struct

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import TensorShape
from .op_util import make_tensor

_M = (1 << 64) - 1
_K0, _K1, _K2 = 0xC3A5C85C97CB3127, 0xB492B66FBE98F273, 0x9AE16A3B2F90404F


def _fetch64(s: bytes, i: int) -> int:
    return struct.unpack_from("<Q", s, i)[0]


def _fetch32(s: bytes, i: int) -> int:
    return struct.unpack_from("<I", s, i)[0]


def _rotate(v: int, shift: int) -> int:
    return v if shift == 0 else ((v >> shift) | (v << (64 - shift))) & _M


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def _hash16(u: int, v: int, mul: int) -> int:
    a = ((u ^ v) * mul) & _M
    a ^= a >> 47
    b = ((v ^ a) * mul) & _M
    b ^= b >> 47
    return (b * mul) & _M


def _len0to16(s: bytes) -> int:
    n = len(s)
    if n >= 8:
        mul = _K2 + n * 2
        a = (_fetch64(s, 0) + _K2) & _M
        b = _fetch64(s, n - 8)
        c = (_rotate(b, 37) * mul + a) & _M
        d = ((_rotate(a, 25) + b) * mul) & _M
        return _hash16(c, d, mul)
    if n >= 4:
        mul = _K2 + n * 2
        return _hash16((n + (_fetch32(s, 0) << 3)) & _M, _fetch32(s, n - 4), mul)
    if n > 0:
        y = (s[0] + (s[n >> 1] << 8)) & 0xFFFFFFFF
        z = (n + (s[n - 1] << 2)) & 0xFFFFFFFF
        return (_shift_mix(((y * _K2) ^ (z * _K0)) & _M) * _K2) & _M
    return _K2


def _head_mix(s: bytes, first_mul: int) -> tuple[int, int, int, int]:
    """What the 17-32 and 33-64 byte cases share: (mul, a, and the two halves they hash)."""
    n = len(s)
    mul = _K2 + n * 2
    a = (_fetch64(s, 0) * first_mul) & _M
    b = _fetch64(s, 8)
    c = (_fetch64(s, n - 8) * mul) & _M
    d = (_fetch64(s, n - 16) * _K2) & _M
    return mul, a, (_rotate((a + b) & _M, 43) + _rotate(c, 30) + d) & _M, (a + _rotate((b + _K2) & _M, 18) + c) & _M


def _len17to32(s: bytes) -> int:
    mul, _, y, second = _head_mix(s, _K1)
    return _hash16(y, second, mul)


def _len33to64(s: bytes) -> int:
    n = len(s)
    mul, a, y, second = _head_mix(s, _K2)
    z = _hash16(y, second, mul)
    e = (_fetch64(s, 16) * mul) & _M
    f = _fetch64(s, 24)
    g = ((y + _fetch64(s, n - 32)) * mul) & _M
    h = ((z + _fetch64(s, n - 24)) * mul) & _M
    return _hash16((_rotate((e + f) & _M, 43) + _rotate(g, 30) + h) & _M,
                   (e + _rotate((f + a) & _M, 18) + g) & _M, mul)


def _weak32(s: bytes, i: int, a: int, b: int) -> tuple[int, int]:
    w, x, y, z = _fetch64(s, i), _fetch64(s, i + 8), _fetch64(s, i + 16), _fetch64(s, i + 24)
    a = (a + w) & _M
    b = _rotate((b + a + z) & _M, 21)
    c = a
    a = (a + x + y) & _M
    b = (b + _rotate(a, 44)) & _M
    return (a + z) & _M, (b + c) & _M


def fingerprint_cat64(fp1: int, fp2: int) -> int:
    """TensorFlow's FingerprintCat64: two 64-bit fingerprints mixed into one, in order (not
    commutative), as its sparse crosses fold each feature's hash into the running one."""
    mul = 0xC6A4A7935BD1E995
    result = fp1 ^ mul
    result ^= (_shift_mix((fp2 * mul) & _M) * mul) & _M
    result = (result * mul) & _M
    result = (_shift_mix(result) * mul) & _M
    return _shift_mix(result)


def fingerprint_cat64_array(fp1: np.ndarray, fp2: np.ndarray) -> np.ndarray:
    """``fingerprint_cat64`` of each pair of two uint64 arrays (NumPy's uint64 products wrap
    modulo 2**64, as the scalar version's masks do)."""
    mul = np.uint64(0xC6A4A7935BD1E995)
    shift = np.uint64(47)
    with np.errstate(over="ignore"):
        t = fp2 * mul
        result = (fp1 ^ mul) ^ ((t ^ (t >> shift)) * mul)
        result = result * mul
        result = (result ^ (result >> shift)) * mul
    return result ^ (result >> shift)


@functools.lru_cache(maxsize=1 << 16)
def fingerprint64(s: bytes) -> int:
    """FarmHash's Fingerprint64 of ``s`` (an unsigned 64-bit int). Remembered for the last 65536
    strings: categorical features repeat their values, and each costs microseconds in Python."""
    n = len(s)
    if n <= 16:
        return _len0to16(s)
    if n <= 32:
        return _len17to32(s)
    if n <= 64:
        return _len33to64(s)
    seed = 81
    x = seed
    y = (seed * _K1 + 113) & _M
    z = (_shift_mix((y * _K2 + 113) & _M) * _K2) & _M
    v, w = (0, 0), (0, 0)
    x = (x * _K2 + _fetch64(s, 0)) & _M
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    i = 0
    while True:
        x = (_rotate((x + y + v[0] + _fetch64(s, i + 8)) & _M, 37) * _K1) & _M
        y = (_rotate((y + v[1] + _fetch64(s, i + 48)) & _M, 42) * _K1) & _M
        x ^= w[1]
        y = (y + v[0] + _fetch64(s, i + 40)) & _M
        z = (_rotate((z + w[0]) & _M, 33) * _K1) & _M
        v = _weak32(s, i, (v[1] * _K1) & _M, (x + w[0]) & _M)
        w = _weak32(s, i + 32, (z + w[1]) & _M, (y + _fetch64(s, i + 16)) & _M)
        z, x = x, z
        i += 64
        if i == end:
            break
    mul = _K1 + ((z & 0xFF) << 1)
    i = last64
    w = ((w[0] + ((n - 1) & 63)) & _M, w[1])
    v = ((v[0] + w[0]) & _M, v[1])
    w = ((w[0] + v[0]) & _M, w[1])
    x = (_rotate((x + y + v[0] + _fetch64(s, i + 8)) & _M, 37) * mul) & _M
    y = (_rotate((y + v[1] + _fetch64(s, i + 48)) & _M, 42) * mul) & _M
    x ^= (w[1] * 9) & _M
    y = (y + v[0] * 9 + _fetch64(s, i + 40)) & _M
    z = (_rotate((z + w[0]) & _M, 33) * mul) & _M
    v = _weak32(s, i, (v[1] * mul) & _M, (x + w[0]) & _M)
    w = _weak32(s, i + 32, (z + w[1]) & _M, (y + _fetch64(s, i + 16)) & _M)
    z, x = x, z
    return _hash16((_hash16(v[0], w[0], mul) + _shift_mix(y) * _K0 + z) & _M,
                   (_hash16(v[1], w[1], mul) + x) & _M, mul)


def _as_bytes(v) -> bytes:
    return v if isinstance(v, bytes) else str(v).encode()


@register_op("StringToHashBucketFast", shape=lambda op: op.inputs[0].shape, dtype=lambda op: dtypes.int64)
def _hash_bucket_fast_kernel(xp, x, *, num_buckets):
    x = np.asarray(x, dtype=object)
    flat = [fingerprint64(_as_bytes(v)) % num_buckets for v in x.reshape(-1)]
    return np.array(flat, dtype=np.int64).reshape(x.shape)


not_differentiable("StringToHashBucketFast")


_MURMUR_M, _MURMUR_SEED = 0xC6A4A7935BD1E995, 0xDECAFCAFFE


def hash64(s: bytes, seed: int = _MURMUR_SEED) -> int:
    """TensorFlow's ``Hash64``: MurmurHash64A of ``s``."""
    n = len(s)
    h = (seed ^ (n * _MURMUR_M)) & _M
    whole = n - n % 8
    for i in range(0, whole, 8):
        k = (_fetch64(s, i) * _MURMUR_M) & _M
        k ^= k >> 47
        k = (k * _MURMUR_M) & _M
        h = ((h ^ k) * _MURMUR_M) & _M
    if n % 8:
        for j in range(n % 8 - 1, -1, -1):
            h ^= s[whole + j] << (8 * j)
        h = (h * _MURMUR_M) & _M
    h ^= h >> 47
    h = (h * _MURMUR_M) & _M
    return h ^ (h >> 47)


def _rotl(x: int, b: int) -> int:
    return ((x << b) | (x >> (64 - b))) & _M


def siphash24(s: bytes, k0: int, k1: int) -> int:
    """SipHash-2-4 of ``s`` under the key (``k0``, ``k1``)."""
    v0, v1 = k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D
    v2, v3 = k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573

    def rounds(v0, v1, v2, v3, count):
        for _ in range(count):
            v0 = (v0 + v1) & _M
            v1 = _rotl(v1, 13) ^ v0
            v0 = _rotl(v0, 32)
            v2 = (v2 + v3) & _M
            v3 = _rotl(v3, 16) ^ v2
            v0 = (v0 + v3) & _M
            v3 = _rotl(v3, 21) ^ v0
            v2 = (v2 + v1) & _M
            v1 = _rotl(v1, 17) ^ v2
            v2 = _rotl(v2, 32)
        return v0, v1, v2, v3

    n = len(s)
    whole = n - n % 8
    for i in range(0, whole, 8):
        m = _fetch64(s, i)
        v3 ^= m
        v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 2)
        v0 ^= m
    last = (n & 0xFF) << 56
    for j in range(n % 8):
        last |= s[whole + j] << (8 * j)
    v3 ^= last
    v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 2)
    v0 ^= last
    v2 ^= 0xFF
    v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 4)
    return v0 ^ v1 ^ v2 ^ v3


@register_op("StringToHashBucket", shape=lambda op: op.inputs[0].shape, dtype=lambda op: dtypes.int64)
def _hash_bucket_kernel(xp, x, *, num_buckets):
    x = np.asarray(x, dtype=object)
    return np.array([hash64(_as_bytes(v)) % num_buckets for v in x.reshape(-1)], dtype=np.int64).reshape(x.shape)


@register_op("StringToHashBucketStrong", shape=lambda op: op.inputs[0].shape, dtype=lambda op: dtypes.int64)
def _hash_bucket_strong_kernel(xp, x, *, num_buckets, key):
    x = np.asarray(x, dtype=object)
    k0, k1 = (int(k) & _M for k in key)
    return np.array([siphash24(_as_bytes(v), k0, k1) % num_buckets for v in x.reshape(-1)],
                    dtype=np.int64).reshape(x.shape)


not_differentiable("StringToHashBucket")
not_differentiable("StringToHashBucketStrong")


def _checked_buckets(what: str, num_buckets) -> int:
    if isinstance(num_buckets, bool) or not isinstance(num_buckets, (int, np.integer)) or num_buckets < 1:
        raise ValueError(f"{what}: num_buckets must be an int >= 1, got {num_buckets!r}")
    return int(num_buckets)


def string_to_hash_bucket(string_tensor, num_buckets, name=None):
    """Each string's bucket in [0, num_buckets) by TensorFlow's older ``Hash64``, as its
    ``tf.string_to_hash_bucket`` (a new model should take ``string_to_hash_bucket_fast``)."""
    x = ops.convert_to_tensor(string_tensor, dtype=dtypes.string)
    return make_tensor("StringToHashBucket", [x], {"num_buckets": _checked_buckets("string_to_hash_bucket",
                                                                                  num_buckets)},
                       name or "StringToHashBucket")


def string_to_hash_bucket_strong(input, num_buckets, key, name=None):  # noqa: A002
    """Each string's bucket in [0, num_buckets) by SipHash-2-4 under ``key`` (two integers),
    as TensorFlow's ``tf.string_to_hash_bucket_strong``."""
    if not isinstance(key, (list, tuple)) or len(key) != 2:
        raise ValueError(f"string_to_hash_bucket_strong: key must be a list of two integers, got {key!r}")
    x = ops.convert_to_tensor(input, dtype=dtypes.string)
    return make_tensor("StringToHashBucketStrong", [x],
                       {"num_buckets": _checked_buckets("string_to_hash_bucket_strong", num_buckets),
                        "key": [int(k) for k in key]}, name or "StringToHashBucketStrong")


def _row_fingerprint(row: np.ndarray) -> bytes:
    """One row's 8-byte fingerprint, as TensorFlow's Fingerprint op makes it: FarmHash's
    Fingerprint64 of the row's bytes; for strings, of the one string, or of the strings'
    own fingerprints side by side where the row holds several."""
    if row.dtype == object:
        strings = [_as_bytes(v) for v in row.reshape(-1)]
        data = strings[0] if len(strings) == 1 else b"".join(struct.pack("<Q", fingerprint64(v)) for v in strings)
    else:
        data = np.ascontiguousarray(row).tobytes()
    return struct.pack("<Q", fingerprint64(data))


@register_op("Fingerprint", shape=lambda op: TensorShape([op.inputs[0].shape[0] if op.inputs[0].shape.ndims else None,
                                                          8]),
             dtype=lambda op: dtypes.uint8)
def _fingerprint_kernel(xp, data, method):
    method = method.item() if isinstance(method, np.ndarray) else method
    method = method.decode() if isinstance(method, bytes) else str(method)
    if method != "farmhash64":
        raise errors.InvalidArgumentError(None, None, f"Fingerprint: unsupported method '{method}' (farmhash64 is)")
    data = np.asarray(data)
    if data.ndim < 1:
        raise errors.InvalidArgumentError(None, None, "Fingerprint: data must have rank 1 or more, got a scalar")
    rows = [_row_fingerprint(np.asarray(row, dtype=data.dtype)) for row in data]
    return np.frombuffer(b"".join(rows), np.uint8).reshape(len(rows), 8).copy()


not_differentiable("Fingerprint")


def fingerprint(data, method="farmhash64", name=None):
    """An 8-byte fingerprint of each row of ``data`` (its first dimension), uint8 ``[N, 8]``,
    equal to TensorFlow's ``tf.fingerprint`` (FarmHash's Fingerprint64, little-endian)."""
    data = ops.convert_to_tensor(data)
    return make_tensor("Fingerprint", [data, ops.convert_to_tensor(method, dtype=dtypes.string)], None,
                       name or "Fingerprint")


def string_to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002
    """Each string's bucket in [0, num_buckets): its Fingerprint64 modulo num_buckets, as TF's."""
    x = ops.convert_to_tensor(input, dtype=dtypes.string)
    return make_tensor("StringToHashBucketFast", [x],
                       {"num_buckets": _checked_buckets("string_to_hash_bucket_fast", num_buckets)},
                       name or "StringToHashBucketFast")
