"""tf.cond, tf.case and tf.while_loop: results, what runs, errors, gradients, devices, aborts."""

import collections

import numpy as np
import pytest

import distflow as tf
from gradcheck import check_gradients
from thread_util import run_in_thread, wait_until


def run(fetches, feed=None, config=None):
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed)


# -- tf.cond ----------------------------------------------------------------------


def test_cond_picks_the_branch_by_the_predicate_at_run_time():
    x = tf.placeholder(tf.float32, [])
    p = tf.placeholder(tf.bool, [])
    y = tf.cond(p, lambda: x * 2.0, lambda: x + 10.0)
    with tf.Session() as sess:
        assert sess.run(y, {x: 3.0, p: True}) == 6.0
        assert sess.run(y, {x: 3.0, p: False}) == 13.0
    assert y.shape == tf.TensorShape([]) and y.dtype == tf.float32


def test_only_the_taken_branch_runs_its_side_effects():
    p = tf.placeholder(tf.bool, [])
    taken = tf.Variable(0, name="taken")
    untaken = tf.Variable(0, name="untaken")
    y = tf.cond(p, lambda: tf.assign_add(taken, 1), lambda: tf.assign_add(untaken, 1))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(y, {p: True})
        sess.run(y, {p: False})
        assert sess.run([taken, untaken]) == [3, 1]


def test_ops_a_branch_makes_run_only_inside_it():
    p = tf.placeholder(tf.bool, [])
    counter = tf.Variable(0)

    def bump():
        with tf.control_dependencies([tf.assign_add(counter, 1)]):
            return tf.constant(1)

    y = tf.cond(p, bump, lambda: tf.constant(0))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(y, {p: False}) == 0
        assert sess.run(counter) == 0
        assert sess.run(y, {p: True}) == 1
        assert sess.run(counter) == 1


def test_cond_returns_nested_structures_and_unpacks_singletons_unless_strict():
    p = tf.constant(True)
    Pair = collections.namedtuple("Pair", "a b")
    out = tf.cond(p, lambda: {"x": Pair(tf.constant(1.0), tf.constant(2)), "y": [tf.constant(3.0)]},
                  lambda: {"x": Pair(tf.constant(4.0), tf.constant(5)), "y": [tf.constant(6.0)]})
    assert isinstance(out["x"], Pair) and isinstance(out["y"], list)
    assert run(out) == {"x": Pair(1.0, 2), "y": [3.0]}
    single = tf.cond(p, lambda: [tf.constant(1.0)], lambda: [tf.constant(2.0)])
    assert isinstance(single, tf.Tensor)
    strict = tf.cond(p, lambda: [tf.constant(1.0)], lambda: [tf.constant(2.0)], strict=True)
    assert isinstance(strict, list) and run(strict) == [1.0]


def test_cond_with_an_op_as_result_runs_it():
    v = tf.Variable(1.0)
    p = tf.placeholder(tf.bool, [])
    out = tf.cond(p, lambda: tf.assign(v, 5.0).op, lambda: tf.no_op())
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(out, {p: False})
        assert sess.run(v) == 1.0
        sess.run(out, {p: True})
        assert sess.run(v) == 5.0


def test_cond_reads_outer_tensors_and_python_values():
    x = tf.constant([1.0, 2.0])
    y = tf.cond(tf.reduce_sum(x) > 2.0, lambda: x * 3.0, lambda: np.array([0.0, 0.0], np.float32))
    assert run(y).tolist() == [3.0, 6.0]


def test_nested_cond():
    a = tf.placeholder(tf.bool, [])
    b = tf.placeholder(tf.bool, [])
    x = tf.constant(2.0)
    y = tf.cond(a, lambda: tf.cond(b, lambda: x * 10.0, lambda: x * 100.0), lambda: x)
    with tf.Session() as sess:
        assert [sess.run(y, {a: i, b: j}) for i, j in ((1, 1), (1, 0), (0, 1))] == [20.0, 200.0, 2.0]


