"""The runtime of collective ops: all-reduce, all-gather and broadcast among a group of devices.

A *group* is ``group_size`` devices that run collective ops with one ``group_key``; an
*instance* is one collective op (its ``instance_key``) that every member of the group
runs. As with TensorFlow's collective ops, an op carries only the keys and the size;
the members find each other when they first run:

- in a local session, every member is a device of the session, and they meet here;
- on a cluster, every member asks the group's leader task (``ConfigProto.experimental.
  collective_group_leader``; by default the chief, else worker 0) with a CompleteGroup
  call, which the leader answers once all ``group_size`` have asked. Members are ranked
  by task, then device; a group, once complete, is remembered by every member.

The k-th run of an instance on one member meets the k-th run on every other member.

**The algorithm is a ring.** Member r takes from member r-1 and gives to member r+1.
An all-reduce of n members cuts the tensor into n chunks and each chunk into pieces of
at most ``PIECE_BYTES``; in n-1 reduce-scatter rounds each member passes one chunk on
and merges the one it receives, so that member r ends with chunk r+1 reduced; in n-1
all-gather rounds the reduced chunks travel round the ring. Each member so sends and
receives 2(n-1)/n of the tensor, whatever n, on its own links. The pieces pipeline:
while a member merges one piece, the next is on its way in and its own last one on its
way out. An all-gather passes each member's tensor round the ring; a broadcast passes
the source's tensor along the ring from the source.

What a member gives, it *puts* on its board under a key, and what it takes, it *takes*
from its left neighbour's board (``Board``): within a process that is a rendezvous in
memory; between tasks, a task's board is served on its data port, and a member asks
its left neighbour's task, in one request, for every piece of an instance in the order
they are made (distributed/collective_board.py). A member uses what it takes where it
lies, with no copy: between tasks of one host, a piece in the sender's shared memory is
merged straight into the member's buffer. An array put on a board is not written again
until every member that reads it has: the reduce-scatter merges into the member's buffer
and puts a view of it, which the all-gather overwrites only after the chunk's reduction,
which needed that piece, is complete. What nothing tells a member has been read (the
pieces of the all-gather, which the op's result holds) is put as a copy.

A member that fails (its task died, its step was cancelled) fails the instance on its
board; its right neighbour's take fails with the reason, and so on round the ring, so
that every member's step fails, naming the first failure. The group's run counts then
start again from zero on every member, as they do in a task that restarted; on a cluster
each member asks the leader again, which re-forms the group (``complete_group``) so that
members that stayed and members that came back meet in the same incarnation.
"""

from __future__ import annotations

import hashlib
import threading
import time
from typing import NamedTuple

import numpy as np

from ..framework import errors
from ..framework.device_spec import DeviceSpec
from .pool import submit_background
from .rendezvous import Rendezvous

PIECE_BYTES = 4 << 20  # what one put carries at most: small enough to pipeline, large enough to amortize

MERGE_OPS = {"Add": np.add, "Mul": np.multiply, "Min": np.minimum, "Max": np.maximum}
FINAL_OPS = ("Id", "Div")


class Group(NamedTuple):
    key: int
    size: int
    device_type: str
    members: tuple  # device names in rank order
    incarnation: int = 0  # how many times the group has re-formed (a member restarted, a run failed)


def rank_order(devices) -> list[str]:
    """Device names in rank order: by job, task, device type and index."""
    def key(name):
        s = DeviceSpec.from_string(name)
        return (s.job or "", s.replica or 0, s.task or 0, s.device_type or "", s.device_index or 0)

    return sorted(devices, key=key)


