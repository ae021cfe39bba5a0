"""TensorFlow's internal module paths (distflow.python): the imports TF 1.x programs wrote
give distflow's objects for the same TF names."""

import numpy as np
import pytest

import distflow as tf


def test_ops_framework_and_platform_modules_give_the_public_names():
    from distflow.python.framework import constant_op, dtypes, graph_util, ops, tensor_shape, tensor_util
    from distflow.python.ops import (array_ops, clip_ops, control_flow_ops, init_ops, math_ops, nn, nn_ops,
                                     random_ops, rnn, rnn_cell_impl, state_ops, variable_scope, variables)
    from distflow.python.platform import flags, gfile, test, tf_logging

    assert ops.Graph is tf.Graph and ops.convert_to_tensor is tf.convert_to_tensor
    assert ops.reset_default_graph is tf.reset_default_graph and ops.RegisterGradient is tf.RegisterGradient
    assert dtypes.float32 is tf.float32 and tensor_shape.TensorShape is tf.TensorShape
    assert tensor_util.constant_value is tf.contrib.util.constant_value and constant_op.constant is tf.constant
    assert graph_util.convert_variables_to_constants is tf.graph_util.convert_variables_to_constants
    assert math_ops.reduce_sum is tf.reduce_sum and nn_ops.relu is tf.nn.relu and nn.softmax is tf.nn.softmax
    assert array_ops.concat is tf.concat and clip_ops.clip_by_global_norm is tf.clip_by_global_norm
    assert control_flow_ops.cond is tf.cond and random_ops.random_normal is tf.random_normal
    assert rnn_cell_impl.LSTMCell is tf.nn.rnn_cell.LSTMCell and rnn.dynamic_rnn is tf.nn.dynamic_rnn
    assert variable_scope.variable_scope is tf.variable_scope and variables.Variable is tf.Variable
    assert state_ops.assign is tf.assign and init_ops.glorot_uniform_initializer is tf.glorot_uniform_initializer
    assert gfile.Exists is tf.gfile.Exists and tf_logging.info is tf.logging.info and test.TestCase is tf.test.TestCase
    assert flags.DEFINE_integer is tf.app.flags.DEFINE_integer
    import distflow.python.ops.math_ops as dotted
    assert dotted is math_ops
    with tf.Graph().as_default(), tf.Session() as sess:
        assert sess.run(math_ops.add(array_ops.ones([2]), 1.0)).tolist() == [2.0, 2.0]


def test_training_saved_model_keras_and_layers_paths():
    from distflow.python import keras
    from distflow.python.keras.layers import Dense
    from distflow.python.layers import core
    from distflow.python.saved_model import builder, signature_constants, tag_constants
    from distflow.python.training import moving_averages, saver, training_util

    assert Dense is tf.keras.layers.Dense and keras.models.Sequential is tf.keras.models.Sequential
    assert core.dense is tf.layers.dense and tag_constants.SERVING == "serve"
    assert signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY == "serving_default"
    assert builder.SavedModelBuilder is tf.saved_model.builder.SavedModelBuilder
    assert saver.Saver is tf.train.Saver
    assert training_util.get_or_create_global_step is tf.train.get_or_create_global_step
    assert callable(moving_averages.assign_moving_average)


def test_device_lib_lists_the_cpu_and_only_real_gpus():
    from distflow.python.client import device_lib

    devices = device_lib.list_local_devices()
    assert devices[0].name == "/device:CPU:0" and devices[0].device_type == "CPU"
    assert 'device_type: "CPU"' in repr(devices[0])
    # (distflow's simulated GPUs run CPU kernels: a program counting GPUs finds only real ones)
    gpus = [d.name for d in devices if d.device_type == "GPU"]
    assert bool(gpus) == tf.test.is_gpu_available()
    assert all(name.startswith("/device:GPU:") for name in gpus)


def test_inspect_checkpoint_prints_what_a_checkpoint_holds(tmp_path, capsys):
    from distflow.python.tools import inspect_checkpoint as chkp

    with tf.Graph().as_default():
        tf.Variable(np.ones(3, np.float32), name="v1")
        tf.Variable(-np.ones([2, 2], np.float32), name="v2")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "model.ckpt"))
    chkp.print_tensors_in_checkpoint_file(path, tensor_name="", all_tensors=True)
    out = capsys.readouterr().out
    assert "tensor_name:  v1\n[1. 1. 1.]" in out and "tensor_name:  v2" in out and "Total number of params: 7" in out
    chkp.print_tensors_in_checkpoint_file(path, tensor_name="v2", all_tensors=False)
    assert capsys.readouterr().out.startswith("tensor_name:  v2\n[[-1. -1.]")
    with pytest.raises(KeyError, match="v3"):
        chkp.print_tensors_in_checkpoint_file(path, tensor_name="v3", all_tensors=False)


def test_a_name_distflow_lacks_names_tensorflows_module():
    from distflow.python.ops import math_ops

    with pytest.raises(AttributeError, match="no 'not_a_function' for TensorFlow's tensorflow.python.ops.math_ops"):
        math_ops.not_a_function  # noqa: B018
    from distflow.python.framework import ops
    with pytest.raises(AttributeError, match="tensorflow.python.framework.ops"):
        ops.no_such_name  # noqa: B018


