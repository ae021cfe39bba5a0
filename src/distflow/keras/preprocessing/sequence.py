"""``tf.keras.preprocessing.sequence``: sequences of different lengths as one padded array,
word2vec's skip-gram pairs and sampling table, and batches of windows of a time series."""

from __future__ import annotations

import random

import numpy as np

from ..utils import Sequence


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


def make_sampling_table(size, sampling_factor=1e-5):
    """The probability of keeping the word of each rank (0 the most frequent) when words are
    subsampled as word2vec does, ``min(1, sqrt(sampling_factor / frequency))``, with the
    frequency of rank r estimated from Zipf's law, about ``1 / (r * (log(r) + gamma))``."""
    gamma = 0.577  # (Euler-Mascheroni)
    rank = np.arange(size, dtype=np.float64)
    rank[0] = 1
    inverse_frequency = rank * (np.log(rank) + gamma) + 0.5 - 1.0 / (12.0 * rank)
    f = sampling_factor * inverse_frequency
    return np.minimum(1.0, f / np.sqrt(f))


def skipgrams(sequence, vocabulary_size, window_size=4, negative_samples=1.0, shuffle=True, categorical=False,
              sampling_table=None, seed=None):
    """Skip-gram pairs of a sequence of word indices: ``([word, context], label)``, label 1 for
    each word and a word within ``window_size`` of it, and ``negative_samples`` times as many
    pairs of a word and a random index in [1, vocabulary_size) labelled 0 (``[1, 0]`` and
    ``[0, 1]`` with ``categorical``). Index 0 (padding) is skipped; with ``sampling_table``
    a word is kept with its probability there."""
    draw = random.Random(seed) if seed is not None else random
    couples, labels = [], []
    for i, word in enumerate(sequence):
        if not word or (sampling_table is not None and sampling_table[word] < draw.random()):
            continue
        for j in range(max(0, i - window_size), min(len(sequence), i + window_size + 1)):
            if j != i and sequence[j]:
                couples.append([word, sequence[j]])
                labels.append([0, 1] if categorical else 1)
    if negative_samples > 0 and couples:
        count = int(len(labels) * negative_samples)
        words = [c[0] for c in couples]
        draw.shuffle(words)
        couples += [[words[k % len(words)], draw.randint(1, vocabulary_size - 1)] for k in range(count)]
        labels += [[1, 0] if categorical else 0] * count
    if shuffle:
        order = list(range(len(couples)))
        draw.shuffle(order)
        couples, labels = [couples[k] for k in order], [labels[k] for k in order]
    return couples, labels


class TimeseriesGenerator(Sequence):
    """Batches of windows of a time series for ``fit``: sample ``i`` is the ``length // sampling_rate``
    steps before step ``t`` (every ``sampling_rate``-th), its target ``targets[t]``, for ``t``
    from ``start_index + length`` to ``end_index``, every ``stride`` steps (``shuffle`` or
    ``reverse`` the order)."""

    def __init__(self, data, targets, length, sampling_rate=1, stride=1, start_index=0, end_index=None,
                 shuffle=False, reverse=False, batch_size=128):
        if len(data) != len(targets):
            raise ValueError(f"Data and targets have to be of same length. Data length is {len(data)} while target "
                             f"length is {len(targets)}")
        self.data, self.targets = data, targets
        self.length, self.sampling_rate, self.stride = length, sampling_rate, stride
        self.start_index = start_index + length
        self.end_index = len(data) - 1 if end_index is None else end_index
        self.shuffle, self.reverse, self.batch_size = shuffle, reverse, batch_size
        if self.start_index > self.end_index:
            raise ValueError(f"`start_index+length={self.start_index} > end_index={self.end_index}` is disallowed, "
                             "as no part of the sequence would be left to be used as current step.")

    def __len__(self):
        return (self.end_index - self.start_index + self.batch_size * self.stride) // (self.batch_size * self.stride)

    def __getitem__(self, index):
        if self.shuffle:
            rows = np.random.randint(self.start_index, self.end_index + 1, size=self.batch_size)
        else:
            first = self.start_index + self.batch_size * self.stride * index
            rows = np.arange(first, min(first + self.batch_size * self.stride, self.end_index + 1), self.stride)
        samples = np.array([self.data[row - self.length:row:self.sampling_rate] for row in rows])
        targets = np.array([self.targets[row] for row in rows])
        if self.reverse:
            return samples[:, ::-1, ...], targets
        return samples, targets
