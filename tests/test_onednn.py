"""oneDNN's CPU kernels (runtime/onednn) against the NumPy kernels of their op blocks, their
gradients by the adjoint identity and by central differences, and the choice between them.

The kernel tests run where the ``onednn`` extra is installed (CI installs it); the
fallback tests run everywhere.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import distflow as tf
from distflow.framework.registry import get_registration, kernel_for
from distflow.runtime import onednn

onednn.register()
needs_onednn = pytest.mark.skipif(not onednn.available(), reason="oneDNN (the onednn extra) is not installed")


@pytest.fixture(autouse=True)
def onednn_input_gradients(monkeypatch, request):
    """Every input gradient here is oneDNN's (the kernels time oneDNN against NumPy per shape
    and may hand a shape to NumPy: what these tests check is oneDNN's values), but in the
    test of that choice."""
    if onednn.available() and "goes_to_numpy" not in request.node.name:
        from distflow.runtime.onednn import kernels

        monkeypatch.setattr(kernels, "_INPUT_GRADIENT_BY", {})
        monkeypatch.setattr(kernels, "_faster_input_gradient", lambda onednn_kernel, numpy_kernel: "onednn")

# (input shape, filter shape, stride, padding): odd sizes, one channel, strides that do not
# divide the input, VALID windows that stop short of its end, a filter wider than tall
CONVOLUTIONS = [
    ((4, 9, 9, 3), (3, 3, 3, 5), 1, "SAME"),
    ((4, 9, 9, 3), (3, 3, 3, 5), 2, "VALID"),
    ((2, 28, 28, 1), (5, 5, 1, 32), 1, "SAME"),
    ((3, 10, 11, 4), (4, 2, 4, 6), 3, "SAME"),
    ((3, 10, 11, 4), (4, 2, 4, 6), 2, "VALID"),
    ((2, 7, 7, 16), (1, 1, 16, 8), 1, "VALID"),
    ((1, 5, 6, 2), (5, 6, 2, 3), 1, "VALID"),
]
# (input shape, window, stride, padding)
POOLINGS = [
    ((2, 8, 8, 3), 2, 2, "SAME"),
    ((2, 9, 9, 3), 3, 2, "SAME"),
    ((2, 9, 7, 3), 3, 1, "VALID"),
    ((2, 7, 7, 4), 3, 2, "SAME"),
    ((1, 5, 5, 2), 2, 3, "VALID"),
]


def _oracle(op_type):
    return get_registration(op_type).kernel


def _kernel(op_type):
    return kernel_for(op_type, "CPU").kernel


def _same(got, want, what, rtol=2e-5):
    assert got.shape == want.shape, f"{what}: shape {got.shape}, NumPy's {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, NumPy's {want.dtype}"
    scale = max(float(np.abs(want).max()), 1e-30)
    err = float(np.abs(got.astype(np.float64) - want).max()) / scale
    assert err <= rtol, f"{what}: largest difference {err:.2e} of the largest value, NumPy's kernel the reference"


def _data(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@needs_onednn
@pytest.mark.parametrize("case", CONVOLUTIONS, ids=lambda c: f"{c[0]}x{c[1]}/{c[2]}{c[3]}")
def test_convolution_kernels_give_the_numpy_kernels_values(case):
    x_shape, f_shape, s, padding = case
    strides = [1, s, s, 1]
    x, f = _data(x_shape, 0), _data(f_shape, 1)
    for op_type in ("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter"):
        assert kernel_for(op_type, "CPU") is not get_registration(op_type), op_type
    want = _oracle("Conv2D")(np, x, f, strides=strides, padding=padding)
    _same(_kernel("Conv2D")(np, x, f, strides=strides, padding=padding), want, "Conv2D")
    dy = _data(want.shape, 2)
    sizes = np.array(x_shape, np.int32)
    _same(_kernel("Conv2DBackpropInput")(np, sizes, f, dy, strides=strides, padding=padding),
          _oracle("Conv2DBackpropInput")(np, sizes, f, dy, strides=strides, padding=padding), "Conv2DBackpropInput")
    sizes = np.array(f_shape, np.int32)
    _same(_kernel("Conv2DBackpropFilter")(np, x, sizes, dy, strides=strides, padding=padding),
          _oracle("Conv2DBackpropFilter")(np, x, sizes, dy, strides=strides, padding=padding),
          "Conv2DBackpropFilter")


@needs_onednn
@pytest.mark.parametrize("case", CONVOLUTIONS[:5], ids=lambda c: f"{c[0]}x{c[1]}/{c[2]}{c[3]}")
def test_convolution_gradients_are_the_forward_kernels_adjoints(case):
    """<conv(x, f), dy> = <x, input_grad(dy)> = <f, filter_grad(x, dy)>, summed in float64:
    the two gradient kernels are the exact gradients of the forward one."""
    x_shape, f_shape, s, padding = case
    strides = [1, s, s, 1]
    x, f = _data(x_shape, 3), _data(f_shape, 4)
    y = _kernel("Conv2D")(np, x, f, strides=strides, padding=padding)
    dy = _data(y.shape, 5)
    dx = _kernel("Conv2DBackpropInput")(np, np.array(x_shape), f, dy, strides=strides, padding=padding)
    df = _kernel("Conv2DBackpropFilter")(np, x, np.array(f_shape), dy, strides=strides, padding=padding)
    forward = np.vdot(y.astype(np.float64), dy)
    assert np.vdot(x.astype(np.float64), dx) == pytest.approx(forward, rel=1e-4)
    assert np.vdot(f.astype(np.float64), df) == pytest.approx(forward, rel=1e-4)


@needs_onednn
@pytest.mark.parametrize("case", POOLINGS, ids=lambda c: f"{c[0]}k{c[1]}s{c[2]}{c[3]}")
def test_pooling_kernels_give_the_numpy_kernels_values(case):
    x_shape, k, s, padding = case
    ksize, strides = [1, k, k, 1], [1, s, s, 1]
    x = _data(x_shape, 6)
    attrs = {"ksize": ksize, "strides": strides, "padding": padding}
    for op_type in ("MaxPool", "AvgPool"):
        want = _oracle(op_type)(np, x, **attrs)
        _same(_kernel(op_type)(np, x, **attrs), want, op_type)
    y = _oracle("MaxPool")(np, x, **attrs)
    g = _data(y.shape, 7)
    _same(_kernel("MaxPoolGrad")(np, x, y, g, **attrs), _oracle("MaxPoolGrad")(np, x, y, g, **attrs), "MaxPoolGrad")
    sizes = np.array(x_shape, np.int32)
    _same(_kernel("AvgPoolGrad")(np, sizes, g, **attrs), _oracle("AvgPoolGrad")(np, sizes, g, **attrs), "AvgPoolGrad")


# (input shape, filter shape, dilations, padding): rates above 1 (stride 1, as TensorFlow's)
DILATED = [
    ((2, 9, 9, 3), (3, 3, 3, 5), (2, 2), "SAME"),
    ((2, 11, 10, 3), (3, 2, 3, 4), (3, 2), "VALID"),
    ((1, 12, 12, 2), (3, 3, 2, 2), (4, 4), "SAME"),
]


@needs_onednn
@pytest.mark.parametrize("case", DILATED, ids=lambda c: f"{c[0]}x{c[1]}d{c[2]}{c[3]}")
def test_dilated_convolutions_give_the_numpy_kernels_values_and_are_each_others_adjoints(case):
    """oneDNN's native dilation (the taps ``rate`` apart, no zero taps multiplied) against
    the NumPy kernels, which take windows ``rate`` apart, and the adjoint identity."""
    x_shape, f_shape, (dh, dw), padding = case
    attrs = {"strides": [1, 1, 1, 1], "padding": padding, "dilations": [1, dh, dw, 1]}
    x, f = _data(x_shape, 25), _data(f_shape, 26)
    y = _kernel("Conv2D")(np, x, f, **attrs)
    _same(y, _oracle("Conv2D")(np, x, f, **attrs), "Conv2D")
    dy = _data(y.shape, 27)
    x_sizes, f_sizes = np.array(x_shape, np.int32), np.array(f_shape, np.int32)
    dx = _kernel("Conv2DBackpropInput")(np, x_sizes, f, dy, **attrs)
    _same(dx, _oracle("Conv2DBackpropInput")(np, x_sizes, f, dy, **attrs), "Conv2DBackpropInput")
    df = _kernel("Conv2DBackpropFilter")(np, x, f_sizes, dy, **attrs)
    _same(df, _oracle("Conv2DBackpropFilter")(np, x, f_sizes, dy, **attrs), "Conv2DBackpropFilter")
    inner = np.vdot(y.astype(np.float64), dy)
    assert np.vdot(x.astype(np.float64), dx) == pytest.approx(inner, rel=1e-4)
    assert np.vdot(f.astype(np.float64), df) == pytest.approx(inner, rel=1e-4)


@needs_onednn
def test_a_dilated_conv_layer_is_one_fused_call_and_trains_as_on_numpy(numpy_kernels):
    """conv2d(dilations=...) + bias + ReLU: one _FusedConv2D on oneDNN (the dilation in its
    attrs), the same values as the NumPy kernels after three Adam steps."""
    def logits_of(x):
        h = tf.layers.conv2d(x, 6, 3, padding="same", dilation_rate=2, activation=tf.nn.relu)
        h = tf.layers.conv2d(h, 4, 3, padding="valid", dilation_rate=(3, 2), activation=tf.nn.relu)
        conv = [op for op in tf.get_default_graph().get_operations() if op.type == "Conv2D"][0]
        assert conv.get_attr("dilations") == [1, 2, 2, 1] and conv.inputs[1].op.type != "Slice"
        return tf.layers.dense(tf.layers.flatten(h), 3)

    choice_np, choice = _trained_on_numpy_then_onednn(logits_of, [4, 12, 12, 3], seed=2)
    assert "conv_fusion x2" in choice and "_FusedConv2D x2" in choice, choice
    assert "conv_patches x2" in choice_np, choice_np  # (NumPy: the windows shared, rate apart)


# (input shape, filter shape [kh, kw, channels, multiplier], stride, padding): a multiplier
# of 1 and of more, strides that do not divide the input, VALID, a filter wider than tall
DEPTHWISE = [
    ((2, 9, 9, 3), (3, 3, 3, 1), 1, "SAME"),
    ((2, 9, 9, 3), (3, 3, 3, 2), 2, "VALID"),
    ((3, 10, 11, 4), (4, 2, 4, 3), 3, "SAME"),
    ((1, 5, 6, 2), (5, 6, 2, 1), 1, "VALID"),
    ((4, 7, 7, 16), (1, 1, 16, 2), 1, "SAME"),
    ((2, 11, 10, 3), (3, 3, 3, 2), (1, 2, 3, 1), "SAME"),  # (dilations, stride 1)
]
_DEPTHWISE_OPS = ("DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter")


@needs_onednn
@pytest.mark.parametrize("case", DEPTHWISE, ids=lambda c: f"{c[0]}x{c[1]}/{c[2]}{c[3]}")
def test_depthwise_kernels_give_the_numpy_kernels_values_and_are_each_others_adjoints(case):
    """oneDNN's grouped convolution (a group per input channel) against the NumPy kernels,
    and <conv(x, f), dy> = <x, input_grad(dy)> = <f, filter_grad(x, dy)> in float64."""
    x_shape, f_shape, s, padding = case
    attrs = {"strides": [1, s, s, 1], "padding": padding} if isinstance(s, int) else \
        {"strides": [1, 1, 1, 1], "padding": padding, "dilations": list(s)}
    for op_type in _DEPTHWISE_OPS:
        assert kernel_for(op_type, "CPU") is not get_registration(op_type), op_type
    forward, input_grad, filter_grad = _DEPTHWISE_OPS
    x, f = _data(x_shape, 20), _data(f_shape, 21)
    y = _kernel(forward)(np, x, f, **attrs)
    _same(y, _oracle(forward)(np, x, f, **attrs), forward)
    dy = _data(y.shape, 22)
    x_sizes, f_sizes = np.array(x_shape, np.int32), np.array(f_shape, np.int32)
    dx = _kernel(input_grad)(np, x_sizes, f, dy, **attrs)
    _same(dx, _oracle(input_grad)(np, x_sizes, f, dy, **attrs), input_grad)
    df = _kernel(filter_grad)(np, x, f_sizes, dy, **attrs)
    _same(df, _oracle(filter_grad)(np, x, f_sizes, dy, **attrs), filter_grad)
    inner = np.vdot(y.astype(np.float64), dy)
    assert np.vdot(x.astype(np.float64), dx) == pytest.approx(inner, rel=1e-4)
    assert np.vdot(f.astype(np.float64), df) == pytest.approx(inner, rel=1e-4)


@needs_onednn
def test_a_separable_conv_net_trains_to_the_same_values_on_onednn_and_numpy(numpy_kernels):
    """Depthwise then pointwise convolutions (tf.nn.separable_conv2d), three Adam steps."""
    def logits_of(x):
        depth = tf.get_variable("depth", [3, 3, 3, 2])
        point = tf.get_variable("point", [1, 1, 6, 5])
        h = tf.nn.relu(tf.nn.separable_conv2d(x, depth, point, [1, 2, 2, 1], "SAME"))
        h = tf.nn.depthwise_conv2d(h, tf.get_variable("depth2", [3, 3, 5, 1]), [1, 1, 1, 1], "VALID")
        return tf.layers.dense(tf.layers.flatten(h), 3)

    choice_np, choice = _trained_on_numpy_then_onednn(logits_of, [4, 10, 10, 3], seed=1)
    assert "DepthwiseConv2dNative x2" in choice and "DepthwiseConv2dNativeBackpropFilter x2" in choice, choice
    assert "oneDNN" not in choice_np, choice_np


# (input shape, depth_radius, bias, alpha, beta): the CIFAR-10 tutorial's, others, and a
# window wider than the channels
LRNS = [((2, 5, 5, 16), 4, 1.0, 0.001 / 9, 0.75), ((3, 4, 3, 7), 2, 2.0, 0.3, 0.5), ((1, 2, 2, 3), 5, 1.0, 1.0, 0.75)]


@needs_onednn
@pytest.mark.parametrize("case", LRNS, ids=lambda c: f"{c[0]}r{c[1]}")
def test_lrn_kernels_give_the_numpy_kernels_values(case):
    shape, radius, bias, alpha, beta = case
    attrs = {"depth_radius": radius, "bias": bias, "alpha": alpha, "beta": beta}
    x, g = _data(shape, 18), _data(shape, 19)
    y = _oracle("LRN")(np, x, **attrs)
    _same(_kernel("LRN")(np, x, **attrs), y, "LRN")
    _same(_kernel("LRNGrad")(np, g, x, y, **attrs), _oracle("LRNGrad")(np, g, x, y, **attrs), "LRNGrad")


@needs_onednn
@pytest.mark.parametrize("stride", [1, 2])
def test_max_pool_gradient_goes_to_the_first_of_tied_maxima(stride):
    """As TensorFlow: where a window's maximum is held twice (zeros after a ReLU), the
    first position in row-major order takes the window's gradient."""
    x = np.zeros((1, 4, 4, 2), np.float32)
    x[0, 3, 3, 1] = -1.0
    attrs = {"ksize": [1, 2, 2, 1], "strides": [1, stride, stride, 1], "padding": "VALID"}
    y = _oracle("MaxPool")(np, x, **attrs)
    g = np.arange(1, y.size + 1, dtype=np.float32).reshape(y.shape)
    got = _kernel("MaxPoolGrad")(np, x, y, g, **attrs)
    np.testing.assert_array_equal(got, _oracle("MaxPoolGrad")(np, x, y, g, **attrs))


