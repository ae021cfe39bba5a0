"""The local Session: owns its devices, places and partitions the graph, runs steps."""

from __future__ import annotations

import collections
import functools
import logging
import threading

import numpy as np

from ..framework import dtypes
from ..framework import errors
from ..framework import nest
from ..framework import ops
from ..framework.ops import Operation, Tensor
from ..ops import blas
from ..ops.indexed_slices import IndexedSlices
from ..ops.session_ops import HANDLE_OPS, TensorHandle, handle_text
from ..ops.sparse_ops import SparseTensor, SparseTensorValue
from . import allocator, process_options
from .config import ConfigProto, RunOptions
from .device import DeviceMgr
from .executor import LiveSteps, PartitionPlan, StepPlan
from .partial_run import PartialRun
from .partition import Node, output_key, partition, prune
from .functions import function_ops
from .gpu.replay import for_step as gpu_replay
from .placer import Placer


IndexedSlicesValue = collections.namedtuple("IndexedSlicesValue", ["values", "indices", "dense_shape"])


class _FetchMapper:
    """Flattens a nested fetch structure to unique graph elements, and rebuilds it."""

    __slots__ = ("elements", "_build")

    def __init__(self, graph: ops.Graph, fetches):
        self.elements: list = []
        index: dict = {}

        def flat(f):
            if f is None:
                raise TypeError(f"Fetch argument None has invalid type {type(None)}")
            if isinstance(f, (list, tuple)) and not isinstance(f, str):
                builders = [flat(x) for x in f]
                if hasattr(f, "_fields"):  # namedtuple
                    return lambda vals: type(f)(*[b(vals) for b in builders])
                kind = type(f)
                return lambda vals: kind(b(vals) for b in builders)
            if isinstance(f, collections.abc.Mapping):
                keys = list(f)
                builders = [flat(f[k]) for k in keys]
                kind = type(f)

                def build_dict(vals):
                    out = {k: b(vals) for k, b in zip(keys, builders)}
                    if kind is dict:
                        return out
                    if isinstance(f, collections.defaultdict):
                        result = kind(f.default_factory)
                        result.update(out)
                        return result
                    return kind(out)
                return build_dict
            if isinstance(f, SparseTensor):  # fetched as its parts, given back as a SparseTensorValue
                parts = [flat(f.indices), flat(f.values), flat(f.dense_shape)]
                return lambda vals: SparseTensorValue(*[p(vals) for p in parts])
            if isinstance(f, IndexedSlices):  # fetched as its parts, given back as an IndexedSlicesValue
                parts = [flat(f.values), flat(f.indices)] + ([flat(f.dense_shape)] if f.dense_shape is not None else [])
                return lambda vals: IndexedSlicesValue(parts[0](vals), parts[1](vals),
                                                       parts[2](vals) if len(parts) > 2 else None)
            try:
                element = graph.as_graph_element(f, allow_tensor=True, allow_operation=True)
            except (TypeError, ValueError, KeyError) as e:
                # A name the graph does not hold is a ValueError, as in TF (KeyError inside).
                cls = ValueError if isinstance(e, KeyError) else type(e)
                reason = e.args[0] if e.args else e
                raise cls(f"Fetch argument {f!r} cannot be interpreted as a Tensor. ({reason})") from None
            pos = index.get(element)
            if pos is None:
                pos = index[element] = len(self.elements)
                self.elements.append(element)
            return lambda vals, _p=pos: vals[_p]

        self._build = flat(fetches)

    def build(self, values: list):
        return self._build(values)


def check_outside_functions(elements, feeds) -> None:
    """ValueError if a fetch or feed is a tensor or op of a cond branch or loop body (it
    exists only while its function runs); checked once per step signature."""
    for what, items in (("fetched", elements), ("fed", feeds)):
        for element in items:
            _check_outside_functions(element, what)


def _check_outside_functions(element, what: str) -> None:
    op = element if isinstance(element, Operation) else element.op
    # (TF's words first: "may not be fed", "has been marked as not fetchable")
    if op._ctx is not None:
        refusal = f"Tensor {element.name} may not be fed" if what == "fed" else \
            f"Operation '{op.name}' has been marked as not fetchable"
        raise ValueError(f"{refusal}: it is made in {op._ctx.what} and exists only while that runs. Return it from "
                         "that function and use the result instead.")
    marked = op.graph._unfeedable if what == "fed" else op.graph._unfetchable
    if marked and (element if what == "fed" else op) in marked:
        raise ValueError(f"Tensor {element.name} may not be fed." if what == "fed" else
                         f"Operation '{op.name}' has been marked as not fetchable.")


