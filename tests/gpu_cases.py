"""One small graph per GPU kernel, built the same way on each device, for the GPU tests.

``CASES`` maps a name to ``build(tf, c) -> (outputs, xs)``: ``c(shape, ...)`` makes a
constant of random float32 values (the same ones for every device, from one seed per case),
``outputs`` are the tensors compared, and ``xs`` the float inputs whose gradients (of a
weighted sum of the outputs) are compared too. Built under ``tf.device('/cpu:0')`` the
graph runs the NumPy kernels, the oracle; under ``tf.device('/gpu:0')`` the GPU's.
Variables a case makes (an LSTM's) start from the same values on each device; run
``tf.global_variables_initializer()`` first.
"""

from __future__ import annotations

import numpy as np


class Constants:
    """Random inputs for one case: the same values on each device, from the case's seed."""

    def __init__(self, tf, seed: int):
        self.tf, self.rng = tf, np.random.default_rng(seed)

    def __call__(self, shape, low=-1.0, high=1.0, dtype=np.float32):
        return self.tf.constant(self.rng.uniform(low, high, shape).astype(dtype))

    def ints(self, shape, high, dtype=np.int64):
        return self.tf.constant(self.rng.integers(0, high, shape).astype(dtype))


def _unary(name, fn, low=-1.0, high=1.0):
    def build(tf, c):
        x = c([4, 5], low, high)
        return [fn(tf, x)], [x]
    return name, build


def _binary(name, fn, low=-1.0, high=1.0, grad=True):
    def build(tf, c):
        x, y = c([4, 5], low, high), c([5], low, high)  # broadcasting
        return [fn(tf, x, y)], ([x, y] if grad else [])
    return name, build


def _conv(tf, c):
    x, f, f2, f5 = c([2, 9, 8, 3]), c([3, 3, 3, 4]), c([2, 2, 3, 2]), c([5, 5, 3, 2])
    outs = [tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME"), tf.nn.conv2d(x, f, [1, 2, 2, 1], "VALID"),
            tf.nn.conv2d(x, f, [1, 1, 1, 1], "VALID"), tf.nn.conv2d(x, f2, [1, 1, 1, 1], "SAME"),
            tf.nn.conv2d(x, f5, [1, 1, 1, 1], "SAME"), tf.nn.conv2d(x, f2, [1, 2, 2, 1], "SAME"),
            tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME", dilations=[1, 2, 2, 1]),
            tf.nn.conv2d(x, f2, [1, 1, 1, 1], "VALID", dilations=[1, 3, 2, 1])]
    return outs, [x, f, f2, f5]


def _pools(tf, c):
    x, odd = c([2, 8, 8, 3]), c([2, 7, 9, 2])
    return [tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"),
            tf.nn.avg_pool(x, [1, 3, 3, 1], [1, 2, 2, 1], "VALID"),
            tf.nn.max_pool(odd, [1, 3, 3, 1], [1, 1, 1, 1], "SAME"),  # (overlapping windows)
            tf.nn.max_pool(odd, [1, 3, 2, 1], [1, 2, 2, 1], "VALID"),
            tf.nn.max_pool(odd, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")], [x, odd]  # (padded windows)


def _depthwise(tf, c):
    x, f = c([2, 7, 7, 3]), c([3, 3, 3, 2])
    return [tf.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "SAME"),
            tf.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "VALID", rate=[2, 1])], [x, f]


def _xent(tf, c):
    logits, labels = c([6, 10]), c.ints([6], 10)
    soft = tf.nn.softmax(c([6, 10]))
    return [tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits),
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=c.ints([2, 3], 10, np.int32),
                                                           logits=c([2, 3, 10])),
            tf.nn.softmax_cross_entropy_with_logits_v2(labels=soft, logits=logits),
            tf.nn.softmax(logits), tf.nn.log_softmax(logits)], [logits]


def _linear(tf, c):
    a, b, bias = c([6, 7]), c([7, 5]), c([5])
    ba, bb = c([3, 4, 6]), c([3, 6, 2])
    return [tf.nn.bias_add(tf.matmul(a, b), bias), tf.matmul(b, a, transpose_a=True, transpose_b=True),
            tf.matmul(ba, bb), tf.nn.l2_loss(a)], [a, b, bias, ba, bb]


