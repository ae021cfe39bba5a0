"""``tf.estimator.inputs``: input functions over NumPy arrays and pandas DataFrames."""

from __future__ import annotations

import numpy as np

from .. import data as data_lib


def numpy_input_fn(x, y=None, batch_size=128, num_epochs=1, shuffle=None, queue_capacity=1000, num_threads=1):
    """An input_fn giving ``(features, labels)`` batches from ``x`` (an array, or a dict of arrays
    with the same first dimension) and ``y`` (an array or a dict of them): ``num_epochs``
    passes (None: for ever), ``shuffle`` required as in TF (a buffer of ``queue_capacity``
    examples). The batches are made on one thread whatever ``num_threads`` says; they are
    the same batches."""
    if not isinstance(shuffle, bool):
        raise ValueError(f"shuffle must be provided and explicitly set as boolean (it is recommended to set it as "
                         f"True for training); got {shuffle}")
    if isinstance(x, dict) and not x:
        raise ValueError("x cannot be empty")
    if isinstance(y, dict) and not y:
        raise ValueError("y cannot be empty dict, use None instead.")
    features = dict(x) if isinstance(x, dict) else {"__x": x}
    targets = {} if y is None else dict(y) if isinstance(y, dict) else {"__y": y}
    shared = set(features) & set(targets)
    if shared:
        raise ValueError(f"{len(shared)} duplicate keys are found in both x and y: {sorted(shared)}")
    arrays = {k: np.asarray(v) for k, v in {**features, **targets}.items()}
    unsized = sorted(k for k, v in arrays.items() if v.ndim == 0)
    if unsized:
        raise ValueError(f"numpy_input_fn takes arrays of examples; {unsized} are scalars")
    lengths = {k: len(v) for k, v in arrays.items()}
    if len(set(lengths.values())) != 1:
        raise ValueError("Length of tensors in x and y is mismatched. All elements in x and y must have the same "
                         f"length. Lengths: {lengths}")

    def input_fn():
        dataset = data_lib.Dataset.from_tensor_slices(dict(arrays))
        if shuffle:
            dataset = dataset.shuffle(queue_capacity)
        dataset = dataset.repeat(num_epochs).batch(batch_size)
        batch = dataset.make_one_shot_iterator().get_next()
        out = {k: batch[k] for k in features}
        labels = {k: batch[k] for k in targets}
        out = out if isinstance(x, dict) else out["__x"]
        labels = labels if isinstance(y, dict) else labels.get("__y")
        return (out, labels) if y is not None else out

    return input_fn


def pandas_input_fn(x, y=None, batch_size=128, num_epochs=1, shuffle=None, queue_capacity=1000, num_threads=1,
                    target_column="target"):
    """``numpy_input_fn`` over a pandas DataFrame ``x`` (its columns are the features, by name)
    and a Series ``y`` (the labels) or a DataFrame (a dict of labels by column); ``x`` and ``y``
    must have the same index, as in TF. ``target_column`` names the labels' column when ``y``
    joins ``x`` in TF's queue: it must not be one of ``x``'s columns."""
    try:
        import pandas as pd  # noqa: PLC0415 - an optional dependency
    except ImportError:
        raise TypeError("pandas_input_fn should not be called without pandas installed") from None
    if not isinstance(shuffle, bool):
        raise ValueError(f"shuffle must be provided and explicitly set as boolean (it is recommended to set it as "
                         f"True for training); got {shuffle}")
    if not isinstance(target_column, str):
        raise TypeError(f"target_column must be a string type, got {target_column!r}")
    if not isinstance(x, pd.DataFrame):
        raise TypeError(f"x must be a pandas DataFrame, got {type(x).__name__}")
    features = {column: x[column].to_numpy() for column in x.columns}
    labels = None
    if y is not None:
        if target_column in x:
            raise ValueError(f"Cannot use name {target_column} for target column: DataFrame already has a column with "
                             f"that name: {list(x.columns)}")
        if not np.array_equal(x.index, y.index):
            raise ValueError(f"Index for x and y are mismatched.\nIndex for x: {x.index}\nIndex for y: {y.index}\n")
        labels = ({column: y[column].to_numpy() for column in y.columns} if isinstance(y, pd.DataFrame)
                  else y.to_numpy())
    return numpy_input_fn(features, labels, batch_size=batch_size, num_epochs=num_epochs, shuffle=shuffle,
                          queue_capacity=queue_capacity, num_threads=num_threads)
