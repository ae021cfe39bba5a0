"""Compile-time graph rewrites (runtime/rewrites/) and the BLAS GEMM they use.

Every rewritten step is checked against the same step with rewrites off
(``OptimizerOptions(opt_level=L0)``) and against NumPy written the obvious way.
"""

import numpy as np
import pytest

import distflow as tf
from conftest import assert_oracle
from distflow.ops import blas
from distflow.ops.runtime_ops import FUSED_UPDATE, MAX_POOL_GRAD_WITH_WORKSPACE, MAX_POOL_WITH_WORKSPACE

RNG = np.random.default_rng(11)
L0 = tf.ConfigProto(graph_options=tf.GraphOptions(optimizer_options=tf.OptimizerOptions(
    opt_level=tf.OptimizerOptions.L0)))


def kernel_types(sess: tf.Session) -> list[str]:
    """The op types the session's most recently compiled step runs, in order."""
    step = list(sess._steps.values())[-1]
    return [op_type for _, op_type, _ in step.plan.sequential.infos]


def as_graph_names(types: list[str]) -> list[str]:
    """``types`` with a max pooling and its gradient named as the graph names them, whether
    or not ``pool_workspace`` (where oneDNN serves them) gave them a workspace."""
    renamed = {MAX_POOL_WITH_WORKSPACE: "MaxPool", MAX_POOL_GRAD_WITH_WORKSPACE: "MaxPoolGrad"}
    return [renamed.get(t, t) for t in types]


# -- blas.gemm ---------------------------------------------------------------------------------

needs_blas = pytest.mark.skipif(blas._lookup() is None, reason="NumPy's BLAS is not a bundled OpenBLAS")


@needs_blas
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("transpose_a", [False, True])
@pytest.mark.parametrize("transpose_b", [False, True])
def test_gemm_accumulates_a_product_like_numpy(dtype, transpose_a, transpose_b):
    a = RNG.standard_normal((7, 5) if transpose_a else (5, 7)).astype(dtype)
    b = RNG.standard_normal((3, 7) if transpose_b else (7, 3)).astype(dtype)
    a, b = (a.T if transpose_a else a), (b.T if transpose_b else b)
    c = RNG.standard_normal((5, 3)).astype(dtype)
    want = -0.5 * (a @ b) + 2.0 * c
    assert blas.gemm(a, b, c, -0.5, 2.0)
    assert_oracle(c, want, rtol=1e-5 if dtype == np.float32 else 1e-12)


@needs_blas
def test_gemm_reads_strided_rows_and_refuses_what_blas_cannot_take():
    big = RNG.standard_normal((10, 9)).astype(np.float32)
    a, b = big[::2, :7], RNG.standard_normal((7, 3)).astype(np.float32)
    c = np.zeros((5, 3), np.float32)
    assert blas.gemm(a, b, c, 1.0, 0.0)
    assert_oracle(c, a @ b, rtol=1e-5)
    untouched = np.zeros((3, 5), np.float32).T  # not C-contiguous
    assert not blas.gemm(a, b, untouched, 1.0, 0.0) and not untouched.any()
    assert not blas.gemm(a.astype(np.int64), b.astype(np.int64), np.zeros((5, 3), np.int64), 1.0, 0.0)
    assert not blas.gemm(np.broadcast_to(b[0], (5, 3)), np.ones((3, 2), np.float32),
                         np.zeros((5, 2), np.float32), 1.0, 0.0)
    with pytest.raises(ValueError, match=r"\[5, 7\] x \[7, 3\] into \[4, 3\]"):
        blas.gemm(a, b, np.zeros((4, 3), np.float32), 1.0, 0.0)


@needs_blas
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_axpy_adds_in_place_like_numpy_and_refuses_what_it_cannot_take(dtype):
    x, y = RNG.standard_normal((6, 5)).astype(dtype), RNG.standard_normal((6, 5)).astype(dtype)
    want = y - 0.25 * x
    assert blas.axpy(x, y, -0.25)
    assert_oracle(y, want, rtol=1e-5 if dtype == np.float32 else 1e-12)
    assert not blas.axpy(x.T, y.T.copy(), 1.0)  # x not C-contiguous
    assert not blas.axpy(x[:, :4], y, 1.0)  # shapes differ
    assert not blas.axpy(x.astype(np.float16), y.astype(np.float16), 1.0)


# -- update fusion -----------------------------------------------------------------------------


def _mlp_training(dtype, config, steps=3):
    """Trains a 2-layer MLP with plain SGD from fixed values; returns (variables, kernel types)."""
    tf.reset_default_graph()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 6)).astype(dtype)
    y = rng.integers(0, 3, 16)
    w0 = tf.Variable(rng.standard_normal((6, 8)).astype(dtype))
    b0 = tf.Variable(np.zeros(8, dtype))
    w1 = tf.Variable(rng.standard_normal((8, 3)).astype(dtype))
    logits = tf.matmul(tf.nn.relu(tf.matmul(x, w0) + b0), w1)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(steps):
            sess.run(train)
        types = kernel_types(sess)
        return sess.run([w0, b0, w1]), types, (x, y)


def _numpy_mean_xent_grad(logits, labels):
    """d mean(sparse softmax cross-entropy) / d logits, written the obvious way."""
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    p[np.arange(len(labels)), labels] -= 1
    return p / len(labels)


def _numpy_mlp_training(x, y, dtype, steps=3):
    rng = np.random.default_rng(0)
    rng.standard_normal((16, 6)), rng.integers(0, 3, 16)  # the same draws as _mlp_training
    w0 = rng.standard_normal((6, 8)).astype(dtype)
    b0 = np.zeros(8, dtype)
    w1 = rng.standard_normal((8, 3)).astype(dtype)
    for _ in range(steps):
        z = x @ w0 + b0
        h = np.maximum(z, 0)
        g = _numpy_mean_xent_grad(h @ w1, y)
        dw1, dh = h.T @ g, g @ w1.T
        dz = dh * (z > 0)
        w0, b0, w1 = w0 - 0.1 * (x.T @ dz), b0 - 0.1 * dz.sum(0), w1 - 0.1 * dw1
    return w0, b0, w1


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_updates_train_like_unfused_steps_and_numpy(dtype):
    fused, types, (x, y) = _mlp_training(dtype, None)
    plain, plain_types, _ = _mlp_training(dtype, L0)
    assert types.count(FUSED_UPDATE) == 2 and FUSED_UPDATE not in plain_types
    assert types.count("MatMul") == 3  # two forward and one input gradient; the weight gradients are fused
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for got, unfused, want in zip(fused, plain, _numpy_mlp_training(x, y, dtype)):
        assert_oracle(got, unfused, rtol=tol, atol=tol)
        assert_oracle(got, want, rtol=tol, atol=tol)


