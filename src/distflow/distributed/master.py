"""The master service: places and partitions a client's graph across the cluster's tasks.

A client session sends its GraphDef (then only the new nodes); a step names feeds,
fetches and targets. The master prunes, places (with the devices every task
reports), partitions, registers each task's share with that task's worker once per
step signature, and runs a step as one RunGraph per task, all at once. A failed task
fails the step with its name; the others are told to abort the step.

Every task, this server's own included, is called through the same interface
(``Task`` in task.py); whether a call crosses a socket is the task's business, not
the master's.
"""

from __future__ import annotations

import contextlib
import logging
import os
import random
import threading
import time
import uuid
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import NamedTuple

from ..framework import errors
from ..framework import ops, wire
from ..framework.device_spec import DeviceSpec
from ..framework.function_body import FuncBody
from ..framework.registry import get_registration, is_registered
from ..ops.array_ops import missing_feed_error
from ..runtime.config import ConfigProto
from ..runtime.device import DeviceSet
from ..runtime.functions import function_ops
from ..runtime.partition import output_key, partition, prune
from ..runtime.placer import Placer
from ..protos import distflow_pb2 as pb
from .cluster_spec import ClusterSpec
from .rpc import takes_rpc_context
from .task import LocalTask, Parked, RemoteDevice, RunGraphCall, Task, TaskDirectory
from .worker import GRAPH_NOT_REGISTERED


_log = logging.getLogger("distflow")


class _TaskPart(NamedTuple):
    """One task's share of a compiled step: the graph registered there and its feeds and fetches."""

    task: Task
    graph_handle: str
    feed_positions: list[int]  # positions in the step's feeds that this task takes
    feed_names: tuple[str, ...]  # the placeholders those feeds go to in this task's graph
    fetch_names: tuple[str, ...]  # the tensors it returns, in order


class _FetchSource(NamedTuple):
    """Where a fetch of the step comes from: the ``index``-th fetch of ``task``'s part."""

    task: str
    index: int


class _Step:
    """A compiled step signature: the part each task runs, and where each fetch comes from."""

    def __init__(self, parts: dict[str, _TaskPart], fetch_sources: dict[int, _FetchSource],
                 fed_fetches: dict[int, int]):
        self.parts = parts                  # task name -> its part
        self.fetch_sources = fetch_sources  # fetch position -> the task part that returns it
        self.fed_fetches = fed_fetches      # fetch position -> feed position (a fetched feed)


# How many sessions a master holds at once, and how large a session's graph may grow (the
# bytes of the GraphDefs that made it): what one client can make a server keep.
MAX_SESSIONS = wire.positive_int_from_env("DISTFLOW_MAX_SESSIONS", 4096)
MAX_GRAPH_BYTES = wire.positive_int_from_env("DISTFLOW_MAX_GRAPH_BYTES", 2**31)


def _check_graph_bytes(held: int, added: int) -> None:
    if held + added > MAX_GRAPH_BYTES:
        raise errors.ResourceExhaustedError(
            None, None, f"a session's graph would grow to {held + added} bytes of GraphDef, more than the "
            f"{MAX_GRAPH_BYTES} a session may hold (DISTFLOW_MAX_GRAPH_BYTES)")


# A step running this long is logged with what its tasks wait for; then again at this interval.
LONG_STEP_S = 10.0
LONG_STEP_REPEAT_S = 60.0
# What the master says of a session handle it does not hold; GrpcSession then makes a new one.
SESSION_NOT_FOUND = "is not found on the master"


def _session_gc_seconds() -> float:
    """How long a session may go unused before its master closes it (its client is
    presumed gone, as TF's session_gc_seconds had it): DISTFLOW_SESSION_GC_SECONDS, an hour
    by default; 0 keeps sessions until they are closed."""
    text = os.environ.get("DISTFLOW_SESSION_GC_SECONDS", "").strip()
    try:
        seconds = float(text) if text else 3600.0
    except ValueError:
        seconds = -1.0
    if not seconds >= 0:
        raise ValueError(f"DISTFLOW_SESSION_GC_SECONDS={text!r}: expected a number of seconds (0: never)")
    return seconds