def _reductions(tf, c):
    x = c([3, 4, 5])
    return [tf.reduce_sum(x, 1), tf.reduce_mean(x, [0, 2], keepdims=True), tf.reduce_max(x, 2),
            tf.reduce_min(x), tf.reduce_prod(x, 0), tf.reduce_all(x > -0.9, 1), tf.reduce_any(x > 0.9, 0),
            tf.argmax(x, 1), tf.argmin(x, 2), tf.cumsum(x, axis=1)], [x]


def _shapes(tf, c):
    x, y = c([4, 6]), c([4, 6])
    unknown = tf.placeholder_with_default(x, None)  # (of a known shape, tf.shape and its kin are constants)
    parts = tf.split(x, 2, axis=1)
    return [tf.reshape(x, [3, 8]), tf.reshape(x, tf.shape(y)[::-1]), tf.fill(tf.shape(x)[:1], 2.5),
            tf.tile(x, [2, 1]), tf.expand_dims(x, 1), tf.squeeze(tf.expand_dims(x, 0)),
            tf.broadcast_to(x[:1], [3, 4, 6]), tf.transpose(x), tf.concat([x, y], 1),
            tf.slice(x, [1, 2], [2, -1]), x[1:, ::2], tf.pad(x, [[1, 0], [0, 2]]), parts[0] - parts[1],
            tf.split(x, [1, 5], axis=1)[1], tf.stack([x, y], 2), tf.unstack(x)[2], tf.reverse(x, [1]),
            tf.size(unknown), tf.rank(unknown), tf.cast(tf.shape(unknown), tf.float32), tf.range(3, 11, 2),
            tf.one_hot(c.ints([5], 4), 4), tf.gather(x, c.ints([3], 4)), tf.cast(x > 0, tf.int32),
            tf.zeros_like(x) + tf.ones_like(y),
            tf.ensure_shape(x, [4, 6]), tf.transpose(x, tf.invert_permutation(tf.range(1, -1, -1))), tf.identity_n([x, y])[1], tf.placeholder_with_default(y, [4, 6])], [x, y]


def _space_depth(tf, c):
    x = c([2, 4, 6, 8])
    return [tf.depth_to_space(x, 2), tf.space_to_depth(x, 2), tf.depth_to_space(x, 2, data_format="NCHW"),
            tf.space_to_depth(x, 2, data_format="NCHW")], [x]


def _elementwise(tf, c):
    x, y = c([4, 5]), c([4, 5])
    z = tf.where(x > y, x, y)
    return [tf.add_n([x, y, z]), tf.math.floordiv(x * 4, y + 2), tf.math.floormod(x * 4, y + 2),
            tf.div_no_nan(x, y * 0), tf.squared_difference(x, y), tf.atan2(x, y), tf.math.is_nan(x / 0),
            tf.math.is_inf(x / 0), tf.math.is_finite(x), tf.logical_not(x > y),
            tf.logical_or(x > 0, y > 0), tf.logical_and(x > 0, y > 0), tf.equal(x, x),
            tf.not_equal(x, y), tf.less_equal(x, y), tf.greater_equal(x, y), tf.check_numerics(x, "x"),
            tf.stop_gradient(x), tf.identity(y)], [x, y]


def _loops(tf, c):
    x = c([4, 5, 3])
    out, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(6), x, dtype=tf.float32)
    v = c([5, 2])
    ta = tf.TensorArray(tf.float32, size=5).unstack(v)

    def body(i, acc, written):
        item = ta.read(i)
        return i + 1, acc + tf.cond(i < 2, lambda: item * 2.0, lambda: item), written.write(i, item * item)

    _, total, written = tf.while_loop(lambda i, *_: i < 5, body,
                                      (tf.constant(0), tf.zeros([2]), tf.TensorArray(tf.float32, size=5)))
    scattered = tf.TensorArray(tf.float32, size=5).scatter([4, 0, 1, 2, 3], v)
    return [out, state.h, total, written.stack(), scattered.gather([0, 4]), tf.cast(written.size(), tf.float32)], [x, v]


def _split_concat(tf, c):  # (their gradients are refused: no xs)
    return [tf.TensorArray(tf.float32, size=2).split(c([5, 2]), [2, 3]).concat()], []