def test_averaged_tower_gradients_fuse_into_one_update():
    """In-graph replication: AddN of the towers' products, divided by 2, then applied."""
    x = RNG.standard_normal((8, 4))
    w_init = RNG.standard_normal((4, 2))

    def train(config):
        tf.reset_default_graph()
        w = tf.Variable(w_init)
        tower_grads = []
        for i, half in enumerate(np.split(x, 2)):
            with tf.device(f"/cpu:{i}"):
                loss = tf.reduce_sum(tf.square(tf.matmul(tf.constant(half), w)))
                tower_grads.append(tf.gradients(loss, w, colocate_gradients_with_ops=True)[0])
        with tf.device("/cpu:0"):
            train = tf.train.GradientDescentOptimizer(0.01).apply_gradients([(tf.add_n(tower_grads) / 2.0, w)])
        config.device_count["CPU"] = 2
        config.inter_op_parallelism_threads = 1  # one sequential plan over both devices
        with tf.Session(config=config) as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            types = kernel_types(sess)
            return sess.run(w), types

    got, types = train(tf.ConfigProto())
    unfused, plain_types = train(L0)
    assert types.count(FUSED_UPDATE) == 1 and "AddN" not in types and "RealDiv" not in types
    assert "AddN" in plain_types
    want = w_init - 0.01 * (2 * x.T @ (x @ w_init)) / 2.0
    assert_oracle(got, unfused, rtol=1e-12)
    assert_oracle(got, want, rtol=1e-12)


def test_concurrent_towers_compute_their_products_early_and_add_received_gradients():
    """With the towers' partitions running at once, the partition of the update receives
    the other tower's gradient: its own product is computed before that receive (not
    fused after it) and both are added into the variable, with no sum formed."""
    x = RNG.standard_normal((8, 4))
    w_init, v_init = RNG.standard_normal((4, 3)), RNG.standard_normal((3, 2))

    def train(config, steps=3):
        tf.reset_default_graph()
        w, v = tf.Variable(w_init), tf.Variable(v_init)
        grads = []
        for i, half in enumerate(np.split(x, 2)):
            with tf.device(f"/cpu:{i}"):
                loss = tf.reduce_sum(tf.square(tf.matmul(tf.nn.relu(tf.matmul(tf.constant(half), w)), v)))
                grads.append(tf.gradients(loss, [w, v], colocate_gradients_with_ops=True))
        with tf.device("/cpu:0"):
            opt = tf.train.GradientDescentOptimizer(0.01)
            train = opt.apply_gradients([(tf.add_n([g[k] for g in grads]) / 2.0, var) for k, var in enumerate((w, v))])
        config.device_count["CPU"] = 2
        config.inter_op_parallelism_threads = 2  # the two partitions at once
        with tf.Session(config=config) as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(steps):
                sess.run(train)
            step = list(sess._steps.values())[-1]
            cpu0 = next(p for p in step.plan.partitions if p.name.endswith("CPU:0"))
            return sess.run([w, v]), [t for _, t, _ in cpu0.infos]

    (w, v), types = train(tf.ConfigProto())
    (w_plain, v_plain), plain_types = train(L0)
    assert types.count(FUSED_UPDATE) == 2 and "AddN" not in types and "AddN" in plain_types
    first_receive = types.index("_Recv", types.index("MatMul"))  # after the forward pass has begun
    assert types[:first_receive].count("MatMul") == types.count("MatMul")  # every product before it
    w_np, v_np = w_init.copy(), v_init.copy()
    for _ in range(3):
        dw, dv = np.zeros_like(w_np), np.zeros_like(v_np)
        for half in np.split(x, 2):
            z = half @ w_np
            h = np.maximum(z, 0)
            g = 2 * (h @ v_np)
            dv += h.T @ g
            dw += half.T @ ((g @ v_np.T) * (z > 0))
        w_np, v_np = w_np - 0.01 * dw / 2, v_np - 0.01 * dv / 2
    for got, plain, want in ((w, w_plain, w_np), (v, v_plain, v_np)):
        assert_oracle(got, plain, rtol=1e-12)
        assert_oracle(got, want, rtol=1e-12)


def test_early_compute_keeps_reads_of_variables_and_control_dependencies_in_place():
    """In a partition that receives, reads of a variable after an update (by a control
    dependency) stay after it, though they are stateless and their inputs are ready."""
    tf.reset_default_graph()
    with tf.device("/cpu:1"):
        far = tf.constant(3.0) * 2.0
    with tf.device("/cpu:0"):
        v = tf.Variable(1.0)
        bump = tf.assign_add(v, far)  # waits for the tensor from cpu:1
        with tf.control_dependencies([bump]):
            after = tf.identity(v) + 1.0
            doubled = v * 2.0
    config = tf.ConfigProto(device_count={"CPU": 2}, inter_op_parallelism_threads=2)
    with tf.Session(config=config) as sess:
        sess.run(v.initializer)
        assert sess.run([after, doubled]) == [8.0, 14.0]
        assert sess.run(after) == 14.0


