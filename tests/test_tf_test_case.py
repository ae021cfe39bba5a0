"""``tf.test``: the test case TF 1.x programs' own tests are written with, run as unittest runs them."""

from __future__ import annotations

import collections
import math
import os
import unittest

import numpy as np
import pytest

import distflow as tf


def _run(case_class) -> unittest.TestResult:
    result = unittest.TestResult()
    unittest.TestLoader().loadTestsFromTestCase(case_class).run(result)
    return result


def _problems(result: unittest.TestResult) -> list[str]:
    return [f"{test.id()}: {trace}" for test, trace in result.failures + result.errors]


def test_each_test_starts_with_a_fresh_seeded_graph_and_reset_default_graph_works_inside():
    graphs = []

    class Case(tf.test.TestCase):
        def test_a(self):
            g = tf.get_default_graph()
            graphs.append(g)
            self.assertEqual(g.seed, 87654321)
            self.assertEqual(g.get_operations(), [])
            tf.constant(1.0, name="left_behind")

        def test_b(self):
            graphs.append(tf.get_default_graph())
            self.assertEqual(tf.get_default_graph().get_operations(), [])
            tf.reset_default_graph()  # (TF 1.x tests do; a nested default graph would refuse it)
            with self.cached_session() as sess:
                self.assertEqual(sess.run(tf.constant(2.0) * 3), 6.0)

        def test_session(self):  # (TF's own name for making sessions: skipped as a test)
            raise AssertionError("never run")

    result = _run(Case)
    assert _problems(result) == []
    assert result.testsRun == 3 and len(result.skipped) == 1
    assert graphs[0] is not graphs[1]


def test_sessions_cached_new_and_for_another_graph():
    class Case(tf.test.TestCase):
        def test_sessions(self):
            x = tf.constant([1.0, 2.0])
            with self.cached_session() as first:
                self.assertIs(tf.get_default_session(), first)
                self.assertAllEqual(self.evaluate(x * 2), [2.0, 4.0])
                self.assertAllEqual((x + 1).eval(), [2.0, 3.0])
            with self.cached_session() as again:
                self.assertIs(again, first)
            with self.test_session() as legacy:
                self.assertIs(legacy, first)
            with self.session() as fresh:
                self.assertIsNot(fresh, first)
            other = tf.Graph()
            with other.as_default():
                y = tf.constant(5)
            with self.test_session(graph=other) as sess:
                self.assertIs(sess.graph, other)
                self.assertEqual(sess.run(y), 5)
            with self.assertRaisesRegex(ValueError, "graph used to get the cached session is different"):
                with self.cached_session(graph=other):
                    pass

        def test_ops_without_a_device_go_to_the_cpu_unless_use_gpu(self):
            with self.session():
                a = tf.constant(1.0)
                with tf.device("/gpu:0"):
                    b = tf.constant(2.0)
            with self.session(use_gpu=True):
                c = tf.constant(3.0)
            self.assertDeviceEqual(a.device, "/device:CPU:0")
            self.assertDeviceEqual(b.device, "/gpu:0")
            self.assertEqual(c.device, "")

        def test_evaluate_takes_nested_structures(self):
            Pair = collections.namedtuple("Pair", "left right")
            got = self.evaluate({"p": Pair(tf.constant(1), tf.constant([2, 3])), "l": [tf.constant("s")]})
            self.assertEqual(got["p"].left, 1)
            self.assertAllEqual(got["p"].right, [2, 3])
            self.assertEqual(got["l"], [b"s"])

    assert _problems(_run(Case)) == []


