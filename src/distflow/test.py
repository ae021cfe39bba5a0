"""``tf.test``: what tests of TF 1.x programs use: a TestCase with sessions and array assertions."""

from __future__ import annotations

import contextlib
import unittest

import numpy as np

from ._namespace import missing
from .framework import ops
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


class TestCase(unittest.TestCase):
    """``tf.test.TestCase``: each test has its own graph; ``self.session()`` / ``evaluate`` run in it."""

    def setUp(self):
        self._graph_ctx = ops.Graph().as_default()
        self._graph_ctx.__enter__()
        self._cached = None

    def tearDown(self):
        if self._cached is not None:
            self._cached.close()
        self._graph_ctx.__exit__(None, None, None)

    @contextlib.contextmanager
    def session(self, graph=None, config=None, use_gpu=False, force_gpu=False):
        with Session(graph=graph, config=config) as sess:
            yield sess

    @contextlib.contextmanager
    def cached_session(self, graph=None, config=None, use_gpu=False, force_gpu=False):
        if self._cached is None:
            self._cached = Session(graph=graph, config=config)
        with self._cached.as_default():
            yield self._cached

    def evaluate(self, tensors):
        sess = ops.get_default_session()
        if sess is None:
            with self.cached_session() as cached:
                return cached.run(tensors)
        return sess.run(tensors)

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):  # noqa: N802 - TF's name
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol, err_msg=msg or "")

    def assertAllEqual(self, a, b, msg=None):  # noqa: N802
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=msg or "")

    def assertShapeEqual(self, np_array, tf_tensor, msg=None):  # noqa: N802
        self.assertEqual(list(np.shape(np_array)), tf_tensor.shape.as_list(), msg)

    def assertAllInRange(self, target, lower_bound, upper_bound, open_lower_bound=False,  # noqa: N802
                         open_upper_bound=False):
        target = np.asarray(target)
        low = target > lower_bound if open_lower_bound else target >= lower_bound
        high = target < upper_bound if open_upper_bound else target <= upper_bound
        self.assertTrue(np.all(low & high), f"{target} not in range [{lower_bound}, {upper_bound}]")


__getattr__ = missing("tf.test")