def _fetch_value(v):
    if isinstance(v, np.ndarray) and v.ndim == 0:
        return v[()]
    return v


class _CompiledStep:
    __slots__ = ("plan", "fetch_keys", "fed_fetches", "partitions")

    def __init__(self, plan, fetch_keys, fed_fetches, partitions=None):
        self.plan = plan
        self.fetch_keys = fetch_keys
        self.fed_fetches = fed_fetches  # (fetch position, feed position)
        self.partitions = partitions or {}  # device -> its nodes, for RunMetadata.partition_graphs


class BaseSession:
    """Session logic shared by ``Session`` and ``InteractiveSession``."""

    def __init__(self, target: str = "", graph: ops.Graph | None = None,
                 config: ConfigProto | None = None):
        if graph is not None and not isinstance(graph, ops.Graph):
            raise TypeError(f"graph must be a tf.Graph, but got {type(graph).__name__}")
        if config is not None and not isinstance(config, ConfigProto):
            raise TypeError(f"config must be a tf.ConfigProto, but got {type(config).__name__}")
        self._graph = graph if graph is not None else ops.get_default_graph()
        self._config = process_options.effective(config)  # (with what tf.config set for the process)
        self._lock = threading.Lock()
        self._closed = False
        self._target = target
        self._context_managers: list = []
        self._steps: dict = {}
        self._live = LiveSteps()
        if not target:
            allocator.retain_freed_memory()
            blas.quiet_idle_threads()
            if self._config.intra_op_parallelism_threads > 0:
                blas.set_threads(self._config.intra_op_parallelism_threads, chosen=True)
            else:
                blas.watch_load()
            self._device_mgr = DeviceMgr(self._config)
            self._placer = Placer(self._device_mgr, self._config.allow_soft_placement,
                                  self._config.log_device_placement)
            self._kernel_states: dict = {}

    # -- properties --------------------------------------------------------------
    @property
    def graph(self) -> ops.Graph:
        return self._graph

    @property
    def graph_def(self):
        """The session's graph as a GraphDef; with ``GraphOptions(infer_shapes=True)`` each node
        carries its outputs' shapes (``_output_shapes``), as in TF."""
        infer = getattr(getattr(self._config, "graph_options", None), "infer_shapes", False)
        return self._graph.as_graph_def(add_shapes=bool(infer))

    @property
    def sess_str(self) -> str:
        return self._target

    def list_devices(self) -> list:
        """The session's devices (name, device_type, memory_limit_bytes)."""
        return [DeviceAttributes(d.name, d.device_type) for d in self._device_mgr.devices]

    # -- running -----------------------------------------------------------------
    def run(self, fetches, feed_dict=None, options: RunOptions | None = None, run_metadata=None):
        """Runs the ops needed for ``fetches`` and returns their values in the same structure.

        ``fetches``: a Tensor, Operation, Variable or name, or any nesting of
        lists, tuples, namedtuples and dicts of them (Operations give None).
        ``feed_dict``: Tensor (or name) -> value, overriding those tensors.

        Raises:
          RuntimeError: the session is closed.
          ValueError / TypeError: a fed value does not fit its tensor.
          errors.OpError: an op failed while running (the message names it and its device).
        """
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        if self._graph.version == 0:
            raise RuntimeError("The Session graph is empty. Add operations to the graph before calling run().")
        mapper, elements = self._fetch_elements(fetches)
        if feed_dict:
            feed_tensors, feed_values = self._feeds(feed_dict)
        else:
            feed_tensors, feed_values = (), []
        timeout = self._timeout(options)
        trace = [] if run_metadata is not None and getattr(options, "trace_level", 0) else None
        if run_metadata is not None and hasattr(run_metadata, "Clear"):
            run_metadata.Clear()  # (a reused RunMetadata says only what this step did, as in TF)
        graphs = run_metadata is not None and bool(getattr(options, "output_partition_graphs", False))
        metadata = {"trace": trace is not None, "graphs": graphs} if trace is not None or graphs else None
        try:
            values = self._run_step(elements, feed_tensors, feed_values, timeout, trace, metadata)
        except errors.OpError as e:
            self._attach_op(e)
            raise
        if metadata is not None:
            self._fill_run_metadata(run_metadata, elements, feed_tensors, trace, metadata)
        return _results(mapper, elements, values, self)

    def _run_step(self, elements: tuple, feed_tensors: tuple, feed_values: list, timeout,
                  trace: list | None = None, metadata: dict | None = None) -> list:
        """Runs one step; the value of each element (None for operations), in order.
        With ``trace`` (a list), each kernel call's ``KernelTime`` is added to it
        (``metadata`` is for a remote session's step, which asks its tasks for them)."""
        key = (elements, feed_tensors)
        step = self._steps.get(key)
        if step is None:
            with self._lock:
                step = self._steps.get(key) or self._compile(elements, feed_tensors)
                self._steps[key] = step
        values = step.plan.run(feed_values, timeout, trace)
        for pos, feed_pos in step.fed_fetches:
            values[pos] = feed_values[feed_pos]
        if feed_values:
            _unshare(values, feed_values)
        return values

    def _fill_run_metadata(self, run_metadata, elements, feed_tensors, trace, metadata=None) -> None:
        """The step's partition graphs, one GraphDef per device, and with a trace its
        ``step_stats``: every kernel call, by device, with its start and end."""
        from ..framework import wire  # noqa: PLC0415 - protobuf only for programs that ask

        step = self._steps.get((elements, feed_tensors))
        partitions = getattr(step, "partitions", None) or {}
        run_metadata.partition_graphs = [wire.partition_to_proto(nodes, device)
                                         for device, nodes in sorted(partitions.items())]
        if trace is not None:
            run_metadata.step_stats = wire.step_stats(trace, sorted(partitions))

    def make_callable(self, fetches, feed_list=None, accept_options=False):
        """A function ``f(*feed_values)`` that runs ``fetches`` with ``feed_list[i]`` fed ``feed_values[i]``.

        The fetches and feeds are resolved once, here, so that a call does only the step (as
        TF's callables do: a dataset's map function runs one per element). With
        ``accept_options`` it also takes ``options=`` and ``run_metadata=`` keywords.
        """
        feed_list = list(feed_list or [])
        mapper, elements = self._fetch_elements(fetches)
        simple = all(type(key) not in (SparseTensor, IndexedSlices) and not isinstance(key, tuple)
                     for key in feed_list)
        resolved = [self._fed_tensors(key) for key in feed_list] if simple else None
        # (a variable read in several places feeds several tensors: the general way)
        feed_tensors = tuple(r[0] for r in resolved) if simple and all(len(r) == 1 for r in resolved) else None
        if feed_tensors is not None and len(set(feed_tensors)) != len(feed_tensors):
            feed_tensors = None  # (a tensor fed twice: the general way says what run says)

        checks = [_feed_check(t) for t in feed_tensors] if feed_tensors is not None else None

        def call(*feed_values, **kwargs):
            if len(feed_values) != len(feed_list):
                raise TypeError(f"The callable expects {len(feed_list)} feed values, got {len(feed_values)}")
            if kwargs:
                if not accept_options:
                    raise TypeError(f"The callable takes no keyword arguments (make it with accept_options=True): "
                                    f"{sorted(kwargs)}")
                unknown = set(kwargs) - {"options", "run_metadata"}
                if unknown:
                    raise TypeError(f"Unexpected keyword arguments {sorted(unknown)}")
            if kwargs or checks is None or self._closed:  # (the general way)
                return self.run(fetches, dict(zip(feed_list, feed_values)) if feed_list else None,
                                kwargs.get("options"), kwargs.get("run_metadata"))
            values = [check(v) for check, v in zip(checks, feed_values)]
            try:
                out = self._run_step(elements, feed_tensors, values, self._timeout(None))
            except errors.OpError as e:
                self._attach_op(e)
                raise
            return _results(mapper, elements, out, self)

        return call

    def partial_run_setup(self, fetches, feeds=None) -> str:
        """Starts a partial run: ``partial_run(handle, ...)`` calls then feed ``feeds`` and fetch
        ``fetches`` a part at a time, each op running once (runtime/partial_run.py). Returns the
        run's handle."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        _, elements = self._fetch_elements(fetches)
        if not elements:
            raise errors.InvalidArgumentError(None, None, "Must specify at least one target to fetch or execute.")
        feed_tensors = {t for key in (feeds or []) for t in self._fed_tensors(key)}
        with self._lock:
            self._partial_run_count = getattr(self, "_partial_run_count", 0) + 1
            handle = f"partial_run:{self._partial_run_count}"
            self._partial_runs()[handle] = PartialRun(elements, feed_tensors)
        return handle

    def partial_run(self, handle, fetches, feed_dict=None):
        """One part of the partial run ``handle``: feeds ``feed_dict`` (feeds that setup named,
        each fed once) and returns ``fetches`` (fetches that setup named, each fetched once) in
        their structure. The run ends, and its handle with it, once every fetch is fetched."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        run = self._partial_runs().get(handle)
        if run is None:
            raise errors.InvalidArgumentError(None, None, f"{handle!r} is not the handle of an unfinished partial run "
                                                          f"of this session: call partial_run_setup first (a run "
                                                          f"ends once every fetch is fetched)")
        mapper, elements = self._fetch_elements(fetches)
        feed_tensors, feed_values = self._feeds(feed_dict) if feed_dict else ((), [])
        cut = run.begin(elements, feed_tensors)
        feeds = {**run.fed, **run.carried, **dict(zip(feed_tensors, feed_values))}
        tensors = tuple(feeds)
        try:
            values = self._run_step(elements + tuple(cut), tensors, [feeds[t] for t in tensors], self._timeout(None))
        except errors.OpError as e:
            self._attach_op(e)
            raise
        run.end(elements, feed_tensors, feed_values, cut, values[len(elements):])
        if run.done:
            self._partial_runs().pop(handle, None)
        return _results(mapper, elements, values[:len(elements)], self)

    def _partial_runs(self) -> dict:
        runs = getattr(self, "_open_partial_runs", None)
        if runs is None:
            runs = self._open_partial_runs = {}
        return runs

    def _attach_op(self, e: errors.OpError) -> None:
        if e.op is None and "[[node " in e.message:
            name = e.message.rsplit("[[node ", 1)[1].split(" ", 1)[0]
            try:
                e.op = self._graph.get_operation_by_name(name)
                e.node_def = e.op.node_def
            except (KeyError, ValueError):
                pass

    def _feeds(self, feed_dict) -> tuple[tuple, list]:
        tensors, values = [], []
        pairs = feed_dict.items()
        for key in feed_dict:
            if type(key) in (SparseTensor, IndexedSlices) or type(key) is not Tensor and isinstance(key, tuple):
                pairs = _expand_structured_feeds(feed_dict)
                break
        for key, value in pairs:
            for t in self._fed_tensors(key):
                values.append(_feed_value(t, value))
                tensors.append(t)
        return tuple(tensors), values


    def _fetch_elements(self, fetches) -> tuple:
        """(the structure's mapper, or None for one Tensor or Operation; the graph elements to run)."""
        if isinstance(fetches, (Tensor, Operation)):
            if fetches.graph is not self._graph:
                raise ValueError(f"Fetch argument {fetches!r} is not an element of this graph.")
            return None, (fetches,)
        mapper = _FetchMapper(self._graph, fetches)
        return mapper, tuple(mapper.elements)

    def _timeout(self, options) -> float | None:
        """A step's deadline in seconds: the RunOptions', else the session's operation timeout."""
        if options is not None and getattr(options, "timeout_in_ms", 0):
            return options.timeout_in_ms / 1000.0
        return self._config.operation_timeout_in_ms / 1000.0 if self._config.operation_timeout_in_ms else None

    def _fed_tensors(self, key) -> list:
        """The tensors a feed_dict key feeds: the one it names, or, for a variable (its
        reference), every read of it, so that the step sees the value fed in its place, as
        TF 1.x lets a program feed a variable (``{learning_rate_variable: 0.01}``)."""
        try:
            t = self._graph.as_graph_element(key, allow_tensor=True, allow_operation=False)
        except (TypeError, ValueError, KeyError) as e:
            raise TypeError(f"Cannot interpret feed_dict key {key!r} as a Tensor: {e}") from None
        if t.dtype.is_ref_dtype:
            reads = [c.outputs[0] for c in t.consumers() if c.type == "Identity"]
            if not reads:
                raise TypeError(f"Cannot feed the variable reference '{t.name}': nothing reads it")
            return reads
        return [t]

    def _compile(self, elements: tuple, feed_tensors: tuple) -> _CompiledStep:
        check_outside_functions(elements, feed_tensors)
        fed = {output_key(t): i for i, t in enumerate(feed_tensors)}
        fetch_index: dict = {}
        fed_fetches = []
        roots = []
        for pos, el in enumerate(elements):
            if isinstance(el, Tensor):
                k = output_key(el)
                if k in fed:
                    fed_fetches.append((pos, fed[k]))
                    continue
                fetch_index.setdefault(k, []).append(pos)
                roots.append(el.op)
            else:
                roots.append(el)
        order = prune(roots, set(fed))
        device_of = {op: self._placer.place(op).name for op in order}
        for op in order:  # the ops of cond branches and loops run where they are placed, too
            for inner in function_ops(op):
                self._placer.place(inner)
        parts = partition(order, device_of, set(fed))
        lookup = self._device_mgr.lookup
        rewrites = self._config.graph_options.optimizer_options.rewrites()
        label = "step " + ", ".join(el.name for el in elements)[:100]
        plans = [PartitionPlan(dev, nodes, [lookup(dev)] * len(nodes), fed, fetch_index, self._kernel_states,
                               rewrites) for dev, nodes in parts.items()]
        sequential = PartitionPlan("sequential", [Node.from_op(op) for op in order],
                                   [lookup(device_of[op]) for op in order], fed, fetch_index,
                                   self._kernel_states, rewrites)
        inter_op = self._config.inter_op_parallelism_threads
        mode = {0: StepPlan.AUTO, 1: StepPlan.SEQUENTIAL}.get(inter_op, StepPlan.CONCURRENT)
        step = StepPlan(plans, sequential, len(elements), mode, self._live, label)
        if self._device_mgr.backend is not None:
            step.replay = gpu_replay(sequential, self._device_mgr, self._config, label)
        return _CompiledStep(step, fetch_index, fed_fetches, parts)

    # -- persistent tensors (tf.get_session_handle) ---------------------------------------
    def _session_tensor_value(self, handle: str, dtype):
        """The value kept for ``handle`` (TensorHandle.eval), read from the session's store."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        value = self._device_mgr.session_tensors.get(handle, "TensorHandle.eval")
        return _fetch_value(np.array(self._device_mgr.to_host(value)))

    def _handle_for(self, handle: str, dtype, device: str) -> str:
        """``handle`` as fed to a reader on ``device``: as it is (every device of a local
        session reads its store, and a reader takes the tensor to its device)."""
        return handle

    def _delete_session_tensor(self, handle: str) -> None:
        if not self._closed:
            self._device_mgr.session_tensors.delete(handle, "TensorHandle.delete")

    def _register_dead_handle(self, handle: str) -> None:
        """A TensorHandle was garbage collected: its tensor goes at once (no step is needed)."""
        if not self._closed:
            self._device_mgr.session_tensors.delete(handle)

    # -- lifecycle -----------------------------------------------------------------
    def close(self) -> None:
        """Releases the session's devices and state; run() afterwards is a RuntimeError."""
        _undo_default(self)
        if not self._closed:
            self._closed = True
            self._live.abort_all(errors.CancelledError(None, None, "Session has been closed."))
            self._steps.clear()
            self._partial_runs().clear()
            if not self._target:
                self._device_mgr.session_tensors.clear()
                for d in self._device_mgr.devices:
                    d.resource_mgr.clear()

    def as_default(self):
        return _DefaultSessionContext(self)

    def __enter__(self):
        if self._context_managers:
            raise RuntimeError("Session context managers are not re-entrant. Use `Session.as_default()` if "
                               "you want to enter a session multiple times.")
        graph_ctx = self._graph.as_default()
        graph_ctx.__enter__()
        session_ctx = self.as_default()
        session_ctx.__enter__()
        self._context_managers.append((graph_ctx, session_ctx))
        return self

    def __exit__(self, exc_type, exc, tb):
        graph_ctx, session_ctx = self._context_managers.pop()
        session_ctx.__exit__(exc_type, exc, tb)
        graph_ctx.__exit__(exc_type, exc, tb)
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - never raise from a finalizer
            pass


