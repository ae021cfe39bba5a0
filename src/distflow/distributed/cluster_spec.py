"""``tf.train.ClusterSpec``: job names mapped to task addresses."""

from __future__ import annotations

from typing import Mapping


class ClusterSpec:
    """A cluster: each job has tasks, each task an address ("host:port").

    Built from a dict whose values are lists (dense: the index is the position) or
    ``{index: address}`` dicts (sparse), from another ClusterSpec, or from a
    ClusterDef protocol buffer.
    """

    def __init__(self, cluster):
        self._jobs: dict[str, dict[int, str]] = {}
        if isinstance(cluster, ClusterSpec):
            self._jobs = {job: dict(tasks) for job, tasks in cluster._jobs.items()}
        elif isinstance(cluster, Mapping):
            for job, tasks in cluster.items():
                if not isinstance(job, str):
                    raise TypeError(f"Job names must be strings, got {job!r}")
                self._jobs[job] = self._tasks_of(job, tasks)
        elif hasattr(cluster, "job"):  # a ClusterDef message
            for job_def in cluster.job:
                self._jobs[job_def.name] = {int(i): str(a) for i, a in job_def.tasks.items()}
        else:
            raise TypeError(f"`cluster` must be a dictionary mapping one or more job names to lists of "
                            f"network addresses, or a `ClusterDef` protocol buffer; got {type(cluster).__name__}")
        self._check_distinct()

    def _check_distinct(self) -> None:
        """Two tasks cannot serve on one address (a port of 0, "any free port", excepted):
        the second server would fail to bind, or, on some systems, share the port."""
        owner: dict[str, str] = {}
        for job, tasks in self._jobs.items():
            for index, address in tasks.items():
                if address.rpartition(":")[2] == "0":
                    continue
                task = f"/job:{job}/task:{index}"
                if address in owner:
                    raise ValueError(f"Address {address!r} is given to both {owner[address]} and {task}: each task "
                                     "needs an address of its own")
                owner[address] = task

    @staticmethod
    def _tasks_of(job: str, tasks) -> dict[int, str]:
        if isinstance(tasks, (list, tuple)):
            items = enumerate(tasks)
        elif isinstance(tasks, Mapping):
            items = tasks.items()
        else:
            raise TypeError(f"The tasks for job {job!r} must be a list or a dictionary from integers to "
                            f"addresses, got {tasks!r}")
        out = {}
        for index, address in items:
            if isinstance(index, str) and index.strip().isdigit():
                index = int(index)  # TF_CONFIG and JSON files spell indices as strings
            if not isinstance(index, int) or isinstance(index, bool):
                raise TypeError(f"Task indices of job {job!r} must be integers, got {index!r}")
            if not isinstance(address, str):
                raise TypeError(f"The address of task {index} of job {job!r} must be a string, got {address!r}")
            out[index] = address
        return out

    # -- queries ------------------------------------------------------------------
    @property
    def jobs(self) -> list[str]:
        """The job names, in the order they were given (as TF's)."""
        return list(self._jobs)

    def _job(self, job_name: str) -> dict[int, str]:
        try:
            return self._jobs[job_name]
        except KeyError:
            raise ValueError(f"No such job in cluster: {job_name!r} (jobs: {self.jobs})") from None

    def num_tasks(self, job_name: str) -> int:
        return len(self._job(job_name))

    def task_indices(self, job_name: str) -> list[int]:
        return sorted(self._job(job_name))

    def task_address(self, job_name: str, task_index: int) -> str:
        tasks = self._job(job_name)
        try:
            return tasks[task_index]
        except KeyError:
            raise ValueError(f"No task with index {task_index!r} in job {job_name!r} "
                             f"(indices: {sorted(tasks)})") from None

    def job_tasks(self, job_name: str) -> list:
        """The addresses of ``job_name`` by index, with None in the gaps of a sparse job."""
        tasks = self._job(job_name)
        if not tasks:
            return []
        return [tasks.get(i) for i in range(max(tasks) + 1)]

    def as_dict(self) -> dict:
        """Dense jobs as lists, sparse jobs as {index: address} dicts."""
        out = {}
        for job in self.jobs:
            tasks = self._jobs[job]
            if sorted(tasks) == list(range(len(tasks))):
                out[job] = [tasks[i] for i in range(len(tasks))]
            else:
                out[job] = dict(sorted(tasks.items()))
        return out

    def as_cluster_def(self):
        """The ClusterDef protocol buffer (jobs and tasks sorted)."""
        from ..protos import distflow_pb2  # noqa: PLC0415 - protobuf is needed only here

        cluster_def = distflow_pb2.ClusterDef()
        for job in sorted(self._jobs):
            job_def = cluster_def.job.add(name=job)
            for index in sorted(self._jobs[job]):
                job_def.tasks[index] = self._jobs[job][index]
        return cluster_def

    def __bool__(self) -> bool:
        return bool(self._jobs)

    def __eq__(self, other) -> bool:
        if not isinstance(other, ClusterSpec):
            try:
                other = ClusterSpec(other)
            except TypeError:
                return NotImplemented
        return self._jobs == other._jobs

    def __ne__(self, other) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return hash(repr(self))

    def __repr__(self) -> str:
        return "ClusterSpec(" + repr(self.as_dict()) + ")"
