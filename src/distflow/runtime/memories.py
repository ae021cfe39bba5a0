"""Where a plan's values live, and the copies between memories (host and each GPU's).

A plan compiled for devices that do not all compute in host memory keeps, for each slot,
the memory its value is in, and adds a copy call where a kernel reads it from another:
a feed (host) read on a GPU is uploaded once per step, a constant once when the plan is
made, a device value read by a host kernel (or as a host-memory input) is downloaded. A
``_Recv`` makes what it receives its device's own, and a fetch leaves in host memory.
"""

from __future__ import annotations

import numpy as np


def value_of(value):
    """The array behind a variable reference (what leaves a device); other values as they are."""
    read = getattr(value, "read", None)
    return read() if read is not None else value


def goes_to_device(value) -> bool:
    """Whether a host value is copied to a device: arrays of numbers are; strings and objects,
    which no device kernel reads, stay on the host."""
    return isinstance(value, (np.ndarray, np.generic)) and value.dtype.kind not in "OSUV"


def fetch_to_host(to_host, value):
    """A fetched value from device memory (``to_host`` copies it there) or a host copy."""
    value = value_of(value)
    host = to_host(value)
    return host.copy() if host is value and isinstance(value, np.ndarray) else host


def recv_into(accept, recv, rdv):
    return accept(recv(rdv))


class Memories:
    """Which memory holds each slot's value in a plan whose devices do not all share host
    memory, and the copy steps that move a value to where a kernel reads it: one per value
    and memory, placed before its first reader there (constants are copied once, when the
    plan is made)."""

    __slots__ = ("plan", "new_slot", "one_arg", "where", "copies")

    def __init__(self, plan, new_slot, one_arg):
        self.plan, self.new_slot, self.one_arg = plan, new_slot, one_arg  # (one_arg: the plan's one-input call mode)
        self.where: dict[int, str] = {}
        self.copies: dict[tuple[int, str], int] = {}

    def of(self, slot: int) -> str:
        return self.where.get(slot, "host")

    def put(self, slot: int, memory: str) -> None:
        if memory != "host":
            self.where[slot] = memory

    def move(self, slot: int, memory: str, device, node) -> int:
        """The slot holding ``slot``'s value in ``memory``, read by ``node`` on ``device``."""
        if self.of(slot) == memory:
            return slot
        copy = self.copies.get((slot, memory))
        if copy is None:
            to = device.accept if memory == device.memory else device.backend.to_host
            value = self.plan.init_slots[slot]
            if value is not None:  # a constant
                copy = self.new_slot(to(value))
            else:
                copy = self.new_slot()
                blocker = None if memory != "host" else f"a copy to host memory for '{node.name}'"
                self.plan._add(to, (slot,), copy, self.one_arg, node, device, blocker=blocker)
            self.put(copy, memory)
            self.copies[(slot, memory)] = copy
        return copy
