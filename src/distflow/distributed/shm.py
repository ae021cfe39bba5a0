"""Shared memory for the data path between tasks on one host.

Loopback TCP costs each side a copy and the kernel's protocol work for every byte, at
2-5 GB/s on a small VM; between processes of one host, a tensor can instead be copied
once into a memory segment the sender owns and once out of it by the receiver, at
memcpy speed, with only a small frame on the socket (transport.py). Per connection the
sender keeps one segment (``SegmentWriter``), grown when a tensor does not fit; the
receiver maps it by name (``SegmentReader``) and acknowledges each tensor with one byte
once it has copied it out, and the sender waits for that byte before it writes the next
tensor, so the segment is never overwritten while read. A receiver that cannot map the
segment (another user's process, a container with its own /dev/shm) answers NAK instead,
and the sender sends that tensor, and the rest of the connection's, on the socket.

Segments are files in /dev/shm created with mode 0600 (only the sender's user can map
them). The sender unlinks a segment as soon as the receiver has mapped it (its first
acknowledgement), and on close, so a crash leaves at most one segment behind per open
connection; each server sweeps, when it starts, the segments of this user whose sender
(the pid in the name) is no longer running. Only Linux (/dev/shm) has the path;
``DISTFLOW_SHARED_MEMORY=0`` turns it off.
"""

from __future__ import annotations

import math
import mmap
import os
import re
import uuid

import numpy as np

_DIR = "/dev/shm"
MIN_BYTES = 128 << 10  # smaller tensors go inline on the socket
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
    """The sender's segment for one connection."""

    def __init__(self):
        self.name: str | None = None
        self._map: mmap.mmap | None = None
        self._linked = False  # still has a name in /dev/shm
        self.awaiting_ack = None  # (dtype, shape) of the last tensor written, until the receiver answers
        self.usable = True  # False once the receiver said it cannot map the segment

    def write(self, arr: np.ndarray) -> str:
        """Copies ``arr`` (C-contiguous) into the segment, growing it first if needed; its name."""
        if self._map is None or len(self._map) < arr.nbytes:
            self._replace(max(arr.nbytes, 2 * (len(self._map) if self._map is not None else 0)))
        np.copyto(np.frombuffer(self._map, np.uint8, arr.nbytes), arr.reshape(-1).view(np.uint8))
        return self.name

    def written(self, dtype: np.dtype, shape: tuple) -> np.ndarray:
        """The last tensor written, as a view of the segment."""
        return np.frombuffer(self._map, dtype, math.prod(shape)).reshape(shape)

    def mapped_by_receiver(self) -> None:
        """The receiver has acknowledged a tensor of this segment, so it has it mapped: unlink it."""
        if self._linked:
            _unlink(self.name)
            self._linked = False

    def _replace(self, size: int) -> None:
        self.close()
        name = f"distflow-{os.getpid()}-{uuid.uuid4().hex}"
        fd = os.open(os.path.join(_DIR, name), os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            os.ftruncate(fd, size)
            self._map = mmap.mmap(fd, size)
        except OSError:
            _unlink(name)
            raise
        finally:
            os.close(fd)
        self.name, self._linked = name, True

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

    def read(self, name: str, dtype: np.dtype, dims: tuple, nbytes: int) -> np.ndarray:
        """A fresh array of ``nbytes`` copied from the start of segment ``name``.

        Raises ValueError for a name that is not a distflow segment or a segment too
        small for the tensor, OSError if it cannot be mapped.
        """
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
        if nbytes > len(self._map):
            raise ValueError(f"a tensor of {nbytes} bytes in a segment of {len(self._map)}")
        value = np.empty(dims, dtype)
        np.copyto(value.reshape(-1).view(np.uint8), np.frombuffer(self._map, np.uint8, nbytes))
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
