"""tf.profiler: a graph's parameters and float operations equal TensorFlow 2.21's profiler's
counts for the same graph (the figures below), by scope and by op type."""

import distflow as tf

# TensorFlow 2.21's tf.compat.v1.profiler.profile of _model()'s graph:
TF_FLOAT_OPS, TF_PARAMETERS = 12324842, 24458


def _model():
    x = tf.placeholder(tf.float32, [8, 28, 28, 1])
    w1 = tf.get_variable("w1", [5, 5, 1, 32])
    b1 = tf.get_variable("b1", [32])
    h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w1, [1, 1, 1, 1], "SAME"), b1))
    h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    d = tf.nn.depthwise_conv2d(h, tf.get_variable("dw", [3, 3, 32, 2]), [1, 1, 1, 1], "VALID")
    flat = tf.reshape(tf.nn.avg_pool(d, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"), [8, -1])
    with tf.variable_scope("fc"):
        w2 = tf.get_variable("w", [flat.shape[1], 10])
        logits = tf.matmul(flat, w2) + tf.get_variable("b", [10])
    y = tf.placeholder(tf.float32, [8, 10])
    return tf.reduce_mean(tf.square(tf.nn.softmax(logits) - y)) + 0.01 * tf.nn.l2_loss(w2)


def test_parameters_and_float_operations_as_tensorflow_counts_them(tmp_path, capsys):
    with tf.Graph().as_default() as graph:
        _model()
        builder = tf.profiler.ProfileOptionBuilder
        flops = tf.profiler.profile(graph, options=builder(builder.float_operation()).with_empty_output().build())
        params = tf.profiler.profile(graph, options=builder.trainable_variables_parameter())
        by_type = tf.profiler.profile(graph, cmd="op", options=builder(builder.float_operation())
                                      .with_file_output(str(tmp_path / "report.txt")).build())
    assert flops.total_float_ops == TF_FLOAT_OPS and params.total_parameters == TF_PARAMETERS
    assert [c.name for c in params.children] == ["b1", "dw", "fc", "w1"]  # (by name scope)
    fc = params.children[2]
    assert fc.total_parameters == 6 * 6 * 64 * 10 + 10 and [c.name for c in fc.children] == ["fc/b", "fc/w"]
    assert by_type.children[0].name == "Conv2D" and by_type.children[0].total_float_ops == 8 * 28 * 28 * 32 * 25 * 2
    assert sum(c.total_float_ops for c in by_type.children) == TF_FLOAT_OPS
    assert "Conv2D (10035200 flops)" in (tmp_path / "report.txt").read_text()
    assert "_TFProfRoot (24458 params)" in capsys.readouterr().out  # (the default output: stdout)