class _DefaultSessionContext:
    def __init__(self, session):
        self._session = session

    def __enter__(self):
        ops._default_session_stack.push(self._session)
        return self._session

    def __exit__(self, *exc):
        ops._default_session_stack.pop(self._session)
        return False


class DeviceAttributes:
    __slots__ = ("name", "device_type", "memory_limit_bytes")

    def __init__(self, name, device_type, memory_limit_bytes=0):
        self.name, self.device_type, self.memory_limit_bytes = name, device_type, memory_limit_bytes

    def __repr__(self):
        return f"DeviceAttributes({self.name}, {self.device_type}, {self.memory_limit_bytes})"


def _expand_structured_feeds(feed_dict):
    """(key, value) pairs with each SparseTensor key fed as its three tensors (or its
    indices and values, from a pair, when its dense shape is known), each IndexedSlices
    key as its values, indices and dense shape if it has one, and each tuple of tensors
    (an LSTM's state, say) fed from a value of the same structure."""
    for key, value in feed_dict.items():
        if isinstance(key, IndexedSlices):
            if not isinstance(value, IndexedSlicesValue):
                if not (isinstance(value, (tuple, list)) and len(value) in (2, 3)):
                    raise TypeError(f"An IndexedSlices is fed an IndexedSlicesValue or a (values, indices[, "
                                    f"dense_shape]) tuple, got {type(value).__name__}")
                value = IndexedSlicesValue(*value, *([None] * (3 - len(value))))
            yield key.values, value.values
            yield key.indices, value.indices
            if key.dense_shape is not None and value.dense_shape is not None:
                yield key.dense_shape, value.dense_shape
            continue
        if isinstance(key, tuple) and not isinstance(key, SparseTensor):
            try:
                nest.assert_same_structure(key, value, check_types=False)
            except (TypeError, ValueError) as e:
                raise ValueError(f"A feed_dict key that is a tuple of tensors needs a value of the same "
                                 f"structure: {e}") from None
            yield from _expand_structured_feeds(dict(zip(nest.flatten(key), nest.flatten(value))))
            continue
        if not isinstance(key, SparseTensor):
            yield key, value
            continue
        if not isinstance(value, SparseTensorValue):
            if isinstance(value, (tuple, list)) and len(value) == 2:  # (its dense shape is the graph's, as TF)
                yield key.indices, value[0]
                yield key.values, value[1]
                continue
            if not (isinstance(value, (tuple, list)) and len(value) == 3):
                raise TypeError(f"A SparseTensor is fed a SparseTensorValue, an (indices, values, dense_shape) "
                                f"tuple or, when its shape is known, an (indices, values) pair; got "
                                f"{type(value).__name__}")
            value = SparseTensorValue(*value)
        yield key.indices, value.indices
        yield key.values, value.values
        yield key.dense_shape, value.dense_shape