class _MasterSession:
    def __init__(self, graph: ops.Graph, config: ConfigProto):
        self.graph = graph
        self.config = config
        self.steps: dict[tuple, _Step] = {}
        self.placer: Placer | None = None
        self.lock = threading.Lock()
        self.running: dict[int, _Step] = {}  # step id -> step, while RunStep runs it
        self.last_used = time.monotonic()
        self.graph_bytes = 0  # of the GraphDefs that made its graph
        self.container = ""  # with isolate_session_state: the container of this session's resources


class Master:
    """The master of one task: it calls every task, its own included, through ``tasks``."""

    def __init__(self, job: str, task: int, tasks: TaskDirectory, config: ConfigProto | None = None,
                 connect_timeout: float = 60.0):
        self.job, self.task = job, task
        self.task_name = f"/job:{job}/replica:0/task:{task}"
        self.tasks = tasks
        self.config = config or ConfigProto()
        self.connect_timeout = connect_timeout
        self._sessions: dict[str, _MasterSession] = {}
        self.session_gc_seconds = _session_gc_seconds()
        self._task_devices: dict[str, list[RemoteDevice]] = {}
        # A step holds a thread per task it runs on for as long as it runs, and a step may
        # wait for good (a dequeue); the pool makes threads as they are needed, up to this.
        self._pool = ThreadPoolExecutor(max_workers=1024, thread_name_prefix="distflow-master")
        self._long_steps = _LongSteps(self._report_long_step)

    # -- cluster -------------------------------------------------------------------
    def _devices(self, device_filters) -> DeviceSet:
        """Every task's devices (asked once per task); waits with backoff for tasks not up yet."""
        devices = []
        for name in self.tasks.names(device_filters, keep=self.task_name):
            known = self._task_devices.get(name)
            if known is None:
                known = self._task_devices[name] = self._wait_for_task(self.tasks.task(name))
            elif self.tasks.is_stale(name):
                known = self._refresh_task(self.tasks.task(name), known)
            devices += known
        return DeviceSet(devices, self.job, self.task)

    def _refresh_task(self, task: Task, known: list) -> list:
        """Asks a task that failed before for its devices and data port once more; if it
        does not answer, its last known devices stand (sessions that do not use it work)."""
        try:
            known = self._task_devices[task.name] = task.status(timeout=2.0)
        except errors.OpError:
            pass
        return known

    def _wait_for_task(self, task: Task) -> list[RemoteDevice]:
        start = time.monotonic()
        delay, logged = 0.05, None
        while True:
            try:
                return task.status(timeout=5.0)
            except errors.UnavailableError:
                waited = time.monotonic() - start
                if waited + delay > self.connect_timeout:
                    raise errors.UnavailableError(
                        None, None, f"task {task.name} ({task.address}) did not answer within "
                        f"{self.connect_timeout:.0f} s; is it running?") from None
                if logged is None or time.monotonic() - logged > 5.0:
                    logged = time.monotonic()
                    _log.warning("waiting for task %s (%s) to start: %.0f s so far, giving up after %.0f s",
                                 task.name, task.address, waited, self.connect_timeout)
                time.sleep(delay)
                delay = min(delay * 2, 1.0)

    # -- sessions --------------------------------------------------------------------
    def CreateSession(self, request):
        if len(self._sessions) >= MAX_SESSIONS:
            raise errors.ResourceExhaustedError(
                None, None, f"the master {self.task_name} holds {len(self._sessions)} sessions, the most it holds "
                "(DISTFLOW_MAX_SESSIONS); close sessions that are done, or wait for unused ones to be closed")
        _check_graph_bytes(0, request.graph_def.ByteSize())
        if request.options.HasField("cluster_def") and request.options.cluster_def.job:
            self._check_cluster(ClusterSpec(request.options.cluster_def))
        graph = ops.Graph()
        wire.import_graph_def(request.graph_def, graph)
        handle = uuid.uuid4().hex
        # The client's options merged over the server's own config, as TF merges a session's
        # ConfigProto over the server's default_session_config (unset fields keep the server's).
        config = ConfigProto(
            device_filters=list(request.options.device_filters or self.config.device_filters),
            allow_soft_placement=request.options.allow_soft_placement or self.config.allow_soft_placement,
            isolate_session_state=request.options.isolate_session_state or self.config.isolate_session_state)
        self._sessions[handle] = _MasterSession(graph, config)
        self._sessions[handle].graph_bytes = request.graph_def.ByteSize()
        if config.isolate_session_state:
            # Variables, queues and accumulators of this session live in a container of its own on
            # every task (TF's isolate_session_state); it is dropped when the session closes.
            self._sessions[handle].container = f"session_{handle}"
        return pb.CreateSessionResponse(session_handle=handle, graph_version=len(request.graph_def.node))

    def _check_cluster(self, named: ClusterSpec) -> None:
        """A session's ``ConfigProto.cluster_def`` must name the cluster this master's server
        was started with: TF's propagation of another cluster to running servers (each task
        renamed per session) is not supported (docs/compat.md)."""
        own = self.tasks.cluster
        if named == own:
            return
        raise errors.UnimplementedError(
            None, None, f"ConfigProto.cluster_def names the cluster {named.as_dict()}, but the master "
            f"{self.task_name} serves the cluster {own.as_dict()}: distflow does not propagate another cluster to "
            "running servers (TF's ClusterSpec propagation); start each tf.train.Server with the cluster the "
            "session uses, or leave cluster_def unset")

    def _session(self, handle: str) -> _MasterSession:
        session = self._sessions.get(handle)
        if session is None:
            raise errors.AbortedError(None, None, f"Session {handle!r} {SESSION_NOT_FOUND} "
                                      f"/job:{self.job}/replica:0/task:{self.task}; it was closed, unused for "
                                      "too long, or the server restarted")
        session.last_used = time.monotonic()
        return session

    def close_idle_sessions(self) -> int:
        """Closes the sessions unused for ``session_gc_seconds`` (clients that went away
        without closing theirs, as TF's session GC did); how many. A session with a step
        running is never idle. A client whose session was closed so makes a new one when
        it next runs a step (GrpcSession)."""
        if not self.session_gc_seconds:
            return 0
        now = time.monotonic()
        idle = [(handle, now - session.last_used) for handle, session in list(self._sessions.items())
                if not session.running and now - session.last_used > self.session_gc_seconds]
        for handle, unused in idle:
            _log.info("closing session %s of the master %s: unused for %.0f s", handle, self.task_name, unused)
            self.CloseSession(pb.CloseSessionRequest(session_handle=handle))
        return len(idle)

    def ExtendSession(self, request):
        session = self._session(request.session_handle)
        with session.lock:
            added = request.graph_def.ByteSize()
            _check_graph_bytes(session.graph_bytes, added)
            wire.import_graph_def(request.graph_def, session.graph, existing=True)
            session.graph_bytes += added
            return pb.ExtendSessionResponse(new_graph_version=len(session.graph.get_operations()))

    def CloseSession(self, request):
        session = self._sessions.pop(request.session_handle, None)
        if session is not None:
            # Steps still running (a dequeue blocked on a ps, say) are cancelled, as TF does.
            closed = errors.CancelledError(None, None, "Session has been closed.")
            for step_id, step in list(session.running.items()):
                self._abort(step, step_id, closed)
            for step in session.steps.values():
                for part in step.parts.values():
                    try:
                        part.task.deregister_graph(part.graph_handle)
                    except errors.OpError:
                        pass  # the task is gone: nothing left to release there
            if session.container:
                tasks = {part.task for step in session.steps.values() for part in step.parts.values()}
                for task in tasks:
                    try:
                        task.reset_containers([session.container])
                    except errors.OpError:
                        pass
        return pb.CloseSessionResponse()

    def ListDevices(self, request):
        response = pb.ListDevicesResponse()
        for d in self._devices(()).devices:
            response.remote_device.add(name=d.name, device_type=d.device_type,
                                       physical_device_desc=d.physical_device_desc)
        return response

    def Reset(self, request):
        for name in self.tasks.names():
            self.tasks.task(name).reset_containers(list(request.container))
        return pb.ResetResponse()

    # -- steps -----------------------------------------------------------------------------
    @takes_rpc_context
    def RunStep(self, request, context=None):
        """A client's step. If the client goes away first (its process died, it gave up),
        the step is cancelled on every task, so that a dequeue blocked for it takes nothing."""
        feeds = [wire.tensor_from_proto(t.tensor) for t in request.feed]
        metadata = ({"trace": request.trace, "graphs": request.output_partition_graphs}
                    if request.trace or request.output_partition_graphs else None)
        step_id, values = self.run_step(request.session_handle, tuple(t.name for t in request.feed), feeds,
                                        tuple(request.fetch), tuple(request.target), request.timeout_in_ms,
                                        request.accept_parked, context, metadata)
        response = pb.RunStepResponse(step_id=step_id)
        if metadata is not None:
            if "step_stats" in metadata:
                response.step_stats.CopyFrom(metadata["step_stats"])
            response.partition_graph.extend(metadata.get("partition_graphs", ()))
        for name, value in zip(request.fetch, values):
            if isinstance(value, Parked):
                response.tensor.add(name=value.name, parked=True, task=value.task, data_address=value.data_address)
            else:
                wire.fill_tensor_proto(response.tensor.add(name=name).tensor, value)
        return response

    def run_step(self, session_handle: str, feed_names: tuple, feeds: list, fetch: tuple, target: tuple,
                 timeout_in_ms: int = 0, accept_parked: bool = False, context=None,
                 metadata: dict | None = None) -> tuple[int, list]:
        """RunStep without protos (a client of this process calls it directly): the step's
        id and the value of each fetch, an array or, for a large tensor that another task
        holds for the client, a Parked. ``context.add_callback(fn)``, if given, calls ``fn``
        when the caller goes away; the step is then cancelled. ``metadata`` (a dict) asks
        with "trace" and "graphs" for every task's kernel times and partitions: they are
        added to it as "step_stats" and "partition_graphs".

        A step without its own timeout gets the server's ``operation_timeout_in_ms``, as in TF.
        """
        if not timeout_in_ms:
            timeout_in_ms = self.config.operation_timeout_in_ms
        session = self._session(session_handle)
        key = (feed_names, fetch, target)
        step = session.steps.get(key)
        if step is None:
            with session.lock:
                step = session.steps.get(key) or self._compile(session, feed_names, fetch, target)
                session.steps[key] = step
        step_id = random.getrandbits(62) + 1
        session.running[step_id] = step
        if context is not None:
            def on_rpc_done():
                if session.running.get(step_id) is step:  # still running: nobody waits for it any more
                    self._pool.submit(self._abort, step, step_id, errors.CancelledError(
                        None, None, f"the client of step {step_id} went away"))
            context.add_callback(on_rpc_done)
        try:
            return step_id, self._run_step(step, step_id, feeds, len(fetch), timeout_in_ms,
                                           accept_parked, metadata)
        except errors.AbortedError as e:
            # A task that restarted lost the graphs registered on it: this step fails (as in
            # TF), and the session's next steps register theirs again instead of failing for
            # good (TF 1.x's session stayed broken until the program made a new one).
            if GRAPH_NOT_REGISTERED in e.message:
                self._forget_steps(session)
            raise
        finally:
            session.running.pop(step_id, None)

    @staticmethod
    def _forget_steps(session: _MasterSession) -> None:
        """Drops the session's compiled steps: each registers its graphs again when it next runs."""
        with session.lock:
            steps, session.steps = list(session.steps.values()), {}
        for step in steps:
            for part in step.parts.values():
                try:
                    part.task.deregister_graph(part.graph_handle)
                except errors.OpError:
                    pass  # the restarted task has it no more

    def _run_step(self, step: _Step, step_id: int, feeds: list, num_fetches: int, timeout_in_ms: int,
                  accept_parked: bool, metadata: dict | None = None) -> list:
        if not step.parts:  # (nothing to run: no fetch, or only fed ones, and no target)
            return [feeds[step.fed_fetches[pos]] for pos in range(num_fetches)]
        calls, asked = {}, {}
        for name, part in step.parts.items():
            asked[name] = None if metadata is None else {"trace": metadata.get("trace"),
                                                         "graphs": metadata.get("graphs")}
            calls[name] = (part.task.run_graph, RunGraphCall(
                part.graph_handle, step_id, part.feed_names, [feeds[pos] for pos in part.feed_positions],
                part.fetch_names, timeout_in_ms, accept_parked, asked[name]))
        # This process's own task runs on this thread, the others at once on the pool: a
        # hand-off to a pool thread and back costs more CPU than a small step's kernels.
        # The first task to fail aborts the step everywhere, so that tasks waiting for a
        # tensor from it give up at once; then every call is waited for.
        here = next((name for name, part in step.parts.items() if isinstance(part.task, LocalTask)),
                    next(iter(calls)))
        aborted = threading.Lock()

        def abort_once(future: Future) -> None:
            if future.exception() is not None and aborted.acquire(blocking=False):
                # (a copy: the step's own thread may be adding its task's result)
                self._abort(step, step_id, _first_failure(futures.copy()))

        futures: dict[str, Future] = {}
        for name, call in calls.items():
            if name != here:
                futures[name] = self._pool.submit(*call)
                futures[name].add_done_callback(abort_once)
        if futures:
            with self._long_steps.watching(step_id, lambda: [name for name in calls if
                                                             name not in futures or not futures[name].done()]):
                # (every exception, not only OpError: the other tasks may be waiting for this one)
                futures[here] = _call_here(*calls[here], catch=Exception)
                abort_once(futures[here])
                wait(futures.values())
        else:
            futures[here] = _call_here(*calls[here])
        futures = {name: futures[name] for name in calls}  # (in the step's order, as errors are chosen)
        failure = _first_failure(futures)
        if failure is not None:
            raise failure
        outputs = {name: future.result() for name, future in futures.items()}
        if metadata is not None:  # (every task's part, in the step's order)
            if metadata.get("trace"):
                stats = metadata["step_stats"] = pb.StepStats()
                for got in asked.values():
                    if "step_stats" in got:
                        stats.dev_stats.extend(got["step_stats"].dev_stats)
            metadata["partition_graphs"] = [g for got in asked.values() for g in got.get("partition_graphs", ())]
        values = []
        for pos in range(num_fetches):
            if pos in step.fed_fetches:
                values.append(feeds[step.fed_fetches[pos]])
            else:
                source = step.fetch_sources[pos]
                values.append(outputs[source.task][source.index])
        return values

    def _report_long_step(self, step_id: int, running: list[str], seconds: float) -> None:
        lines = []
        for name in running:
            try:
                waits = self.tasks.task(name).waiting_for(timeout=2.0)
            except errors.OpError as e:
                waits = [f"(cannot ask it: {type(e).__name__})"]
            lines += [f"  {name}: {w}" for w in waits] or [f"  {name}: no kernel waiting (it may be receiving from another task)"]
        _log.warning("step %d has run for %.0f s; its tasks are waiting:\n%s", step_id, seconds, "\n".join(lines))

    def _abort(self, step: _Step, step_id: int, failure: errors.OpError) -> None:
        for part in step.parts.values():
            try:
                part.task.abort_step(step_id, failure)
            except errors.OpError:
                pass  # that task is gone or already done

    def _compile(self, session: _MasterSession, feed_names, fetch_names, target_names) -> _Step:
        graph = session.graph
        if session.placer is None:
            session.placer = Placer(self._devices(session.config.device_filters),
                                    allow_soft_placement=session.config.allow_soft_placement)
        feeds = [_element(graph, n, tensor=True) for n in feed_names]
        fed = {output_key(t): i for i, t in enumerate(feeds)}
        fetches = [_element(graph, n, tensor=True) for n in fetch_names]
        targets = [_element(graph, n, tensor=False) for n in target_names]
        fed_fetches = {pos: fed[output_key(t)] for pos, t in enumerate(fetches) if output_key(t) in fed}
        roots = [t.op for pos, t in enumerate(fetches) if pos not in fed_fetches] + targets
        order = prune(roots, set(fed))
        for op in order:
            if op.type == "Placeholder" and (op.name, 0) not in fed:
                raise missing_feed_error(op.name, op._attr("dtype"), op._attr("shape"))
        device_of = {op: session.placer.place(op).name for op in order}
        for op in order:
            _place_functions(op, device_of[op], session.placer)
        parts = partition(order, device_of, set(fed))
        by_task: dict[str, list] = {}
        for device, nodes in parts.items():
            spec = DeviceSpec.from_string(device)
            by_task.setdefault(f"/job:{spec.job}/replica:0/task:{spec.task}", []).append((device, nodes))
        fetch_keys = {pos: output_key(t) for pos, t in enumerate(fetches) if pos not in fed_fetches}
        parts, fetch_sources = {}, {}
        for task_name, device_parts in by_task.items():
            graph_def, feed_positions = _partition_graph_def(graph, device_parts, fed)
            if session.container:
                _isolate(graph_def, session.container)
            local_fetches = []
            for pos, (name, index) in fetch_keys.items():
                if any(n.name == name for _, nodes in device_parts for n in nodes):
                    fetch_sources[pos] = _FetchSource(task_name, len(local_fetches))
                    local_fetches.append(f"{name}:{index}")
            task = self.tasks.task(task_name)
            placeholders = tuple(_feed_node_name(feed_names[pos]) + ":0" for pos in feed_positions)
            parts[task_name] = _TaskPart(task, task.register_graph(graph_def), feed_positions, placeholders,
                                         tuple(local_fetches))
        return _Step(parts, fetch_sources, fed_fetches)