@needs_onednn
def test_what_onednn_does_not_take_runs_the_numpy_kernel():
    """float64, float16 and empty tensors go to the NumPy kernel, exactly."""
    for dtype in (np.float64, np.float16):
        x, f = _data((2, 6, 6, 3), 8).astype(dtype), _data((3, 3, 3, 4), 9).astype(dtype)
        attrs = {"strides": [1, 1, 1, 1], "padding": "SAME"}
        np.testing.assert_array_equal(_kernel("Conv2D")(np, x, f, **attrs), _oracle("Conv2D")(np, x, f, **attrs))
        pool = {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "SAME"}
        np.testing.assert_array_equal(_kernel("MaxPool")(np, x, **pool), _oracle("MaxPool")(np, x, **pool))
    empty = np.zeros((0, 6, 6, 3), np.float32)
    f = _data((3, 3, 3, 4), 9)
    assert _kernel("Conv2D")(np, empty, f, strides=[1, 1, 1, 1], padding="SAME").shape == (0, 6, 6, 4)


def _three_adam_steps(logits_of, x_shape, seed):
    """``logits_of(x)`` (3 classes) on float32 ``x`` of ``x_shape``, trained by three Adam
    steps in a graph of its own: the loss and the variables after them, and the step's
    compile line."""
    with tf.Graph().as_default():
        tf.set_random_seed(seed)
        x = tf.placeholder(tf.float32, x_shape)
        y = tf.placeholder(tf.int64, x_shape[:1])
        loss = tf.losses.sparse_softmax_cross_entropy(y, logits_of(x))
        train = tf.train.AdamOptimizer(0.01).minimize(loss)
        rng = np.random.default_rng(seed)
        feed = {x: rng.standard_normal(x_shape).astype(np.float32), y: rng.integers(0, 3, x_shape[0])}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(train, feed)
            choice = [s.plan.choice for s in sess._steps.values() if "ApplyAdam" in str(s.plan.sequential.infos)]
            return sess.run(loss, feed), sess.run(tf.trainable_variables()), choice[0]


