"""``tf.test``: what tests of TF 1.x programs use: a TestCase with sessions and array assertions."""

from __future__ import annotations

import contextlib
import unittest
from collections.abc import Mapping

import numpy as np

from ._namespace import missing
from .framework import errors, ops
from .runtime.session import Session


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None) -> bool:
    """Whether this process has a real GPU (CuPy and a CUDA device); simulated GPUs do not count.
    ``min_cuda_compute_capability`` is a (major, minor) pair GPU 0 must reach."""
    from .runtime.gpu import find_backend  # noqa: PLC0415 - imports CuPy, where it is installed

    backend = find_backend()
    if backend is None:
        return False
    if min_cuda_compute_capability is not None:
        return tuple(backend.compute_capability(0)) >= tuple(min_cuda_compute_capability)
    return True


def is_built_with_cuda() -> bool:
    """Whether distflow can use CUDA here: CuPy (the ``gpu`` extra) is installed."""
    import importlib.util  # noqa: PLC0415

    return importlib.util.find_spec("cupy") is not None


def gpu_device_name() -> str:
    """"/device:GPU:0" where a real GPU is available, else ""."""
    return "/device:GPU:0" if is_gpu_available() else ""


def main(argv=None):
    """Runs the test cases of ``__main__`` (unittest)."""
    return unittest.main(argv=argv)


DEFAULT_GRAPH_SEED = 87654321  # each test's graph seed, as TF's test case sets it

_temp_dir: list = []


def get_temp_dir() -> str:
    """A directory of this process's own for tests' files (the same on every call; removed
    when the process exits)."""
    if not _temp_dir:
        import atexit  # noqa: PLC0415
        import shutil  # noqa: PLC0415
        import tempfile  # noqa: PLC0415

        path = tempfile.mkdtemp(prefix="distflow-test-")
        atexit.register(shutil.rmtree, path, True)
        _temp_dir.append(path)
    return _temp_dir[0]


def is_built_with_gpu_support() -> bool:
    """The same as :func:`is_built_with_cuda` (distflow's GPUs are CUDA's)."""
    return is_built_with_cuda()


def is_built_with_rocm() -> bool:
    return False


def is_built_with_xla() -> bool:
    return False


def benchmark_config():
    """A ConfigProto for benchmarks (TF's turns its graph optimizations off; distflow's
    rewrites stay, as they are part of what a program gets)."""
    from .runtime.config import ConfigProto  # noqa: PLC0415

    return ConfigProto()


def create_local_cluster(num_workers, num_ps, protocol="grpc", worker_config=None, ps_config=None):
    """Starts ``num_workers`` worker and ``num_ps`` ps servers in this process, on free ports
    of 127.0.0.1: ``(workers, ps_servers)``, lists of started ``tf.train.Server``.
    ``Session(workers[0].target)`` runs graphs on the cluster."""
    from .distributed.server import ClusterSpec, Server  # noqa: PLC0415
    from .tools.launcher import free_ports  # noqa: PLC0415

    ports = free_ports(num_workers + num_ps)
    cluster = ClusterSpec({"worker": [f"127.0.0.1:{p}" for p in ports[:num_workers]],
                           "ps": [f"127.0.0.1:{p}" for p in ports[num_workers:]]})
    workers = [Server(cluster, job_name="worker", task_index=i, protocol=protocol, config=worker_config)
               for i in range(num_workers)]
    ps_servers = [Server(cluster, job_name="ps", task_index=i, protocol=protocol, config=ps_config)
                  for i in range(num_ps)]
    return workers, ps_servers


def assert_equal_graph_def(actual, expected, checkpoint_v2=False, hash_table_shared_name=False):
    """AssertionError naming the first difference unless the two GraphDefs have the same
    nodes (in any order), each with the same op, inputs, device and attributes.
    ``checkpoint_v2`` ignores the temporary file names a Saver's graph holds;
    ``hash_table_shared_name`` ignores hash tables' shared names."""
    from .protos.distflow_pb2 import GraphDef  # noqa: PLC0415

    for what, graph_def in (("actual", actual), ("expected", expected)):
        if not isinstance(graph_def, GraphDef):
            raise TypeError(f"Expected tf.GraphDef for {what}, got {type(graph_def).__name__}")
    nodes = [_comparable_nodes(g, checkpoint_v2, hash_table_shared_name) for g in (actual, expected)]
    missing_names = sorted(set(nodes[1]) - set(nodes[0]))
    extra_names = sorted(set(nodes[0]) - set(nodes[1]))
    if missing_names:
        raise AssertionError(f"Node named '{missing_names[0]}' in expected is not in actual")
    if extra_names:
        raise AssertionError(f"Node named '{extra_names[0]}' in actual is not in expected")
    for name in sorted(nodes[0]):
        a, e = nodes[0][name], nodes[1][name]
        if a != e:
            raise AssertionError(f"Node named '{name}' differs:\nactual:\n{a}\nexpected:\n{e}")