def test_cond_argument_errors():
    p = tf.constant(True)
    with pytest.raises(TypeError, match="Python bool"):
        tf.cond(True, lambda: 1.0, lambda: 2.0)
    with pytest.raises(TypeError, match="true_fn must be callable"):
        tf.cond(p, 1.0, lambda: 2.0)
    with pytest.raises(TypeError, match="boolean"):
        tf.cond(tf.constant(1), lambda: 1.0, lambda: 2.0)
    with pytest.raises(ValueError, match="same structure"):
        tf.cond(p, lambda: (1.0, 2.0), lambda: 1.0)
    with pytest.raises(ValueError, match="same type"):
        tf.cond(p, lambda: tf.constant(1.0), lambda: tf.constant(1))


def test_a_tensor_of_a_branch_cannot_be_used_outside():
    p = tf.constant(True)
    inside = []

    def branch():
        inside.append(tf.constant(1.0) * 2.0)
        return inside[-1]

    tf.cond(p, branch, lambda: tf.constant(0.0))
    with pytest.raises(ValueError, match="true branch"):
        tf.identity(inside[0])


def test_a_predicate_that_is_not_a_scalar_fails_the_step():
    p = tf.placeholder(tf.bool)
    y = tf.cond(p, lambda: tf.constant(1), lambda: tf.constant(2))
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="scalar"):
        sess.run(y, {p: [True, False]})


def test_case_takes_the_first_true_predicate_or_the_default():
    x = tf.placeholder(tf.int32, [])
    y = tf.case([(tf.equal(x, 1), lambda: tf.constant(10)), (tf.equal(x, 2), lambda: tf.constant(20))],
                default=lambda: tf.constant(-1))
    with tf.Session() as sess:
        assert [sess.run(y, {x: v}) for v in (1, 2, 3)] == [10, 20, -1]


def test_case_exclusive_checks_at_run_time():
    x = tf.placeholder(tf.int32, [])
    y = tf.case([(x > 0, lambda: tf.constant(1)), (x > 1, lambda: tf.constant(2))], default=lambda: tf.constant(0),
                exclusive=True)
    with tf.Session() as sess:
        assert sess.run(y, {x: 1}) == 1
        with pytest.raises(tf.errors.InvalidArgumentError, match="exclusive"):
            sess.run(y, {x: 5})


def test_cond_for_training_and_evaluation_dropout():
    training = tf.placeholder_with_default(False, [])
    x = tf.ones([1000])
    y = tf.cond(training, lambda: tf.nn.dropout(x, keep_prob=0.5), lambda: x)
    with tf.Session() as sess:
        assert sess.run(y).tolist() == [1.0] * 1000
        dropped = sess.run(y, {training: True})
        assert set(np.unique(dropped)) <= {0.0, 2.0} and 300 < np.count_nonzero(dropped) < 700


# -- tf.while_loop ----------------------------------------------------------------------


def test_while_loop_counts_and_returns_the_last_values():
    i, total = tf.while_loop(lambda i, s: i < 10, lambda i, s: (i + 1, s + i), [tf.constant(0), tf.constant(0)],
                             parallel_iterations=1, swap_memory=True)  # (accepted; iterations run one by one)
    assert run([i, total]) == [10, 45]


def test_while_loop_with_one_variable_returns_a_tensor():
    out = tf.while_loop(lambda x: x < 100, lambda x: x * 2, [tf.constant(1)])
    assert isinstance(out, tf.Tensor) and run(out) == 128
    same = tf.while_loop(lambda x: x < 100, lambda x: [x * 2], [tf.constant(1)], return_same_structure=True)
    assert isinstance(same, list) and run(same) == [128]