CASES = dict([
    _unary("abs", lambda tf, x: tf.abs(x)), _unary("neg", lambda tf, x: -x),
    _unary("sign", lambda tf, x: tf.sign(x)), _unary("square", lambda tf, x: tf.square(x)),
    _unary("sqrt", lambda tf, x: tf.sqrt(x), 0.1, 2.0), _unary("rsqrt", lambda tf, x: tf.rsqrt(x), 0.1, 2.0),
    _unary("reciprocal", lambda tf, x: tf.reciprocal(x), 0.5, 2.0), _unary("exp", lambda tf, x: tf.exp(x)),
    _unary("log", lambda tf, x: tf.log(x), 0.1, 2.0),
    _unary("log1p", lambda tf, x: tf.log1p(x), 0.1, 2.0), _unary("sin", lambda tf, x: tf.sin(x)),
    _unary("cos", lambda tf, x: tf.cos(x)), _unary("tanh", lambda tf, x: tf.tanh(x)), _unary("sigmoid", lambda tf, x: tf.sigmoid(x)),
    _unary("relu", lambda tf, x: tf.nn.relu(x)), _unary("relu6", lambda tf, x: tf.nn.relu6(x * 8)),
    _unary("elu", lambda tf, x: tf.nn.elu(x)), _unary("softplus", lambda tf, x: tf.nn.softplus(x)),
    _unary("leaky_relu", lambda tf, x: tf.nn.leaky_relu(x)), _unary("floor", lambda tf, x: tf.floor(x * 3)),
    _unary("ceil", lambda tf, x: tf.ceil(x * 3)), _unary("round", lambda tf, x: tf.round(x * 3)),
    _unary("rint", lambda tf, x: tf.rint(x * 3)), _binary("add", lambda tf, x, y: x + y), _binary("sub", lambda tf, x, y: x - y),
    _binary("mul", lambda tf, x, y: x * y), _binary("div", lambda tf, x, y: x / y, 0.5, 2.0),
    _binary("pow", lambda tf, x, y: tf.pow(x, y), 0.5, 2.0), _binary("maximum", lambda tf, x, y: tf.maximum(x, y)),
    _binary("minimum", lambda tf, x, y: tf.minimum(x, y)), _binary("less", lambda tf, x, y: tf.less(x, y), grad=False),
    _binary("greater", lambda tf, x, y: tf.greater(x, y), grad=False),
    ("elementwise", _elementwise), ("linear", _linear), ("xent", _xent), ("conv", _conv), ("pools", _pools),
    ("depthwise", _depthwise), ("reductions", _reductions), ("shapes", _shapes), ("loops", _loops),
    ("split_concat", _split_concat), ("space_depth", _space_depth),
])

# the op types a training step's bookkeeping runs, checked by the training tests rather than here
STATEFUL = frozenset({
    "VariableV2", "Assign", "AssignAdd", "AssignSub", "IsVariableInitialized", "NoOp", "Const", "Placeholder",
    "ApplyGradientDescent", "ApplyMomentum", "ApplyAdam", "ApplyAdagrad", "ApplyRMSProp", "ApplyCenteredRMSProp",
    "ScatterUpdate", "ScatterAdd", "ScatterSub",
    "RandomUniform", "RandomStandardNormal", "TruncatedNormal", "RandomUniformInt",
})

# the all-reduces' op types, checked by mirrored_strategy_steps and nccl_all_sum below (a case
# runs on one device)
COLLECTIVES = frozenset({"CollectiveReduce", "_CollectiveReduceStart", "_CollectiveReduceDone", "NcclAllReduce"})



def build(tf, name: str, device: str, grads: bool = True):
    """The case's outputs (and, with ``grads``, its gradients) built on ``device``."""
    c = Constants(tf, seed=sorted(CASES).index(name))
    tf.set_random_seed(0)  # (the same initial values for a case's variables on each device)
    with tf.device(device):
        outputs, xs = CASES[name](tf, c)
        fetches = list(outputs)
        if grads and xs:
            floats = [o for o in outputs if o.dtype.is_floating]
            weights = [c(o.shape.as_list()) if o.shape.is_fully_defined() else 1.0 for o in floats]
            total = tf.add_n([tf.reduce_sum(o * w) for o, w in zip(floats, weights)])
            fetches += [g for g in tf.gradients(total, xs) if g is not None]
    return fetches


def no_folding(tf):
    """A session config under which every op runs: none is folded into a constant on the host."""
    return tf.ConfigProto(graph_options=tf.GraphOptions(
        optimizer_options=tf.OptimizerOptions(opt_level=tf.OptimizerOptions.L0)))