def _results(mapper, elements, values, session):
    """What ``run`` returns: the fetched values in the fetches' structure (None for operations;
    a TensorHandle for a tf.get_session_handle)."""
    if session._graph._holds_session_handles:
        for i, el in enumerate(elements):
            if el.__class__ is Tensor and el._op._type in HANDLE_OPS:
                values[i] = TensorHandle(handle_text(values[i]), el._op._inputs[0].dtype, session)
    if mapper is None:
        return None if isinstance(elements[0], Operation) else _fetch_value(values[0])
    return mapper.build([None if isinstance(el, Operation) else _fetch_value(v) for el, v in zip(elements, values)])


def _unboxed(arr: np.ndarray, t: Tensor) -> np.ndarray:
    """An object array's numbers as an array of their own dtype (so the usual checks apply)."""
    try:
        unboxed = np.array(arr.tolist())
    except ValueError as e:
        raise ValueError(f"Cannot feed an object array for Tensor '{t.name}': {e}") from None
    if unboxed.shape != arr.shape:
        raise ValueError(f"Cannot feed an object array of shape {arr.shape} for Tensor '{t.name}': its items "
                         f"are arrays themselves (shape {unboxed.shape} when unboxed); stack them first")
    return unboxed


def _unshare(values: list, feed_values: list) -> None:
    """Copies each fetched array that shares memory with a fed one (a fed tensor fetched, a
    reshape or slice of it): what a step returns is the caller's own, as TF's fetches are,
    and does not change when the caller later writes into the arrays it fed."""
    fed = [v for v in feed_values if v.__class__ is np.ndarray and v.size]
    if not fed:
        return
    for i, v in enumerate(values):
        if v.__class__ is not np.ndarray or not v.size:
            continue
        if v.base is None and not any(v is f for f in fed):
            continue  # (an array of its own: what kernels mostly return)
        if any(np.may_share_memory(v, f) for f in fed):
            values[i] = v.copy()