def complete_group(groups: dict, lock_cond: threading.Condition, key: int, size: int, device_type: str,
                   device: str, wait, reform: bool = False) -> Group:
    """Joins ``device`` to group ``key`` in ``groups`` (a table that ``lock_cond`` guards) and
    returns the group once ``size`` devices have joined; ``wait(cond, ready, what)`` waits.

    ``reform`` (the leader's table): a member of a complete group that asks again (its task
    restarted, or a run of the group failed) starts the group's next incarnation, which every
    member must ask for before any is answered; runs are numbered within an incarnation, so
    members that came back and members that stayed count from zero together.

    Raises InvalidArgumentError for a member whose size or device type differs from the
    group's, or that joins a group that is complete without it."""
    with lock_cond:
        entry = groups.get(key)
        if entry is None:
            entry = groups[key] = {"size": size, "type": device_type, "devices": set(), "group": None,
                                   "incarnation": 0, "asked": set()}
        if entry["size"] != size or entry["type"] != device_type:
            raise errors.InvalidArgumentError(
                None, None, f"collective group {key}: {device} says it has {size} {device_type} members, but the "
                f"group has {entry['size']} {entry['type']} members")
        group = entry["group"]
        if group is None:
            entry["devices"].add(device)
            if len(entry["devices"]) == size:
                entry["group"] = Group(key, size, device_type, tuple(rank_order(entry["devices"])))
                entry["asked"] = set(entry["devices"])
                lock_cond.notify_all()
            else:
                wait(lock_cond, lambda: entry["group"] is not None,
                     f"the other {size - len(entry['devices'])} of the {size} members of collective group {key}")
            return entry["group"]
        if device not in group.members:
            raise errors.InvalidArgumentError(
                None, None, f"collective group {key} is complete with members {list(group.members)}; "
                f"{device} is not one of them")
        if not reform:
            return group
        if device in entry["asked"]:  # (asked in this incarnation already: the group re-forms)
            entry["incarnation"] += 1
            entry["asked"] = set()
            lock_cond.notify_all()
        members = set(group.members)
        while True:
            mine = entry["incarnation"]
            entry["asked"].add(device)
            if entry["asked"] >= members:
                lock_cond.notify_all()
                return group._replace(incarnation=mine)
            wait(lock_cond, lambda: entry["incarnation"] != mine or entry["asked"] >= members,
                 f"the other members of collective group {key} to come back "
                 f"({len(members - entry['asked'])} of {size} not yet)")
            if entry["incarnation"] == mine:
                return group._replace(incarnation=mine)


class Board:
    """Where one task's members of collective instances put what they give, and take what
    their neighbours gave. Each run of an instance is a step of its own (``run_id``).

    Subclasses say where a run's rendezvous lives and how keys from another task are taken."""

    def __init__(self):
        self._lock = threading.Lock()
        self._active: dict[int, int] = {}  # run id -> members of this task still in it

    def join(self, run_id: int):
        """The rendezvous of run ``run_id``, for one more member of this task."""
        with self._lock:
            self._active[run_id] = self._active.get(run_id, 0) + 1
        return self.rendezvous(run_id)

    def leave(self, run_id: int, error: BaseException | None = None) -> None:
        """A member of this task is done with the run (or failed it, with ``error``)."""
        with self._lock:
            left = self._active.get(run_id, 1) - 1
            if left:
                self._active[run_id] = left
            else:
                self._active.pop(run_id, None)
        if error is not None:
            self.fail(run_id, error)
        elif not left:
            self.finished(run_id)

    # -- for subclasses --------------------------------------------------------------
    def rendezvous(self, run_id: int):
        raise NotImplementedError

    def takers(self, run_id: int, keys: list[tuple], deadline) -> dict:
        """``key -> take(use=None)`` for keys that members of other tasks put, asked for at once
        in this order; ``take(use)`` returns ``use(value)``, giving ``use`` a value that may be a
        view of the sender's memory, valid only while ``use`` runs."""
        raise NotImplementedError

    def delivered(self, rdv, keys: list[tuple], what: str) -> None:
        """Returns once what a member put under ``keys`` for members of other tasks has left
        this task (none here: every member is in this process)."""

    def finished(self, run_id: int) -> None:
        raise NotImplementedError

    def fail(self, run_id: int, error: BaseException) -> None:
        raise NotImplementedError


class LocalBoard(Board):
    """The board of a local session: every member is in this process."""

    def __init__(self):
        super().__init__()
        self._runs: dict = {}

    def rendezvous(self, run_id: int):
        with self._lock:
            rdv = self._runs.get(run_id)
            if rdv is None:
                rdv = self._runs[run_id] = Rendezvous()
            return rdv

    def takers(self, run_id: int, keys, deadline) -> dict:
        raise errors.InternalError(None, None, "a local session's collective has members in another process")

    def finished(self, run_id: int) -> None:
        # (kept while it holds what a member that has not come yet will take: a broadcast's
        # source may be done before its receivers begin; the last of them drops it)
        with self._lock:
            rdv = self._runs.get(run_id)
            if rdv is not None and rdv.holds_nothing():
                del self._runs[run_id]

    def fail(self, run_id: int, error: BaseException) -> None:
        with self._lock:
            rdv = self._runs.pop(run_id, None)
        if rdv is not None:
            rdv.abort(error)


