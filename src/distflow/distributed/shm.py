"""Shared memory for the data path between tasks on one host.

Loopback TCP costs each side a copy and the kernel's protocol work for every byte, at
2-5 GB/s on a small VM; between processes of one host, a tensor can instead be copied
once into a memory segment the sender owns and read once by the receiver, at memcpy
speed, with only a small frame on the socket (transport.py). Per connection the sender
keeps one segment (``SegmentWriter``) of two slots, grown when a tensor does not fit a
slot; the receiver maps it by name (``SegmentReader``) and acknowledges each tensor with
one byte once it is done with it: once it has copied it out, or, where the receiver
uses the tensor where it lies (a collective merging a piece into its own buffer), once
it has used it. The sender writes a slot again only after the tensor in it has been
acknowledged, so a slot is never overwritten while read, and with two slots it writes
the next tensor while the receiver still reads the last. A receiver that cannot map the
segment (another user's process, a container with its own /dev/shm) answers NAK
instead, and the sender sends that tensor, and the rest of the connection's, on the
socket; until the receiver has acknowledged a tensor of a new segment, the sender keeps
only that one in flight, so that what it sends again comes first.

Segments are files in /dev/shm created with mode 0600 (only the sender's user can map
them). The sender unlinks a segment as soon as the receiver has mapped it (its first
acknowledgement), and on close, so a crash leaves at most one segment behind per open
connection; each server sweeps, when it starts, the segments of this user whose sender
(the pid in the name) is no longer running. Only Linux (/dev/shm) has the path;
``DISTFLOW_SHARED_MEMORY=0`` turns it off.
"""

from __future__ import annotations

import collections
import math
import mmap
import os
import re
import uuid

import numpy as np

_DIR = "/dev/shm"
MIN_BYTES = 128 << 10  # smaller tensors go inline on the socket
SLOTS = 2  # tensors a sender may have in flight in one segment
_NAME = re.compile(r"distflow-[0-9]+-[0-9a-f]{32}")


def sweep_orphans() -> list[str]:
    """Removes the segments this user's dead processes left in /dev/shm (a sender killed
    before its receiver mapped the segment); the names removed."""
    removed = []
    try:
        names = os.listdir(_DIR)
    except OSError:
        return removed
    uid = os.getuid()
    for name in names:
        if not _NAME.fullmatch(name):
            continue
        pid = int(name.split("-")[1])
        path = os.path.join(_DIR, name)
        try:
            if os.stat(path, follow_symlinks=False).st_uid != uid or _alive(pid):
                continue
            os.unlink(path)
            removed.append(name)
        except OSError:
            continue  # gone meanwhile, or not ours to remove
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process: alive
    return True


def available() -> bool:
    """Whether this process can use the shared-memory path."""
    return os.environ.get("DISTFLOW_SHARED_MEMORY", "1") != "0" and os.path.isdir(_DIR) \
        and hasattr(os, "O_NOFOLLOW")