def _feed_check(t: Tensor):
    """``_feed_value`` for ``t``, with its dtype and shape looked up once: an array (or NumPy
    scalar) of the tensor's dtype and a shape it takes is taken as it is, in a few
    attribute reads; anything else goes the whole way (a callable's feeds, a dataset
    function's elements)."""
    dtype = t.dtype.base_dtype
    if dtype in (dtypes.string, dtypes.resource, dtypes.variant) or t.shape.ndims is None:
        return functools.partial(_feed_value, t)
    np_dtype = np.dtype(dtype.as_numpy_dtype)
    dims = tuple(t.shape.as_list())
    fixed = None not in dims

    def check(value):
        if value.__class__ is not np.ndarray:
            if not isinstance(value, np.generic):
                return _feed_value(t, value)
            value = np.asarray(value)
        shape = value.shape
        if value.dtype != np_dtype or (shape != dims if fixed else len(shape) != len(dims) or any(
                d is not None and d != n for d, n in zip(dims, shape))):
            return _feed_value(t, value)
        return value

    return check


def _whole(arr: np.ndarray, dtype) -> bool:
    """Whether the floats ``arr`` are each a value of the integer or bool ``dtype``."""
    if not arr.size:
        return True
    if dtype.is_bool:
        return bool(np.all((arr == 0) | (arr == 1)))
    return bool(np.all(np.isfinite(arr)) and np.all(arr == np.trunc(arr)))