def _trained_on_numpy_then_onednn(logits_of, x_shape, seed=0) -> tuple[str, str]:
    """The compile lines of the same training on the NumPy kernels (the ``numpy_kernels``
    fixture's) and then on oneDNN's, whose loss and variables must be the NumPy run's."""
    from distflow.runtime.onednn import library

    loss_np, vars_np, choice_np = _three_adam_steps(logits_of, x_shape, seed)
    library._loaded = None  # (looked for again: the fixture's monkeypatch puts False back afterwards)
    loss, variables, choice = _three_adam_steps(logits_of, x_shape, seed)
    assert loss == pytest.approx(loss_np, rel=1e-4)
    for a, b in zip(variables, vars_np):
        np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-5)
    return choice_np, choice


def _conv_net(x):
    """Two conv + pool layers and a dense one."""
    h = tf.layers.conv2d(x, 8, 3, padding="same", activation=tf.nn.relu)
    h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    h = tf.layers.conv2d(h, 6, 3, strides=2, padding="valid", activation=tf.nn.relu)
    h = tf.nn.avg_pool(h, [1, 2, 2, 1], [1, 1, 1, 1], "SAME")
    return tf.layers.dense(tf.layers.flatten(h), 3)


@needs_onednn
def test_a_conv_net_trains_to_the_same_values_on_onednn_and_numpy(numpy_kernels):
    choice_np, choice = _trained_on_numpy_then_onednn(_conv_net, [8, 12, 12, 2])
    assert "oneDNN kernels: " in choice and "Conv2D x2" in choice, choice
    assert "_MaxPoolWithWorkspace x1" in choice and "_MaxPoolGradWithWorkspace x1" in choice, choice
    assert "oneDNN" not in choice_np and "conv_patches" in choice_np, choice_np