class Collectives:
    """The collective runtime of one task's devices (one per DeviceMgr).

    ``board``: where this task's members exchange (LocalBoard for a local session).
    ``resolve(key, size, device_type, device, ctx)``: the group, found through the leader
    on a cluster; None means every member is a device of this task."""

    def __init__(self, board: Board | None = None, resolve=None, is_local=None):
        self.board = board or LocalBoard()
        self._resolve = resolve
        self._is_local = is_local or (lambda device: True)
        self._cond = threading.Condition()
        self._groups: dict = {}  # group key -> what complete_group keeps
        self._runs: dict = {}  # (group key, instance key, device) -> runs so far
        self._generation: dict = {}  # group key -> how many times its run counts were reset
        self._resolving: dict = {}  # (group key, device) -> held while that member asks the leader

    def group(self, ctx, key: int, size: int, task_local: bool = False) -> Group:
        """The group of ``key``; ``task_local``: every member is a device of this task, so
        they meet here without the leader (a ps strategy's replicas on one worker)."""
        key, size = int(key), int(size)
        device = ctx.device
        if size < 1:
            raise errors.InvalidArgumentError(None, None, f"{ctx.op_name}: group_size must be positive, got {size}")
        if self._resolve is not None and not task_local:
            with self._cond:
                resolving = self._resolving.setdefault((key, device.name), threading.Lock())
            # (one question to the leader at a time per member: a member that asks again while
            # its first question is out would start the group's next incarnation)
            with resolving:
                with self._cond:
                    entry = self._groups.get(key)
                    group = entry and entry.get("group")
                if group is not None and device.name in group.members:
                    return group
                group = self._resolve(key, size, device.device_type, device.name, ctx)
                with self._cond:
                    self._groups[key] = {"size": size, "type": device.device_type,
                                         "devices": set(group.members), "group": group}
            return group
        # Members of one process meet in its memory: a group of them may mix devices whose
        # kernels run on the host, as a MirroredStrategy over "/cpu:0" and simulated GPUs
        # does (TensorFlow reduces such a strategy's values on one device); only devices with
        # memories of their own (real GPUs) must all be of one type.
        return complete_group(self._groups, self._cond, key, size, device.kernel_type, device.name, ctx.wait_for)

    def next_run(self, group: Group, instance_key: int, device: str) -> tuple[int, int]:
        """The run id of this device's next run of the instance (the same on every member),
        and the generation of the group's run counts it was counted in."""
        with self._cond:
            k = self._runs.get((group.key, instance_key, device), 0)
            self._runs[(group.key, instance_key, device)] = k + 1
            generation = self._generation.get(group.key, 0)
        digest = hashlib.blake2b(f"{group.key}:{group.incarnation}:{instance_key}:{k}".encode(),
                                 digest_size=8).digest()
        return int.from_bytes(digest, "little") | (1 << 63), generation  # (a master's step ids are below 2**62)

    def forget_runs(self, group: Group, generation: int) -> None:
        """Run counts of the group start again from zero (a member failed in ``generation``);
        on a cluster the group is asked for again, and re-forms at its leader with every
        member. A failure of a run counted before the last reset (an overlapped collective
        of the failed step, failing late) changes nothing."""
        with self._cond:
            if self._generation.get(group.key, 0) != generation:
                return
            self._generation[group.key] = generation + 1
            for k in [k for k in self._runs if k[0] == group.key]:
                del self._runs[k]
            if self._resolve is not None:
                self._groups.pop(group.key, None)

    # -- what the kernels call (ops/collective_ops.py) --------------------------------
    def all_reduce(self, ctx, group_key: int, group_size: int, instance_key: int, value, merge_op: str,
                   final_op: str, task_local: bool = False) -> np.ndarray:
        group = self.group(ctx, group_key, group_size, task_local)
        return self.run(ctx, group, instance_key, "all-reduce",
                        lambda ring: all_reduce(ring, np.asarray(value), merge_op, final_op))

    def start_all_reduce(self, ctx, group_key: int, group_size: int, instance_key: int, value, merge_op: str,
                         final_op: str, task_local: bool = False) -> "Pending":
        """:meth:`all_reduce` begun on a background thread: the kernel that started it goes on,
        and a later kernel of the step waits for the result (:meth:`Pending.result`).

        Where the group has yet to form (a step's first run of it), the members are met on the
        background thread too, so the kernel never waits for the other members: a member's
        partition may have to send another member a tensor before that member reaches its
        own start (a metric's value read across replicas in the step that trains them)."""
        group = self.formed_group(ctx, group_key)
        form = None if group is not None else (lambda: self.group(ctx, group_key, group_size, task_local))
        return self.run(ctx, group, instance_key, "all-reduce",
                        lambda ring: all_reduce(ring, np.asarray(value), merge_op, final_op), background=True,
                        form=form)

    def formed_group(self, ctx, key: int) -> "Group | None":
        """The group of ``key`` if it has formed with this member, without waiting; else None."""
        with self._cond:
            entry = self._groups.get(int(key))
            group = entry and entry.get("group")
        return group if group is not None and ctx.device.name in group.members else None

    @staticmethod
    def _refuse_if_failed(ctx) -> None:
        step = ctx.step
        if step is not None and step.error is not None:
            # (a collective the step began earlier failed: this run must not be counted, or it
            # would take the place of the next step's)
            raise errors.CancelledError(None, None, f"{ctx.op_name} on {ctx.device.name}: not started, "
                                        f"the step failed ({_first_line(step.error)})")

    def all_gather(self, ctx, group_key: int, group_size: int, instance_key: int, value) -> np.ndarray:
        group = self.group(ctx, group_key, group_size)
        return self.run(ctx, group, instance_key, "all-gather", lambda ring: all_gather(ring, np.asarray(value)))

    def broadcast(self, ctx, group_key: int, group_size: int, instance_key: int, value, shape, dtype) -> np.ndarray:
        """The source's ``value`` on every member; receivers give None and the shape and dtype."""
        group = self.group(ctx, group_key, group_size)
        return self.run(ctx, group, instance_key, "broadcast",
                        lambda ring: broadcast(ring, None if value is None else np.asarray(value), shape, dtype),
                        delivered=False)

    def run(self, ctx, group: "Group | None", instance_key: int, what: str, body, background: bool = False,
            delivered: bool = True, form=None):
        """Runs ``body(ring)`` as this device's part of the instance, on a fresh run. With
        ``background``, the run is counted here and runs on another thread: a :class:`Pending`;
        where the group has yet to form, ``form()`` forms it, and the run is counted, on that
        thread. With ``delivered``, the run ends once a neighbour in another task has taken
        what this member gave it (:meth:`_Ring.delivered`). A broadcast does not wait: its
        source may be done before its receivers begin, in a step of its own."""
        def counted(formed: Group) -> tuple[int, int]:
            with self._cond:
                if background:
                    self._refuse_if_failed(ctx)
                return self.next_run(formed, instance_key, ctx.device.name)

        if form is None:
            run_id, generation = counted(group)
            if not background:
                return self._run(ctx, group, instance_key, what, body, run_id, generation, delivered)

            def go():
                return self._run(ctx, group, instance_key, what, body, run_id, generation, delivered, abort_step=True)
        else:
            self._refuse_if_failed(ctx)

            def go():
                formed = form()
                return self._run(ctx, formed, instance_key, what, body, *counted(formed), delivered, abort_step=True)
        pending = Pending(ctx, instance_key)
        submit_background(lambda: pending.run(go))
        return pending

    def _run(self, ctx, group: Group, instance_key: int, what: str, body, run_id: int, generation: int,
             delivered: bool, abort_step: bool = False):
        ring = None
        try:
            ring = _Ring(self, ctx, group, instance_key, run_id)
            out = body(ring)
            if delivered:
                ring.delivered()
        except BaseException as e:
            error = _failure(ctx, group, instance_key, e, what)
            self.board.leave(run_id, error)
            if abort_step and ctx.step is not None:
                ctx.step.abort(error)  # (before the counts are reset: see run)
            self.forget_runs(group, generation)
            raise error from None
        finally:
            if ring is not None:
                ring.close()
        self.board.leave(run_id)
        return out


