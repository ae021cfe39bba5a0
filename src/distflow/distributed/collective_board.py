"""Collectives between tasks: a task's board on its data port, and groups found through a leader.

runtime/collectives.py runs a collective as a ring over boards. A server's task puts what
its members give in the worker's step table, under the run's id (a step of its own,
above every id a master gives), so that the data port serves it as it serves a step's
tensors; a member takes what a member of another task gave through one stream from that
task (transport.py), asked for once per run with every key in order. Members find their
group by asking the leader task's worker (CompleteGroup), which answers once the whole
group has asked.
"""

from __future__ import annotations

import threading
import time

from ..framework import errors
from ..framework.device_spec import DeviceSpec
from ..protos import distflow_pb2 as pb
from ..runtime import collectives

LEADER_WAIT_S = 600.0  # how long a leader keeps a CompleteGroup waiting for the rest of the group


def default_leader(cluster) -> str:
    """The task that leads collective groups unless ConfigProto.experimental says: the
    chief, else worker 0, else the first task (as TensorFlow's multi-worker strategy)."""
    jobs = cluster.jobs
    job = "chief" if "chief" in jobs else "worker" if "worker" in jobs else sorted(jobs)[0]
    return f"/job:{job}/replica:0/task:{min(cluster.task_indices(job))}"


def configured_leader(config, cluster) -> str:
    leader = getattr(getattr(config, "experimental", None), "collective_group_leader", "") or ""
    if not leader:
        return default_leader(cluster)
    spec = DeviceSpec.from_string(leader)
    return f"/job:{spec.job}/replica:0/task:{spec.task or 0}"


class WorkerBoard(collectives.Board):
    """A server task's board: runs are steps of its worker, served on its data port."""

    def __init__(self, worker):
        super().__init__()
        self._worker = worker

    def rendezvous(self, run_id: int):
        rdv = self._worker._step(run_id)
        rdv.claimed = True
        return rdv

    def takers(self, run_id: int, keys, deadline) -> dict:
        rdv = self._worker._step(run_id)
        streams = self._worker.open_streams(keys, run_id, deadline)
        rdv.streams.update(streams)  # (so that failing the run stops a read in progress)
        return {key: (lambda use=None, key=key: rdv.streams.pop(key).get(key, use)) for key in keys}

    def delivered(self, rdv, keys, what: str) -> None:
        rdv.wait_left(keys, what)

    def finished(self, run_id: int) -> None:
        worker = self._worker
        with worker._lock:
            rdv = worker._steps.get(run_id)
        if rdv is not None:
            rdv.since, rdv.finished = time.monotonic(), True
            worker._drop_step_if_done(rdv)

    def fail(self, run_id: int, error: BaseException) -> None:
        self._worker._fail_step(run_id, error)


class GroupLeader:
    """What the leader task keeps: every group's members as they ask."""

    def __init__(self):
        self._cond = threading.Condition()
        self._groups: dict = {}

    def complete(self, request: pb.CompleteGroupRequest, context=None) -> pb.CompleteGroupResponse:
        timeout = request.timeout_in_ms / 1000.0 if request.timeout_in_ms > 0 else LEADER_WAIT_S
        deadline = time.monotonic() + min(timeout, LEADER_WAIT_S)

        def wait(cond, ready, what):
            while not ready():
                if context is not None and not context.is_active():
                    raise errors.CancelledError(None, None, f"{request.device_name} stopped waiting for {what}")
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise errors.DeadlineExceededError(None, None, f"the collective group leader waited for {what}, "
                                                       f"which did not come")
                cond.wait(min(remaining, 1.0))

        if not request.device_name:
            raise errors.InvalidArgumentError(None, None, "CompleteGroup: no device_name")
        group = collectives.complete_group(self._groups, self._cond, request.group_key, request.group_size,
                                           request.device_type, request.device_name, wait, reform=True)
        return pb.CompleteGroupResponse(group_key=group.key, group_size=group.size, device_type=group.device_type,
                                        device_name=list(group.members), incarnation=group.incarnation)


def resolver(worker, leader: str):
    """``resolve(key, size, device_type, device, ctx)`` for a worker's Collectives: asks the
    leader task, waiting as a blocking kernel waits (a cancelled step stops waiting)."""

    def resolve(key: int, size: int, device_type: str, device: str, ctx) -> collectives.Group:
        step = ctx.step
        deadline = None if step is None else step.deadline
        timeout_ms = 0 if deadline is None else max(1, int((deadline - time.monotonic()) * 1000))
        request = pb.CompleteGroupRequest(group_key=key, group_size=size, device_type=device_type,
                                          device_name=device, timeout_in_ms=timeout_ms)
        done = threading.Condition()
        box: dict = {}

        def ask():
            try:
                box["response"] = worker.tasks.task(leader).complete_group(request, LEADER_WAIT_S + 5.0)
            except BaseException as e:  # noqa: BLE001 - handed to the waiting kernel
                box["error"] = e
            with done:
                done.notify_all()

        threading.Thread(target=ask, name="collective-group", daemon=True).start()
        with done:
            ctx.wait_for(done, lambda: box, f"collective group {key}'s {size} members to ask its leader {leader}")
        if "error" in box:
            error = box["error"]
            if isinstance(error, errors.OpError) and leader not in error.message:
                error = type(error)(None, None, f"{error.message} (asking the collective group leader {leader})")
            raise error
        response = box["response"]
        return collectives.Group(response.group_key, response.group_size, response.device_type,
                                 tuple(response.device_name), response.incarnation)

    return resolve
