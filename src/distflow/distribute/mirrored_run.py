"""Replica functions in turns, so that they can meet in ``ReplicaContext.merge_call``.

As in TensorFlow, each replica function runs in a thread of its own, but only one runs at
a time, in replica order, so the graph is built the same way every time. A replica's turn
ends when its function returns or calls ``merge_call``. Once every replica has called
``merge_call``, the calling thread runs the merge function once, in the cross-replica
context, with each argument that differs between replicas as a PerReplica value; each
replica then gets its own part of the result back (``select_replica``) and they carry on,
in turn again.

The graph's building state (name, device, colocation and control-dependency scopes, the
variable scope and creator stacks) is shared by the threads of a graph, so it is handed
over with the turn: each replica starts from a copy of the caller's, and the caller gets
its own back at the end.
"""

from __future__ import annotations

import contextlib
import threading

from ..framework import distribute_context, ops
from ..ops import variable_scope as vs
from . import values as values_lib


class _Abandoned(BaseException):
    """Unwinds a replica function paused in ``merge_call`` whose step will not go on (another
    replica failed). A BaseException, so that the function's own ``except Exception`` lets it by."""


class _ReplicaThread(threading.Thread):
    """One replica function's thread, which runs only in its turns."""

    def __init__(self, turns: "_Turns", replica, device: str, fn, args, kwargs, state):
        super().__init__(name=f"distflow-replica-{replica.local_index}", daemon=True)
        self.turns, self.replica, self.device = turns, replica, device
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.state = state  # the graph's building state while this thread is paused
        self.session = ops.get_default_session()
        self.result = None
        self.error: BaseException | None = None
        self.done = False
        self.merge = None  # (merge_fn, args, kwargs) while paused in merge_call
        self.merge_result = None
        self.abandoned = False

    def run(self):
        try:
            self.turns.wait_for(self)
            if self.abandoned:
                return
            index = self.replica.local_index
            graph = self.turns.graph
            with graph.as_default(), \
                    (self.session.as_default() if self.session is not None else contextlib.nullcontext()), \
                    distribute_context.entered(distribute_context.Context(self.replica.strategy, self.replica)), \
                    graph.device(self.device), \
                    (graph.name_scope(f"replica_{index}") if index else contextlib.nullcontext()):
                outer = vs.get_variable_scope()
                with vs.variable_scope(outer, reuse=vs.AUTO_REUSE if index else outer.reuse,
                                       auxiliary_name_scope=False):
                    self.result = self.fn(*self.args, **self.kwargs)
        except _Abandoned:
            pass
        except BaseException as e:  # (handed to the caller, which raises it)
            self.error = e
        finally:
            self.done = True
            self.turns.hand_back()

    def merge_call(self, merge_fn, args, kwargs):
        self.merge = (merge_fn, args, kwargs)
        self.turns.hand_back()
        self.turns.wait_for(self)
        if self.abandoned:
            raise _Abandoned()
        result, self.merge, self.merge_result = self.merge_result, None, None
        return result


class _Turns:
    """Which thread may build now: one replica thread, or (``None``) the caller."""

    def __init__(self, graph):
        self.graph = graph
        self._cond = threading.Condition()
        self._holder = None

    def give(self, thread: _ReplicaThread) -> None:
        """Runs ``thread`` until its turn ends, with the graph's building state as it left it."""
        self.graph._set_building_state(thread.state)
        with self._cond:
            self._holder = thread
            self._cond.notify_all()
            while self._holder is not None:
                self._cond.wait(0.5)  # (in steps, so that the caller still sees a Ctrl-C)
        thread.state = self.graph._building_state()

    def wait_for(self, thread: _ReplicaThread) -> None:
        with self._cond:
            while self._holder is not thread:
                self._cond.wait()

    def hand_back(self) -> None:
        with self._cond:
            self._holder = None
            self._cond.notify_all()


def current_replica_thread(replica) -> _ReplicaThread | None:
    """The thread running ``replica``'s function, if this is it."""
    thread = threading.current_thread()
    if isinstance(thread, _ReplicaThread) and thread.replica is replica:
        return thread
    return None


def call_for_each_replica(strategy, replicas: list, devices: list, fn, args, kwargs) -> list:
    """``fn``'s result on each replica (``replicas[i]``, built under ``devices[i]``), each
    called with its own part of any PerReplica argument, the merges between them made."""
    graph = ops.get_default_graph()
    caller = graph._building_state()
    turns = _Turns(graph)
    threads = [_ReplicaThread(turns, replica, device, fn, values_lib.select_replica(i, args),
                              values_lib.select_replica(i, kwargs), graph._building_state(fork=True))
               for i, (replica, device) in enumerate(zip(replicas, devices))]
    for thread in threads:
        thread.start()
    try:
        while True:
            for thread in threads:
                turns.give(thread)
                if thread.error is not None:
                    raise thread.error
            finished = [t for t in threads if t.done]
            if len(finished) == len(threads):
                return [t.result for t in threads]
            if finished:
                raise RuntimeError(
                    f"ReplicaContext.merge_call: replica {finished[0].replica.local_index} returned while replica "
                    f"{next(t for t in threads if not t.done).replica.local_index} waits in merge_call; every "
                    "replica function must call merge_call the same number of times")
            _merge(strategy, graph, caller, threads)
    finally:
        for thread in threads:
            if not thread.done and thread.is_alive() and turns._holder is None:
                thread.abandoned = True
                turns.give(thread)  # (it unwinds its scopes with its own building state)
        graph._set_building_state(caller)


def _merge(strategy, graph, caller, threads) -> None:
    """Runs the merge function the replicas paused for, once, in the cross-replica context:
    under the first replica's name, control-dependency and variable scopes (as TensorFlow
    does) and the caller's devices."""
    merge_fn = threads[0].merge[0]
    scopes, stacks = threads[0].state
    caller_scopes, _ = caller
    scopes = dict(scopes, device_function_stack=list(caller_scopes["device_function_stack"]),
                  colocation_stack=list(caller_scopes["colocation_stack"]),
                  control_dependencies_stack=list(scopes["control_dependencies_stack"]))
    graph._set_building_state((scopes, dict(stacks)))
    args = values_lib.regroup([t.merge[1] for t in threads])
    kwargs = values_lib.regroup([t.merge[2] for t in threads])
    with distribute_context.entered(distribute_context.Context(strategy, None)):
        result = merge_fn(strategy, *args, **kwargs)
    for i, thread in enumerate(threads):
        thread.merge_result = values_lib.select_replica(i, result)