class SegmentWriter:
    """The sender's segment for one connection: ``SLOTS`` slots of ``slot`` bytes each."""

    def __init__(self):
        self.name: str | None = None
        self._map: mmap.mmap | None = None
        self._linked = False  # still has a name in /dev/shm: the receiver has not mapped it yet
        self.slot = 0
        self._next = 0  # the slot the next tensor goes to
        # (dtype, shape, offset) of each tensor written and not yet acknowledged, oldest
        # first: the receiver answers them in this order
        self.pending: collections.deque = collections.deque()
        self.usable = True  # False once the receiver said it cannot map the segment

    def must_await(self, nbytes: int | None = None) -> bool:
        """Whether an acknowledgement must come before the next frame goes out (``nbytes``:
        before a tensor of that many bytes is written into the segment).

        Until the receiver has mapped the segment, only one tensor is in flight, and nothing
        else goes out before its answer (a NAK's tensor is then sent again on the socket, and
        must come first); a segment that must grow is replaced only once every tensor in it is
        answered; and a tensor needs a free slot."""
        if not self.pending:
            return False
        if self._linked:
            return True
        return nbytes is not None and (nbytes > self.slot or len(self.pending) >= SLOTS)

    def write(self, arr: np.ndarray) -> tuple[str, int]:
        """Copies ``arr`` (C-contiguous) into the next free slot, growing the segment first
        if needed (``must_await(arr.nbytes)`` must be false); the segment's name and the offset."""
        if self._map is None or arr.nbytes > self.slot:
            self._replace(-(-max(arr.nbytes, 2 * self.slot, 1) // 64) * 64)  # (slots aligned for any dtype)
        offset = self._next * self.slot
        np.copyto(np.frombuffer(self._map, np.uint8, arr.nbytes, offset), arr.reshape(-1).view(np.uint8))
        self._next = (self._next + 1) % SLOTS
        self.pending.append((arr.dtype, arr.shape, offset))
        return self.name, offset

    def answered(self) -> tuple:
        """The receiver has answered the oldest tensor in flight: its (dtype, shape, offset)."""
        return self.pending.popleft()

    def written(self, dtype: np.dtype, shape: tuple, offset: int) -> np.ndarray:
        """A tensor written at ``offset``, as a view of the segment."""
        return np.frombuffer(self._map, dtype, math.prod(shape), offset).reshape(shape)

    def mapped_by_receiver(self) -> None:
        """The receiver has acknowledged a tensor of this segment, so it has it mapped: unlink it."""
        if self._linked:
            _unlink(self.name)
            self._linked = False

    def _replace(self, slot: int) -> None:
        self.close()
        name = f"distflow-{os.getpid()}-{uuid.uuid4().hex}"
        fd = os.open(os.path.join(_DIR, name), os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            os.ftruncate(fd, SLOTS * slot)  # (sparse: a slot's pages exist once a tensor is written there)
            self._map = mmap.mmap(fd, SLOTS * slot)
        except OSError:
            _unlink(name)
            raise
        finally:
            os.close(fd)
        self.name, self._linked, self.slot, self._next = name, True, slot, 0

    def close(self) -> None:
        if self._linked:
            _unlink(self.name)
            self._linked = False
        if self._map is not None:
            self._map.close()
            self._map = None


class SegmentReader:
    """The receiver's mapping of its peer's segment for one connection."""

    def __init__(self):
        self._name: str | None = None
        self._map: mmap.mmap | None = None

    def view(self, where: str, dtype: np.dtype, dims: tuple, nbytes: int) -> np.ndarray:
        """A read-only view of the tensor at ``where`` ("<segment name>:<offset>"); valid
        until the receiver acknowledges it (the sender writes that slot again after).

        Raises ValueError for a name that is not a distflow segment, a bad offset, or a
        segment too small for the tensor; OSError if it cannot be mapped."""
        name, _, offset = where.rpartition(":")
        if not offset.isdigit():
            raise ValueError(f"{where!r} names no place in a shared-memory segment")
        offset = int(offset)
        if name != self._name:
            if not _NAME.fullmatch(name):
                raise ValueError(f"{name!r} is not a distflow shared-memory segment")
            self.close()
            fd = os.open(os.path.join(_DIR, name), os.O_RDONLY | os.O_NOFOLLOW)
            try:
                self._map = mmap.mmap(fd, 0, prot=mmap.PROT_READ)
            finally:
                os.close(fd)
            self._name = name
        if offset + nbytes > len(self._map):
            raise ValueError(f"a tensor of {nbytes} bytes at offset {offset} in a segment of {len(self._map)}")
        return np.frombuffer(self._map, np.uint8, nbytes, offset).view(dtype).reshape(dims)

    def read(self, where: str, dtype: np.dtype, dims: tuple, nbytes: int) -> np.ndarray:
        """A fresh array copied from the tensor at ``where`` (as :meth:`view`)."""
        value = np.empty(dims, dtype)
        np.copyto(value, self.view(where, dtype, dims, nbytes))
        return value

    def close(self) -> None:
        if self._map is not None:
            self._map.close()
            self._map = None
        self._name = None


def _unlink(name: str) -> None:
    try:
        os.unlink(os.path.join(_DIR, name))
    except OSError:
        pass