def _check_range(arr: np.ndarray, t: Tensor, dtype) -> None:
    """ValueError where a value of ``arr`` (numbers) is out of the integer ``dtype``'s range."""
    info = np.iinfo(dtype.as_numpy_dtype)
    low, high = arr.min(), arr.max()
    # (floats against the bounds as powers of two, which a float holds exactly)
    if low < info.min or (high >= info.max + 1 if arr.dtype.kind == "f" else high > info.max):
        raise ValueError(f"Cannot feed a value for Tensor '{t.name}' of dtype {dtype.name}: "
                         f"{low if low < info.min else high} is out of its range "
                         f"[{info.min}, {info.max}].")


def _feed_value(t: Tensor, value):
    """A fed value as an array of the tensor's dtype; a lossy or misshapen feed is a ValueError.
    A TensorHandle feeds its string to a placeholder of handles, else its value."""
    if value.__class__ is TensorHandle:
        value = value._fed_to(t)
    if isinstance(value, (Tensor, Operation)) or hasattr(value, "_as_graph_element"):
        raise TypeError("The value of a feed cannot be a tf.Tensor object. Acceptable feed "
                        "values include Python scalars, strings, lists, numpy ndarrays.")
    dtype = t.dtype.base_dtype
    if dtype == dtypes.string:
        arr = np.array(value, dtype=object)
        flat = arr.reshape(-1)
        for i, v in enumerate(flat):
            flat[i] = v.encode() if isinstance(v, str) else v
            if not isinstance(flat[i], bytes):
                raise TypeError(f"Cannot feed {v!r} of type {type(v).__name__} for Tensor '{t.name}' of dtype "
                                "string: expected bytes or str")
    else:
        try:
            arr = np.asarray(value)
        except Exception as e:  # noqa: BLE001 - report the value
            raise ValueError(f"Cannot convert the value fed for '{t.name}' to an array: {e}") from None
        if arr.dtype == object:  # (numbers held in an object array, as np.array(rows, dtype=object) makes)
            arr = _unboxed(arr, t)
        if arr.dtype != dtype.as_numpy_dtype:
            # (floats feed an integer or bool placeholder where each is one of its values, as TF 1.x
            # converted them: np.ones(n) for int32 labels; a fraction or a NaN is refused, where TF
            # truncated it; an empty array loses nothing: np.array([]) is float64)
            if arr.dtype.kind in "USO" or (arr.dtype.kind == "f" and (dtype.is_integer or dtype.is_bool)
                                           and not _whole(arr, dtype)):
                raise ValueError(f"Cannot feed a value of dtype {arr.dtype} for Tensor '{t.name}' "
                                 f"of dtype {dtype.name}: the conversion would lose information. "
                                 "Cast it first.")
            if arr.dtype.kind in "iubf" and dtype.is_integer and arr.size:
                _check_range(arr, t, dtype)
            arr = arr.astype(dtype.as_numpy_dtype)
    if not t.shape.is_compatible_with(arr.shape):
        raise ValueError(f"Cannot feed value of shape {arr.shape} for Tensor '{t.name}', which "
                         f"has shape '{t.shape}'")
    return arr


