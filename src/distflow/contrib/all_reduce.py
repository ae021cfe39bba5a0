"""``tf.contrib.all_reduce``: all-reduce written into the graph, one op per device and step of
the algorithm, as TF 1.x's benchmark scripts and ``AllReduceCrossDeviceOps`` built it.

Each function takes tensors of one shape and dtype, each on its own device (a GPU of a
worker, say), and returns, for each, the reduction of all of them on that tensor's device.
The algorithms differ in which device does which part of the work and what crosses
between devices:

* ``build_ring_all_reduce``: the devices form a ring; each tensor is cut into one piece per
  device (and each piece into ``num_subchunks``, each subchunk with its own ring order, so
  that a device sends to several neighbours at once). A piece is reduced as it travels
  once round the ring, then the reduced piece travels round again to every device.
* ``build_recursive_hd_all_reduce`` (a power-of-two number of devices): recursive halving,
  in which partners exchange and reduce halves of what they hold, until each device holds
  one reduced piece, then recursive doubling, in which they exchange the pieces back.
* ``build_shuffle_all_reduce``: each tensor is cut into one piece per ``gather_devices``;
  each of those devices reduces its pieces (``red_op`` takes a list: ``tf.add_n``) and
  every input device concatenates the reduced pieces.
* ``build_nccl_all_reduce``: ``tf.contrib.nccl.all_sum`` (``red_op`` must be ``tf.add``).
* The two-level forms (``build_nccl_then_ring``, ``..._recursive_hd``, ``..._shuffle``,
  ``build_shuffle_then_ring``, ``build_shuffle_then_shuffle``): the tensors of each task
  are reduced within the task first, onto the task's first device (by NCCL's all-sum, or
  by a shuffle reduction on the task's gather devices), then the tasks' results are
  reduced among those devices by the second algorithm, and each result is copied to the
  other devices of its task.

``un_op`` (a function of one tensor: a division by the number of devices for a mean) is
applied once to each fully reduced piece, on the device that completed it. A tensor whose
size the number of pieces does not divide is padded with zeros and the padding is cut off
at the end. (Tensors of unknown static shape are fine: the pieces are cut at run time.)
"""

from __future__ import annotations

from ..framework import ops
from ..framework.device_spec import DeviceSpec
from ..ops import array_ops, math_ops, slicing_ops
from . import nccl


# -- pieces ------------------------------------------------------------------------------

def _checked(input_tensors, minimum: int = 2) -> list:
    tensors = [ops.convert_to_tensor(t) for t in input_tensors]
    if len(tensors) < minimum:
        raise ValueError(f"input_tensors must be length {minimum} or longer, got {len(tensors)}")
    first = tensors[0]
    for t in tensors[1:]:
        if t.dtype.base_dtype != first.dtype.base_dtype:
            raise ValueError(f"input_tensors must all have one dtype: {first.name} is {first.dtype.name}, "
                             f"{t.name} is {t.dtype.name}")
        if not t.shape.is_compatible_with(first.shape):
            raise ValueError(f"input_tensors must all have one shape: {first.name} has {first.shape}, "
                             f"{t.name} has {t.shape}")
    return tensors


def _cut(tensor, pieces: int) -> list:
    """``tensor`` flattened, padded with zeros to a multiple of ``pieces``, in ``pieces``
    equal parts, on its own device."""
    with ops.device(tensor.device):
        flat = array_ops.reshape(tensor, [-1])
        size = array_ops.size(flat)
        padded = array_ops.pad(flat, [[0, math_ops.floormod(-size, pieces)]])
        return slicing_ops.split(padded, pieces)


def _whole(parts: list, like, device: str):
    """The inverse of ``_cut`` on ``device``: ``parts`` joined, the padding cut off, in the
    shape of ``like``."""
    with ops.device(device):
        flat = slicing_ops.concat(parts, 0) if len(parts) > 1 else array_ops.identity(parts[0])
        flat = slicing_ops.slice(flat, [0], array_ops.reshape(array_ops.size(like), [1]))
        out = array_ops.reshape(flat, array_ops.shape(like))
        out.set_shape(like.shape)
        return out


def _on(device: str, fn, *args):
    with ops.device(device):
        return fn(*args)


def _copy(tensor, device: str):
    with ops.device(device):
        return array_ops.identity(tensor)


# -- ring ----------------------------------------------------------------------------------