def test_a_fetched_gradient_is_computed_and_not_fused_away():
    x = RNG.standard_normal((5, 3))
    w = tf.Variable(RNG.standard_normal((3, 2)))
    loss = tf.reduce_sum(tf.matmul(x, w))
    opt = tf.train.GradientDescentOptimizer(0.5)
    (grad, _), = opt.compute_gradients(loss, [w])
    train = opt.apply_gradients([(grad, w)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        before = sess.run(w)
        g, _ = sess.run([grad, train])
        assert FUSED_UPDATE not in kernel_types(sess)
        want = x.T @ np.ones((5, 2))
        assert_oracle(g, want, rtol=1e-12)
        assert_oracle(sess.run(w), before - 0.5 * want, rtol=1e-12)


def test_an_update_whose_product_reads_the_variable_itself():
    w0 = RNG.standard_normal((3, 3))
    m = RNG.standard_normal((3, 3))
    w = tf.Variable(w0)
    train = tf.train.GradientDescentOptimizer(0.1).apply_gradients([(tf.matmul(w, m), w)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        assert FUSED_UPDATE in kernel_types(sess)
        assert_oracle(sess.run(w), w0 - 0.1 * (w0 @ m), rtol=1e-12)


def test_a_shape_error_in_a_fused_update_names_the_update():
    w = tf.Variable(np.zeros((3, 2)))
    a = tf.placeholder(tf.float64, [None, None])
    train = tf.train.GradientDescentOptimizer(0.1).apply_gradients([(tf.matmul(a, a), w)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(tf.errors.InvalidArgumentError, match="has shape \\[3, 2\\] but the gradient has shape "
                                                                 "\\[4, 4\\]") as info:
            sess.run(train, {a: np.ones((4, 4))})
        assert "ApplyGradientDescent" in str(info.value)
        assert_oracle(sess.run(w), np.zeros((3, 2)))  # nothing written


# -- constant folding and unread nodes ---------------------------------------------------------


def test_the_gradient_seed_folds_and_an_unfetched_loss_is_not_computed():
    x = tf.placeholder(tf.float32, [4, 3])
    w = tf.Variable(np.ones((3, 2), np.float32))
    loss = tf.reduce_mean(tf.matmul(x, w))
    train = tf.train.GradientDescentOptimizer(1.0).minimize(loss)
    xv = RNG.standard_normal((4, 3)).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, {x: xv})
        types = kernel_types(sess)
        assert not {"OnesLike", "BroadcastTo", "Mean"} & set(types), types
        loss_value, _ = sess.run([loss, train], {x: xv})
        assert "Mean" in kernel_types(sess)
    w1 = np.ones((3, 2), np.float32) - xv.T @ np.full((4, 2), 1 / 8, np.float32)
    assert_oracle(loss_value, np.float32((xv @ w1).mean()), rtol=1e-5)


def test_random_ops_and_placeholders_are_never_folded():
    r = tf.random_uniform([3]) * 2.0
    p = tf.placeholder(tf.float32, [2])
    with tf.Session() as sess:
        assert not np.array_equal(sess.run(r), sess.run(r))
        with pytest.raises(tf.errors.InvalidArgumentError, match="must feed a value for placeholder"):
            sess.run(p + 1.0)


def test_a_node_run_only_for_a_control_dependency_still_runs():
    p = tf.placeholder(tf.float32, [None])
    check = tf.reshape(p, [5])  # fails unless p has 5 elements
    with tf.control_dependencies([check]):
        out = tf.identity(tf.constant(1.0))
    with tf.Session() as sess:
        assert sess.run(out, {p: np.ones(5, np.float32)}) == 1.0
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(out, {p: np.ones(4, np.float32)})


def test_folded_constants_are_fetched_as_copies():
    c = tf.ones_like(tf.zeros([2, 2])) * 3.0
    with tf.Session() as sess:
        first = sess.run(c)
        first[0, 0] = -1.0
        assert_oracle(sess.run(c), np.full((2, 2), 3.0, np.float32))


# -- replica merge -------------------------------------------------------------------------------


def _train_two_towers(config, initial, x, y, logits_of, steps=3, optimizer=None):
    """In-graph replication as TF 1.x programs write it: ``logits_of(rows, *variables)`` on
    two CPU devices, each on half of ``x``, their gradients averaged and applied with SGD
    (or ``optimizer()``); run ``steps`` steps sequentially. The variables' values, and the
    op types the step ran."""
    tf.reset_default_graph()
    variables = [tf.Variable(v) for v in initial]
    xs, ys = tf.split(tf.constant(x), 2), tf.split(tf.constant(y), 2)
    opt = optimizer() if optimizer else tf.train.GradientDescentOptimizer(0.1)
    grads = []
    for i in range(2):
        with tf.device(f"/cpu:{i}"):
            logits = logits_of(xs[i], *variables)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=ys[i], logits=logits))
            grads.append(opt.compute_gradients(loss, colocate_gradients_with_ops=True))
    with tf.device("/cpu:0"):
        train = opt.apply_gradients([(tf.add_n([g[k][0] for g in grads]) / 2.0, grads[0][k][1])
                                     for k in range(len(variables))])
    config.device_count["CPU"] = 2
    config.inter_op_parallelism_threads = 1
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(steps):
            sess.run(train)
        types = kernel_types(sess)
        return sess.run(variables), types


def test_replicas_products_by_one_matrix_become_one_product_in_the_sequential_form():
    """In-graph replication run sequentially: each layer's products of the two replicas'
    rows by the shared weight are one GEMM; training matches the unrewritten step and NumPy."""
    rng = np.random.default_rng(5)
    x, y = rng.standard_normal((8, 6)), rng.integers(0, 3, 8)
    w0_init, w1_init = rng.standard_normal((6, 5)), rng.standard_normal((5, 3))

    def train(config):
        return _train_two_towers(config, [w0_init, w1_init], x, y,
                                 lambda xs, w0, w1: tf.matmul(tf.nn.relu(tf.matmul(xs, w0)), w1))

    (w0, w1), types = train(tf.ConfigProto())
    (w0_plain, w1_plain), plain_types = train(L0)
    # forward: two layers; backward: the second layer's input gradient
    assert types.count("_ReplicaMatMul") == 3 and "_ReplicaMatMul" not in plain_types
    # the row-wise kernels on those rows: once for both replicas
    for op_type in ("Relu", "ReluGrad", "SparseSoftmaxCrossEntropyWithLogits"):
        assert types.count(op_type) == 1 and plain_types.count(op_type) == 2, op_type
    w0_np, w1_np = w0_init.copy(), w1_init.copy()
    for _ in range(3):
        dw0, dw1 = np.zeros_like(w0_np), np.zeros_like(w1_np)
        for xh, yh in zip(np.split(x, 2), np.split(y, 2)):
            z = xh @ w0_np
            h = np.maximum(z, 0)
            g = _numpy_mean_xent_grad(h @ w1_np, yh)
            dw1 += h.T @ g
            dw0 += xh.T @ ((g @ w1_np.T) * (z > 0))
        w0_np, w1_np = w0_np - 0.1 * dw0 / 2, w1_np - 0.1 * dw1 / 2
    for got, plain, want in ((w0, w0_plain, w0_np), (w1, w1_plain, w1_np)):
        assert_oracle(got, plain, rtol=1e-12, atol=1e-12)
        assert_oracle(got, want, rtol=1e-12, atol=1e-12)


def test_replicas_bias_gradients_become_one_sum_over_all_their_rows():
    """x_i @ w + b on two towers: the bias gradients' sum over the towers (AddN of one
    SumToShape each) is one SumToShape over the merged rows; training matches the
    unrewritten step and NumPy."""
    rng = np.random.default_rng(6)
    x, y = rng.standard_normal((8, 6)), rng.integers(0, 4, 8)
    w_init, b_init = rng.standard_normal((6, 5)), rng.standard_normal(5)
    v_init = rng.standard_normal((5, 4))

    def train(config):
        return _train_two_towers(config, [w_init, b_init, v_init], x, y,
                                 lambda xs, w, b, v: tf.matmul(tf.nn.relu(tf.matmul(xs, w) + b), v))

    got, types = train(tf.ConfigProto())
    plain, plain_types = train(L0)
    assert types.count("SumToShape") == 1 and plain_types.count("SumToShape") == 2
    w_np, b_np, v_np = w_init.copy(), b_init.copy(), v_init.copy()
    for _ in range(3):
        dw, db, dv = np.zeros_like(w_np), np.zeros_like(b_np), np.zeros_like(v_np)
        for xh, yh in zip(np.split(x, 2), np.split(y, 2)):
            z = xh @ w_np + b_np
            h = np.maximum(z, 0)
            g = _numpy_mean_xent_grad(h @ v_np, yh)
            dv += h.T @ g
            gz = (g @ v_np.T) * (z > 0)
            dw += xh.T @ gz
            db += gz.sum(0)
        w_np, b_np, v_np = w_np - 0.1 * dw / 2, b_np - 0.1 * db / 2, v_np - 0.1 * dv / 2
    for g, p, want in zip(got, plain, (w_np, b_np, v_np)):
        assert_oracle(g, p, rtol=1e-12, atol=1e-12)
        assert_oracle(g, want, rtol=1e-12, atol=1e-12)


def test_replica_rows_are_read_in_place_when_adjacent_and_copied_otherwise():
    from distflow.ops.runtime_ops import _replica_matmul, adjacent_rows as _adjacent_rows

    whole = RNG.standard_normal((6, 4))
    parts = np.split(whole, 3)
    joined = _adjacent_rows(parts)
    assert joined is not None and np.shares_memory(joined, whole) and (joined == whole).all()
    assert _adjacent_rows([parts[0], parts[2]]) is None  # a gap
    assert _adjacent_rows([parts[1], parts[0]]) is None  # out of order
    assert _adjacent_rows([parts[0], parts[1].copy()]) is None  # another array
    turned = np.asfortranarray(whole)  # (a product computed as its transpose)
    joined = _adjacent_rows(np.split(turned, 3))
    assert joined is not None and np.shares_memory(joined, turned) and (joined == whole).all()
    assert _adjacent_rows([np.split(turned, 3)[0], parts[1]]) is None  # laid out otherwise
    w = RNG.standard_normal((4, 2))
    for rows in (parts, [parts[2], parts[0]]):  # adjacent (read in place), and not (copied)
        assert_oracle(_replica_matmul(np, *rows, w), np.concatenate(rows) @ w, rtol=1e-12)
    with pytest.raises(ValueError, match="do not stack"):
        _replica_matmul(np, parts[0], RNG.standard_normal((2, 5)), w)


def test_a_fused_update_of_replicas_adjacent_rows_is_one_product_and_equals_the_sum():
    from distflow.ops.runtime_ops import _fused_matmul_apply_gradient_descent

    class Var:  # the variable reference a kernel gets
        name = "w"

        def __init__(self, value):
            self.value = value

        def read(self):
            return self.value

    x, d = RNG.standard_normal((8, 5)), RNG.standard_normal((8, 3))
    w0 = RNG.standard_normal((5, 3))
    want = w0 - 0.1 * 0.5 * (x.T @ d)
    for xs, ds in ((np.split(x, 2), np.split(d, 2)),  # adjacent: one GEMM
                   ([p.copy() for p in np.split(x, 2)], np.split(d, 2))):  # not: one per replica
        var = Var(w0.copy())
        operands = [m for xi, di in zip(xs, ds) for m in (xi, di)]
        _fused_matmul_apply_gradient_descent(np, var, 0.1, *operands, transposes=((True, False),) * 2, scale=0.5)
        assert_oracle(var.value, want, rtol=1e-12)


def _conv_towers(dtype):
    """The replicas of a two-layer convolutional model (convolution, bias, ReLU, 2x2 max
    pooling, twice; a dense layer), trained as in-graph replication on two devices."""
    rng = np.random.default_rng(11)
    x, y = rng.standard_normal((8, 8, 8, 1)).astype(dtype), rng.integers(0, 3, 8)
    initial = [(rng.standard_normal(shape) * 0.3).astype(dtype)
               for shape in ((3, 3, 1, 4), (4,), (3, 3, 4, 6), (6,), (24, 3))]

    def logits_of(xs, f1, b1, f2, b2, w):
        h = tf.nn.max_pool(tf.nn.relu(tf.nn.conv2d(xs, f1, [1, 1, 1, 1], "SAME") + b1), [1, 2, 2, 1], [1, 2, 2, 1],
                           "SAME")
        h = tf.nn.max_pool(tf.nn.relu(tf.nn.conv2d(h, f2, [1, 1, 1, 1], "SAME") + b2), [1, 2, 2, 1], [1, 2, 2, 1],
                           "VALID")
        return tf.matmul(tf.reshape(h, [-1, 24]), w)

    def train(config):
        return _train_two_towers(config, initial, x, y, logits_of)
    return train


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_replicas_convolutions_pooling_and_filter_gradients_become_one_call_over_all_rows(dtype):
    """Convolutional towers run sequentially: each layer's convolution, pooling and their
    gradients run once on both towers' rows, the filter gradients' sum over the towers is one
    filter gradient of all the rows, and the shapes that count a tower's rows count them
    all; training matches the unrewritten step (float64: the NumPy kernels; float32:
    oneDNN's where it is installed)."""
    train = _conv_towers(dtype)
    got, types = train(tf.ConfigProto())
    plain, plain_types = train(L0)
    types = as_graph_names(types)
    convolutions = ("Conv2D", "_FusedConv2D")
    assert sum(map(types.count, convolutions)) == 2 and sum(map(plain_types.count, convolutions)) == 4
    for op_type in ("MaxPool", "MaxPoolGrad", "Conv2DBackpropFilter", "Conv2DBackpropInput"):
        assert types.count(op_type) * 2 == plain_types.count(op_type), (op_type, types, plain_types)
    assert types.count("SumToShape") == 2  # (the convolutions' bias gradients; the dense layer has no bias)
    for g, p in zip(got, plain):
        assert_oracle(g, p, rtol=1e-12 if dtype == np.float64 else 2e-5, atol=1e-12 if dtype == np.float64 else 1e-6)


def test_replicas_depthwise_convolutions_normalization_and_average_pooling_become_one_call():
    """The other batch-wise ops: a depthwise convolution after a convolution (its input and
    filter gradients), local response normalization and average pooling (whose gradient
    takes the input's shape, which counts the rows)."""
    rng = np.random.default_rng(12)
    x, y = rng.standard_normal((8, 6, 6, 2)), rng.integers(0, 3, 8)
    initial = [rng.standard_normal(shape) * 0.3 for shape in ((3, 3, 2, 3), (3, 3, 3, 2), (54, 3))]

    def logits_of(xs, f, d, w):
        h = tf.nn.lrn(tf.nn.tanh(tf.nn.conv2d(xs, f, [1, 1, 1, 1], "SAME")), depth_radius=2)
        h = tf.nn.depthwise_conv2d(h, d, [1, 1, 1, 1], "SAME")
        h = tf.nn.avg_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        return tf.matmul(tf.reshape(h, [-1, 54]), w)

    got, types = _train_two_towers(tf.ConfigProto(), initial, x, y, logits_of)
    plain, plain_types = _train_two_towers(L0, initial, x, y, logits_of)
    for op_type in ("Conv2D", "LRN", "LRNGrad", "DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropInput",
                    "DepthwiseConv2dNativeBackpropFilter", "AvgPool", "AvgPoolGrad", "Conv2DBackpropFilter"):
        assert types.count(op_type) * 2 == plain_types.count(op_type) == 2, (op_type, types, plain_types)
    for g, p in zip(got, plain):
        assert_oracle(g, p, rtol=1e-12, atol=1e-12)


def test_one_weight_used_twice_in_a_chain_across_devices_is_not_merged():
    """x @ w on one device, then (x @ w) @ w on another: not replicas (the second needs
    the first), so each product stays as it is."""
    x, w_init = RNG.standard_normal((3, 4)), RNG.standard_normal((4, 4))
    w = tf.Variable(w_init)
    feed = tf.placeholder(tf.float64, [3, 4])
    with tf.device("/cpu:0"):
        first = tf.matmul(feed, w)
    with tf.device("/cpu:1"):
        second = tf.matmul(first, w) * 2.0  # (a fetched product would not be merged anyway)
    config = tf.ConfigProto(device_count={"CPU": 2}, inter_op_parallelism_threads=1)
    with tf.Session(config=config) as sess:
        sess.run(w.initializer)
        assert_oracle(sess.run(second, {feed: x}), 2.0 * x @ w_init @ w_init, rtol=1e-12)
        assert kernel_types(sess).count("MatMul") == 2


def test_a_shared_input_with_rows_of_its_own_keeps_the_replicas_apart():
    """x_i @ w + c with c of each replica's shape: adding c to all rows at once would not
    broadcast, so the additions stay one per replica."""
    x, w_init = RNG.standard_normal((8, 3)), RNG.standard_normal((3, 2))
    w, c = tf.Variable(w_init), tf.Variable(np.ones((4, 2)))
    feed = tf.placeholder(tf.float64, [8, 3])
    outs = []
    for i, part in enumerate(tf.split(feed, 2)):
        with tf.device(f"/cpu:{i}"):
            outs.append(tf.matmul(part, w) + c)
    total = tf.add_n(outs)
    config = tf.ConfigProto(device_count={"CPU": 2}, inter_op_parallelism_threads=1)
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(total, {feed: x})
        assert kernel_types(sess).count("AddV2") == 2
    assert_oracle(got, x[:4] @ w_init + x[4:] @ w_init + 2.0, rtol=1e-12)


# -- the pipeline, and what it tells -------------------------------------------------------------

def test_every_pass_is_documented_and_in_the_pipeline():
    from distflow.runtime import rewrites

    for p in rewrites.PASSES:
        module = __import__(p.run.__module__, fromlist=["run"])
        doc = module.__doc__ or ""
        for part in ("Matches", "Produces", "Why"):
            assert part in doc, f"{module.__name__} does not say what it {part.lower()}"
    assert [p.name for p in rewrites.PASSES][-1] == "dead_nodes"


def two_tower_step():
    """An in-graph step over two CPU devices: split, one product per device, concat, SGD."""
    x = tf.placeholder(tf.float32, [8, 6])
    y = tf.placeholder(tf.int32, [8])
    w = tf.Variable(RNG.standard_normal((6, 3)).astype(np.float32))
    losses = []
    for i, (xs, ys) in enumerate(zip(tf.split(x, 2), tf.split(y, 2))):
        with tf.device(f"/cpu:{i}"):
            logits = tf.matmul(xs, w)
            losses.append(tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=ys, logits=logits)))
    loss = tf.add_n(losses) / 2.0
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    feed = {x: RNG.standard_normal((8, 6)).astype(np.float32), y: RNG.integers(0, 3, 8)}
    return train, loss, feed


@pytest.mark.parametrize("inter_op, form", [(1, "sequential"), (2, "concurrent"), (0, None)])
def test_the_form_a_step_runs_in_and_its_rewrites_are_logged_once(caplog, inter_op, form):
    with tf.Graph().as_default():
        train, loss, feed = two_tower_step()
        config = tf.ConfigProto(device_count={"CPU": 2}, inter_op_parallelism_threads=inter_op)
        with tf.Session(config=config) as sess:
            sess.run(tf.global_variables_initializer())
            with caplog.at_level("DEBUG", logger="distflow"):
                for _ in range(30):  # (enough for the measured choice: 2 forms x 3 blocks of 4)
                    sess.run(train, feed)
            step = list(sess._steps.values())[-1].plan
    said = [r.getMessage() for r in caplog.records if "form (" in r.getMessage()]
    assert len(said) == 1, said  # once per compiled step, not once per run
    assert said[0] == f"{step.label}: {step.choice}"
    if form is not None:
        assert f"{form} form (inter_op_parallelism_threads" in said[0]
    else:  # measured: the log says which form won and what each took
        assert "measured: median" in said[0] and step.mode in said[0]
    # the in-graph SGD step folds the gradient's seed and fuses the update, in either form
    assert "constant_folding x" in said[0] and "update_fusion x" in said[0]


def test_a_traced_step_reports_every_kernel_call_in_step_stats():
    from tensorboard.compat.proto import step_stats_pb2  # TensorFlow's own message

    with tf.Graph().as_default():
        train, loss, feed = two_tower_step()
        with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2}, inter_op_parallelism_threads=2)) as sess:
            sess.run(tf.global_variables_initializer())
            meta = tf.RunMetadata()
            sess.run(train, feed, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=meta)
            plain = tf.RunMetadata()
            sess.run(train, feed, run_metadata=plain)
    assert not plain.HasField("step_stats")  # only a traced step pays for timing
    stats = step_stats_pb2.StepStats.FromString(meta.step_stats.SerializeToString())
    devices = {d.device for d in stats.dev_stats}
    assert devices == {"/job:localhost/replica:0/task:0/device:CPU:0", "/job:localhost/replica:0/task:0/device:CPU:1"}
    calls = [n for d in stats.dev_stats for n in d.node_stats]
    labels = " ".join(n.timeline_label for n in calls)
    assert "MatMul()" in labels and "_Recv()" in labels
    assert all(n.all_end_rel_nanos >= n.op_end_rel_nanos >= 0 and n.all_start_micros > 0 for n in calls)