@needs_onednn
def test_conv_net_gradients_on_onednn_match_central_differences():
    """The graph's symbolic gradient, through the oneDNN kernels (float32), against
    float32 central differences (tf.test.compute_gradient_error)."""
    with tf.Graph().as_default():
        xv, fv = _data((2, 7, 7, 3), 10), _data((3, 3, 3, 4), 11) * 0.3
        x, f = tf.constant(xv), tf.constant(fv)
        h = tf.nn.conv2d(x, f, [1, 2, 2, 1], "SAME")
        h = tf.nn.max_pool(tf.nn.relu(h), [1, 2, 2, 1], [1, 1, 1, 1], "VALID")
        out = tf.nn.avg_pool(h, [1, 2, 2, 1], [1, 1, 1, 1], "SAME")
        with tf.Session():
            # (at these values no difference step crosses a kink of the ReLU or a maximum)
            for t, value in ((x, xv), (f, fv)):
                err = tf.test.compute_gradient_error(t, value.shape, out, out.shape.as_list(), x_init_value=value,
                                                     delta=1e-3)
                assert err < 2e-3, f"gradient error {err} for {t.name}"


def _in_a_process(env: dict) -> dict:
    code = (
        "import json, logging, numpy as np\n"
        "logging.basicConfig(level=logging.INFO, format='%(message)s')\n"
        "import distflow as tf\n"
        "x = tf.placeholder(tf.float32, [2, 6, 6, 3])\n"
        "y = tf.nn.conv2d(x, tf.ones([3, 3, 3, 2]), [1, 1, 1, 1], 'SAME')\n"
        "with tf.Session() as sess:\n"
        "    v = sess.run(y, {x: np.ones((2, 6, 6, 3), np.float32)})\n"
        "from distflow.framework.registry import kernel_for, get_registration\n"
        "print(json.dumps({'numpy': kernel_for('Conv2D', 'CPU') is get_registration('Conv2D'),"
        " 'center': float(v[0, 2, 2, 0])}))\n")
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, **env}, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["log"] = out.stderr
    return result


