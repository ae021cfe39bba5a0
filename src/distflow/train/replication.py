"""In-graph replication: one graph, one model replica ("tower") per device.

The recipe of TensorFlow 1.x's multi-GPU examples, as a helper:

    towers = replicate_model(model_fn, [images, labels], devices=["/gpu:0", "/gpu:1"])
    train_op = towers.train_op(tf.train.GradientDescentOptimizer(0.1), global_step)

Each tower gets an equal slice of the batch (split along axis 0) and builds the
model on its device; variables are created once, on ``param_device``, and shared
by every tower through ``variable_scope`` reuse. Each tower's gradients are computed
on its own device; their average is applied once, on the parameter device. With
equal slices, the averaged gradient equals the one-device gradient of the whole
batch when the loss is a mean over examples.
"""

from __future__ import annotations

from typing import Callable, Sequence

from ..framework import ops
from ..framework.device_spec import DeviceSpec
from ..ops import math_ops, slicing_ops
from ..ops.variable_scope import AUTO_REUSE, variable_scope

# The op types that hold model state: created on the parameter device.
PS_OPS = ("Variable", "VariableV2", "VarHandleOp")


def assign_to_device(device: str, param_device: str = "/cpu:0") -> Callable:
    """A device function: variables go to ``param_device``, every other op to ``device``."""
    device_spec = DeviceSpec.from_string(device)
    param_spec = DeviceSpec.from_string(param_device)

    def choose(op):
        target = param_spec if op.type in PS_OPS else device_spec
        merged = target.copy()
        if op.device:
            merged.merge_from(DeviceSpec.from_string(op.device))
        return merged.to_string()

    return choose


def average_gradients(tower_grads: Sequence[Sequence[tuple]]) -> list[tuple]:
    """Averages per-tower (gradient, variable) lists into one list, variable by variable.

    Every tower must list the same variables in the same order (as compute_gradients
    does for shared variables). A variable without a gradient in any tower keeps None.
    """
    averaged = []
    for pairs in zip(*tower_grads):
        var = pairs[0][1]
        if any(v is not var for _, v in pairs):
            raise ValueError("tower gradient lists must hold the same variables in the same order")
        grads = [g for g, _ in pairs if g is not None]
        if not grads:
            averaged.append((None, var))
            continue
        with ops.name_scope("average_" + var.op.name.replace("/", "_")):
            mean = grads[0] if len(grads) == 1 else math_ops.multiply(math_ops.add_n(grads), 1.0 / len(grads))
        averaged.append((mean, var))
    return averaged


class Towers:
    """What replicate_model built: per-tower losses and outputs, and the shared variables."""

    def __init__(self, devices, losses, outputs, param_device):
        self.devices = list(devices)
        self.losses = losses
        self.outputs = outputs
        self.param_device = param_device
        with ops.device(param_device):
            #: The mean of the tower losses (on the parameter device).
            self.loss = math_ops.multiply(math_ops.add_n(losses), 1.0 / len(losses), name="tower_mean_loss")

    def compute_gradients(self, optimizer, var_list=None) -> list[tuple]:
        """Each tower's gradients on its own device, averaged on the parameter device."""
        tower_grads = []
        for i, (device, loss) in enumerate(zip(self.devices, self.losses)):
            with ops.device(device), ops.name_scope(f"tower_{i}_gradients"):
                tower_grads.append(optimizer.compute_gradients(loss, var_list=var_list,
                                                               colocate_gradients_with_ops=True))
        with ops.device(self.param_device):
            return average_gradients(tower_grads)

    def train_op(self, optimizer, global_step=None, var_list=None, name=None) -> ops.Operation:
        """Averaged gradients applied once, on the parameter device."""
        grads = self.compute_gradients(optimizer, var_list)
        with ops.device(self.param_device):
            return optimizer.apply_gradients(grads, global_step=global_step, name=name)


def replicate_model(model_fn: Callable, inputs: Sequence, devices: Sequence[str],
                    param_device: str = "/cpu:0", scope: str = "model") -> Towers:
    """Builds ``model_fn`` once per device on an equal slice of ``inputs``.

    Args:
      model_fn: ``model_fn(*input_slices) -> loss`` or ``-> (loss, outputs)``; it creates
        its variables with ``tf.get_variable`` or ``tf.layers`` so that towers share them.
      inputs: tensors whose first dimension is the batch (divisible by len(devices)).
      devices: one device string per tower, e.g. ``["/gpu:0", "/gpu:1"]``.
      param_device: where the variables live.
    """
    devices = list(devices)
    if not devices:
        raise ValueError("replicate_model needs at least one device")
    inputs = [ops.convert_to_tensor(x) for x in inputs]
    with ops.device(param_device):
        slices = [slicing_ops.split(x, len(devices), axis=0) for x in inputs]
    losses, outputs = [], []
    for i, device in enumerate(devices):
        with ops.device(assign_to_device(device, param_device)), ops.name_scope(f"tower_{i}"), \
                variable_scope(scope, reuse=AUTO_REUSE):
            result = model_fn(*[s[i] for s in slices])
        loss, out = (result if isinstance(result, tuple) else (result, None))
        losses.append(loss)
        outputs.append(out)
    return Towers(devices, losses, outputs, param_device)