def test_distflow_debug_prints_the_form_and_each_kernel(tmp_path):
    import subprocess
    import sys

    program = tmp_path / "p.py"
    program.write_text("import distflow as tf\n"
                       "x = tf.placeholder(tf.float32, [2, 2])\n"
                       "y = tf.matmul(x, x) + 1.0\n"
                       "with tf.Session() as sess:\n"
                       "    sess.run(y, {x: [[1, 2], [3, 4]]})\n")
    done = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, timeout=120,
                          env={**__import__("os").environ, "DISTFLOW_DEBUG": "2"})
    assert done.returncode == 0, done.stderr
    assert "distflow: step add:0: sequential form (one partition); rewrites:" in done.stderr
    assert "MatMul" in done.stderr and "us" in done.stderr


# -- convolution patches ------------------------------------------------------------------------

def conv_training(config, steps=3):
    """Two conv layers (one with stride 2 and VALID padding) trained with Adam; their
    variables after ``steps`` steps, and the kernel types of the step."""
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        x = tf.placeholder(tf.float32, [4, 9, 9, 3])
        h = tf.nn.relu(tf.nn.conv2d(x, tf.get_variable("f1", [3, 3, 3, 5]), [1, 1, 1, 1], "SAME"))
        h = tf.nn.conv2d(h, tf.get_variable("f2", [2, 3, 5, 4]), [1, 2, 2, 1], "VALID")
        loss = tf.reduce_mean(tf.square(h))
        train = tf.train.AdamOptimizer(0.05).minimize(loss)
        with tf.Session(config=config) as sess:
            sess.run(tf.global_variables_initializer())
            feed = {x: np.random.default_rng(2).standard_normal((4, 9, 9, 3)).astype(np.float32)}
            for _ in range(steps):
                sess.run(train, feed)
            return sess.run(tf.trainable_variables()), _types_of_train(sess)