def _comparable_nodes(graph_def, checkpoint_v2: bool, hash_table_shared_name: bool) -> dict:
    import re  # noqa: PLC0415

    out = {}
    for node in graph_def.node:
        node = type(node).FromString(node.SerializeToString())
        if checkpoint_v2 and node.op == "Const" and node.attr["value"].tensor.string_val:
            values = node.attr["value"].tensor.string_val
            values[:] = [re.sub(rb"_temp_[0-9a-f]{32}", b"_temp", v) for v in values]
        if hash_table_shared_name and node.op.startswith("HashTable"):
            node.attr["shared_name"].s = b""
        if not node.device:
            node.ClearField("device")
        # (control inputs are a set; data inputs keep their order)
        data = [i for i in node.input if not i.startswith("^")]
        control = sorted(i for i in node.input if i.startswith("^"))
        del node.input[:]
        node.input.extend(data + control)
        out[node.name] = node
    return out


class StubOutForTesting:
    """Replaces attributes for a test and puts them back (``Set``, ``SmartSet``, ``UnsetAll``)."""

    def __init__(self):
        self._saved: list = []

    def Set(self, parent, child_name, new_child):  # noqa: N802 - TF's name
        self._saved.append((parent, child_name, getattr(parent, child_name)))
        setattr(parent, child_name, new_child)

    SmartSet = Set

    def UnsetAll(self):  # noqa: N802
        for parent, child_name, old in reversed(self._saved):
            setattr(parent, child_name, old)
        self._saved.clear()

    SmartUnsetAll = UnsetAll
    CleanUp = UnsetAll


class Benchmark:
    """``tf.test.Benchmark``: ``report_benchmark`` prints one entry; ``run_op_benchmark``
    times a fetch in a session and reports it."""

    def report_benchmark(self, iters=None, cpu_time=None, wall_time=None, throughput=None, extras=None,
                         name=None, metrics=None):
        entry = {"name": name or type(self).__name__, "iters": iters, "cpu_time": cpu_time,
                 "wall_time": wall_time, "throughput": throughput, "extras": extras or {},
                 "metrics": metrics or []}
        print("benchmark:", {k: v for k, v in entry.items() if v not in (None, {}, [])}, flush=True)
        return entry

    def run_op_benchmark(self, sess, op_or_tensor, feed_dict=None, burn_iters=2, min_iters=10,
                         store_trace=False, store_memory_usage=True, name=None, extras=None, mbs=0):
        import time  # noqa: PLC0415

        for _ in range(burn_iters):
            sess.run(op_or_tensor, feed_dict=feed_dict)
        deltas = []
        for _ in range(min_iters):
            start = time.perf_counter()
            sess.run(op_or_tensor, feed_dict=feed_dict)
            deltas.append(time.perf_counter() - start)
        wall_time = float(np.median(deltas))
        throughput = mbs / wall_time if mbs else None
        extras = dict(extras or {})
        self.report_benchmark(iters=min_iters, wall_time=wall_time, throughput=throughput, extras=extras,
                              name=name)
        return {"iters": min_iters, "wall_time": wall_time, "throughput": throughput, "extras": extras}

    def evaluate(self, tensors):
        sess = ops.get_default_session()
        if sess is None:
            raise ValueError("Benchmark.evaluate runs in the default session")
        return sess.run(tensors)


