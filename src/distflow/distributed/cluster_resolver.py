"""Cluster resolvers: the cluster, job and task of this process, from its environment.

``TFConfigClusterResolver`` reads TF_CONFIG (TensorFlow's format, written by the
distflow launcher and by Kubernetes TFJob); ``SlurmClusterResolver`` reads a Slurm
job's variables. The same training script then runs under any of them.
"""

from __future__ import annotations

import json
import os
import re

from .cluster_spec import ClusterSpec


class ClusterResolver:
    """What a resolver answers: the cluster, this task's type and index, the RPC layer."""

    task_type: str | None = None
    task_id: int | None = None
    rpc_layer: str | None = "grpc"

    def cluster_spec(self) -> ClusterSpec:
        raise NotImplementedError

    def master(self, task_type=None, task_id=None, rpc_layer=None) -> str:
        """The target (``grpc://host:port``) of a task, by default this one."""
        task_type = self.task_type if task_type is None else task_type
        task_id = self.task_id if task_id is None else task_id
        if task_type is None or task_id is None:
            return ""
        address = self.cluster_spec().task_address(task_type, task_id)
        layer = rpc_layer or self.rpc_layer
        return f"{layer}://{address}" if layer else address

    @property
    def is_chief(self) -> bool:
        """The chief: task 'chief' 0, or worker 0 when the cluster has no chief job."""
        jobs = self.cluster_spec().jobs
        if "chief" in jobs:
            return self.task_type == "chief" and self.task_id == 0
        return self.task_type == "worker" and self.task_id == 0


class SimpleClusterResolver(ClusterResolver):
    """A resolver of a cluster given to it (a ClusterSpec or its dict), with this task's type,
    index and master as given."""

    def __init__(self, cluster_spec, master="", task_type=None, task_id=None, environment="",
                 num_accelerators=None, rpc_layer=None):
        self._cluster = cluster_spec if isinstance(cluster_spec, ClusterSpec) else ClusterSpec(cluster_spec)
        self._master, self.environment = master, environment
        self.task_type, self.task_id, self.rpc_layer = task_type, task_id, rpc_layer
        self._num_accelerators = dict(num_accelerators or {})

    def cluster_spec(self) -> ClusterSpec:
        return self._cluster

    def master(self, task_type=None, task_id=None, rpc_layer=None) -> str:
        """The master given ('' for an in-process session), or the target of the task named."""
        if task_type is not None and task_id is not None:
            return super().master(task_type, task_id, rpc_layer)
        layer = rpc_layer or self.rpc_layer
        return f"{layer}://{self._master}" if layer and self._master and "://" not in self._master else self._master

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None) -> dict:
        return dict(self._num_accelerators)


class UnionResolver(ClusterResolver):
    """The union of several resolvers' clusters (a job's tasks may come from several, but no
    task twice); this task's type, index, RPC layer and master are the first resolver's
    unless given."""

    def __init__(self, *resolvers, task_type=None, task_id=None, rpc_layer=None):
        if not resolvers:
            raise ValueError("At least one ClusterResolver is required.")
        for resolver in resolvers:
            if not isinstance(resolver, ClusterResolver):
                raise TypeError(f"All arguments must be a sub-class of `ClusterResolver`, given {resolver!r}")
        self._resolvers = resolvers
        first = resolvers[0]
        self.task_type = first.task_type if task_type is None else task_type
        self.task_id = first.task_id if task_id is None else task_id
        self.rpc_layer = first.rpc_layer if rpc_layer is None else rpc_layer

    def cluster_spec(self) -> ClusterSpec:
        merged: dict = {}
        for resolver in self._resolvers:
            for job, tasks in resolver.cluster_spec().as_dict().items():
                tasks = dict(enumerate(tasks)) if isinstance(tasks, list) else dict(tasks)
                mine = merged.setdefault(job, {})
                for index, address in tasks.items():
                    if index in mine:
                        raise KeyError(f"Duplicate job name and task index: job {job!r} task {index} is in more "
                                       "than one resolver's cluster")
                    mine[index] = address
        return ClusterSpec(merged)

    def master(self, task_type=None, task_id=None, rpc_layer=None) -> str:
        if task_type is None and task_id is None:
            return self._resolvers[0].master(rpc_layer=rpc_layer)
        return super().master(task_type, task_id, rpc_layer)