def test_value_assertions_pass_and_fail_as_tensorflows():
    Point = collections.namedtuple("Point", "x y")

    class Case(tf.test.TestCase):
        def test_passing(self):
            self.assertAllClose({"a": [1.0, 2.0], "b": Point(np.float32(3), (4.0, [5.0]))},
                                {"a": np.array([1.0, 2.0 + 1e-7]), "b": Point(3.0, (4.0, [5.0]))})
            self.assertAllClose(tf.constant([1.0, 2.0]), [1.0, 2.0])
            self.assertAllEqual([np.nan, 1.0], [np.nan, 1.0])
            self.assertAllEqual(np.array([b"a", b"b"]), ["a", "b"])
            self.assertAllCloseAccordingToType(np.float16([1.0]), np.float16([1.0005]))
            self.assertNotAllClose([1.0], [1.1])
            self.assertNotAllEqual([1, 2], [1, 3])
            self.assertAllGreater([2, 3], 1)
            self.assertAllGreaterEqual([2, 3], 2)
            self.assertAllLess(tf.constant([2, 3]), 4)
            self.assertAllLessEqual([2, 3], 3)
            self.assertAllInRange([0.0, 0.5, 1.0], 0.0, 1.0)
            self.assertAllInSet([1, 2, 2], {1, 2})
            self.assertDTypeEqual(np.zeros(2, np.int64), np.int64)
            self.assertNear(1.0, 1.05, 0.1)
            self.assertArrayNear([1.0, 2.0], [1.01, 1.99], 0.02)
            self.assertNDArrayNear(np.ones(4), np.ones(4) + 0.01, 0.1)
            self.assertShapeEqual(np.zeros([2, 3]), tf.zeros([2, 3]))
            self.assertProtoEquals("name: 'n' op: 'Const'", tf.NodeDef(name="n", op="Const"))
            self.assertLen([1, 2], 2)
            self.assertEmpty([])
            self.assertNotEmpty([0])
            self.assertStartsWith("distflow", "dist")
            self.assertEndsWith("distflow", "flow")
            self.assertBetween(2, 1, 3)
            self.assertItemsEqual([1, 2, 2], [2, 1, 2])
            self.assertContainsSubset([1], [1, 2])

        def test_close_fails_naming_the_path(self):
            with self.assertRaisesRegex(AssertionError, r"a\[b\]\[1\] is different"):
                self.assertAllClose({"b": [1.0, 2.0, [3.0]]}, {"b": [1.0, 2.5, [3.0]]})

        def test_equal_fails_on_shape(self):
            with self.assertRaisesRegex(AssertionError, "Shape mismatch"):
                self.assertAllEqual([1, 2], [[1, 2]])

        def test_range_fails_on_nan(self):
            with self.assertRaisesRegex(AssertionError, "NaN"):
                self.assertAllInRange([0.5, math.nan], 0.0, 1.0)

        def test_near_fails(self):
            with self.assertRaisesRegex(AssertionError, "difference"):
                self.assertNear(1.0, 2.0, 0.5)

    result = _run(Case)
    assert _problems(result) == []
    assert result.testsRun == 6 and len(result.skipped) == 1  # (test_session, the method, is skipped)


def test_error_assertions_match_a_failing_steps_message():
    class Case(tf.test.TestCase):
        def test_op_error(self):
            x = tf.placeholder(tf.float32)
            check = tf.assert_positive(x, message="must be positive")
            with self.cached_session() as sess:
                with self.assertRaisesOpError("must be positive"):
                    sess.run(check, {x: -1.0})
                with self.assertRaisesWithPredicateMatch(tf.errors.InvalidArgumentError,
                                                         lambda e: e.op is not None and e.op.type == "Assert"):
                    sess.run(check, {x: -1.0})

        def test_no_error_fails(self):
            with self.assertRaisesRegex(AssertionError, "OpError not raised"):
                with self.assertRaisesOpError("anything"):
                    pass

        def test_other_message_fails(self):
            with self.assertRaisesRegex(AssertionError, "Exception of type"):
                with self.assertRaisesOpError("another message"):
                    raise tf.errors.InvalidArgumentError(None, None, "what happened")

    assert _problems(_run(Case)) == []


def test_a_checked_threads_failure_fails_its_test():
    class Case(tf.test.TestCase):
        def test_fails(self):
            def body():
                raise RuntimeError("in the thread")
            t = self.checkedThread(body)
            t.start()
            t.join()

        def test_passes(self):
            seen = []
            t = self.checkedThread(seen.append, args=(1,))
            t.start()
            t.join()
            self.assertEqual(seen, [1])

    result = _run(Case)
    assert [test.id().rsplit(".", 1)[-1] for test, _ in result.failures] == ["test_fails"]
    assert "in the thread" in result.failures[0][1]


def test_temp_dirs_are_the_tests_own_and_exist():
    class Case(tf.test.TestCase):
        def test_dir(self):
            d = self.get_temp_dir()
            self.assertTrue(os.path.isdir(d))
            self.assertEqual(self.get_temp_dir(), d)
            self.assertTrue(d.startswith(tf.test.get_temp_dir()))

    assert _problems(_run(Case)) == []


def test_assert_equal_graph_def_ignores_node_order_and_names_a_difference():
    def build(order, value=1.0):
        g = tf.Graph()
        with g.as_default():
            made = {}
            for name in order:
                made[name] = tf.constant(value, name=name) if name != "sum" else None
            tf.add(made["a"], made["b"], name="sum")
        return g.as_graph_def()

    tf.test.assert_equal_graph_def(build(["a", "b"]), build(["b", "a"]))
    with pytest.raises(AssertionError, match="Node named 'a' differs"):
        tf.test.assert_equal_graph_def(build(["a", "b"]), build(["a", "b"], value=2.0))
    other = build(["a", "b"])
    other.node.add(name="extra", op="NoOp")
    with pytest.raises(AssertionError, match="'extra' in expected is not in actual"):
        tf.test.assert_equal_graph_def(build(["a", "b"]), other)
    with pytest.raises(TypeError, match="GraphDef"):
        tf.test.assert_equal_graph_def("not a graph", other)


