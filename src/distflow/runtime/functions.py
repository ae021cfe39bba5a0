"""Running the functions of control-flow ops (a cond's branches, a loop's condition and body).

An ``If`` or ``While`` node names its functions' ops in :class:`FuncBody` attrs. When a
plan is compiled, each such attr becomes a :class:`BodyRunner`: the function's ops
compiled once into a plan of their own (in the sequential form, each op on its own
device of this task), which the op's kernel runs with its inputs whenever the branch is
taken or the loop goes round.
"""

from __future__ import annotations

from ..framework import errors
from ..framework.function_body import FuncBody
from ..framework.ops import Operation
from .partition import Node


def function_ops(op: Operation):
    """The ops of ``op``'s functions, and of the functions nested in them."""
    graph = op.graph
    for value in op._attrs.values():
        if isinstance(value, FuncBody):
            for name in value.ops:
                inner = graph.get_operation_by_name(name)
                yield inner
                yield from function_ops(inner)


def has_functions(attrs: dict) -> bool:
    return any(isinstance(v, FuncBody) for v in attrs.values())


def _key(name: str) -> tuple[str, int]:
    op, _, index = name.rpartition(":")
    return op, int(index)


class BodyRunner:
    """One function of a control-flow node, compiled: ``runner(inputs, step)`` -> its outputs.

    ``inputs`` are all of the owning node's inputs (the function reads the ones its
    ``feeds`` name); ``step`` is the step's Rendezvous (or None), for the blocking
    kernels inside and for being aborted.
    """

    __slots__ = ("plan", "positions", "outputs", "_n")

    def __init__(self, body: FuncBody, owner: str, graph, device, kernel_states: dict, plan_class):
        ops = [graph.get_operation_by_name(name) for name in body.ops]
        devices = [self._device_of(op, device, owner) for op in ops]
        feed_index = {}
        for i, (name, _) in enumerate(body.feeds):
            feed_index.setdefault(_key(name), i)
        self.positions = tuple(p for _, p in body.feeds)
        fetch_index: dict = {}
        # per output: ("slot", result position), ("feed", feed position) or ("none", None)
        outputs = []
        for j, name in enumerate(body.outputs):
            if not name:
                outputs.append((None, None))
            elif _key(name) in feed_index:
                outputs.append((feed_index[_key(name)], None))
            else:
                if _key(name) not in fetch_index:
                    fetch_index[_key(name)] = [len(fetch_index)]
                outputs.append((None, fetch_index[_key(name)][0]))
        self.outputs = tuple(outputs)
        self._n = len(fetch_index)
        nodes = [Node.from_op(op) for op in ops]
        # (constants folded, as a step's are, so that a loop computes them once rather than in
        # every iteration; the fusions stay off: they are measured on whole training steps)
        self.plan = plan_class(owner, nodes, devices, feed_index, fetch_index, kernel_states, (True, False),
                               ref_feeds=True)

    @staticmethod
    def _device_of(op: Operation, device, owner: str):
        name = op._assigned_device or op.device
        if not name or name == device.name:
            return device
        peers = device.peers
        try:
            return peers.lookup(name) if peers is not None else None
        except KeyError:
            raise errors.InvalidArgumentError(
                None, op, f"Op '{op.name}' in a function of '{owner}' is placed on {name}, which is not a device "
                f"of the task running '{owner}' ({device.name}): the ops of a cond branch or a loop run on the "
                "task that runs the cond or loop") from None

    def __call__(self, inputs, step):
        feeds = [inputs[p] for p in self.positions]
        results = [None] * self._n
        self.plan.run(feeds, step, results)
        return [feeds[f] if f is not None else (results[r] if r is not None else None) for f, r in self.outputs]
