"""Small real data sets for examples and tests, from packages that ship them.

``load_digits`` reads scikit-learn's 8x8 handwritten digits (1,797 images, 10
classes), which scikit-learn installs with itself: nothing is downloaded. It needs
the optional "examples" extra: ``pip install 'distflow[examples]'``.
"""

from __future__ import annotations

import numpy as np


def load_digits(test_fraction: float = 0.2, seed: int = 0):
    """(x_train, y_train, x_test, y_test): float32 pixels in [0, 1] of shape [n, 64], int64 labels.

    The split is stratified-free but fixed by ``seed``, so every process of a
    distributed job sees the same split.
    """
    try:
        from sklearn.datasets import load_digits as _load  # noqa: PLC0415 - an optional dependency
    except ImportError:
        raise ImportError("The digits data set comes with scikit-learn, an optional dependency of "
                          "distflow: install it with  pip install 'distflow[examples]'  "
                          "(or  pip install scikit-learn).") from None
    data = _load()
    x = (data.data / 16.0).astype(np.float32)
    y = data.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(x))
    n_test = int(round(len(x) * test_fraction))
    test, train = order[:n_test], order[n_test:]
    return x[train], y[train], x[test], y[test]


def batches(x, y, batch_size: int, seed: int = 0):
    """An endless stream of shuffled (x, y) mini-batches (each epoch reshuffled)."""
    rng = np.random.default_rng(seed)
    n = len(x)
    while True:
        order = rng.permutation(n)
        for start in range(0, n - batch_size + 1, batch_size):
            idx = order[start:start + batch_size]
            yield x[idx], y[idx]