def _isolate(graph_def, container: str) -> None:
    """Puts every resource op of ``graph_def`` that names no container into ``container``."""
    for node in graph_def.node:
        if is_registered(node.op) and "container" in get_registration(node.op).attr_names \
                and not node.attr["container"].s:
            node.attr["container"].s = container.encode()


class _LongSteps:
    """Logs the steps of several tasks that run long, with what their tasks' kernels wait
    for (a sync worker whose chief is down waits for a token, say): after LONG_STEP_S and
    then every LONG_STEP_REPEAT_S, from one thread of the master's that looks now and then
    (the thread that runs a step is busy running its own task's part)."""

    def __init__(self, report):
        self._report = report  # report(step_id, running task names, seconds)
        self._steps: dict[int, list] = {}  # step id -> [started, report at (s), running()]
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @contextlib.contextmanager
    def watching(self, step_id: int, running):
        """Watches the step while the block runs; ``running()``: the names of its tasks still running."""
        with self._lock:
            self._steps[step_id] = [time.monotonic(), LONG_STEP_S, running]
            if self._thread is None:
                self._thread = threading.Thread(target=self._watch, daemon=True, name="distflow-long-steps")
                self._thread.start()
        try:
            yield
        finally:
            with self._lock:
                del self._steps[step_id]

    def _watch(self) -> None:
        while True:
            time.sleep(min(1.0, LONG_STEP_S / 4))
            now, due = time.monotonic(), []
            with self._lock:
                for step_id, entry in self._steps.items():
                    if now - entry[0] >= entry[1]:
                        entry[1] += LONG_STEP_REPEAT_S
                        due.append((step_id, entry[2], now - entry[0]))
            for step_id, running, seconds in due:
                try:
                    self._report(step_id, running(), seconds)
                except Exception:  # noqa: BLE001 - a diagnostic must not stop the watch
                    _log.debug("could not report long step %d", step_id, exc_info=True)