def test_turned_off_onednn_leaves_the_numpy_kernels_and_says_so():
    for name in ("DISTFLOW_ONEDNN", "TF_ENABLE_ONEDNN_OPTS"):
        got = _in_a_process({name: "0"})
        assert got["numpy"] and got["center"] == 27.0
        assert f"oneDNN turned off ({name}=0)" in got["log"], got["log"]


def test_where_onednn_is_not_installed_numpy_kernels_serve_and_it_is_logged(monkeypatch, caplog):
    """A machine without the extra: no library where it is looked for."""
    from distflow.runtime.onednn import library

    monkeypatch.setattr(library, "_candidates", lambda: ["/nonexistent/lib/libdnnl.so.3"])
    monkeypatch.setattr(library, "_loaded", None)
    monkeypatch.delenv("DISTFLOW_ONEDNN", raising=False)
    monkeypatch.delenv("TF_ENABLE_ONEDNN_OPTS", raising=False)
    with caplog.at_level("INFO", logger="distflow"):
        assert not onednn.available() and not onednn.available()
    assert [r.getMessage() for r in caplog.records].count(
        "oneDNN not found: NumPy kernels serve CPU convolutions, pooling and Adam "
        "(pip install 'distflow[onednn]' for compiled ones)") == 1
    for op_type in ("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "MaxPool", "MaxPoolGrad", "AvgPool",
                    "AvgPoolGrad", "LRN", "LRNGrad", "_FusedConv2D", "ApplyAdam", *_DEPTHWISE_OPS,
                    "_MaxPoolWithWorkspace", "_MaxPoolGradWithWorkspace"):
        assert kernel_for(op_type, "CPU") is get_registration(op_type), op_type
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2, 6, 6, 3])
        y = tf.nn.conv2d(x, tf.ones([3, 3, 3, 2]), [1, 1, 1, 1], "SAME")
        with tf.Session() as sess:
            assert sess.run(y, {x: np.ones((2, 6, 6, 3), np.float32)})[0, 2, 2, 0] == 27.0