# How sessions on a remote target are made, by target scheme ("grpc://"). The package that
# implements them registers a loader (distflow's top level registers the gRPC session), which
# is called on first use, so that a purely local program never imports gRPC. The loader
# returns an object with ``new_session(target, graph, config)`` and
# ``reset(target, containers, config)``.
_remote_session_loaders: dict = {}


def register_remote_session(scheme: str, load) -> None:
    """Makes ``load()`` the provider of sessions whose target starts with ``scheme``."""
    _remote_session_loaders[scheme] = load


def _remote_sessions(target: str):
    for scheme, load in _remote_session_loaders.items():
        if target.startswith(scheme):
            return load()
    raise errors.NotFoundError(None, None, f"No session factory registered for the given session options: "
                                           f"{{target: \"{target}\"}} (distflow knows '' and 'grpc://host:port')")


class Session(BaseSession):
    """``tf.Session(target='', graph=None, config=None)``.

    With no target the session owns its devices in this process; with a target
    ("grpc://host:port") it runs steps through that server's master.
    """

    def __new__(cls, target: str = "", graph=None, config=None):
        target = _check_target(target)
        if target:
            return _remote_sessions(target).new_session(target, graph, config)
        return super().__new__(cls)

    def __init__(self, target: str = "", graph=None, config=None):
        super().__init__(_check_target(target), graph, config)

    @staticmethod
    def reset(target: str, containers=None, config=None) -> None:
        """Clears the resource containers (all of them by default) of every task of a cluster.

        Open sessions on that cluster see their variables vanish; other containers are kept.
        It waits for the target's master up to ``config.operation_timeout_in_ms`` (60 s by
        default), then raises DeadlineExceededError; a target of no known kind is NotFoundError.
        """
        if isinstance(target, bytes):
            target = target.decode()
        if not target:
            raise ValueError("Session.reset needs the target of a server")
        # (no port check: a target no server answers at, "grpc://localhost:0" say, times out as in TF)
        _remote_sessions(target).reset(target, containers, config)