def test_while_loop_with_nested_loop_variables():
    State = collections.namedtuple("State", "step values")
    start = State(tf.constant(0), {"a": tf.constant(1.0), "b": (tf.constant(2.0),)})
    out = tf.while_loop(lambda s: s.step < 3,
                        lambda s: (State(s.step + 1, {"a": s.values["a"] * 2.0, "b": (s.values["b"][0] + 1.0,)}),),
                        [start])
    result = run(out)
    assert result[0] == State(3, {"a": 8.0, "b": (5.0,)})


def test_loop_iterations_have_no_recursion_limit():
    n = tf.while_loop(lambda i: i < 20000, lambda i: i + 1, [tf.constant(0)])
    assert run(n) == 20000


def test_trip_count_depends_on_data():
    x = tf.placeholder(tf.float32, [])
    out = tf.while_loop(lambda v: v < 1000.0, lambda v: v * 3.0, [x])
    with tf.Session() as sess:
        assert sess.run(out, {x: 1.0}) == 2187.0
        assert sess.run(out, {x: 500.0}) == 1500.0
        assert sess.run(out, {x: 5000.0}) == 5000.0


def test_maximum_iterations_stops_the_loop():
    out = tf.while_loop(lambda i: True if False else tf.constant(True), lambda i: i + 1, [tf.constant(0)],
                        maximum_iterations=7)
    assert run(out) == 7


def test_shape_invariants_let_a_loop_variable_grow():
    def body(i, x):
        return i + 1, tf.concat([x, tf.reshape(tf.cast(i, tf.float32), [1])], 0)

    i, x = tf.while_loop(lambda i, x: i < 4, body, [tf.constant(0), tf.zeros([0])],
                         shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])])
    assert x.shape.as_list() == [None]
    assert run(x).tolist() == [0.0, 1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="shape_invariants"):
        tf.while_loop(lambda i, x: i < 4, body, [tf.constant(0), tf.zeros([0])])


def test_while_loop_argument_errors():
    with pytest.raises(TypeError, match="cond must be callable"):
        tf.while_loop(1, lambda i: i, [tf.constant(0)])
    with pytest.raises(ValueError, match="No loop variables"):
        tf.while_loop(lambda: True, lambda: (), [])
    with pytest.raises(ValueError, match="structure"):
        tf.while_loop(lambda i, j: i < 3, lambda i, j: i + 1, [tf.constant(0), tf.constant(0)])
    with pytest.raises(TypeError, match="float32"):
        tf.while_loop(lambda i: i < 3, lambda i: tf.cast(i, tf.float32), [tf.constant(0)])
    with pytest.raises(TypeError, match="parallel_iterations"):
        tf.while_loop(lambda i: i < 3, lambda i: i + 1, [tf.constant(0)], parallel_iterations=0)