def test_a_library_that_is_not_onednn_3_is_refused_with_its_reason(monkeypatch, caplog, tmp_path):
    """A file that is no oneDNN (here an empty one) is skipped, and the log says why."""
    from distflow.runtime.onednn import library

    bogus = tmp_path / "libdnnl.so.3"
    bogus.write_bytes(b"")
    monkeypatch.setattr(library, "_candidates", lambda: [str(bogus)])
    monkeypatch.setattr(library, "_loaded", None)
    monkeypatch.delenv("DISTFLOW_ONEDNN", raising=False)
    monkeypatch.delenv("TF_ENABLE_ONEDNN_OPTS", raising=False)
    with caplog.at_level("INFO", logger="distflow"):
        assert not onednn.available()
    assert any("oneDNN not found (" in r.getMessage() and str(bogus) in r.getMessage() for r in caplog.records)


def _layer(kind: str, dtype=tf.float32, fetch_conv=False):
    """A convolution layer (its bias added by ``kind``: "bias_add", "add", "add_first" with the
    bias as the first operand, or "no_relu"), fetched, with the step's rewrites."""
    with tf.Graph().as_default():
        x = tf.placeholder(dtype, [2, 6, 6, 3])
        f = tf.constant(_data((3, 3, 3, 4), 12), dtype=dtype)
        b = tf.constant(_data((4,), 13), dtype=dtype)
        c = tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME")
        s = {"bias_add": lambda: tf.nn.bias_add(c, b), "add_first": lambda: b + c}.get(kind, lambda: c + b)()
        out = s if kind == "no_relu" else tf.nn.relu(s)
        fetches = [out, c] if fetch_conv else [out]
        with tf.Session() as sess:
            got = sess.run(fetches, {x: _data((2, 6, 6, 3), 14).astype(dtype.as_numpy_dtype)})
            step = [s for s in sess._steps.values()][-1]
            return got, step.plan.choice


@needs_onednn
@pytest.mark.parametrize("kind", ["bias_add", "add", "add_first", "no_relu"])
def test_a_convolution_layer_becomes_one_onednn_call_with_the_same_values(kind, monkeypatch):
    from distflow.runtime.rewrites import conv_fusion

    got, choice = _layer(kind)
    assert "conv_fusion x1" in choice and "_FusedConv2D x1" in choice, choice
    monkeypatch.setattr(conv_fusion, "applies", lambda: False)
    want, plain = _layer(kind)
    assert "conv_fusion" not in plain
    _same(got[0], want[0], f"convolution layer ({kind})")


@needs_onednn
def test_a_convolution_whose_output_is_fetched_or_float64_is_not_fused():
    _, choice = _layer("add", fetch_conv=True)
    assert "conv_fusion" not in choice, choice
    _, choice = _layer("add", dtype=tf.float64)
    assert "conv_fusion" not in choice, choice


def test_the_fused_layers_numpy_kernel_is_conv_bias_relu():
    x, f, b = _data((2, 5, 5, 3), 15), _data((3, 3, 3, 2), 16), _data((2,), 17)
    attrs = {"strides": [1, 2, 2, 1], "padding": "SAME"}
    conv = _oracle("Conv2D")(np, x, f, **attrs)
    np.testing.assert_allclose(_oracle("_FusedConv2D")(np, x, f, b, relu=True, **attrs),
                               np.maximum(conv + b, 0), rtol=1e-6)
    np.testing.assert_allclose(_oracle("_FusedConv2D")(np, x, f, b, **attrs), conv + b, rtol=1e-6)