def _check_target(target) -> str:
    """A session target as a string: "" (this process) or "grpc://host:port"."""
    if isinstance(target, bytes):
        target = target.decode()
    if not isinstance(target, str):
        raise TypeError(f"target must be a string, got {type(target).__name__} {target!r}")
    if target and not target.startswith("grpc://"):
        raise errors.NotFoundError(None, None, f"No session factory registered for the given session options: "
                                               f"{{target: \"{target}\"}} (distflow knows '' and 'grpc://host:port')")
    if target:
        host, sep, port = target[len("grpc://"):].rpartition(":")
        if not sep or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
            raise ValueError(f"Session target {target!r} needs the form 'grpc://host:port' with a port from 1 to "
                             "65535")
    return target


class InteractiveSession(BaseSession):
    """A session that makes itself the default on creation (for shells and notebooks).

    With a target ("grpc://host:port") it is a session on that server's master, made
    the default in the same way.
    """

    def __new__(cls, target: str = "", graph=None, config=None):
        target = _check_target(target)
        if target:
            sess = _remote_sessions(target).new_session(target, graph, config)
            _make_default(sess)
            return sess
        return super().__new__(cls)

    _active = 0  # (how many are open: a second one at once is logged, as TF does)
    _active_lock = threading.Lock()

    def __init__(self, target: str = "", graph: ops.Graph | None = None,
                 config: ConfigProto | None = None):
        if _check_target(target):
            return  # a remote session, made the default by __new__
        super().__init__(target, graph, config)
        with InteractiveSession._active_lock:
            if InteractiveSession._active > 0:
                logging.getLogger("distflow").error(
                    "An interactive session is already active. This can cause out-of-memory errors in some "
                    "cases. You must explicitly call `InteractiveSession.close()` to release resources held by "
                    "the other session(s).")
            InteractiveSession._active += 1
        self._counted = True
        _make_default(self)

    def close(self) -> None:
        if getattr(self, "_counted", False):
            self._counted = False
            with InteractiveSession._active_lock:
                InteractiveSession._active -= 1
        super().close()



def _make_default(sess) -> None:
    sess._default_ctx = sess.as_default()
    sess._default_ctx.__enter__()
    sess._graph_ctx = sess.graph.as_default()
    sess._graph_ctx.__enter__()


def _undo_default(sess) -> None:
    if not sess._closed and getattr(sess, "_default_ctx", None) is not None:
        try:
            sess._graph_ctx.__exit__(None, None, None)
            sess._default_ctx.__exit__(None, None, None)
        except AssertionError:
            pass  # closed from another thread or out of order: nothing to undo here
        sess._default_ctx = None