def _types_of_train(sess):
    step = [s for s in sess._steps.values() if any(t == "ApplyAdam" for _, t, _ in s.plan.sequential.infos)][-1]
    return [op_type for _, op_type, _ in step.plan.sequential.infos]


def test_a_convolution_and_its_filter_gradient_share_the_input_windows(numpy_kernels):
    shared, types = conv_training(tf.ConfigProto())
    plain, plain_types = conv_training(L0)
    assert types.count("_Conv2DPatches") == 2 and "Conv2DBackpropFilter" not in types
    assert types.count("_Conv2DFromPatches") == 2 and types.count("_Conv2DBackpropFilterFromPatches") == 2
    assert "_Conv2DPatches" not in plain_types
    for a, b in zip(shared, plain):
        assert_oracle(a, b, rtol=1e-5, atol=1e-6)


def test_early_compute_sends_a_token_for_several_reads_only_after_all_of_them():
    """An update on cpu:0 waits for two reads of its variable on cpu:1 (which get the
    variable's memory) through one token; early compute must not send it before them."""
    from distflow.runtime import partition as partition_lib
    from distflow.runtime.rewrites import early_compute
    from distflow.runtime.rewrites.common import Nodes, count_readers

    tf.reset_default_graph()
    with tf.device("/cpu:0"):
        v = tf.Variable(np.ones((2, 2)))
        late = tf.constant(np.ones((2, 2))) * 2.0
    with tf.device("/cpu:1"):
        first = tf.matmul(late, v)  # waits for a tensor from cpu:0
        second = tf.matmul(v, v)  # ready as soon as v arrives
    with tf.device("/cpu:0"):
        update = tf.assign_add(v, np.ones((2, 2)))
    roots = [first.op, second.op, update.op]
    order = partition_lib.prune(roots, set())
    device_of = {op: op.device for op in order}
    parts = partition_lib.partition(order, device_of, set())
    cpu1 = next(nodes for dev, nodes in parts.items() if dev.endswith("CPU:1"))
    tokens = [n for n in cpu1 if n.type == "_Send" and n.attrs["tensor_name"].startswith("^")]
    assert len(tokens) == 1, [n.attrs["tensor_name"] for n in cpu1 if n.type == "_Send"]
    plan = Nodes(list(cpu1), [None] * len(cpu1), {}, {}, count_readers(cpu1))
    early_compute.run(plan)
    place = {n.name: i for i, n in enumerate(plan.nodes)}
    readers = [first.op.name, second.op.name]
    assert all(place[tokens[0].name] > place[r] for r in readers), [n.name for n in plan.nodes]