def test_create_local_cluster_runs_a_graph_across_its_tasks():
    workers, ps_servers = tf.test.create_local_cluster(num_workers=2, num_ps=1)
    try:
        with tf.Graph().as_default():
            with tf.device("/job:ps/task:0"):
                v = tf.Variable([1.0, 2.0])
            with tf.device("/job:worker/task:1"):
                doubled = v * 2
            with tf.Session(workers[0].target) as sess:
                sess.run(v.initializer)
                assert sess.run(doubled).tolist() == [2.0, 4.0]
                assert "job:ps" in v.device and "job:worker/task:1" in doubled.device
    finally:
        for server in workers + ps_servers:
            server.stop()


def test_stubs_and_mock():
    class Holder:
        value = 1

    stubs = tf.test.StubOutForTesting()
    stubs.Set(Holder, "value", 2)
    assert Holder.value == 2
    stubs.UnsetAll()
    assert Holder.value == 1
    with tf.test.mock.patch.object(Holder, "value", 3):
        assert Holder.value == 3
    assert not tf.test.is_built_with_rocm() and not tf.test.is_built_with_xla()


def test_a_benchmark_times_a_fetch():
    with tf.Graph().as_default(), tf.Session() as sess:
        got = tf.test.Benchmark().run_op_benchmark(sess, tf.constant(1.0) + 1, min_iters=3, name="add")
    assert got["iters"] == 3 and got["wall_time"] > 0


# -- defects a TF 1.x program's own tests (BERT's) found


def test_dimensions_and_static_shapes_convert_to_integer_tensors():
    x = tf.zeros([2, 3])
    d0, d1 = x.shape[0], x.shape[-1]
    with tf.Session() as sess:
        assert sess.run(tf.reshape(x, [-1, d1])).shape == (2, 3)
        assert sess.run(tf.fill([d1], 1.0)).tolist() == [1.0] * 3
        assert sess.run(tf.tile(x, [1, d1])).shape == (2, 9)
        assert sess.run(tf.one_hot([0], d1)).shape == (1, 3)
        assert sess.run(tf.range(d1)).tolist() == [0, 1, 2]
        assert sess.run(tf.convert_to_tensor([d0, d1])).tolist() == [2, 3]
        assert sess.run(tf.convert_to_tensor(x.shape)).tolist() == [2, 3]
        assert sess.run(tf.constant(d1)).dtype == np.int32
        assert sess.run(x * d1).tolist() == [[0.0] * 3] * 2
        assert len(tf.split(x, d1, axis=1)) == 3
    with pytest.raises(ValueError, match="unknown Dimension"):
        tf.convert_to_tensor(tf.placeholder(tf.float32, [None, 3]).shape[0])
    with pytest.raises(ValueError, match="partially known TensorShape"):
        tf.convert_to_tensor(tf.placeholder(tf.float32, [None, 3]).shape)


def test_expand_dims_takes_an_axis_of_one_element():
    x = tf.constant([[1, 2]])
    y = tf.expand_dims(x, axis=[-1])
    assert y.shape.as_list() == [1, 2, 1]
    axis = tf.placeholder(tf.int32, [1])
    z = tf.expand_dims(x, axis)
    with tf.Session() as sess:
        assert sess.run(y).shape == (1, 2, 1)
        assert sess.run(z, {axis: [0]}).shape == (1, 1, 2)
    with pytest.raises(ValueError, match="single value"):
        tf.expand_dims(x, [0, 1])


def test_assertions_are_named_as_tensorflows():
    assert tf.Assert(True, [1]).name == "Assert/Assert"
    assert tf.assert_less_equal(7, 512).name == "assert_less_equal/Assert/Assert"
    with tf.name_scope("bert/embeddings"):
        assert tf.assert_less_equal(7, 512).name.startswith("bert/embeddings/assert_less_equal/")


def test_a_case_may_keep_its_own_config_and_values_in_attributes():
    """TF's own tests keep a RunConfig in ``self._config`` and values in ``self._value``: the
    test case's helpers do not live under those names."""

    class Case(tf.test.TestCase):
        def setUp(self):
            super().setUp()
            self._config = tf.estimator.RunConfig(tf_random_seed=1)
            self._value, self._values, self._cached = 3.0, [1.0], "mine"

        def test_session_and_asserts(self):
            with self.test_session() as sess:
                self.assertAllClose(sess.run(tf.constant([1.0, 2.0])), [1.0, 2.0])
            with self.cached_session() as sess:
                self.assertEqual(sess.run(tf.constant(self._value)), 3.0)
            self.assertAllEqual(self._values, [1.0])
            self.assertEqual(self._cached, "mine")

    result = _run(Case)
    assert len(result.skipped) == result.testsRun - 1 and not _problems(result), _problems(result)