class _CheckedThread:
    """A thread whose failure fails the test (``TestCase.checkedThread``)."""

    def __init__(self, testcase, target, args=None, kwargs=None):
        import threading  # noqa: PLC0415

        self._testcase, self._target = testcase, target
        self._args, self._kwargs = args or (), kwargs or {}
        self._thread = threading.Thread(target=self._protected_run, daemon=True)
        self._exception = None
        self._joined = False

    def _protected_run(self):
        try:
            self._target(*self._args, **self._kwargs)
        except Exception as e:  # noqa: BLE001 - handed to the test on join
            self._exception = e

    def start(self):
        self._thread.start()

    def join(self, timeout=None):
        self._thread.join(timeout)
        self._joined = not self._thread.is_alive()
        if self._exception is not None:
            self._testcase.fail(f"Error in checkedThread: {self._exception!r}")

    def is_alive(self):
        return self._thread.is_alive()

    def check_termination(self):
        if self._thread.is_alive():
            self._testcase.fail("checkedThread was not joined (it is still running)")
        if not self._joined:
            self._testcase.fail("checkedThread was not joined")


class TestCase(unittest.TestCase):
    """``tf.test.TestCase``: each test starts with a fresh default graph (graph seed 87654321,
    Python's and NumPy's generators seeded alike), sessions that run in it
    (``session``, ``cached_session``, ``test_session``, ``evaluate``) and TF's assertions on
    arrays, tensors and nested structures of them.

    ``use_gpu=False`` (the default) puts ops with no device on the CPU and ``force_gpu`` on
    GPU 0, as TF's do; ops a test places itself stay where it put them."""

    def __init__(self, methodName="runTest"):  # noqa: N803 - unittest's name
        super().__init__(methodName)
        self._cached_test_session = None
        self._cached_session_args = None
        self._threads: list = []

    def setUp(self):
        import random  # noqa: PLC0415

        from .framework import random_seed  # noqa: PLC0415

        self._clear_cached_session()
        random.seed(DEFAULT_GRAPH_SEED)
        np.random.seed(DEFAULT_GRAPH_SEED)
        # (a test that failed inside a `with g.as_default()` may have left it open)
        ops._default_graph_stack.stack.clear()
        ops.reset_default_graph()
        random_seed.set_random_seed(DEFAULT_GRAPH_SEED)
        if self.id().endswith(".test_session"):
            self.skipTest("Not a test.")

    def tearDown(self):
        for thread in self._threads:
            thread.check_termination()
        self._clear_cached_session()

    def _clear_cached_session(self):
        if self._cached_test_session is not None:
            self._cached_test_session.close()
            self._cached_test_session = None

    def get_temp_dir(self) -> str:
        """A directory of this test's own (the same on every call within the test)."""
        import os  # noqa: PLC0415
        import tempfile  # noqa: PLC0415

        if getattr(self, "_temp_dir_of", None) != self.id():
            self._temp_dir_of = self.id()
            self._temp_dir = tempfile.mkdtemp(dir=get_temp_dir(), prefix=self.id().rsplit(".", 1)[-1][:40] + "-")
        return self._temp_dir if os.path.isdir(self._temp_dir) else os.makedirs(self._temp_dir) or self._temp_dir

    # -- sessions

    @staticmethod
    def _session_config_for(config, force_gpu):
        if config is not None:
            return config
        from .runtime.config import ConfigProto  # noqa: PLC0415

        return ConfigProto(allow_soft_placement=not force_gpu)

    @contextlib.contextmanager
    def _as_default(self, sess, use_gpu, force_gpu):
        with sess.graph.as_default(), sess.as_default():
            if force_gpu:
                with sess.graph.device(gpu_device_name() or "/device:GPU:0"):
                    yield sess
            elif use_gpu:
                yield sess
            else:
                with sess.graph.device("/device:CPU:0"):
                    yield sess

    @contextlib.contextmanager
    def session(self, graph=None, config=None, use_gpu=False, force_gpu=False):
        """A new session on ``graph`` (the default graph), its default while the block runs;
        closed at the end of the block."""
        with Session(graph=graph, config=self._session_config_for(config, force_gpu)) as sess:
            with self._as_default(sess, use_gpu, force_gpu):
                yield sess

    @contextlib.contextmanager
    def cached_session(self, graph=None, config=None, use_gpu=False, force_gpu=False):
        """The test's one session (made at the first call, closed when the test ends); a
        call with another graph, config or force_gpu is a ValueError."""
        with self._as_default(self._cached_session(graph, config, force_gpu, True), use_gpu, force_gpu) as sess:
            yield sess

    @contextlib.contextmanager
    def test_session(self, graph=None, config=None, use_gpu=False, force_gpu=False):
        """TF 1.x's older name: the cached session, or a new one for another graph."""
        if self.id().endswith(".test_session"):
            self.skipTest("Not a test: a method named test_session makes sessions for the others")
        if graph is None:
            with self._as_default(self._cached_session(None, config, force_gpu, False), use_gpu,
                                  force_gpu) as sess:
                yield sess
        else:
            with self.session(graph, config, use_gpu, force_gpu) as sess:
                yield sess

    def _cached_session(self, graph, config, force_gpu, strict):
        if self._cached_test_session is None:
            self._cached_test_session = Session(graph=graph, config=self._session_config_for(config, force_gpu))
            self._cached_session_args = (graph, config, force_gpu)
        elif strict:
            for what, was, now in zip(("graph", "config", "force_gpu value"), self._cached_session_args,
                                      (graph, config, force_gpu)):
                if was is not now:
                    raise ValueError(f"The {what} used to get the cached session is different than the one "
                                     f"that was used to create the session. Maybe create a new session "
                                     f"with self.session()")
        return self._cached_test_session

    def evaluate(self, tensors):
        """The values of a tensor or a nested structure of tensors, in the default session
        (or the cached one)."""
        sess = ops.get_default_session()
        if sess is None:
            with self.test_session() as cached:
                return cached.run(tensors)
        return sess.run(tensors)

    def checkedThread(self, target, args=None, kwargs=None):  # noqa: N802 - TF's name
        """A thread (``start``, ``join``) whose exception fails the test at ``join``; the test
        fails too if it ends before the thread is joined."""
        thread = _CheckedThread(self, target, args, kwargs)
        self._threads.append(thread)
        return thread

    # -- assertions on values

    def _evaluated(self, a):
        if _is_tensor(a):
            a = self.evaluate(a)
        if isinstance(a, np.ndarray):
            return a
        try:
            return np.array(a)
        except ValueError:
            return np.array(a, dtype=object)

    def _evaluated_pair(self, a, b):
        if _is_tensor(a) and _is_tensor(b):
            return self.evaluate((a, b))
        return a, b

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):  # noqa: N802 - TF's name
        """``a`` and ``b`` (arrays, tensors, or nested dicts, lists, tuples and namedtuples of
        them) are elementwise within ``atol + rtol * |b|``; NaNs match NaNs."""
        self._all_close(a, b, rtol, atol, [], msg or "")

    def _all_close(self, a, b, rtol, atol, path, msg):
        where = "".join(f"[{p}]" for p in path)
        a = a._asdict() if hasattr(a, "_asdict") else a
        b = b._asdict() if hasattr(b, "_asdict") else b
        if isinstance(a, Mapping) != isinstance(b, Mapping):
            raise ValueError(f"Can't compare dict to non-dict, a{where} vs b{where}. {msg}")
        if isinstance(a, Mapping):
            self.assertCountEqual(list(a), list(b), f"mismatched keys: a{where} has keys {list(a)}, but "
                                                    f"b{where} has keys {list(b)}. {msg}")
            for k in a:
                self._all_close(a[k], b[k], rtol, atol, path + [k], msg)
            return
        if isinstance(a, (list, tuple)):
            a, b = self._evaluated_pair(a, b)
            try:
                arrays = self._evaluated(a), self._evaluated(b)
                if arrays[0].dtype == object or arrays[1].dtype == object:
                    raise TypeError("nested")
            except (ValueError, TypeError):
                if len(a) != len(b):
                    raise ValueError(f"Mismatched length: a{where} has {len(a)} items, but b{where} has "
                                     f"{len(b)} items. {msg}") from None
                for i, (x, y) in enumerate(zip(a, b)):
                    self._all_close(x, y, rtol, atol, path + [i], msg)
                return
            return self._arrays_close(*arrays, rtol, atol, f"Mismatched value: a{where} is different from "
                                                           f"b{where}. {msg}")
        a, b = self._evaluated_pair(a, b)
        self._arrays_close(self._evaluated(a), self._evaluated(b), rtol, atol,
                           f"Mismatched value: a{where} is different from b{where}. {msg}" if path else msg)

    def _arrays_close(self, a, b, rtol, atol, msg):
        self.assertEqual(a.shape, b.shape, f"Shape mismatch: expected {a.shape}, got {b.shape}"
                                           + (f" with contents {b}." if b.size < 500 else ".") + f" {msg}")
        if a.dtype == np.bool_ or b.dtype == np.bool_:  # (truth values: equal, as closeness cannot subtract them)
            a, b = a.astype(np.int8), b.astype(np.int8)
        if not np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True):
            lines = [msg]
            bad = np.logical_or(np.abs(a - b) > atol + rtol * np.abs(b), np.isnan(a) != np.isnan(b))
            x, y = (a[np.where(bad)], b[np.where(bad)]) if a.ndim else (a, b)
            if a.ndim:
                lines.append(f"not close where = {np.where(bad)}")
            lines += [f"not close lhs = {x}", f"not close rhs = {y}", f"not close dif = {np.abs(x - y)}",
                      f"not close tol = {atol + rtol * np.abs(y)}", f"dtype = {a.dtype}, shape = {a.shape}"]
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg="\n".join(lines), equal_nan=True)

    def assertAllCloseAccordingToType(self, a, b, rtol=1e-6, atol=1e-6, float_rtol=1e-6,  # noqa: N802
                                      float_atol=1e-6, half_rtol=1e-3, half_atol=1e-3, bfloat16_rtol=1e-2,
                                      bfloat16_atol=1e-2, msg=None):
        """assertAllClose with tolerances at least float_* for float32/complex64 and half_* for
        float16."""
        a, b = self._evaluated_pair(a, b)
        a, b = self._evaluated(a), self._evaluated(b)
        kinds = {a.dtype, b.dtype}
        if kinds & {np.dtype(np.float32), np.dtype(np.complex64)}:
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        if np.dtype(np.float16) in kinds:
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertNotAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):  # noqa: N802
        try:
            self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)
        except AssertionError:
            return
        raise AssertionError(f"The two values are close at all elements. {msg or ''}")

    def assertAllEqual(self, a, b, msg=None):  # noqa: N802
        """Same shape and the same values (NaN equals NaN in floats)."""
        msg = msg or ""
        a, b = self._evaluated_pair(a, b)
        a, b = self._evaluated(a), self._evaluated(b)
        self.assertEqual(a.shape, b.shape, f"Shape mismatch: expected {a.shape}, got {b.shape}."
                                           + (f" Contents: {b!r}." if b.ndim <= 3 or b.size < 500 else "")
                                           + f" {msg}")
        if a.dtype.kind in "USO" and b.dtype.kind in "USO" and a.dtype.kind != b.dtype.kind:
            a, b = (np.array([v.encode() if isinstance(v, str) else v for v in x.flat], dtype=object).reshape(x.shape)
                    for x in (a, b))
        same = a == b
        if a.dtype.kind in "fc" and b.dtype.kind in "fc":
            same = np.logical_or(same, np.logical_and(np.isnan(a), np.isnan(b)))
        if not np.all(same):
            lines = [msg]
            diff = np.logical_not(same)
            x, y = (a[np.where(diff)], b[np.where(diff)]) if a.ndim else (a, b)
            if a.ndim:
                lines.append(f"not equal where = {np.where(diff)}")
            lines += [f"not equal lhs = {x!r}", f"not equal rhs = {y!r}"]
            np.testing.assert_array_equal(a, b, err_msg="\n".join(lines))

    def assertNotAllEqual(self, a, b, msg=None):  # noqa: N802
        try:
            self.assertAllEqual(a, b)
        except AssertionError:
            return
        raise AssertionError(f"The two values are equal at all elements. {msg or ''}")

    def assertAllGreater(self, a, comparison_target):  # noqa: N802
        a, comparison_target = self._evaluated_pair(a, comparison_target)
        self.assertGreater(np.min(self._evaluated(a)), comparison_target)

    def assertAllGreaterEqual(self, a, comparison_target):  # noqa: N802
        a, comparison_target = self._evaluated_pair(a, comparison_target)
        self.assertGreaterEqual(np.min(self._evaluated(a)), comparison_target)

    def assertAllLess(self, a, comparison_target):  # noqa: N802
        a, comparison_target = self._evaluated_pair(a, comparison_target)
        self.assertLess(np.max(self._evaluated(a)), comparison_target)

    def assertAllLessEqual(self, a, comparison_target):  # noqa: N802
        a, comparison_target = self._evaluated_pair(a, comparison_target)
        self.assertLessEqual(np.max(self._evaluated(a)), comparison_target)

    def assertAllInRange(self, target, lower_bound, upper_bound, open_lower_bound=False,  # noqa: N802
                         open_upper_bound=False):
        """Every element of ``target`` (numbers, no NaN) in the range."""
        target = self._evaluated(target)
        if target.dtype.kind not in "iuf":
            raise AssertionError(f"The value of {target} does not have an ordered numeric type, instead it "
                                 f"has type: {target.dtype}")
        nans = np.isnan(target) if target.dtype.kind == "f" else np.zeros(target.shape, bool)
        if nans.any():
            raise AssertionError(f"{int(nans.sum())} of the {target.size} element(s) are NaN: at "
                                 f"{np.argwhere(nans)[:10].tolist()}")
        low = target > lower_bound if open_lower_bound else target >= lower_bound
        high = target < upper_bound if open_upper_bound else target <= upper_bound
        outside = ~(low & high)
        if outside.any():
            where = np.argwhere(outside)[:10]
            raise AssertionError(f"{int(outside.sum())} of the {target.size} element(s) are outside the range "
                                 f"{'(' if open_lower_bound else '['}{lower_bound}, {upper_bound}"
                                 f"{')' if open_upper_bound else ']'}: "
                                 + ", ".join(f"{list(i)}: {target[tuple(i)]}" for i in where))

    def assertAllInSet(self, target, expected_set):  # noqa: N802
        target = self._evaluated(target)
        diff = np.setdiff1d(target.flatten(), list(expected_set))
        if diff.size:
            raise AssertionError(f"{diff.size} unique element(s) are not in the set {expected_set}: {diff}")

    def assertDTypeEqual(self, target, expected_dtype):  # noqa: N802
        self.assertEqual(self._evaluated(target).dtype, expected_dtype)

    def assertNear(self, f1, f2, err, msg=None):  # noqa: N802
        """|f1 - f2| <= err."""
        f1, f2 = np.squeeze(f1), np.squeeze(f2)
        if f1 != f2:
            diff = abs(float(f1) - float(f2))
            self.assertTrue(diff <= err, f"{float(f1):f} != {float(f2):f} +/- {err:f} (difference: {diff:g})"
                                         + (f" ({msg})" if msg is not None else ""))

    def assertArrayNear(self, farray1, farray2, err, msg=None):  # noqa: N802
        self.assertEqual(len(farray1), len(farray2), msg=msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(float(f1), float(f2), err, msg=msg)

    def assertNDArrayNear(self, ndarray1, ndarray2, err, msg=None):  # noqa: N802
        """The norm of the difference below ``err``."""
        self.assertTrue(np.linalg.norm(np.asarray(ndarray1) - np.asarray(ndarray2)) < err, msg=msg)

    def assertShapeEqual(self, input_a, input_b, msg=None):  # noqa: N802
        """Two arrays or tensors of the same (static) shape."""
        for x in (input_a, input_b):
            if not isinstance(x, (np.ndarray, np.generic, ops.Tensor)):
                raise TypeError(f"expected a NumPy ndarray, a NumPy scalar or a Tensor, got {type(x).__name__}")
        shapes = [list(x.shape.as_list()) if isinstance(x, ops.Tensor) else list(x.shape) for x in (input_a, input_b)]
        self.assertEqual(shapes[0], shapes[1], msg)

    def assertDeviceEqual(self, device1, device2, msg=None):  # noqa: N802
        from .framework.device_spec import canonical_name  # noqa: PLC0415

        device1, device2 = canonical_name(device1), canonical_name(device2)
        self.assertEqual(device1, device2, f"Devices {device1} and {device2} are not equal. {msg}")

    def assertProtoEquals(self, expected_message_maybe_ascii, validate_message, msg=None):  # noqa: N802
        """``validate_message`` equals the expected message (a message, or its text format)."""
        from google.protobuf import text_format  # noqa: PLC0415

        if isinstance(expected_message_maybe_ascii, (str, bytes)):
            expected = type(validate_message)()
            text_format.Merge(expected_message_maybe_ascii, expected)
        elif isinstance(expected_message_maybe_ascii, type(validate_message)):
            expected = expected_message_maybe_ascii
        else:
            raise AssertionError(f"Can't compare protos of type {type(expected_message_maybe_ascii).__name__} "
                                 f"and {type(validate_message).__name__}")
        if expected != validate_message:
            self.assertMultiLineEqual(text_format.MessageToString(expected),
                                      text_format.MessageToString(validate_message), msg)

    # -- assertions on errors

    @contextlib.contextmanager
    def assertRaisesWithPredicateMatch(self, exception_type, expected_err_re_or_predicate):  # noqa: N802
        """The block raises ``exception_type`` whose message matches the regular expression
        (searched, with the failing op's name) or satisfies the predicate."""
        import re  # noqa: PLC0415

        if callable(expected_err_re_or_predicate):
            predicate = expected_err_re_or_predicate
        else:
            def predicate(e):
                text = e.message if isinstance(e, errors.OpError) else str(e)
                op = getattr(e, "op", None) if isinstance(e, errors.OpError) else None
                if op is not None:
                    text += "\nCaused by: " + op.name
                return re.search(expected_err_re_or_predicate, text)
        try:
            yield
        except Exception as e:  # noqa: BLE001 - checked below
            if not isinstance(e, exception_type) or not predicate(e):
                raise AssertionError(f"Exception of type {type(e)}: {e}") from e
            return
        self.fail(f"{exception_type.__name__} not raised")

    def assertRaisesOpError(self, expected_err_re_or_predicate):  # noqa: N802
        return self.assertRaisesWithPredicateMatch(errors.OpError, expected_err_re_or_predicate)

    def assertRaisesIncompatibleShapesError(self, exception_type=errors.InvalidArgumentError):  # noqa: N802
        return self.assertRaisesWithPredicateMatch(
            exception_type, r"Incompatible shapes|Dimensions must be equal|required broadcastable shapes|"
                            r"could not be broadcast|not broadcastable")

    # -- absltest's assertions, which TF 1.x's test case inherited

    def assertItemsEqual(self, expected_seq, actual_seq, msg=None):  # noqa: N802
        self.assertCountEqual(expected_seq, actual_seq, msg)

    def assertSameElements(self, expected_seq, actual_seq, msg=None):  # noqa: N802
        self.assertEqual(set(expected_seq), set(actual_seq), msg)

    def assertLen(self, container, expected_len, msg=None):  # noqa: N802
        if len(container) != expected_len:
            self.fail(msg or f"{container!r} has length of {len(container)}, expected {expected_len}.")

    def assertEmpty(self, container, msg=None):  # noqa: N802
        if len(container):
            self.fail(msg or f"{container!r} has length of {len(container)}.")

    def assertNotEmpty(self, container, msg=None):  # noqa: N802
        if not len(container):
            self.fail(msg or f"{container!r} has length of 0.")

    def assertStartsWith(self, actual, expected_start, msg=None):  # noqa: N802
        if not actual.startswith(expected_start):
            self.fail(msg or f"{actual!r} does not start with {expected_start!r}")

    def assertNotStartsWith(self, actual, unexpected_start, msg=None):  # noqa: N802
        if actual.startswith(unexpected_start):
            self.fail(msg or f"{actual!r} does start with {unexpected_start!r}")

    def assertEndsWith(self, actual, expected_end, msg=None):  # noqa: N802
        if not actual.endswith(expected_end):
            self.fail(msg or f"{actual!r} does not end with {expected_end!r}")

    def assertBetween(self, value, minv, maxv, msg=None):  # noqa: N802
        if not minv <= value <= maxv:
            self.fail(msg or f"{value!r} is not in range [{minv!r}, {maxv!r}]")

    def assertContainsSubset(self, expected_subset, actual_set, msg=None):  # noqa: N802
        missing_items = set(expected_subset) - set(actual_set)
        if missing_items:
            self.fail(msg or f"Missing elements {missing_items} from {actual_set!r}")

    def assertNoCommonElements(self, expected_seq, actual_seq, msg=None):  # noqa: N802
        common = set(expected_seq) & set(actual_seq)
        if common:
            self.fail(msg or f"Common elements {common}")

    def assertSequenceStartsWith(self, prefix, whole, msg=None):  # noqa: N802
        if list(whole[:len(prefix)]) != list(prefix):
            self.fail(msg or f"{whole!r} does not start with {prefix!r}")


def _is_tensor(value) -> bool:
    """A graph element a session fetches: a Tensor, an Operation, a Variable, a SparseTensor
    or IndexedSlices (each knows its graph)."""
    return isinstance(value, (ops.Tensor, ops.Operation)) or isinstance(getattr(value, "graph", None), ops.Graph)


def _as_list(value) -> tuple[list, bool]:
    return (list(value), True) if isinstance(value, (list, tuple)) and not (
        value and isinstance(value[0], int)) else ([value], False)


def compute_gradient(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3, init_targets=None,
                     extra_feed_dict=None):
    """TF 1.x's gradient checker: (theoretical, numerical) Jacobians of ``y`` with respect
    to ``x``, each [x size, y size], in the default session.

    The theoretical one is the graph's own gradient (one backward pass per element of
    ``y``); the numerical one is central differences of ``y`` with step ``delta``. ``x``
    is fed ``x_init_value`` (else uniform random values in [0, 1)). With a list of ``x``
    (and of shapes and initial values), a list of pairs, one per ``x``.
    """
    from .ops.array_ops import placeholder  # noqa: PLC0415 - the op blocks, only when called
    from .ops.gradients_impl import gradients  # noqa: PLC0415

    sess = ops.get_default_session()
    if sess is None:
        raise ValueError("tf.test.compute_gradient runs in the default session: call it inside `with sess:` "
                         "or `with sess.as_default():`")
    xs, many = _as_list(x)
    shapes = list(x_shape) if many else [x_shape]
    inits = list(x_init_value) if many and x_init_value is not None else [x_init_value] * len(xs)
    if init_targets is not None:
        sess.run(init_targets)
    y_shape = tuple(int(d) for d in y_shape)
    y_size = int(np.prod(y_shape, dtype=np.int64))
    values = []
    for t, shape, init in zip(xs, shapes, inits):
        dtype = t.dtype.base_dtype.as_numpy_dtype
        values.append(np.asarray(init, dtype=dtype).reshape(shape) if init is not None
                      else np.random.random_sample(tuple(shape)).astype(dtype))
    feed = dict(extra_feed_dict or {})
    feed.update(zip(xs, values))
    dy = placeholder(y.dtype.base_dtype, y_shape)
    grads = gradients(y, xs, grad_ys=dy)
    out = []
    for k, (t, value) in enumerate(zip(xs, values)):
        size = value.size
        theoretical = np.zeros((size, y_size), dtype=np.float64)
        if grads[k] is not None:
            unit = np.zeros(y_shape, dtype=y.dtype.base_dtype.as_numpy_dtype)
            for j in range(y_size):
                unit.flat[j] = 1
                got = sess.run(grads[k], {**feed, dy: unit})
                if hasattr(got, "indices"):  # (an IndexedSlices value)
                    got = _dense_slices(got, value.shape)
                theoretical[:, j] = np.asarray(got).reshape(-1)
                unit.flat[j] = 0
        numerical = np.zeros((size, y_size), dtype=np.float64)
        moved = value.copy()
        for i in range(size):
            moved.flat[i] = value.flat[i] + delta
            up = np.asarray(sess.run(y, {**feed, t: moved}), dtype=np.float64)
            moved.flat[i] = value.flat[i] - delta
            down = np.asarray(sess.run(y, {**feed, t: moved}), dtype=np.float64)
            moved.flat[i] = value.flat[i]
            numerical[i, :] = ((up - down) / (2 * delta)).reshape(-1)
        out.append((theoretical, numerical))
    return out if many else out[0]


def _dense_slices(slices, shape) -> np.ndarray:
    """An IndexedSlices value as the dense array it stands for."""
    dense = np.zeros(shape, dtype=np.asarray(slices.values).dtype)
    np.add.at(dense, np.asarray(slices.indices), np.asarray(slices.values))
    return dense


def compute_gradient_error(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3, init_targets=None,
                           extra_feed_dict=None) -> float:
    """The largest absolute difference between the theoretical and numerical Jacobians of
    :func:`compute_gradient` (over every ``x`` of a list)."""
    got = compute_gradient(x, x_shape, y, y_shape, x_init_value, delta, init_targets, extra_feed_dict)
    pairs = got if isinstance(got, list) else [got]
    return max((float(np.abs(a - b).max()) if a.size else 0.0) for a, b in pairs)


_missing = missing("tf.test")


def __getattr__(name: str):
    if name == "mock":  # (unittest.mock, imported on first use)
        import unittest.mock  # noqa: PLC0415

        return unittest.mock
    return _missing(name)