def _call_here(fn, *args, catch=errors.OpError) -> Future:
    """``fn(*args)`` on this thread, as a finished Future (like a pool's submit) that
    holds what it raised of ``catch``."""
    future = Future()
    try:
        future.set_result(fn(*args))
    except catch as e:
        future.set_exception(e)
    return future


def _first_failure(futures: dict) -> errors.OpError | None:
    """The most telling error among finished calls: a real failure before a cancellation."""
    found = None
    for future in futures.values():
        if future.done() and future.exception() is not None:
            e = future.exception()
            if not isinstance(e, errors.OpError):  # a bug, not a failed op: still one clear error
                e = errors.InternalError(None, None, f"{type(e).__name__}: {e}")
            if found is None or (isinstance(found, errors.CancelledError) and not isinstance(e, errors.CancelledError)):
                found = e
    return found


def _element(graph: ops.Graph, name: str, tensor: bool):
    try:
        return graph.as_graph_element(name, allow_tensor=tensor, allow_operation=not tensor)
    except (KeyError, ValueError, TypeError) as e:
        raise errors.InvalidArgumentError(None, None, f"{name!r} is not in the session's graph: {e}") from None


def _feed_node_name(tensor_name: str) -> str:
    return "_feed_" + tensor_name.replace(":", "_")