# -- gradient sums ------------------------------------------------------------------------------

def without_pass(monkeypatch, name):
    """Steps compiled in the test run every rewrite but ``name``."""
    from distflow.runtime import rewrites

    monkeypatch.setattr(rewrites, "PASSES", tuple(p for p in rewrites.PASSES if p.name != name))


def _averaged_products(config, dtype=np.float64, fetch_sum=False):
    """Three products' sum and a plain term, times a constant, fed to Adam, as the towers'
    gradients of one weight are; the weight after two steps, the kernel types, and the
    gradient by NumPy, and the sum as fetched (with ``fetch_sum``)."""
    rng = np.random.default_rng(5)
    xs = [rng.standard_normal((6, 4)).astype(dtype) for _ in range(3)]
    ds = [rng.standard_normal((6, 3)).astype(dtype) for _ in range(3)]
    extra = rng.standard_normal((4, 3)).astype(dtype)
    with tf.Graph().as_default():
        w = tf.Variable(np.zeros((4, 3), dtype))
        fed = {tf.placeholder(tf.as_dtype(dtype), a.shape): a for a in xs + ds + [extra]}
        x_, d_, (e_,) = list(fed)[:3], list(fed)[3:6], list(fed)[6:]
        terms = [tf.matmul(x, d, transpose_a=True) for x, d in zip(x_, d_)]  # (fed: nothing to fold)
        total = tf.add_n(terms + [e_])
        train = tf.train.AdamOptimizer(0.1).apply_gradients([(total * (1.0 / 3.0), w)])
        with tf.Session(config=config) as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(2):
                out = sess.run([train, total] if fetch_sum else train, fed)
            types = kernel_types(sess)
            return sess.run(w), types, (sum(x.T @ d for x, d in zip(xs, ds)) + extra) / 3.0, \
                out[1] if fetch_sum else None


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_scaled_sum_of_products_is_one_array_made_by_gemms(dtype):
    from distflow.ops.runtime_ops import SUM_OF_PRODUCTS

    got, types, g, _ = _averaged_products(tf.ConfigProto(), dtype)
    plain, plain_types, _, _ = _averaged_products(L0, dtype)
    assert types.count(SUM_OF_PRODUCTS) == 1 and "AddN" not in types and "MatMul" not in types
    assert "AddN" in plain_types and SUM_OF_PRODUCTS not in plain_types
    tol = 1e-5 if dtype == np.float32 else 1e-12
    assert_oracle(got, plain, rtol=tol, atol=tol)
    w, m, v = np.zeros((4, 3)), np.zeros((4, 3)), np.zeros((4, 3))
    for t in (1, 2):  # Adam by hand, on the gradient by NumPy
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        w = w - 0.1 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t) * m / (np.sqrt(v) + 1e-8)
    assert_oracle(got, w.astype(dtype), rtol=tol, atol=tol)


