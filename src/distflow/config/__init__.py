"""``tf.config``: the devices this process sees and how it uses them, and its thread counts
(TF 1.15's ``experimental``, ``threading`` and ``optimizer`` namespaces).

Physical devices are the CPU and the real GPUs (CuPy and a CUDA device; distflow's
simulated GPUs are not hardware and are not listed, as ``tf.test.is_gpu_available`` does
not count them). Logical devices are those a session made now would have: simulated GPUs
included. What is set applies to the sessions and servers made after it, where their
ConfigProto leaves the field at its default (runtime/process_options.py).
"""

from __future__ import annotations

from .._namespace import missing
from . import experimental, optimizer, threading  # noqa: F401
from .experimental import LogicalDevice, PhysicalDevice, list_logical_devices, list_physical_devices  # noqa: F401
from .experimental import experimental_list_devices  # noqa: F401

__getattr__ = missing("tf.config")