def test_loop_body_updates_a_variable_every_iteration():
    v = tf.Variable(0.0)

    def body(i):
        with tf.control_dependencies([tf.assign_add(v, 2.0)]):
            return i + 1

    out = tf.while_loop(lambda i: i < 5, body, [tf.constant(0)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(out)
        assert sess.run(v) == 10.0


def test_variables_made_inside_a_loop_belong_to_the_graph():
    def body(i, x):
        w = tf.get_variable("w", [], initializer=tf.constant_initializer(3.0))
        return i + 1, x * w

    _, x = tf.while_loop(lambda i, x: i < 2, body, [tf.constant(0), tf.constant(1.0)])
    assert [v.op.name for v in tf.global_variables()] == ["while/w"] or len(tf.global_variables()) == 1
    assert run(x) == 9.0


def test_an_assertion_inside_a_loop_fails_the_step_and_names_it():
    def body(i):
        check = tf.Assert(i < 3, [i], name="small_enough")
        with tf.control_dependencies([check]):
            return i + 1

    out = tf.while_loop(lambda i: i < 10, body, [tf.constant(0)])
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="small_enough"):
        sess.run(out)


def test_cond_inside_a_loop_and_loop_inside_a_cond():
    def body(i, s):
        return i + 1, tf.cond(tf.equal(i % 2, 0), lambda: s + i, lambda: s)

    _, evens = tf.while_loop(lambda i, s: i < 10, body, [tf.constant(0), tf.constant(0)])
    p = tf.placeholder(tf.bool, [])
    inner = tf.cond(p, lambda: tf.while_loop(lambda j: j < 5, lambda j: j + 1, [tf.constant(0)]),
                    lambda: tf.constant(-1))
    with tf.Session() as sess:
        assert sess.run(evens) == 20
        assert sess.run(inner, {p: True}) == 5 and sess.run(inner, {p: False}) == -1


def test_nested_loops():
    def outer_body(i, total):
        j, inner = tf.while_loop(lambda j, t: j < i, lambda j, t: (j + 1, t + j), [tf.constant(0), tf.constant(0)])
        return i + 1, total + inner

    _, total = tf.while_loop(lambda i, t: i < 5, outer_body, [tf.constant(0), tf.constant(0)])
    assert run(total) == sum(sum(range(i)) for i in range(5))


def test_a_loop_that_assigns_a_variable_reads_it_anew_at_each_iteration():
    # as TF 1.x reads a reference variable in a loop: each iteration sees the last one's assignment
    v = tf.get_variable("v", [], initializer=tf.constant_initializer(2.0))

    def body(i):
        squared = tf.cond(tf.constant(True), lambda: tf.assign(v, tf.square(v)), lambda: v)
        with tf.control_dependencies([squared]):
            return i + 1

    count = tf.Variable(0)
    steps = tf.while_loop(lambda i: count < 10,  # (the condition reads it anew too)
                          lambda i: tf.tuple([i + 1], control_inputs=[tf.assign_add(count, 3)])[0], [0])
    w = tf.Variable(1.0)
    doubled = tf.while_loop(lambda i, _: i < 3, lambda i, _: (i + 1, w.assign(w * 2.0)), [0, 0.0])
    read_only = tf.Variable(5.0)
    summed = tf.while_loop(lambda i, acc: i < 3, lambda i, acc: (i + 1, acc + read_only), [0, 0.0])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(tf.while_loop(lambda i: i < 4, body, [tf.constant(0)])) == 4
        assert sess.run(v) == 65536.0
        assert sess.run(steps) == 4 and sess.run(count) == 12
        assert sess.run(doubled)[1] == 8.0
        assert sess.run(summed)[1] == 15.0
    # a loop that only reads a variable keeps its one read from before the loop
    body_ops = [op for op in tf.get_default_graph().get_operations() if op.name.startswith("while_2/")]
    assert body_ops and not [op for op in body_ops if op.type == "Identity" and op.inputs[0].op is read_only.op]
    assert [op for op in tf.get_default_graph().get_operations()
            if op.name.startswith("while_1/") and op.type == "Identity" and op.inputs[0].op is w.op]


# -- gradients --------------------------------------------------------------------------


@pytest.mark.parametrize("take", [True, False])
def test_gradient_through_cond(take):
    def build(x, w):
        return tf.cond(tf.constant(take), lambda: tf.sin(x) * w, lambda: tf.exp(x) + w * w)

    check_gradients(build, [np.array([0.3, -1.2]), np.array([0.7, 2.0])])


def test_gradient_through_cond_of_a_captured_tensor_used_by_one_branch():
    def build(x, w):
        return tf.cond(tf.reduce_sum(x) > 0.0, lambda: x * w, lambda: x)

    check_gradients(build, [np.array([1.0, 2.0]), np.array([3.0, 4.0])])
    check_gradients(build, [np.array([-1.0, -2.0]), np.array([3.0, 4.0])])


def test_gradient_through_a_while_loop():
    def build(x, w):
        _, y = tf.while_loop(lambda i, y: i < 4, lambda i, y: (i + 1, tf.tanh(y * w) + x), [tf.constant(0), x])
        return y

    check_gradients(build, [np.array([0.5, -0.3]), np.array([0.9, 1.1])])


def test_gradient_through_a_loop_whose_trip_count_depends_on_data():
    def build(x):
        return tf.while_loop(lambda y: tf.reduce_sum(y) < 50.0, lambda y: y * 1.5 + 0.1, [x])

    check_gradients(build, [np.array([1.0, 2.0])])
    check_gradients(build, [np.array([10.0, 13.0])])


def test_gradient_through_nested_loops():
    def build(x):
        def outer(i, y):
            _, z = tf.while_loop(lambda j, z: j < 3, lambda j, z: (j + 1, tf.sin(z) * x), [tf.constant(0), y])
            return i + 1, z + y
        return tf.while_loop(lambda i, y: i < 2, outer, [tf.constant(0), x])[1]

    check_gradients(build, [np.array([0.4, 0.8])])


def test_gradient_through_a_cond_inside_a_loop():
    def build(x, w):
        def body(i, y):
            return i + 1, tf.cond(tf.equal(i % 2, 0), lambda: y * w, lambda: tf.sin(y) + w)
        return tf.while_loop(lambda i, y: i < 5, body, [tf.constant(0), x])[1]

    check_gradients(build, [np.array([0.5, 1.5]), np.array([0.9, -0.4])])


def test_gradient_through_a_loop_inside_a_cond():
    def build(x):
        return tf.cond(tf.reduce_sum(x) > 0.0,
                       lambda: tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * y), [tf.constant(0), x])[1],
                       lambda: -x)

    check_gradients(build, [np.array([0.9, 1.1])])


