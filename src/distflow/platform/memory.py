"""How the process's C heap behaves: one glibc arena, and freed memory handed back.

glibc's malloc gives each thread that allocates while another holds the heap a heap of
its own ("arena"; up to 8 per core), and memory freed into those heaps mostly stays in
the process. A server's gRPC threads and step threads each touch large buffers (a feed,
a received tensor), so a ps that took three 64 MB feeds kept 120-170 MB more for good,
however often it was asked to trim. With one arena it kept none. distflow's threads
allocate while holding the GIL, so one arena costs no measurable speed (a loopback
cluster ran at 80-90k samples/s, and the MLP on one device at the same rate, either way).

The arena limit only holds if it is set before a second arena exists, so it is set when
distflow is imported. Elsewhere than glibc both calls do nothing.
"""

from __future__ import annotations

import ctypes

_M_ARENA_MAX = -8  # (glibc's mallopt parameter)


def _glibc():
    try:
        libc = ctypes.CDLL(None)
        libc.malloc_trim, libc.mallopt  # noqa: B018 - glibc's own, or not glibc
        return libc
    except (OSError, AttributeError):
        return None


_LIBC = _glibc()


def use_one_arena() -> None:
    """Makes every thread allocate from one heap (effective before a second one exists)."""
    if _LIBC is not None:
        _LIBC.mallopt(_M_ARENA_MAX, 1)


def release_free_memory() -> None:
    """Hands the heap's free pages back to the system (well under a millisecond)."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)
