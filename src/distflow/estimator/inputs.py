"""``tf.estimator.inputs``: input functions over NumPy arrays."""

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