def test_a_fetched_sum_is_made_under_its_own_name_and_scaled_apart():
    from distflow.ops.runtime_ops import SUM_OF_PRODUCTS

    got, types, g, total = _averaged_products(tf.ConfigProto(), fetch_sum=True)
    assert types.count(SUM_OF_PRODUCTS) == 1 and "AddN" not in types and "Mul" in types
    plain, _, _, _ = _averaged_products(L0, fetch_sum=True)
    assert_oracle(got, plain, rtol=1e-12)
    assert_oracle(total, g * 3.0, rtol=1e-12)


def test_in_graph_towers_average_their_products_into_one_array_for_adam():
    """The in-graph recipe with Adam (which update fusion leaves alone): each tower's
    x_i^T @ dy_i, summed over the towers and halved, is one kernel in the sequential form."""
    from distflow.ops.runtime_ops import SUM_OF_PRODUCTS

    x, y = RNG.standard_normal((8, 4)), RNG.integers(0, 3, 8)
    initial = [RNG.standard_normal((4, 5)), RNG.standard_normal((5, 3))]

    def logits_of(rows, w1, w2):
        return tf.matmul(tf.nn.relu(tf.matmul(rows, w1)), w2)

    adam = lambda: tf.train.AdamOptimizer(0.01)  # noqa: E731
    got, types = _train_two_towers(tf.ConfigProto(), initial, x, y, logits_of, optimizer=adam)
    plain, plain_types = _train_two_towers(L0, initial, x, y, logits_of, optimizer=adam)
    assert types.count(SUM_OF_PRODUCTS) == 2 and "AddN" not in types and "RealDiv" not in types
    assert "AddN" in plain_types
    for a, b in zip(got, plain):
        assert_oracle(a, b, rtol=1e-12)


# -- a ReLU's gradient through a max pooling's --------------------------------------------------

def _relu_pool_training(config, ksize, strides, padding):
    """conv -> ReLU -> max pooling -> dense, trained by SGD; the conv filter's gradient at
    the start, the variables after two steps, and the kernel types."""
    rng = np.random.default_rng(9)
    x = rng.standard_normal((3, 8, 8, 2)).astype(np.float32)
    x[:, :4] = 0.0  # (windows of zeros after the ReLU: ties, and maxima that are 0)
    with tf.Graph().as_default():
        f = tf.Variable(rng.standard_normal((3, 3, 2, 4)).astype(np.float32))
        h = tf.nn.relu(tf.nn.conv2d(tf.constant(x), f, [1, 1, 1, 1], "SAME"))
        p = tf.nn.max_pool(h, ksize, strides, padding)
        n = int(np.prod(p.shape.as_list()[1:]))
        w = tf.Variable(rng.standard_normal((n, 5)).astype(np.float32) * 0.1)
        loss = tf.reduce_sum(tf.square(tf.matmul(tf.reshape(p, [3, n]), w)))
        return _first_gradient_and_two_steps(config, loss, f, [f, w],
                                             lambda sess: _types_of_any(sess, "ApplyGradientDescent"))


def _first_gradient_and_two_steps(config, loss, of, variables, report):
    """``loss``'s gradient of ``of`` at the start, ``variables`` after two SGD steps, and
    ``report(session)``."""
    grad = tf.gradients(loss, of)[0]
    train = tf.train.GradientDescentOptimizer(0.001).minimize(loss)
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(grad)
        for _ in range(2):
            sess.run(train)
        return first, sess.run(variables), report(sess)


def _types_of_any(sess, op_type):
    step = [s for s in sess._steps.values() if any(t.startswith(op_type) or t == "_FusedMatMulApplyGradientDescent"
                                                   for _, t, _ in s.plan.sequential.infos)][-1]
    return [t for _, t, _ in step.plan.sequential.infos]


@pytest.mark.parametrize("kernels", ["default", "numpy"])
@pytest.mark.parametrize("ksize, strides, padding", [([1, 2, 2, 1], [1, 2, 2, 1], "SAME"),
                                                      ([1, 3, 3, 1], [1, 2, 2, 1], "SAME"),
                                                      ([1, 3, 3, 1], [1, 1, 1, 1], "VALID")])
def test_a_relu_gradient_under_a_max_pooling_is_taken_on_the_pooled_values(kernels, ksize, strides, padding,
                                                                            request, monkeypatch):
    if kernels == "numpy":
        request.getfixturevalue("numpy_kernels")
    first, after, types = _relu_pool_training(tf.ConfigProto(), ksize, strides, padding)
    without_pass(monkeypatch, "pool_relu_grad")
    plain_first, plain_after, plain_types = _relu_pool_training(tf.ConfigProto(), ksize, strides, padding)
    types, plain_types = as_graph_names(types), as_graph_names(plain_types)
    # the mask by 0 or 1 is applied to each window's gradient before it is routed instead of
    # after: the same products (to the bit where the kernels after it split their sums alike;
    # oneDNN's split follows its thread count, which the load on the machine may change)
    assert_oracle(first, plain_first, rtol=1e-5, atol=1e-5)
    for a, b in zip(after, plain_after):
        assert_oracle(a, b, rtol=1e-5, atol=1e-6)
    assert types.count("MaxPoolGrad") == 1 and types.count("ReluGrad") == 1
    assert types.index("ReluGrad") < types.index("MaxPoolGrad")  # (the pooled gradient masked first)
    assert plain_types.index("MaxPoolGrad") < plain_types.index("ReluGrad")


@pytest.mark.parametrize("kernels", ["default", "numpy"])
@pytest.mark.parametrize("ksize, strides, padding", [([1, 2, 2, 1], [1, 2, 2, 1], "SAME"),
                                                      ([1, 3, 3, 1], [1, 2, 2, 1], "SAME"),
                                                      ([1, 3, 3, 1], [1, 1, 1, 1], "VALID")])
