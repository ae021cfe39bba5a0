"""``tf.audio``: WAV files (ops/audio_ops.py)."""

from ._namespace import missing
from .ops.audio_ops import decode_wav, encode_wav  # noqa: F401

__getattr__ = missing("tf.audio")
