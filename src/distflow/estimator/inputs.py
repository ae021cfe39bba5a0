"""``tf.estimator.inputs``: input functions over NumPy arrays."""

from __future__ import annotations

import numpy as np

from .. import data as data_lib


def numpy_input_fn(x, y=None, batch_size=128, num_epochs=1, shuffle=None, queue_capacity=1000, num_threads=1):
    """An input_fn giving ``(features, labels)`` batches from ``x`` (an array or a dict of arrays
    with the same first dimension) and ``y``: ``num_epochs`` passes (None: for ever),
    ``shuffle`` required as in TF (a buffer of ``queue_capacity`` examples). The batches are
    made on one thread whatever ``num_threads`` says; they are the same batches."""
    if not isinstance(shuffle, bool):
        raise ValueError(f"shuffle must be provided and explicitly set as boolean (it is recommended to set it as "
                         f"True for training); got {shuffle}")
    features = dict(x) if isinstance(x, dict) else {"__x": x}
    lengths = {len(np.asarray(v)) for v in features.values()} | ({len(np.asarray(y))} if y is not None else set())
    if len(lengths) != 1:
        raise ValueError(f"x and y must have the same number of examples, got lengths {sorted(lengths)}")
    if y is not None and isinstance(y, dict):
        raise ValueError("a dict y is not supported; give one array of labels")

    def input_fn():
        tensors = {k: np.asarray(v) for k, v in features.items()}
        if y is not None:
            tensors["__y"] = np.asarray(y)
        dataset = data_lib.Dataset.from_tensor_slices(tensors)
        if shuffle:
            dataset = dataset.shuffle(queue_capacity)
        dataset = dataset.repeat(num_epochs).batch(batch_size)
        batch = dataset.make_one_shot_iterator().get_next()
        labels = batch.pop("__y", None)
        out = batch["__x"] if not isinstance(x, dict) else batch
        return (out, labels) if y is not None else out

    return input_fn