def test_second_order_gradient_through_cond():
    def build(x):
        return tf.cond(tf.constant(True), lambda: x * x * x, lambda: x)

    check_gradients(build, [np.array([0.5, 1.5])], order=2)


def test_back_prop_false_stops_the_gradient():
    x = tf.constant(2.0)
    y = tf.while_loop(lambda v: v < 10.0, lambda v: v * 2.0, [x], back_prop=False)
    assert tf.gradients(y, x) == [None]


def test_training_through_a_loop_with_an_optimizer():
    w = tf.Variable(0.5)
    _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * w), [tf.constant(0), tf.constant(2.0)])
    loss = tf.square(y - 1.0)  # minimised at w = 0.5 ** (1/3)
    train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(300):
            sess.run(train)
        assert abs(sess.run(w) - 0.5 ** (1 / 3)) < 1e-3


# -- devices, aborts, graph files ---------------------------------------------------------


def test_branches_on_different_devices_of_one_process():
    p = tf.placeholder(tf.bool, [])
    x = tf.constant(3.0)

    def on(device, fn):
        def branch():
            with tf.device(device):
                return fn()
        return branch

    y = tf.cond(p, on("/cpu:1", lambda: x * 2.0), on("/cpu:0", lambda: x + 1.0))
    config = tf.ConfigProto(device_count={"CPU": 2}, log_device_placement=False)
    with tf.Session(config=config) as sess:
        assert sess.run(y, {p: True}) == 6.0 and sess.run(y, {p: False}) == 4.0
    placed = [op for op in tf.get_default_graph().get_operations() if op.name.startswith("cond/mul")]
    assert placed and placed[0]._assigned_device.endswith("CPU:1")


def test_closing_the_session_cancels_a_running_loop():
    laps = tf.Variable(0)

    def body(i):
        with tf.control_dependencies([tf.assign_add(laps, 1)]):
            return i + 1

    out = tf.while_loop(lambda i: tf.constant(True), body, [tf.constant(0)])
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    thread, result = run_in_thread(lambda: sess.run(out))
    wait_until(lambda: sess.run(laps) > 10, what="the loop to go round")
    sess.close()
    thread.join(30)
    assert not thread.is_alive()
    assert isinstance(result.get("error"), tf.errors.CancelledError), result


