"""oneDNN: the compiled CPU kernels' room (convolutions, pooling and Adam's update).

``library.py`` finds oneDNN and speaks its C API through ctypes; ``kernels.py`` and
``updates.py`` register its kernels for the CPU beside the NumPy kernels of the op blocks,
which stay the reference and the fallback. :func:`register` is called when a process
makes its devices (not at ``import distflow``); the library itself is looked for when a
step first asks for one of these kernels.
"""

from __future__ import annotations

_registered = False


def register() -> None:
    """Registers the oneDNN CPU kernels (once; they answer whether the library is there)."""
    global _registered
    if not _registered:
        _registered = True
        from . import kernels, updates  # noqa: F401, PLC0415 - registers the kernels


def available() -> bool:
    """Whether oneDNN serves CPU kernels in this process (looks for it once)."""
    from .library import available as found  # noqa: PLC0415

    return found()