class Pending:
    """A collective that runs on a background thread while its step goes on (what a start
    kernel returns, and its done kernel waits for).

    The run is the step's as if it ran in the kernel: a cancelled step fails it round the
    ring, and its error, naming the op, device and group, is what the done kernel raises."""

    __slots__ = ("_ctx", "_instance_key", "_cond", "_done", "_value", "_error")

    def __init__(self, ctx, instance_key: int):
        self._ctx = ctx
        self._instance_key = instance_key
        self._cond = threading.Condition()
        self._done = False
        self._value = None
        self._error: BaseException | None = None

    def run(self, body) -> None:
        value, error = None, None
        try:
            value = body()
        except BaseException as e:  # noqa: BLE001 - raised by the done kernel
            error = e
        with self._cond:
            self._value, self._error, self._done = value, error, True
            self._cond.notify_all()

    def result(self, ctx):
        """The collective's result, once it is ready; waits as ``ctx``'s kernel (cancelled with its step)."""
        with self._cond:
            ctx.wait_for(self._cond, lambda: self._done,
                         f"collective instance {self._instance_key} started by {self._ctx.op_name}")
        if self._error is not None:
            raise self._error
        return self._value


def _failure(ctx, group: Group, instance_key: int, error: BaseException, what: str) -> errors.OpError:
    """The error that fails a member, naming the op, the device, the group and why.

    A member whose own step was cancelled fails with that; a member that learned of a
    failure elsewhere in the ring (its neighbour's error, which names where it began)
    fails with AbortedError, which monitored sessions recover from, unless it is a
    deadline, a bad argument or a task that is unavailable."""
    step = ctx.step
    if step is not None and step.error is not None:
        error = step.error
        cls = type(error) if isinstance(error, errors.OpError) else errors.CancelledError
    elif isinstance(error, (errors.DeadlineExceededError, errors.InvalidArgumentError, errors.UnavailableError)):
        cls = type(error)
    else:
        cls = errors.AbortedError
    return cls(None, None, f"{ctx.op_name} on {ctx.device.name}: the {what} of collective group {group.key} "
               f"(instance {instance_key}, {group.size} members) failed: {_first_line(error)}")