def classifier_training(tf, device: str, make_optimizer, features: int, hidden: int, classes: int, seed: int):
    """A new default graph training the classifier below on ``device``: (x, y, loss, train op)."""
    tf.reset_default_graph()
    tf.set_random_seed(seed)
    with tf.device(device):
        x, y = tf.placeholder(tf.float32, [None, features]), tf.placeholder(tf.int64, [None])
        loss = classifier_loss(tf, x, y, hidden, classes)
        return x, y, loss, make_optimizer().minimize(loss)


def classifier_loss(tf, x, y, hidden: int, classes: int):
    """The training tests' model: a dense ReLU layer, a dense layer, mean sparse cross-entropy."""
    logits = tf.layers.dense(tf.layers.dense(x, hidden, tf.nn.relu), classes)
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))


def batch(rows: int, features: int, classes: int, seed: int = 0):
    """(inputs, labels) of random float32 features and int64 labels."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal((rows, features)).astype(np.float32), rng.integers(0, classes, rows)


def tf1_loops_on_gpu(tf):
    """TensorFlow's frozen graph of TF 1.x loops (tests/data/tensorflow/loops.pb: while_loop,
    nested loops, a cond in a loop, map_fn, scan and dynamic_rnn) imported under
    ``tf.device('/gpu:0')`` and run with soft placement; checked against TensorFlow's outputs.
    Returns the graph, to see where its ops ran."""
    import os
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tensorflow")
    data = np.load(os.path.join(folder, "loops.npz"))
    feeds = {f"{k[5:]}:0": data[k] for k in data.files if k.startswith("feed_")}
    with open(os.path.join(folder, "loops.pb"), "rb") as f:
        graph_def = tf.GraphDef.FromString(f.read())
    with tf.device("/gpu:0"):
        tf.import_graph_def(graph_def, name="")
    outputs = {"nested": "nested_out", "switching": "switching_out", "power": "power_out", "mapped": "mapped_out",
               "scanned": "scanned_out", "rnn_h": "rnn_h"}
    with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as sess:
        got = sess.run({k: f"{v}:0" for k, v in outputs.items()}, dict(feeds, **{"p:0": True}))
    for key, value in got.items():
        np.testing.assert_allclose(value, data[f"out_{key}"], rtol=1e-5, atol=1e-7, err_msg=key)
    return tf.get_default_graph()


def keras_multi_gpu_step(tf):
    """Keras's ``multi_gpu_model`` over two virtual GPUs of GPU 0, the template built under
    ``/cpu:0``: one SGD step of the parallel model on a batch of 64 must move the template's
    weights as one step of the same model on the CPU, on the whole batch. Returns the
    parallel model's graph, to see where its replicas ran."""
    K = tf.keras.backend
    layers = tf.keras.layers
    x, y = batch(64, 8, 3, seed=4)

    def model():
        with tf.device("/cpu:0"):
            return tf.keras.Sequential([layers.Dense(16, activation="relu", input_shape=(8,)),
                                        layers.Dense(3, activation="softmax")])

    split = tf.GPUOptions(experimental=tf.GPUOptions.Experimental(
        virtual_devices=[tf.GPUOptions.Experimental.VirtualDevices(memory_limit_mb=[1024, 1024])]))
    K.clear_session()
    K.set_session(tf.Session(config=tf.ConfigProto(gpu_options=split, allow_soft_placement=True)))
    template = model()
    start = template.get_weights()
    parallel = tf.keras.utils.multi_gpu_model(template, gpus=2)
    parallel.compile(tf.keras.optimizers.SGD(0.5), "sparse_categorical_crossentropy")
    parallel.train_on_batch(x, y)
    got = template.get_weights()
    graph = K.get_session().graph

    K.clear_session()
    K.set_session(tf.Session(config=tf.ConfigProto(device_count={"GPU": 0})))
    reference = model()
    reference.set_weights(start)
    reference.compile(tf.keras.optimizers.SGD(0.5), "sparse_categorical_crossentropy")
    reference.train_on_batch(x, y)
    for g, w, s in zip(got, reference.get_weights(), start):
        assert not np.array_equal(g, s)
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    K.clear_session()
    return graph


def _two_gpus(tf, virtual: bool):
    """GPU options for two GPUs: two virtual GPUs of GPU 0, or GPUs 0 and 1."""
    if virtual:
        return tf.GPUOptions(experimental=tf.GPUOptions.Experimental(
            virtual_devices=[tf.GPUOptions.Experimental.VirtualDevices(memory_limit_mb=[1024, 1024])]))
    return tf.GPUOptions(visible_device_list="0,1")


