import os
import sys

import numpy as np
import pytest

import distflow as tf


def pytest_configure(config):
    """Many tests start Python processes that import distflow from this checkout. Where
    PYTHONDONTWRITEBYTECODE is set (as in many CI images), each would compile the package
    again: 0.3 s a process, a minute of the suite. Compiled once here, they read it."""
    if sys.dont_write_bytecode:
        import compileall

        compileall.compile_dir(os.path.dirname(tf.__file__), quiet=2)
    _share_ports()


def _share_ports():
    """Where the suite runs in several worker processes (pytest-xdist), each takes its own
    block of the ports that tests' clusters pick from, so that a port one worker chose for a
    server that has not started yet cannot be chosen by another (each worker's processes
    inherit its block through DISTFLOW_PORT_RANGE)."""
    from distflow.tools import launcher

    worker, count = os.environ.get("PYTEST_XDIST_WORKER"), os.environ.get("PYTEST_XDIST_WORKER_COUNT")
    if not worker or not count or os.environ.get(launcher.PORT_RANGE_ENV):
        return
    ports = launcher.port_range()
    if ports is None:
        return
    index, count = int(worker.lstrip("gw")), int(count)
    block = len(ports) // count
    os.environ[launcher.PORT_RANGE_ENV] = f"{ports[index * block]}-{ports[(index + 1) * block - 1]}"


@pytest.fixture(autouse=True, scope="session")
def temporary_folders_under_pytests_own(tmp_path_factory):
    """An Estimator given no model_dir makes a temporary folder, as TF's does, and so does
    tf.test's get_temp_dir: the suite's go under pytest's own temporary root, which pytest
    prunes, instead of piling up in the system's."""
    import tempfile

    base, real = str(tmp_path_factory.getbasetemp()), tempfile.mkdtemp

    def mkdtemp(suffix=None, prefix=None, dir=None):  # noqa: A002 - tempfile's name
        if dir is None and prefix in ("estimator-", "distflow-test-"):
            dir = base  # noqa: A001
        return real(suffix, prefix, dir)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tempfile, "mkdtemp", mkdtemp)
        yield


@pytest.fixture(autouse=True)
def fresh_graph():
    """Every test starts with an empty default graph."""
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


@pytest.fixture
def fresh_keras():
    """Keras's session, layer names and learning phase forgotten, and a graph seed, so that
    initial weights and dropout masks are the same on every run."""
    tf.keras.backend.clear_session()
    tf.set_random_seed(0)
    yield
    tf.keras.backend.clear_session()


def evaluate(fetches, feed_dict=None, config=None):
    """Runs ``fetches`` in a new session on the default graph (initializing variables)."""
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed_dict)


def assert_oracle(got, want, rtol=1e-6, atol=1e-6):
    """Shape, then dtype, then values; the message shows both sides."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"shape: got {got.shape}, want {want.shape}\ngot={got}\nwant={want}"
    assert got.dtype == want.dtype, f"dtype: got {got.dtype}, want {want.dtype}"
    if got.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=f"got={got}\nwant={want}")
    else:
        np.testing.assert_array_equal(got, want, err_msg=f"got={got}\nwant={want}")


# Op types whose registered gradient refuses to differentiate (a LookupError saying what to
# use instead): no check can reach them, and each is listed with its reason.
GRADIENT_REFUSED = {
    "PreventGradient": "TensorFlow's op whose gradient is an error by definition (its message)",
    "TensorListConcat": "TensorArray.concat's gradient is refused: use stack",
    "TensorListSplit": "TensorArray.split's gradient is refused: use unstack",
    # (not a derivative: the function is a staircase, so central differences cannot check it)
    **{t: "a straight-through estimator (1 inside the range, 0 outside) by definition; "
          "tests/test_more_names.py checks it against that definition"
       for t in ("FakeQuantWithMinMaxArgs", "FakeQuantWithMinMaxVars", "FakeQuantWithMinMaxVarsPerChannel")},
    "QuantizeAndDequantizeV2": "straight through (the incoming gradient, unchanged) by definition; "
                               "tests/test_quantization.py checks it",
}


# The op types that the gradient checks of the suite's worker processes reached (pytest-xdist
# runs the suite in several; each reports its share when it ends).
_CHECKED_BY_WORKERS = set()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    _CHECKED_BY_WORKERS.update(getattr(node, "workeroutput", {}).get("checked_op_types", ()))


def pytest_sessionfinish(session, exitstatus):
    """After a run of the whole suite, every op type with a registered gradient must have been
    reached by a float64 central-difference check (gradcheck.check_gradients): README says
    every differentiable op is checked, and this keeps it true. Where the suite runs in
    several processes, each worker hands its share to the controller, which checks the union."""
    import gradcheck
    from distflow.framework import registry

    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # (a worker process: the controller checks)
        workeroutput["checked_op_types"] = sorted(gradcheck.CHECKED_OP_TYPES)
        return
    whole = not session.config.args or [os.path.abspath(a) for a in session.config.args] == [
        os.path.dirname(os.path.abspath(__file__))]
    if exitstatus != 0 or not whole or session.config.option.keyword or session.config.option.markexpr:
        return  # (a part of the suite: it need not reach every op)
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    differentiable = {t for t, fn in registry._GRADIENTS.items() if fn is not registry._NO_GRADIENT
                      and registry._GRADIENT_SOURCES[t].startswith(src)  # (not the ones tests register,
                      and not t.startswith("CustomGradient-")}  # nor those each tf.custom_gradient makes)
    unchecked = sorted(differentiable - gradcheck.CHECKED_OP_TYPES - _CHECKED_BY_WORKERS - set(GRADIENT_REFUSED))
    if unchecked:
        session.exitstatus = 1
        print(f"\nthese op types have a registered gradient that no gradient check reaches: {unchecked}; "
              "add a case to tests/test_gradient_coverage.py")


@pytest.fixture
def numpy_kernels(monkeypatch):
    """Steps compiled in the test run the op blocks' NumPy kernels on CPU, as if oneDNN
    were not installed."""
    from distflow.runtime.onednn import library

    monkeypatch.setattr(library, "_loaded", False)