@needs_onednn
def test_each_team_size_has_primitives_of_its_own(monkeypatch):
    """oneDNN plans a primitive's loops for the team of the thread that makes it: one made
    while BLAS's threads were capped at 1 must not serve the steps that have 2 again."""
    from distflow.ops import blas
    from distflow.runtime.onednn import library

    rng = np.random.default_rng(3)
    x, f = rng.standard_normal((2, 9, 9, 3), np.float32), rng.standard_normal((3, 3, 3, 4), np.float32)
    want = _oracle("Conv2D")(np, x, f, strides=[1, 1, 1, 1], padding="SAME")
    made = []
    for threads in (1, 2, 1):
        monkeypatch.setattr(blas, "intra_op_threads", lambda t=threads: t)
        got = _kernel("Conv2D")(np, x, f, strides=[1, 1, 1, 1], padding="SAME")
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
        made.append({k for k in library._cache if k[:3] == ("conv", x.shape, f.shape)})
    assert len(made[0]) == 1 and len(made[1]) == 2 and made[2] == made[1]
    assert {k[-1] for k in made[1]} == {1, 2}


def _adam_state(n, seed, dtype=np.float32):
    """A variable of ``n`` elements with its Adam slots (storages, as the kernels get them)
    and a gradient with some zeros (where m and v stay as they are scaled)."""
    from distflow.ops.state_ops import VariableStorage

    rng = np.random.default_rng(seed)
    storages = []
    for name, value in (("w", rng.standard_normal(n)), ("m", rng.standard_normal(n) * 0.1),
                        ("v", np.abs(rng.standard_normal(n)) * 0.01)):
        s = VariableStorage(name, tf.as_dtype(dtype), tf.TensorShape([n]))
        s.value = value.astype(dtype)
        storages.append(s)
    grad = rng.standard_normal(n).astype(dtype)
    grad[::7] = 0
    return storages, grad


def _adam_steps(kernel, n, seed, steps=3, dtype=np.float32, **attrs):
    (w, m, v), grad = _adam_state(n, seed, dtype)
    for t in range(1, steps + 1):  # (lr and the beta powers change every step, as they do in training)
        kernel(np, w, m, v, 0.9 ** t, 0.999 ** t, 1e-3 * t, 0.9, 0.999, 1e-7, grad * t, **attrs)
    return w.value, m.value, v.value


@needs_onednn
@pytest.mark.parametrize("n", [1 << 17, 200_003, 3136 * 64])
def test_adam_update_gives_the_numpy_kernels_values(n):
    """Three steps of oneDNN's Adam against the NumPy kernel's, for sizes that are and are
    not a multiple of a vector (the post-ops read the arrays they write, v and w)."""
    from distflow.runtime.onednn import updates

    assert n >= updates.MIN_ELEMENTS
    got = _adam_steps(_kernel("ApplyAdam"), n, seed=n)
    want = _adam_steps(_oracle("ApplyAdam"), n, seed=n)
    for a, b, what in zip(got, want, ("w", "m", "v")):
        _same(a, b, what, rtol=1e-6)
    assert not np.array_equal(got[0], _adam_state(n, n)[0][0].value)  # (it moved)


@needs_onednn
def test_adam_update_that_onednn_does_not_take_runs_the_numpy_kernel():
    """float64, Nesterov, beta2 = 0 and small variables take the NumPy kernel, exactly."""
    kernel, oracle = _kernel("ApplyAdam"), _oracle("ApplyAdam")
    cases = [(1 << 17, np.float64, {}), (1 << 17, np.float32, {"use_nesterov": True}), (1000, np.float32, {})]
    for n, dtype, attrs in cases:
        want = _adam_steps(oracle, n, 1, dtype=dtype, **attrs)
        for a, b in zip(_adam_steps(kernel, n, 1, dtype=dtype, **attrs), want):
            np.testing.assert_array_equal(a, b)
    (w, m, v), grad = _adam_state(1 << 17, 2)
    (w2, m2, v2), _ = _adam_state(1 << 17, 2)
    kernel(np, w, m, v, 0.9, 0.0, 1e-3, 0.9, 0.0, 1e-7, grad)
    oracle(np, w2, m2, v2, 0.9, 0.0, 1e-3, 0.9, 0.0, 1e-7, grad)
    np.testing.assert_array_equal(w.value, w2.value)
    with pytest.raises(ValueError, match="ApplyAdam: var 'w' has shape"):
        kernel(np, w, m, v, 0.9, 0.999, 1e-3, 0.9, 0.999, 1e-7, grad[:-1])