def test_a_step_deadline_ends_a_loop():
    out = tf.while_loop(lambda i: tf.constant(True), lambda i: i + 1, [tf.constant(0)])
    options = tf.RunOptions(timeout_in_ms=200)
    with tf.Session() as sess, pytest.raises(tf.errors.DeadlineExceededError, match="while"):
        sess.run(out, options=options)


def test_a_graph_with_control_flow_survives_graph_def_round_trip():
    x = tf.placeholder(tf.float32, [], name="x")
    y = tf.cond(x > 0.0, lambda: x * 2.0, lambda: -x, name="pick")
    z = tf.while_loop(lambda v: v < 100.0, lambda v: v * 3.0, [y + 1.0], name="grow")
    tf.identity(z, name="z")
    graph_def = tf.get_default_graph().as_graph_def()
    for prefix in ("", "imported"):
        with tf.Graph().as_default() as g:
            tf.import_graph_def(graph_def, name=prefix)
            scope = prefix + "/" if prefix else ""
            with tf.Session() as sess:
                assert sess.run(f"{scope}z:0", {f"{scope}x:0": 4.0}) == 243.0
                assert sess.run(f"{scope}z:0", {f"{scope}x:0": -2.0}) == 243.0


def test_a_tf1_graph_def_with_a_switch_that_no_merge_ends_gives_a_clear_error():
    # (TF 1.x's conds are rewritten as If ops on import: tests/test_tensorflow_files.py)
    from distflow.protos import distflow_pb2 as pb

    graph_def = pb.GraphDef()
    graph_def.node.add(name="p", op="Placeholder").attr["dtype"].type = 10
    node = graph_def.node.add(name="cond/Switch", op="Switch")
    node.input.extend(["p", "p"])
    with tf.Graph().as_default(), pytest.raises(tf.errors.UnimplementedError, match="cond/Switch.*no Merge"):
        tf.import_graph_def(graph_def, name="")


@pytest.mark.parametrize("steps", [0, 3])
def test_gradient_of_a_matrix_a_loop_multiplies_by(steps):
    # (the gradient loop sums x_t^T g_t as one product after the loop; none when it never ran)
    def build(x, w, b):
        def body(i, h):
            return i + 1, tf.tanh(tf.nn.bias_add(tf.matmul(h, w), b)) + x
        return tf.while_loop(lambda i, h: i < steps, body, [tf.constant(0), x])[1]

    rng = np.random.default_rng(5)
    if steps:
        check_gradients(build, [rng.standard_normal((4, 3)), rng.standard_normal((3, 3)) * 0.5,
                                rng.standard_normal(3)])
        return
    x, w, b = tf.constant(np.ones((4, 3))), tf.constant(np.ones((3, 3))), tf.constant(np.ones(3))
    gw, gb = tf.gradients(build(x, w, b), [w, b])
    assert [g.tolist() for g in run([gw, gb])] == [np.zeros((3, 3)).tolist(), [0.0, 0.0, 0.0]]


def test_concurrent_steps_run_loops_of_their_own():
    x = tf.placeholder(tf.float64, [])
    n = tf.placeholder(tf.int32, [])
    _, y = tf.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, tf.cond(y > 1e6, lambda: y, lambda: y * x)),
                         [tf.constant(0), tf.constant(1.0, tf.float64)])
    sess = tf.Session(config=tf.ConfigProto(inter_op_parallelism_threads=4))
    results = {}

    def worker(k):
        return [sess.run(y, {x: 1.0 + k / 10.0, n: 50 + k}) for _ in range(20)]

    threads = [run_in_thread(lambda k=k: results.__setitem__(k, worker(k))) for k in range(4)]
    for thread, out in threads:
        thread.join(60)
        assert "error" not in out, out
    for k in range(4):
        want = 1.0
        for _ in range(50 + k):
            want = want if want > 1e6 else want * (1.0 + k / 10.0)
        assert results[k] == [want] * 20
    sess.close()