def nccl_all_sum(tf, virtual: bool = True):
    """``tf.contrib.nccl.all_sum`` of a tower's product on each of two GPUs, and its gradient:
    the values NumPy gives. Returns the graph, to see where the all-reduce ran."""
    rng = np.random.default_rng(7)
    xs, w = [rng.standard_normal((4, 3)).astype(np.float32) for _ in range(2)], rng.standard_normal((3, 2))
    with tf.Graph().as_default() as graph:
        weight = tf.constant(w.astype(np.float32))
        towers = []
        for i, x in enumerate(xs):
            with tf.device(f"/gpu:{i}"):
                towers.append(tf.matmul(tf.constant(x), weight))
        summed = tf.contrib.nccl.all_sum(towers)
        loss = tf.reduce_sum(summed[0] * summed[0]) + tf.reduce_sum(summed[1])
        grad = tf.gradients(loss, weight)[0]
        with tf.Session(config=tf.ConfigProto(gpu_options=_two_gpus(tf, virtual), allow_soft_placement=True)) as sess:
            got, got_grad = sess.run([summed, grad], options=tf.RunOptions(timeout_in_ms=120_000))
    total = (xs[0] + xs[1]).astype(np.float64) @ w
    for g in got:
        np.testing.assert_allclose(g, total, rtol=1e-5, atol=1e-5)
    # d/dw of sum(S^2) + sum(S), S = (x0 + x1) w, each tower's output read by one term
    np.testing.assert_allclose(got_grad, (xs[0] + xs[1]).T.astype(np.float64) @ (2 * total + 1), rtol=1e-5,
                               atol=1e-4)
    return graph


def mirrored_strategy_steps(tf, virtual: bool = True, steps: int = 3):
    """``tf.distribute.MirroredStrategy`` over two GPUs (two virtual GPUs of GPU 0, or GPUs 0
    and 1): each replica trains on its half of a batch of 64, the gradients all-reduced
    between them; the losses and weights must be those of the same steps on the CPU, on the
    whole batch. Returns the strategy's graph, to see where the replicas and the all-reduce
    ran."""
    x, y = batch(64, 8, 3, seed=5)
    init = np.random.default_rng(6)
    kernels = [init.normal(0, 0.3, (8, 16)).astype(np.float32), init.normal(0, 0.3, (16, 3)).astype(np.float32)]

    def loss_of(features, labels):
        h = tf.layers.dense(features, 16, tf.nn.relu, kernel_initializer=tf.constant_initializer(kernels[0]))
        logits = tf.layers.dense(h, 3, kernel_initializer=tf.constant_initializer(kernels[1]))
        return tf.losses.sparse_softmax_cross_entropy(labels, logits)

    with tf.Graph().as_default() as graph:
        strategy = tf.distribute.MirroredStrategy(["/gpu:0", "/gpu:1"])
        with strategy.scope():
            iterator = strategy.make_dataset_iterator(tf.data.Dataset.from_tensors((x, y)).repeat())

            def replica_step(inputs):
                loss = loss_of(*inputs)
                with tf.control_dependencies([tf.train.GradientDescentOptimizer(0.5).minimize(loss)]):
                    return tf.identity(loss)

            loss = strategy.reduce(tf.distribute.ReduceOp.MEAN,
                                   strategy.experimental_run_v2(replica_step, args=(iterator.get_next(),)))
        gpus = _two_gpus(tf, virtual)
        bounded = tf.RunOptions(timeout_in_ms=120_000)  # (replicas that never meet fail the step)
        with tf.Session(config=tf.ConfigProto(gpu_options=gpus, allow_soft_placement=True)) as sess:
            sess.run(iterator.initialize())
            sess.run(tf.global_variables_initializer())
            got = [float(sess.run(loss, options=bounded)) for _ in range(steps)]
            weights = sess.run([v for v in tf.trainable_variables()])
    with tf.Graph().as_default(), tf.device("/cpu:0"):
        loss = loss_of(tf.constant(x), tf.constant(y))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        with tf.Session(config=tf.ConfigProto(device_count={"GPU": 0})) as sess:
            sess.run(tf.global_variables_initializer())
            want = [float(sess.run([train, loss])[1]) for _ in range(steps)]
            want_weights = sess.run(tf.trainable_variables())
    np.testing.assert_allclose(got, want, rtol=1e-5)
    for g, w in zip(weights, want_weights):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    return graph