def test_a_max_pooling_keeps_where_its_maxima_are_for_its_gradient(kernels, ksize, strides, padding, request,
                                                                     monkeypatch):
    """Where oneDNN serves the pooling, its gradient routes by the workspace the forward
    pooling left instead of pooling again; the step's values are the same (windows of
    zeros included: ties go to the first position either way). With NumPy's kernels the
    pass does not apply."""
    from distflow.runtime import onednn

    if kernels == "numpy":
        request.getfixturevalue("numpy_kernels")
    elif not onednn.available():
        pytest.skip("oneDNN (the onednn extra) is not installed")
    first, after, types = _relu_pool_training(tf.ConfigProto(), ksize, strides, padding)
    without_pass(monkeypatch, "pool_workspace")
    plain_first, plain_after, plain_types = _relu_pool_training(tf.ConfigProto(), ksize, strides, padding)
    assert_oracle(first, plain_first, rtol=1e-6, atol=1e-6)
    for a, b in zip(after, plain_after):
        assert_oracle(a, b, rtol=1e-6, atol=1e-7)
    assert plain_types.count("MaxPool") == 1 and plain_types.count("MaxPoolGrad") == 1
    if kernels == "numpy":
        assert types == plain_types
    else:
        assert types.count(MAX_POOL_WITH_WORKSPACE) == 1 and types.count(MAX_POOL_GRAD_WITH_WORKSPACE) == 1
        assert "MaxPool" not in types and "MaxPoolGrad" not in types


def test_a_relu_gradient_is_left_alone_where_the_routed_gradient_is_read_elsewhere():
    from distflow.runtime.partition import Node
    from distflow.runtime.rewrites import pool_relu_grad
    from distflow.runtime.rewrites.common import Nodes, count_readers

    window = {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "SAME"}
    nodes = [Node("x", "Placeholder", {}, [], [], 1), Node("g", "Placeholder", {}, [], [], 1),
             Node("pool", "MaxPool", dict(window), [("x", 0)], [False], 1),
             Node("routed", "MaxPoolGrad", dict(window), [("x", 0), ("pool", 0), ("g", 0)], [False] * 3, 1),
             Node("masked", "ReluGrad", {}, [("routed", 0), ("x", 0)], [False] * 2, 1)]
    device = object()

    def rewrite(nodes, fetched=()):
        plan = Nodes(list(nodes), [device] * len(nodes), {}, {key: 0 for key in fetched}, count_readers(nodes))
        return pool_relu_grad.run(plan), [n.type for n in plan.nodes]

    assert rewrite(nodes) == (1, ["Placeholder", "Placeholder", "MaxPool", "ReluGrad", "MaxPoolGrad"])
    assert rewrite(nodes, fetched=[("routed", 0)])[0] == 0
    assert rewrite(nodes + [Node("other", "Identity", {}, [("routed", 0)], [False], 1)])[0] == 0
    other_window = [*nodes[:3], Node("routed", "MaxPoolGrad", {**window, "strides": [1, 1, 1, 1]},
                                     nodes[3].inputs, [False] * 3, 1), nodes[4]]
    assert rewrite(other_window)[0] == 0  # (y is not the pooling of the gradient's window)
    other_features = [*nodes[:4], Node("masked", "ReluGrad", {}, [("routed", 0), ("g", 0)], [False] * 2, 1)]
    assert rewrite(other_features)[0] == 0


def _biased_pool_training(config, bias):
    """conv + bias (``"add"``: a per-channel add; ``"bias_add"``: ``tf.nn.bias_add``;
    ``"per_image"``: an add per image and channel) -> ReLU -> 2x2 max pooling -> dense,
    trained by SGD; the bias gradient at the start, the variables after two steps, and the
    rewrites of the training step."""
    rng = np.random.default_rng(10)
    x = rng.standard_normal((3, 8, 8, 2)).astype(np.float32)
    with tf.Graph().as_default():
        f = tf.Variable(rng.standard_normal((3, 3, 2, 4)).astype(np.float32))
        b = tf.Variable(rng.standard_normal([3, 1, 1, 4] if bias == "per_image" else [4]).astype(np.float32))
        conv = tf.nn.conv2d(tf.constant(x), f, [1, 1, 1, 1], "SAME")
        h = tf.nn.relu(tf.nn.bias_add(conv, b) if bias == "bias_add" else conv + b)
        p = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
        w = tf.Variable(rng.standard_normal((64, 5)).astype(np.float32) * 0.1)
        loss = tf.reduce_sum(tf.square(tf.matmul(tf.reshape(p, [3, 64]), w)))
        return _first_gradient_and_two_steps(config, loss, b, [f, b, w],
                                             lambda sess: " ".join(s.plan.choice for s in sess._steps.values()))


@pytest.mark.parametrize("kernels", ["default", "numpy"])
@pytest.mark.parametrize("bias", ["add", "bias_add", "per_image"])
def test_a_bias_gradient_under_a_max_pooling_is_summed_over_the_pooled_values(kernels, bias, request,
                                                                              monkeypatch):
    if kernels == "numpy":
        request.getfixturevalue("numpy_kernels")
    first, after, rewrites = _biased_pool_training(tf.ConfigProto(), bias)
    # (an add per image keeps the images apart: its gradient is not one sum per channel)
    assert ("pooled_bias_grad" in rewrites) == (bias != "per_image"), rewrites
    without_pass(monkeypatch, "pooled_bias_grad")
    plain_first, plain_after, plain_rewrites = _biased_pool_training(tf.ConfigProto(), bias)
    assert "pooled_bias_grad" not in plain_rewrites
    # every pooled value is added to one position of its window, in its image and channel:
    # the totals are the same, summed in another order
    assert_oracle(first, plain_first, rtol=1e-5, atol=1e-5)
    for a, b in zip(after, plain_after):
        assert_oracle(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("adjacent", [True, False])
def test_towers_products_of_few_rows_are_one_product_over_their_rows(adjacent):
    """x_i^T @ d_i summed over towers whose rows are few beside the result: one GEMM over
    the rows (stacked where they are not one array's consecutive blocks already)."""
    from distflow.ops.runtime_ops import _products_and_terms, _scaled_sum_of_products

    rng = np.random.default_rng(4)
    x, d = rng.standard_normal((6, 20)), rng.standard_normal((6, 30))
    xs = np.split(x, 3) if adjacent else [np.array(part) for part in np.split(x, 3)]
    ds = np.split(d, 3)
    operands = [a for pair in zip(xs, ds) for a in pair]
    pairs, _ = _products_and_terms(operands, ((True, False),) * 3)
    assert len(pairs) == 1 and pairs[0][0].shape == (20, 6)
    got = _scaled_sum_of_products(np, *operands, transposes=((True, False),) * 3, scale=0.5)
    assert_oracle(got, 0.5 * x.T @ d, rtol=1e-12)
    wide = [rng.standard_normal((40, 2)) for _ in range(4)]  # (rows many beside the result: a GEMM each)
    assert len(_products_and_terms(wide, ((True, False),) * 2)[0]) == 2