def _place_functions(op: ops.Operation, device: str, placer: Placer) -> None:
    """Places the ops of ``op``'s functions (a cond's branches, a loop's body): on the task
    that runs ``op``, since they run inside its kernel there."""
    task = device.rpartition("/device:")[0]
    for inner in function_ops(op):
        where = placer.place(inner).name
        if where.rpartition("/device:")[0] != task:
            raise errors.InvalidArgumentError(
                None, inner, f"Op '{inner.name}' ({inner.type}) runs inside '{op.name}' ({op.type}) on {task}, but is "
                f"placed on {where}: the ops of a cond branch or a loop body run on the task that runs the cond or "
                "loop. Read a variable of another task outside the cond or loop (its value is sent once), or "
                "place the cond or loop on that task.")


def _add_function_ops(graph_def, graph: ops.Graph, node, proto) -> None:
    """Adds the ops of ``node``'s functions to a task's GraphDef, placed, reading what the
    functions read from outside through ``node``'s inputs there (a received tensor, a feed)."""
    op = graph.get_operation_by_name(node.name)
    members = {inner.name for inner in function_ops(op)}
    outer = {}  # tensor read inside, made outside -> the input of ``node`` that brings it
    for value in node.attrs.values():
        if isinstance(value, FuncBody):
            for name, position in value.feeds:
                if name.rpartition(":")[0] not in members:  # (not a loop's argument)
                    text = proto.input[position]
                    outer[name] = text if ":" in text else text + ":0"
    for inner in function_ops(op):
        inner_proto = graph_def.node.add(name=inner.name, op=inner.type, device=inner._assigned_device)
        inner_proto.input.extend(outer.get(t.name, t.name) for t in inner.inputs)
        # (a wait on an op outside the function is the owner's: it waits before the function runs)
        inner_proto.input.extend(f"^{c.name}" for c in inner.control_inputs if c.name in members)
        for key, value in inner._attrs.items():
            if key == "_class":
                continue
            if isinstance(value, FuncBody):
                value = FuncBody(value.ops, [(outer.get(k, k), p) for k, p in value.feeds],
                                 [outer.get(o, o) for o in value.outputs])
            inner_proto.attr[key].CopyFrom(wire.attr_to_proto(value))
    for key, value in node.attrs.items():
        if isinstance(value, FuncBody):
            proto.attr[key].CopyFrom(wire.attr_to_proto(FuncBody(
                value.ops, [(outer.get(k, k), p) for k, p in value.feeds], [outer.get(o, o) for o in value.outputs])))