class TFConfigClusterResolver(ClusterResolver):
    """Reads ``TF_CONFIG``: {"cluster": {...}, "task": {"type": ..., "index": ...}, "rpc_layer": ...}.

    Raises:
      ValueError: TF_CONFIG is not valid JSON, or its task is not in its cluster.
    """

    def __init__(self, task_type=None, task_id=None, rpc_layer=None, environment=None):
        env = os.environ if environment is None else environment
        raw = env.get("TF_CONFIG", "")
        try:
            config = json.loads(raw) if raw else {}
        except json.JSONDecodeError as e:
            raise ValueError(f"TF_CONFIG is not valid JSON ({e}): {raw[:200]!r}") from None
        if not isinstance(config, dict):
            raise ValueError(f"TF_CONFIG must be a JSON object, got {raw[:200]!r}")
        cluster, task = config.get("cluster", {}), config.get("task", {})
        if not isinstance(cluster, dict) or not isinstance(task, dict):
            raise ValueError(f"TF_CONFIG's cluster and task must be JSON objects, got {raw[:200]!r}")
        self._cluster = ClusterSpec(cluster)
        self.task_type = task_type if task_type is not None else task.get("type")
        index = task_id if task_id is not None else task.get("index")
        try:
            self.task_id = None if index is None else int(index)
        except (TypeError, ValueError):
            raise ValueError(f"TF_CONFIG's task index must be a whole number, got {index!r}") from None
        self.rpc_layer = rpc_layer or config.get("rpc_layer", "grpc")
        if self.task_type not in (None, "evaluator") and self._cluster:
            self._cluster.task_address(self.task_type, self.task_id)  # ValueError if absent

    def cluster_spec(self) -> ClusterSpec:
        return self._cluster


def expand_hostlist(hostlist: str) -> list[str]:
    """Slurm's compressed host list: ``"node[01-03,7],gpu2"`` -> node01 node02 node03 node7 gpu2."""
    hosts = []
    for item in re.findall(r"[^,\[]+(?:\[[^\]]*\])?[^,]*", hostlist):
        match = re.fullmatch(r"([^\[]*)\[([^\]]*)\](.*)", item)
        if not match:
            hosts.append(item)
            continue
        prefix, ranges, suffix = match.groups()
        for part in ranges.split(","):
            if "-" in part:
                lo, hi = part.split("-")
                for n in range(int(lo), int(hi) + 1):
                    hosts.append(f"{prefix}{str(n).zfill(len(lo))}{suffix}")
            else:
                hosts.append(f"{prefix}{part}{suffix}")
    return hosts


class SlurmClusterResolver(ClusterResolver):
    """A cluster from a Slurm allocation.

    ``jobs`` maps job names to task counts, e.g. ``{"ps": 1, "worker": 3}``; ranks are
    handed out to the jobs in alphabetical order of their names. Task ``i`` of a node
    listens on ``port_base + i``.
    """

    def __init__(self, jobs=None, port_base=8888, tasks_per_node=None, rpc_layer="grpc", environment=None):
        env = os.environ if environment is None else environment
        try:
            rank = int(env["SLURM_PROCID"])
            n_tasks = int(env["SLURM_NTASKS"])
            hostlist = env.get("SLURM_STEP_NODELIST") or env.get("SLURM_JOB_NODELIST") or env["SLURM_NODELIST"]
        except KeyError as e:
            raise ValueError(f"Not running under Slurm: {e.args[0]} is not set") from None
        if tasks_per_node is None:
            tasks_per_node = int(str(env.get("SLURM_NTASKS_PER_NODE", "1")).split("(")[0])
        jobs = dict(jobs or {"worker": n_tasks})
        if sum(jobs.values()) > n_tasks:
            raise ValueError(f"The jobs {jobs} need {sum(jobs.values())} tasks but Slurm runs {n_tasks}")
        addresses = [f"{host}:{port_base + i}" for host in expand_hostlist(hostlist) for i in range(tasks_per_node)]
        if len(addresses) < n_tasks:
            raise ValueError(f"{n_tasks} tasks do not fit {len(addresses)} slots ({hostlist}, "
                             f"{tasks_per_node} per node)")
        cluster, start = {}, 0
        for job in sorted(jobs):
            cluster[job] = addresses[start:start + jobs[job]]
            if start <= rank < start + jobs[job]:
                self.task_type, self.task_id = job, rank - start
            start += jobs[job]
        self._cluster = ClusterSpec(cluster)
        self.rpc_layer = rpc_layer

    def cluster_spec(self) -> ClusterSpec:
        return self._cluster