def test_tensorflows_protocol_buffer_modules_give_its_messages():
    from distflow.core.example import example_pb2
    from distflow.core.framework import graph_pb2, summary_pb2, types_pb2
    from distflow.core.protobuf import config_pb2, meta_graph_pb2, rewriter_config_pb2, saver_pb2
    from distflow.core.util import event_pb2

    assert graph_pb2.GraphDef is tf.GraphDef and meta_graph_pb2.MetaGraphDef is tf.MetaGraphDef
    assert types_pb2.DT_FLOAT == tf.float32.as_datatype_enum and saver_pb2.SaverDef.V2 == 2
    assert config_pb2.ConfigProto is tf.ConfigProto and example_pb2.Example is tf.train.Example
    # a summary written from the messages, as TF 1.x programs wrote their own values
    summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="loss", simple_value=0.5)])
    event = event_pb2.Event(wall_time=1.0, step=3, summary=summary)
    assert tf.Event.FromString(event.SerializeToString()).summary.value[0].simple_value == 0.5
    with tf.Graph().as_default() as g:
        tf.constant(1.0, name="c")
        assert graph_pb2.GraphDef.FromString(g.as_graph_def().SerializeToString()).node[0].name == "c"
    with pytest.raises(AttributeError, match="RewriterConfig.*tensorflow.core.protobuf.rewriter_config_pb2"):
        rewriter_config_pb2.RewriterConfig  # noqa: B018


def test_tensorflows_decorator_helpers_at_their_paths():
    # (TFLearn's vendored arg_scope decorates its layers with them)
    from distflow.python.util import tf_contextlib, tf_decorator

    def layer(x, size=3):
        """A layer."""
        return x * size

    def wrapper(*args, **kwargs):
        return layer(*args, **kwargs) + 1

    wrapped = tf_decorator.make_decorator(layer, wrapper)
    assert wrapped(2) == 7 and wrapped.__name__ == "layer" and wrapped.__doc__ == "A layer."
    assert tf_decorator.unwrap(wrapped) == ([wrapped], layer)

    @tf_contextlib.contextmanager
    def scope(values):
        values.append("in")
        yield len(values)
        values.append("out")

    seen = []
    with scope(seen) as n:
        assert n == 1
    assert seen == ["in", "out"] and scope.__name__ == "scope"


def test_a_program_may_hang_its_own_attributes_on_tensors_and_ops():
    # (TF 1.x's tensors and ops took any attribute: TFLearn's layers set .scope, .W and .b)
    x = tf.placeholder(tf.float32, [None, 2])
    y = tf.layers.dense(x, 3)
    y.scope, y.W = "Dense", "kernel"
    y.op.note = 1
    assert (y.scope, y.W, y.op.note) == ("Dense", "kernel", 1)
    with pytest.raises(AttributeError):
        x.scope  # noqa: B018


def test_tf_compat_v2_is_refused_with_its_reason():
    with pytest.raises(AttributeError, match="TensorFlow 2's API"):
        tf.compat.v2
    with pytest.raises(ImportError, match="TensorFlow 2's API"):
        import distflow.compat.v2  # noqa: F401
    assert tf.compat.v1 is tf


def test_tensorflows_module_paths_inside_contribs_parts():
    # The paths TF 1.x programs imported contrib's names from, as they wrote them.
    from distflow.contrib.framework.python.ops import add_arg_scope, arg_scope
    from distflow.contrib.framework.python.ops import variables as contrib_variables
    from distflow.contrib.layers.python.layers import initializers, layers, utils
    from distflow.contrib.learn.python.learn.datasets.mnist import read_data_sets
    from distflow.contrib.rnn.python.ops import core_rnn_cell
    from distflow.contrib.seq2seq.python.ops import attention_wrapper
    from distflow.contrib.slim.python.slim import learning
    from distflow.contrib.training.python.training import hparam
    from distflow.contrib.keras.api.keras.layers import Dense
    from distflow.contrib.keras.python.keras import backend
    import distflow.contrib.layers.python.layers.layers as layers_dotted

    assert arg_scope is tf.contrib.framework.arg_scope and add_arg_scope is tf.contrib.framework.add_arg_scope
    assert contrib_variables.get_or_create_global_step is tf.contrib.framework.get_or_create_global_step
    assert layers.conv2d is tf.contrib.layers.conv2d and layers_dotted.fully_connected is tf.contrib.layers.fully_connected
    assert layers.conv2d is not tf.layers.conv2d  # (contrib's layer functions, not tf.layers' of the same name)
    assert initializers.xavier_initializer is tf.contrib.layers.xavier_initializer
    assert utils.collect_named_outputs is tf.contrib.slim.utils.collect_named_outputs  # (TF's layers/utils.py)
    assert read_data_sets is tf.contrib.learn.datasets.mnist.read_data_sets
    assert core_rnn_cell.LSTMStateTuple is tf.contrib.rnn.LSTMStateTuple
    assert attention_wrapper.AttentionWrapper is tf.contrib.seq2seq.AttentionWrapper
    assert learning.train is tf.contrib.slim.learning.train
    assert hparam.HParams is tf.contrib.training.HParams
    assert Dense is tf.keras.layers.Dense and backend is tf.keras.backend

    # Used as pixel-cnn++ uses them: a function of its own given argument scopes.
    @add_arg_scope
    def scaled(x, scale=1.0):
        return x * scale

    with arg_scope([scaled], scale=3.0):
        with tf.Graph().as_default(), tf.Session() as sess:
            assert sess.run(scaled(tf.constant(2.0))) == 6.0

    # A name distflow lacks names TensorFlow's module; a module of a part distflow lacks
    # is not made up.
    with pytest.raises(AttributeError, match=r"tensorflow\.contrib\.layers\.python\.layers\.layers"):
        layers.no_such_layer  # noqa: B018
    with pytest.raises(ImportError):
        import distflow.contrib.no_such_part.python.ops  # noqa: F401
    with pytest.raises(ImportError):
        import distflow.contrib.layers.no_such_module  # noqa: F401