def _partition_graph_def(graph: ops.Graph, device_parts, fed: dict):
    """One task's partitions as a GraphDef (in partition order); fed tensors become
    placeholders; the ops of cond branches and loops come with the op that runs them."""
    graph_def = pb.GraphDef()
    feed_positions, feed_nodes = [], set()
    for device, nodes in device_parts:
        for node in nodes:
            proto = graph_def.node.add(name=node.name, op=node.type, device=device)
            for key, value in node.attrs.items():
                if key == "_class":
                    continue  # placement is done: colocation constraints would refer to absent nodes
                proto.attr[key].CopyFrom(wire.attr_to_proto(value))
            for src, index in node.inputs:
                if (src, index) in fed:
                    t = graph.get_operation_by_name(src).outputs[index]
                    feed_name = _feed_node_name(t.name)
                    if feed_name not in feed_nodes:
                        feed_nodes.add(feed_name)
                        feed_positions.append(fed[(src, index)])
                        placeholder = graph_def.node.add(name=feed_name, op="Placeholder", device=device)
                        placeholder.attr["dtype"].CopyFrom(wire.attr_to_proto(t.dtype.base_dtype))
                        placeholder.attr["shape"].CopyFrom(wire.attr_to_proto(t.shape))
                    proto.input.append(feed_name)
                else:
                    proto.input.append(src if index == 0 else f"{src}:{index}")
            if any(isinstance(v, FuncBody) for v in node.attrs.values()):
                _add_function_ops(graph_def, graph, node, proto)
    return graph_def, feed_positions
