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


__getattr__ = missing("tf.test")