def test_a_tensor_inside_a_loop_or_branch_cannot_be_fetched_or_fed():
    inside = []

    def body(i):
        inside.append(i * 2)
        return i + 1

    out = tf.while_loop(lambda i: i < 3, body, [tf.constant(0)])
    with tf.Session() as sess:
        with pytest.raises(ValueError, match="body of tf.while_loop"):
            sess.run(inside[0])
        with pytest.raises(ValueError, match="body of tf.while_loop"):
            sess.run(out, {inside[0]: 1})


def _loops_and_conds_model():
    x = tf.constant(np.random.default_rng(0).standard_normal((2, 4, 3)).astype(np.float32), name="x")
    out, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(5), x, dtype=tf.float32)
    w = tf.Variable(1.5, name="w")

    def outer(i, acc):
        inner = tf.while_loop(lambda j, a: j < i, lambda j, a: (j + 1, a * w), (0, 1.0))[1]
        return i + 1, acc + tf.cond(i % 2 > 0, lambda: inner * w, lambda: inner)

    return tf.reduce_sum(out * out) + tf.while_loop(lambda i, a: i < 4, outer, (0, 0.0))[1]


def _loss_and_gradients(loss):
    grads = tf.gradients(loss, tf.trainable_variables())
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run([loss] + grads)


def test_loops_and_conds_of_an_imported_meta_graph_differentiate_as_the_built_ones():
    tf.set_random_seed(0)
    loss = _loops_and_conds_model()
    tf.add_to_collection("loss", loss)
    want = _loss_and_gradients(loss)
    meta = tf.train.export_meta_graph()
    tf.reset_default_graph()
    tf.train.import_meta_graph(meta)  # (its functions' contexts are made anew when first differentiated)
    got = _loss_and_gradients(tf.get_collection("loss")[0])
    assert len(got) == len(want) == 4
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5)


def test_an_imported_loop_reads_a_mapped_input_and_differentiates():
    x = tf.placeholder(tf.float32, [], name="x")
    y = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * x), (0, 1.0))[1]
    y = tf.cond(x > 0, lambda: y * 2.0, lambda: y)
    graph_def = tf.get_default_graph().as_graph_def()
    tf.reset_default_graph()
    feed = tf.placeholder(tf.float32, [], name="feed")
    (y2,) = tf.import_graph_def(graph_def, input_map={"x:0": feed}, return_elements=[y.name], name="imported")
    dy = tf.gradients(y2, feed)[0]
    with tf.Session() as sess:
        assert sess.run([y2, dy], {feed: 2.0}) == [16.0, 24.0]  # 2 x^3 and 6 x^2


def test_switch_and_merge_pass_the_chosen_branchs_value_as_tf_slims_random_selector_does():
    from distflow.python.ops import control_flow_ops

    x = tf.constant([1.0, 2.0])
    selector = tf.placeholder(tf.int32, [])
    branches = [control_flow_ops.switch(x, tf.equal(selector, case))[1] * (case + 1) for case in range(3)]
    value, index = control_flow_ops.merge(branches)
    false_side, true_side = control_flow_ops.switch(x, tf.constant(False))
    either, which = control_flow_ops.merge([true_side + 10.0, false_side - 10.0])
    always, first = control_flow_ops.merge([x * 0.0, branches[0]])  # (an input of no switch is always live)
    with tf.Session() as sess:
        for case in range(3):
            got, at = sess.run([value, index], {selector: case})
            assert got.tolist() == [case + 1.0, 2.0 * (case + 1)] and at == case
        assert sess.run(either).tolist() == [-9.0, -8.0] and sess.run(which) == 1
        assert sess.run([always, first], {selector: 0})[1] == 0
    with pytest.raises(ValueError, match="pred must be a scalar bool"):
        control_flow_ops.switch(x, tf.constant([True, False]))