def _first_line(error: BaseException) -> str:
    return str(getattr(error, "message", error)).split("\n", 1)[0]


def _pieces(size: int, itemsize: int) -> list[tuple[int, int]]:
    """[begin, end) of each piece of a chunk of ``size`` elements."""
    count = max(1, -(-size * itemsize // PIECE_BYTES))
    bounds = np.linspace(0, size, count + 1).astype(np.int64)
    return list(zip(bounds[:-1].tolist(), bounds[1:].tolist()))


class _Ring:
    """One member's part of one run: its neighbours, its board, and put/take by key."""

    def __init__(self, collectives: Collectives, ctx, group: Group, instance_key: int, run_id: int):
        self.ctx = ctx
        self.group = group
        self.device = ctx.device.name
        self.rank = group.members.index(self.device)
        self.n = group.size
        self.left = group.members[(self.rank - 1) % self.n]
        self.right = group.members[(self.rank + 1) % self.n]
        self.instance_key = instance_key
        self.run_id = run_id
        self._collectives = collectives
        self._board = collectives.board
        self._rdv = self._board.join(run_id)
        self._takers: dict = {}
        self._remote_puts: list | None = None if collectives._is_local(self.right) else []
        step = ctx.step
        self._deadline = None if step is None else step.deadline
        self._abort_token = None
        if step is not None:  # a cancelled step stops its member, and so fails the run round the ring
            self._abort_token = step.on_abort(lambda: self._board.fail(run_id, step.error))

    def expect(self, names: list[str]) -> None:
        """Asks the left neighbour for every key this member will take, in order (one request)."""
        keys = [(self.left, self.device, name) for name in names]
        if not self._collectives._is_local(self.left):
            self._takers = self._board.takers(self.run_id, keys, self._deadline)

    def put(self, name: str, value: np.ndarray) -> None:
        key = (self.device, self.right, name)
        self._rdv.send(key, value)
        if self._remote_puts is not None:
            self._remote_puts.append(key)

    def delivered(self) -> None:
        """Returns once the right neighbour, in another task, has taken all this member put
        for it. Its collective completes only when it has, as TensorFlow's: a process that
        exits the moment its last collective returns must not leave a neighbour without the
        last pieces. (The neighbour takes them as fast as this member took its own, so the
        wait is short.)"""
        if self._remote_puts:
            self._board.delivered(self._rdv, self._remote_puts, f"collective instance {self.instance_key}")

    def take(self, name: str, use=None):
        """What the left neighbour put under ``name``; with ``use``, ``use(it)``. A piece from
        another task of this host then reaches ``use`` where it lies in shared memory: ``use``
        reads it, and keeps no part of it."""
        key = (self.left, self.device, name)
        taker = self._takers.pop(key, None)
        if taker is not None:
            return taker(use)
        deadline = self._deadline
        value = self._rdv.recv(key, None if deadline is None else max(0.0, deadline - time.monotonic()))
        return value if use is None else use(value)

    def close(self) -> None:
        if self._abort_token is not None:
            self.ctx.step.remove_on_abort(self._abort_token)


# ---------------------------------------------------------------------------
# The algorithms, each a member's part, over put/take


def all_reduce(ring: _Ring, value: np.ndarray, merge_op: str, final_op: str) -> np.ndarray:
    """The members' tensors merged (``merge_op``), then ``final_op`` (Div: over n).

    Each piece a member takes is used where it lies: merged straight into its buffer (no
    copy of the member's own input is made first: each chunk it merges, it merges once),
    or, in the all-gather, copied into place. The member that completes a chunk's reduction
    applies Div to it before it passes it on, so the others only copy it."""
    merge = MERGE_OPS[merge_op]
    flat = np.ascontiguousarray(value).reshape(-1)
    n, r = ring.n, ring.rank
    if n == 1:
        out = np.array(flat)  # (what this member returns; its own input is never written)
        _finish(out, final_op, n)
        return out.reshape(np.shape(value))
    out = np.empty_like(flat)
    bounds = np.linspace(0, flat.size, n + 1).astype(np.int64).tolist()
    pieces = [_pieces(bounds[c + 1] - bounds[c], flat.itemsize) for c in range(n)]
    names = []
    for s in range(n - 1):  # what the left neighbour puts, in the order it puts it
        names += [f"rs{s}.{p}" for p in range(len(pieces[(r - 1 - s) % n]))]
    for s in range(n - 1):
        names += [f"ag{s}.{p}" for p in range(len(pieces[(r - s) % n]))]
    ring.expect(names)
    begin = bounds[r]
    for p, (a, b) in enumerate(pieces[r]):
        # (a view of the input, which no kernel writes while a blocking kernel reads it; the
        # right neighbour has merged it before this member's chunk comes back reduced)
        ring.put(f"rs0.{p}", flat[begin + a:begin + b])
    for s in range(n - 1):  # reduce-scatter: merge chunk r-1-s into ``out``, pass it on
        c = (r - 1 - s) % n
        last = s == n - 2  # (chunk c is then complete)
        for p, (a, b) in enumerate(pieces[c]):
            lo, hi = bounds[c] + a, bounds[c] + b
            merged = out[lo:hi]

            def merge_in(got, lo=lo, hi=hi, merged=merged, name=f"rs{s}.{p}"):
                merge(flat[lo:hi], _piece(ring, got, merged, name), out=merged)
            ring.take(f"rs{s}.{p}", merge_in)
            if last:  # (a copy: as in the all-gather below)
                _finish(merged, final_op, n)
                ring.put(f"ag0.{p}", np.array(merged))
            else:
                # (a view of ``out``: this member writes that chunk again only in the all-gather,
                # once the chunk's reduction, which needs this piece, is complete)
                ring.put(f"rs{s + 1}.{p}", merged)
    for s in range(n - 1):  # all-gather: chunk r-s arrives reduced
        c = (r - s) % n
        for p, (a, b) in enumerate(pieces[c]):
            piece = out[bounds[c] + a:bounds[c] + b]
            ring.take(f"ag{s}.{p}", lambda got, piece=piece, name=f"ag{s}.{p}":
                      np.copyto(piece, _piece(ring, got, piece, name)))
            if s < n - 2:
                # (a copy: ``out`` is the op's result, which later kernels may write into
                # before the right neighbour has read this; nothing this member waits for
                # tells it that the neighbour has)
                ring.put(f"ag{s + 1}.{p}", np.array(piece))
    return out.reshape(np.shape(value))


def _piece(ring: _Ring, got, like: np.ndarray, name: str, what: str = "all-reduce") -> np.ndarray:
    """``got``, checked to be a piece like ``like``: InvalidArgumentError naming the members otherwise."""
    got = np.asarray(got)
    if got.shape != like.shape or got.dtype != like.dtype:
        raise errors.InvalidArgumentError(
            None, None, f"{what}: member {ring.left} gave {got.dtype}[{got.size}] as piece {name}, where this "
            f"member ({ring.device}) has {like.dtype}[{like.size}] (every member's tensor must have one shape and "
            "dtype)")
    return got


def _finish(x: np.ndarray, final_op: str, n: int) -> None:
    """Applies ``final_op`` to ``x`` in place."""
    if final_op == "Div":
        if x.dtype.kind in "fc":
            np.divide(x, n, out=x)
        else:
            np.floor_divide(x, n, out=x)


def all_gather(ring: _Ring, value: np.ndarray) -> np.ndarray:
    """The members' tensors concatenated on axis 0, in rank order.

    Each member's tensor is written once, into its place in the result: the last round's
    pieces straight from where they lie (a neighbour's shared memory); a piece this member
    passes on is taken whole first (it goes on as it came), then copied into place."""
    value = np.ascontiguousarray(value)
    n, r = ring.n, ring.rank
    flat = value.reshape(-1)
    size = flat.size
    out = np.empty(n * size, value.dtype)
    out[r * size:(r + 1) * size] = flat
    pieces = _pieces(size, max(1, flat.itemsize))
    ring.expect([f"ag{s}.{p}" for s in range(n - 1) for p in range(len(pieces))])
    for p, (a, b) in enumerate(pieces):
        ring.put(f"ag0.{p}", np.array(flat[a:b]))  # (a copy: the input may be written once this member returns)
    for s in range(n - 1):  # member r-1-s's tensor arrives
        begin = (r - 1 - s) % n * size
        for p, (a, b) in enumerate(pieces):
            place, name = out[begin + a:begin + b], f"ag{s}.{p}"
            if s < n - 2:
                got = _piece(ring, ring.take(name), place, name, "all-gather")
                ring.put(f"ag{s + 1}.{p}", got)
                place[...] = got
            else:
                ring.take(name, lambda got, place=place, name=name:
                          np.copyto(place, _piece(ring, got, place, name, "all-gather")))
    return out.reshape((n * value.shape[0],) + value.shape[1:])  # (the op takes rank 1 and more)


def broadcast(ring: _Ring, value: np.ndarray | None, shape, dtype) -> np.ndarray:
    """The source's tensor on every member (the source gives ``value``, the others None),
    passed along the ring from the source. A receiver does not know which member is the
    source (the op does not say, as in TensorFlow): the source's rank travels ahead of
    the tensor, so that the member left of the source passes nothing on."""
    n, r = ring.n, ring.rank
    size = int(np.prod(shape, dtype=np.int64))
    pieces = _pieces(size, np.dtype(dtype).itemsize)
    if value is not None:
        flat = np.ascontiguousarray(value).reshape(-1)
        if n > 1:
            ring.put("bc.src", np.array([r], np.int64))
            for p, (a, b) in enumerate(pieces):
                ring.put(f"bc.{p}", np.array(flat[a:b]))
        return np.array(value)
    ring.expect(["bc.src"] + [f"bc.{p}" for p in range(len(pieces))])
    source = ring.take("bc.src")
    passes_on = (r + 1) % n != int(source[0])
    if passes_on:
        ring.put("bc.src", source)
    out = np.empty(size, dtype)

    def checked(got, p, a, b):
        got = np.asarray(got)
        if got.size != b - a or got.dtype != out.dtype:
            raise errors.InvalidArgumentError(
                None, None, f"broadcast: the source sent {got.dtype}[{got.size}] in piece {p}, where "
                f"{np.dtype(dtype).name} of shape {list(shape)} needs {b - a} elements")
        return got.reshape(-1)

    for p, (a, b) in enumerate(pieces):
        if passes_on:  # (taken whole: it goes on as it came)
            got = checked(ring.take(f"bc.{p}"), p, a, b)
            ring.put(f"bc.{p}", got)
            out[a:b] = got
        else:  # (copied from where it lies)
            ring.take(f"bc.{p}", lambda got, p=p, a=a, b=b: np.copyto(out[a:b], checked(got, p, a, b)))
    return out.reshape(shape)
