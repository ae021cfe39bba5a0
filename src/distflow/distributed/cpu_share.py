"""How many BLAS threads a task takes when it shares its host with other tasks.

NumPy's OpenBLAS starts one thread per core in every process, and its idle threads spin
before they sleep. Three tasks of a cluster on a 2-core host -- how people start a
cluster by hand, and how they try one out -- then run six BLAS threads on two cores:
the MLP cluster benchmark ran at 0.22x TensorFlow that way, and at 1.46x with
``OPENBLAS_NUM_THREADS=1`` exported by hand. ``distflow launch`` always set the thread
counts; a server now sizes its own process the same way, from what it knows:

1. ``ConfigProto(intra_op_parallelism_threads=N)`` given to the server: N.
2. A thread count the user exported (``OPENBLAS_NUM_THREADS``, ``OMP_NUM_THREADS``,
   ``MKL_NUM_THREADS``): left alone.
3. A ps task: 1 (it applies updates and serves tensors; its work is memory-bound).
4. Otherwise the cores this process may use (affinity mask, cgroup quota), divided
   among the cluster's non-ps tasks whose address is this host.

Unless the user chose the count (1, 2), ``blas.watch_load`` then lowers it further while
other processes keep the cores busy.

The choice is logged once, at INFO, with its reason.
"""

from __future__ import annotations

from typing import NamedTuple

from ..ops.blas import BLAS_THREAD_VARIABLES
from ..platform.cpus import is_local_host, usable_cores


class ThreadChoice(NamedTuple):
    threads: int | None  # None: leave the process's BLAS as it is
    reason: str
    chosen: bool = False  # the user chose it: no adjusting to the machine's load


def blas_threads_for_task(cluster, job: str, config, environ) -> ThreadChoice:
    """The BLAS thread count for task ``job`` of ``cluster`` on this host (rules above)."""
    if config is not None and config.intra_op_parallelism_threads > 0:
        return ThreadChoice(config.intra_op_parallelism_threads, "intra_op_parallelism_threads", chosen=True)
    exported = [f"{name}={environ[name]}" for name in BLAS_THREAD_VARIABLES if name in environ]
    if exported:
        return ThreadChoice(None, f"left as exported ({', '.join(exported)})", chosen=True)
    if job == "ps":
        return ThreadChoice(1, "a ps task")
    cores = usable_cores()
    here = [j for j in cluster.jobs for i in cluster.task_indices(j)
            if is_local_host(cluster.task_address(j, i).rpartition(":")[0])]
    trainers = max(1, sum(1 for j in here if j != "ps"))
    others = f"{len(here)} tasks of the cluster on this host" if len(here) > 1 else "the only task on this host"
    return ThreadChoice(max(1, cores // trainers), f"{cores} usable cores, {others}, {trainers} not ps")
