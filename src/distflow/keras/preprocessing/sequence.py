"""``tf.keras.preprocessing.sequence``: sequences of different lengths as one padded array."""

from __future__ import annotations

import numpy as np


def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre", value=0.0):
    """A ``[len(sequences), maxlen]`` array: each sequence cut to ``maxlen`` (from the front with
    ``truncating='pre'``, Keras's default, or the back) and padded with ``value`` in front
    (``padding='pre'``, the default) or behind. ``maxlen`` defaults to the longest sequence."""
    if padding not in ("pre", "post"):
        raise ValueError(f'Padding type "{padding}" not understood')
    if truncating not in ("pre", "post"):
        raise ValueError(f'Truncating type "{truncating}" not understood')
    sequences = [np.asarray(s) for s in sequences]
    lengths = [len(s) for s in sequences]
    if maxlen is None:
        maxlen = max(lengths) if lengths else 0
    sample = next((s.shape[1:] for s in sequences if len(s)), ())
    out = np.full((len(sequences), maxlen) + tuple(sample), value, dtype=dtype)
    for i, s in enumerate(sequences):
        if not len(s) or not maxlen:
            continue
        kept = s[-maxlen:] if truncating == "pre" else s[:maxlen]
        if kept.shape[1:] != tuple(sample):
            raise ValueError(f"Shape of sample {kept.shape[1:]} of sequence at position {i} is different from "
                             f"expected shape {tuple(sample)}")
        if padding == "post":
            out[i, :len(kept)] = kept
        else:
            out[i, -len(kept):] = kept
    return out
