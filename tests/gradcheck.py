"""Gradient checking by numbers: symbolic gradients against float64 central differences.

For y = f(x1, ..., xn) the check draws a random cotangent r and random directions d,
and compares <d, d(r.y)/dxi> from ``tf.gradients`` with the central difference
(r.f(xi + eps d) - r.f(xi - eps d)) / (2 eps).
"""

import numpy as np

import distflow as tf


def check_gradients(build, inputs, directions=3, eps=1e-6, rtol=1e-5, atol=1e-8, order=1, seed=0,
                    wrt=None):
    """Builds ``build(*placeholders)`` in a fresh graph and checks its gradients.

    ``order=2`` checks the gradient of the gradient: the function checked is then
    x -> d(r1.f)/dx (so gradients of gradient ops are exercised).
    ``wrt`` lists the input positions to check (default: every float input).
    """
    rng = np.random.default_rng(seed)
    tf.reset_default_graph()
    inputs = [np.asarray(x) for x in inputs]
    phs = [tf.placeholder(tf.as_dtype(x.dtype), x.shape, name=f"x{i}") for i, x in enumerate(inputs)]
    y = y0 = build(*phs)
    wrt = [i for i, x in enumerate(inputs) if x.dtype == np.float64] if wrt is None else wrt
    if order == 2:
        r1 = tf.placeholder(tf.float64, name="r1")
        firsts = [tf.convert_to_tensor(g) if isinstance(g, tf.IndexedSlices) else g  # (densified, to square)
                  for g in tf.gradients(tf.reduce_sum(y * r1), [phs[i] for i in wrt])]
        y = tf.add_n([tf.reduce_sum(g * g) for g in firsts if g is not None])
    _record_checked(tf.get_default_graph())
    r = tf.placeholder(tf.float64, name="r")
    loss = tf.reduce_sum(y * r)
    grads = [tf.convert_to_tensor(g) if isinstance(g, tf.IndexedSlices) else g  # checked dense
             for g in tf.gradients(loss, [phs[i] for i in wrt])]
    feed = dict(zip(phs, inputs))
    with tf.Session() as sess:
        if order == 2:
            feed[r1] = rng.standard_normal(np.shape(sess.run(y0, feed)))
        y_value = sess.run(y, feed)
        feed[r] = rng.standard_normal(np.shape(y_value))
        symbolic = sess.run([g for g in grads if g is not None], feed)
        assert len(symbolic) == len(wrt), f"some inputs got no gradient: {grads}"
        for pos, (i, g) in enumerate(zip(wrt, symbolic)):
            assert g.shape == inputs[i].shape, f"input {i}: gradient shape {g.shape} != {inputs[i].shape}"
            for _ in range(directions):
                d = rng.standard_normal(inputs[i].shape)
                plus, minus = dict(feed), dict(feed)
                plus[phs[i]] = inputs[i] + eps * d
                minus[phs[i]] = inputs[i] - eps * d
                numeric = (sess.run(loss, plus) - sess.run(loss, minus)) / (2 * eps)
                analytic = float(np.sum(g * d))
                assert np.isclose(analytic, numeric, rtol=rtol, atol=atol), (
                    f"input {i}: symbolic {analytic!r} vs numeric {numeric!r}")


# The op types whose gradients the checks of this run reached (conftest.py reads it at the
# end of a full run and fails it if an op type with a registered gradient is not there).
CHECKED_OP_TYPES: set = set()


def _record_checked(graph) -> None:
    CHECKED_OP_TYPES.update(op.type for op in graph.get_operations())


def check_resource_gradients(build, values, directions=3, eps=1e-6, rtol=1e-5, atol=1e-8, seed=0):
    """``check_gradients`` for resource variables: ``build(*handles)`` reads float64 resource
    variables holding ``values`` (through their handles, as TensorFlow's graphs do), and the
    gradients of a random projection of its result with respect to each variable are compared
    with central differences, the variable assigned each perturbed value in turn."""
    from distflow.framework import ops  # noqa: PLC0415 - the graph's own create_op, for TensorFlow's op types
    rng = np.random.default_rng(seed)
    tf.reset_default_graph()
    graph = ops.get_default_graph()
    values = [np.asarray(v, np.float64) for v in values]
    handles, feeds = [], []
    for i, value in enumerate(values):
        handles.append(graph.create_op("VarHandleOp", [], {"dtype": tf.float64, "shape": tf.TensorShape(value.shape),
                                                           "shared_name": f"v{i}", "container": ""}).outputs[0])
        feeds.append(tf.placeholder(tf.float64, value.shape))
    assigns = [graph.create_op("AssignVariableOp", [h, f], {"dtype": tf.float64}) for h, f in zip(handles, feeds)]
    y = build(*handles)
    r = tf.placeholder(tf.float64, name="r")
    loss = tf.reduce_sum(y * r)
    grads = [tf.convert_to_tensor(g) if isinstance(g, tf.IndexedSlices) else g for g in tf.gradients(loss, handles)]
    _record_checked(graph)
    with tf.Session() as sess:
        sess.run(assigns, dict(zip(feeds, values)))
        feed = {r: rng.standard_normal(np.shape(sess.run(y)))}
        symbolic = sess.run(grads, feed)
        for i, g in enumerate(symbolic):
            assert g.shape == values[i].shape, f"variable {i}: gradient shape {g.shape} != {values[i].shape}"
            for _ in range(directions):
                d = rng.standard_normal(values[i].shape)
                losses = []
                for sign in (1, -1):
                    sess.run(assigns[i], {feeds[i]: values[i] + sign * eps * d})
                    losses.append(sess.run(loss, feed))
                sess.run(assigns[i], {feeds[i]: values[i]})
                numeric = (losses[0] - losses[1]) / (2 * eps)
                analytic = float(np.sum(g * d))
                assert np.isclose(analytic, numeric, rtol=rtol, atol=atol), (
                    f"variable {i}: symbolic {analytic!r} vs numeric {numeric!r}")
