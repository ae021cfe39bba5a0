"""``tf.keras.utils.multi_gpu_model``: a Keras model replicated on several GPUs of one process.

TF 1.x's Keras way to train on the GPUs of one machine, before ``tf.distribute``: in-graph
replication. The returned model takes the same inputs as the template model; each batch is
cut along its first dimension into one slice per GPU, the template model runs on each slice
under ``/gpu:i`` (name scope ``replica_i``), and the slices' outputs are concatenated again
on the CPU. The replicas share the template's weights, so the gradients of a loss over the
merged outputs are summed over the replicas where each weight lives, and one step of the
parallel model is one step of the template on the whole batch.
"""

from __future__ import annotations

import contextlib

from ...framework import ops
from ...framework.device_spec import DeviceSpec
from ...ops import array_ops, slicing_ops
from .. import backend as K
from ..engine.training import Model
from ..layers.core import Lambda
from ..layers.merge import concatenate


def _short_name(name: str) -> str:
    """``/job:localhost/replica:0/task:0/device:GPU:1`` as ``/gpu:1``."""
    spec = DeviceSpec.from_string(name)
    return f"/{(spec.device_type or '').lower()}:{spec.device_index or 0}"


def _slice_of(data, i: int, parts: int):
    """Slice ``i`` of ``parts`` of ``data`` along its first dimension; the last slice also takes
    what does not divide evenly."""
    shape = array_ops.shape(data)
    step = shape[0] // parts
    rest = shape[1:]
    size = shape[0] - step * i if i == parts - 1 else step
    begin = slicing_ops.concat([array_ops.reshape(step * i, [1]), rest * 0], 0)
    out = slicing_ops.slice(data, begin, slicing_ops.concat([array_ops.reshape(size, [1]), rest], 0))
    if data.shape.ndims is not None:
        out.set_shape([None] + data.shape.as_list()[1:])
    return out


def multi_gpu_model(model, gpus, cpu_merge=True, cpu_relocation=False):
    """A model that runs ``model`` on ``gpus`` GPUs at once (a count of 2 or more, or a list of
    GPU indices), each on its share of every batch, and merges their outputs on the CPU.

    ``cpu_merge=False`` leaves the concatenation to the default placement. ``cpu_relocation``
    makes the template's weights again on the CPU first (for a model that was built under
    no device scope, as TF's documentation advises); unlike TF 1.x, whose copy started from
    fresh initial values, the copy keeps the template's weights. Save and load weights
    through the template model: the parallel model holds it as one layer."""
    if isinstance(gpus, (list, tuple)):
        if len(gpus) <= 1:
            raise ValueError("For multi-gpu usage to be effective, call `multi_gpu_model` with `len(gpus) >= 2`. "
                             f"Received: `gpus={gpus}`")
        target_gpu_ids = [int(g) for g in gpus]
    else:
        if gpus is None or int(gpus) <= 1:
            raise ValueError("For multi-gpu usage to be effective, call `multi_gpu_model` with `gpus >= 2`. "
                             f"Received: `gpus={gpus}`")
        target_gpu_ids = list(range(int(gpus)))
    available = [_short_name(d.name) for d in K.get_session().list_devices()]
    wanted = ["/cpu:0"] + [f"/gpu:{i}" for i in target_gpu_ids]
    if any(d not in available for d in wanted):
        raise ValueError(f"To call `multi_gpu_model` with `gpus={gpus}`, we expect the following devices to be "
                         f"available: {wanted}. However this machine only has: {available}. Try reducing `gpus`.")

    if cpu_relocation:
        from ..models import clone_model  # noqa: PLC0415 - models imports the engine this module builds on

        with ops.device("/cpu:0"):
            relocated = clone_model(model)
        relocated.set_weights(model.get_weights())
        model = relocated

    parts = len(target_gpu_ids)
    outputs_by_replica = []
    for i, gpu_id in enumerate(target_gpu_ids):
        with ops.device(f"/gpu:{gpu_id}"), ops.name_scope(f"replica_{gpu_id}"):
            inputs = [Lambda(_slice_of, output_shape=tuple(x.shape.as_list()[1:]),
                             arguments={"i": i, "parts": parts})(x) for x in model.inputs]
            outputs = model(inputs if len(inputs) > 1 else inputs[0])
            outputs_by_replica.append(list(outputs) if isinstance(outputs, (list, tuple)) else [outputs])

    with ops.device("/cpu:0") if cpu_merge else contextlib.nullcontext():
        merged = [concatenate([replica[k] for replica in outputs_by_replica], axis=0, name=name)
                  for k, name in enumerate(model.output_names)]
    return Model(model.inputs, merged if len(merged) > 1 else merged[0])
