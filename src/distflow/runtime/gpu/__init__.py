"""NVIDIA GPUs through CuPy: the backend room of the ``GPU`` device type.

Everything that knows about CUDA lives here: finding the devices (``backend.py``), moving
tensors between host and device memory, and the GPU kernels (``kernels.py``), registered
per op type as TensorFlow registers them. Nothing here is imported until a session or a
server makes its devices, so a CPU-only install imports no CuPy and pays nothing.

Without CuPy, or with CuPy but no CUDA device, a task's GPUs stay simulated (CPU kernels).
``DISTFLOW_GPU=simulated`` asks for simulated GPUs on a machine that has real ones.
"""

from __future__ import annotations

from .backend import Backend, find_backend, physical_gpus

__all__ = ["Backend", "find_backend", "physical_gpus"]