def ring_orders(num_workers: int, num_subchunks: int, gpu_perm) -> list:
    """For each subchunk, the ring's order of the devices (device ``g + w * num_gpus`` is GPU
    ``g`` of worker ``w``): the workers in turn, each worker's GPUs in ``gpu_perm``'s order
    rotated by the subchunk's share of the GPUs, so that the subchunks' rings differ."""
    gpu_perm = list(gpu_perm)
    num_gpus = len(gpu_perm)
    if num_workers * num_gpus == 0:
        return []
    if not 1 <= num_subchunks <= num_gpus:
        raise ValueError(f"num_subchunks {num_subchunks} must be between 1 and num_gpus {num_gpus}")
    step = max(1, num_gpus // num_subchunks)
    orders = []
    for s in range(num_subchunks):
        rotated = gpu_perm[s * step:] + gpu_perm[:s * step]
        orders.append([w * num_gpus + g for w in range(num_workers) for g in rotated])
    return orders


def build_ring_all_reduce(input_tensors, num_workers, num_subchunks, gpu_perm, red_op, un_op=None):
    """The reduction of ``input_tensors`` (one per GPU of ``num_workers`` workers, worker by
    worker, GPU by GPU) on each of their devices, by a ring (see the module's text)."""
    tensors = _checked(input_tensors)
    n = len(tensors)
    orders = ring_orders(num_workers, num_subchunks, gpu_perm)
    if not orders or sorted(orders[0]) != list(range(n)):
        raise ValueError(f"the ring of {num_workers} workers x {len(list(gpu_perm))} GPUs does not match the "
                         f"{n} input tensors")
    devices = [t.device for t in tensors]
    cut = [_cut(t, n * num_subchunks) for t in tensors]
    gathered = [[None] * (n * num_subchunks) for _ in range(n)]  # per device, its copy of each reduced piece
    for s, order in enumerate(orders):
        for c in range(n):
            index = s * n + c
            # reduce: round the ring from the position after c, ending at position c
            positions = [(c + 1 + k) % n for k in range(n)]
            acc = cut[order[positions[0]]][index]
            for pos in positions[1:]:
                d = order[pos]
                acc = _on(devices[d], red_op, acc, cut[d][index])
            if un_op is not None:
                acc = _on(devices[order[c]], un_op, acc)
            # gather: round the ring again, from position c
            gathered[order[c]][index] = acc
            for k in range(1, n):
                d = order[(c + k) % n]
                acc = _copy(acc, devices[d])
                gathered[d][index] = acc
    return [_whole(gathered[d], tensors[d], devices[d]) for d in range(n)]


# -- recursive halving and doubling ---------------------------------------------------------

def build_recursive_hd_all_reduce(input_tensors, red_op, un_op=None):
    """The reduction of ``input_tensors`` (a power-of-two number of them) on each of their
    devices, by recursive halving then doubling (see the module's text)."""
    tensors = _checked(input_tensors)
    n = len(tensors)
    if n & (n - 1):
        raise ValueError(f"build_recursive_hd_all_reduce needs a power-of-two number of input tensors, got {n}")
    devices = [t.device for t in tensors]
    # each device's current pieces: a list of (piece index, tensor), in index order
    held = [list(enumerate(_cut(t, n))) for t in tensors]
    span = n // 2
    while span >= 1:  # halving: partners i and i ^ span split what they hold, each reduces its half
        new = [None] * n
        for i in range(n):
            j = i ^ span
            half = len(held[i]) // 2
            keep = slice(0, half) if i < j else slice(half, None)
            low, high = (held[i], held[j]) if i < j else (held[j], held[i])
            new[i] = [(k, _on(devices[i], red_op, a, b)) for (k, a), (_, b) in zip(low[keep], high[keep])]
        held, span = new, span // 2
    if un_op is not None:
        held = [[(k, _on(devices[i], un_op, t)) for k, t in pieces] for i, pieces in enumerate(held)]
    span = 1
    while span < n:  # doubling: partners exchange what they hold
        new = [None] * n
        for i in range(n):
            theirs = [(k, _copy(t, devices[i])) for k, t in held[i ^ span]]
            new[i] = sorted(held[i] + theirs, key=lambda kt: kt[0])
        held, span = new, span * 2
    return [_whole([t for _, t in held[i]], tensors[i], devices[i]) for i in range(n)]


# -- shuffle ------------------------------------------------------------------------------

def build_shuffle_all_reduce(input_tensors, gather_devices, red_op, un_op=None):
    """The reduction of ``input_tensors`` on each of their devices: each of ``gather_devices``
    reduces one piece of every tensor with ``red_op`` (a function of a list of tensors)."""
    tensors = _checked(input_tensors, minimum=1)
    gather_devices = list(gather_devices)
    if not gather_devices:
        raise ValueError("build_shuffle_all_reduce needs at least one gather device")
    reduced = _shuffle_reduce(tensors, gather_devices, red_op, un_op)
    return [_whole([_copy(r, t.device) for r in reduced], t, t.device) for t in tensors]


def _shuffle_reduce(tensors, gather_devices, red_op, un_op):
    """The reduced pieces, one on each gather device."""
    cut = [_cut(t, len(gather_devices)) for t in tensors]
    out = []
    for j, device in enumerate(gather_devices):
        with ops.device(device):
            r = red_op([parts[j] for parts in cut])
            out.append(un_op(r) if un_op is not None else r)
    return out


# -- NCCL and the two-level forms ----------------------------------------------------------

def _is_add(red_op) -> bool:
    return red_op in (math_ops.add, math_ops.add_n) or getattr(red_op, "__name__", "") in ("add", "add_n")


def build_nccl_all_reduce(input_tensors, red_op, un_op=None):
    """The sum of ``input_tensors`` on each of their devices by ``tf.contrib.nccl.all_sum``."""
    tensors = _checked(input_tensors, minimum=1)
    if not _is_add(red_op):
        raise ValueError("build_nccl_all_reduce currently only supports addition (red_op=tf.add)")
    outs = nccl.all_sum(tensors) if len(tensors) > 1 else [array_ops.identity(tensors[0])]
    return [_on(t.device, un_op, o) if un_op is not None else o for t, o in zip(tensors, outs)]


def _task_of(device: str):
    spec = DeviceSpec.from_string(device or "")
    return spec.job, spec.replica, spec.task


def _by_task(tensors) -> list:
    """The indices of ``tensors`` grouped by the task of their device, tasks in order of first
    appearance."""
    groups: dict = {}
    for i, t in enumerate(tensors):
        groups.setdefault(_task_of(t.device), []).append(i)
    return list(groups.values())


def _two_levels(tensors, first, second, un_op):
    """Each task's tensors reduced by ``first(list) -> tensor on the list's first device``,
    those by ``second(list, un_op) -> list``, each result copied to its task's devices."""
    groups = _by_task(tensors)
    firsts = [first([tensors[i] for i in group]) for group in groups]
    if len(firsts) > 1:
        seconds = second(firsts, un_op)
    else:
        seconds = [_on(tensors[groups[0][0]].device, un_op, firsts[0]) if un_op is not None else firsts[0]]
    out = [None] * len(tensors)
    for group, result in zip(groups, seconds):
        for i in group:
            out[i] = result if i == group[0] else _copy(result, tensors[i].device)
    return out


def _nccl_first(group):
    return nccl.all_sum(group)[0] if len(group) > 1 else group[0]


def build_nccl_then_ring(input_tensors, subdiv, red_op, un_op=None):
    """NCCL's sum within each task, then a ring among the tasks (``subdiv`` subchunks)."""
    tensors = _checked(input_tensors, minimum=1)
    return _two_levels(tensors, _nccl_first, lambda xs, un: _ring_over_tasks(xs, subdiv, red_op, un), un_op)


def _ring_over_tasks(xs, subdiv, red_op, un_op):
    """A ring among one device per task; with ``subdiv`` > 1, ``subdiv`` rings, each over
    one part of the tensors (a one-GPU worker's ring has one order only)."""
    if subdiv <= 1:
        return build_ring_all_reduce(xs, len(xs), 1, [0], red_op, un_op)
    parts = [_cut(x, subdiv) for x in xs]
    rings = [build_ring_all_reduce([p[k] for p in parts], len(xs), 1, [0], red_op, un_op) for k in range(subdiv)]
    return [_whole([ring[i] for ring in rings], x, x.device) for i, x in enumerate(xs)]


def build_nccl_then_recursive_hd(input_tensors, red_op, un_op=None):
    """NCCL's sum within each task, then recursive halving and doubling among the tasks."""
    tensors = _checked(input_tensors, minimum=1)
    return _two_levels(tensors, _nccl_first, lambda xs, un: build_recursive_hd_all_reduce(xs, red_op, un), un_op)


def build_nccl_then_shuffle(input_tensors, gather_devices, nccl_red_op, shuffle_red_op, un_op=None):
    """NCCL's sum within each task, then a shuffle among the tasks on ``gather_devices``."""
    tensors = _checked(input_tensors, minimum=1)
    if not _is_add(nccl_red_op):
        raise ValueError("build_nccl_then_shuffle currently only supports addition for its NCCL level")
    return _two_levels(tensors, _nccl_first,
                       lambda xs, un: build_shuffle_all_reduce(xs, gather_devices, shuffle_red_op, un), un_op)


def _shuffle_first(gather_devices, red_n_op):
    def first(group):
        task = _task_of(group[0].device)
        local = [d for d in gather_devices if _task_of(d) == task] or [group[0].device]
        reduced = _shuffle_reduce(group, local, red_n_op, None)
        return _whole([_copy(r, group[0].device) for r in reduced], group[0], group[0].device)
    return first


def build_shuffle_then_ring(input_tensors, gather_devices, subdiv, red_n_op, red_op, un_op=None):
    """A shuffle within each task (on its ``gather_devices``), then a ring among the tasks."""
    tensors = _checked(input_tensors, minimum=1)
    return _two_levels(tensors, _shuffle_first(gather_devices, red_n_op),
                       lambda xs, un: _ring_over_tasks(xs, subdiv, red_op, un), un_op)


def build_shuffle_then_shuffle(input_tensors, first_gather_devices, second_gather_devices, red_op, un_op=None):
    """A shuffle within each task, then a shuffle among the tasks on ``second_gather_devices``."""
    tensors = _checked(input_tensors, minimum=1)
    return _two_levels(tensors, _shuffle_first(first_gather_devices, red_op),
                       lambda xs, un: build_shuffle_all_reduce(xs, second_gather_devices, red_op, un), un_op)