def _adam_training(seed=0):
    """A dense layer of 300x500 (150,000 weights, oneDNN's Adam where installed) trained
    three steps with AdamOptimizer; its weights, and the step's compile line."""
    with tf.Graph().as_default():
        tf.set_random_seed(seed)
        x = tf.placeholder(tf.float32, [16, 300])
        y = tf.placeholder(tf.int64, [16])
        logits = tf.layers.dense(tf.layers.dense(x, 500, activation=tf.nn.relu), 4)
        train = tf.train.AdamOptimizer(0.01).minimize(tf.losses.sparse_softmax_cross_entropy(y, logits))
        rng = np.random.default_rng(seed)
        feed = {x: rng.standard_normal((16, 300)).astype(np.float32), y: rng.integers(0, 4, 16)}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(train, feed)
            choice = [s.plan.choice for s in sess._steps.values() if "ApplyAdam" in str(s.plan.sequential.infos)]
            return sess.run(tf.trainable_variables()), choice


@needs_onednn
def test_adam_training_on_onednn_gives_numpys_weights(numpy_kernels, monkeypatch):
    from distflow.ops import blas
    from distflow.runtime.onednn import library

    # (both runs on BLAS's full thread count: a cap from the load watch in one of them makes
    # its products round otherwise, and Adam scales a gradient that is rounding noise to a
    # whole step)
    monkeypatch.setattr(blas, "others_runnable", lambda: 0)
    monkeypatch.setattr(blas, "_load_cap", None)
    if blas.get_threads() is not None and blas._base is not None:
        blas.set_threads(blas._base)

    want, choice_np = _adam_training()
    library._loaded = None  # (looked for again: the fixture's monkeypatch puts False back afterwards)
    got, choice = _adam_training()
    assert "ApplyAdam x4" in choice[0] and "oneDNN" not in choice_np[0], (choice, choice_np)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_openmp_threads_spin_only_where_a_thread_that_slept_wakes_slowly():
    from distflow.platform.cpus import wake_latency_us
    from distflow.runtime.onednn import library

    assert library.spin_count(wake_us=5.0) == "0"
    assert library.spin_count(wake_us=library.SLOW_WAKE_US) == str(library.SPIN_WHERE_WAKES_ARE_SLOW)
    assert 0.0 < wake_latency_us(samples=3) < 1e6


@needs_onednn
@pytest.mark.parametrize("exported", [None, "1234"])
def test_the_library_loads_with_a_spin_count_unless_the_user_chose_one(exported):
    env = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}
    if exported:
        env["GOMP_SPINCOUNT"] = exported
    program = ("import os\nfrom distflow.runtime import onednn\nassert onednn.available()\n"
               "print(os.environ['GOMP_SPINCOUNT'])\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    from distflow.runtime.onednn import library
    assert done.stdout.strip() in ((exported,) if exported else ("0", str(library.SPIN_WHERE_WAKES_ARE_SLOW)))


@needs_onednn
def test_an_input_gradient_numpy_computes_in_under_half_onednns_time_goes_to_numpy(monkeypatch):
    from distflow.runtime.onednn import kernels

    clock = iter([0.0, 1.0, 1.4])  # (a fake clock: oneDNN 1.0 s, NumPy 0.4 s)
    monkeypatch.setattr(kernels.time, "perf_counter", lambda: next(clock))
    calls = []
    assert kernels._faster_input_gradient(lambda: calls.append("onednn"), lambda: calls.append("numpy")) == "numpy"
    assert calls == ["onednn", "numpy"]
    clock = iter([0.0, 1.0, 1.6])  # (NumPy faster, but not by half: oneDNN stays)
    assert kernels._faster_input_gradient(lambda: None, lambda: None) == "onednn"
    # a shape handed to NumPy gives NumPy's values
    x_shape, f_shape = (2, 9, 16, 1), (3, 16, 1, 8)
    f, dy = _data(f_shape, 1), _data((2, 7, 1, 8), 2)
    key = ("Conv2DBackpropInput", x_shape, f_shape, (1, 1, 1, 1), "VALID", (1, 1, 1, 1))
    monkeypatch.setattr(kernels, "_INPUT_GRADIENT_BY", {key: "numpy"})
    got = _kernel("Conv2DBackpropInput")(np, np.array(x_shape), f, dy, strides=[1, 1, 1, 1], padding="VALID")
    want = _oracle("Conv2DBackpropInput")(np, np.array(x_shape), f, dy, strides=[1, 1, 1, 1], padding="VALID")
    np.testing.assert_array_equal(got, want)
