"""A program's own layers, subclassing tf.layers.Layer as TF 1.x programs wrote them (the
model garden's Transformer): variable scopes named after the class, variables made once in
build() and reused by every later call, ops of every call in the first call's name scope."""

import numpy as np
import pytest

import distflow as tf


class LayerNormalization(tf.layers.Layer):
    def __init__(self, hidden_size):
        super(LayerNormalization, self).__init__()
        self.hidden_size = hidden_size

    def build(self, input_shape):
        self.input_shape_seen = input_shape
        self.scale = tf.get_variable("layer_norm_scale", [self.hidden_size], initializer=tf.ones_initializer())
        self.bias = tf.get_variable("layer_norm_bias", [self.hidden_size], initializer=tf.zeros_initializer())
        self.built = True

    def call(self, x, epsilon=1e-6):
        mean = tf.reduce_mean(x, axis=[-1], keepdims=True)
        variance = tf.reduce_mean(tf.square(x - mean), axis=[-1], keepdims=True)
        return (x - mean) * tf.rsqrt(variance + epsilon) * self.scale + self.bias


class SelfAttention(tf.layers.Layer):
    def __init__(self, hidden_size):
        super(SelfAttention, self).__init__()
        self.q = tf.layers.Dense(hidden_size, use_bias=False, name="q")
        self.k = tf.layers.Dense(hidden_size, use_bias=False, name="k")

    def call(self, x, bias):
        logits = tf.matmul(self.q(x), self.k(x), transpose_b=True) + bias
        return tf.matmul(tf.nn.softmax(logits), x)


class Stack(tf.layers.Layer):
    def __init__(self, layers, hidden_size):
        super(Stack, self).__init__()
        self.blocks = [(LayerNormalization(hidden_size), SelfAttention(hidden_size)) for _ in range(layers)]
        self.output_normalization = LayerNormalization(hidden_size)

    def call(self, x, bias):
        for n, (norm, attention) in enumerate(self.blocks):
            with tf.variable_scope("layer_%d" % n):
                x = x + attention(norm(x), bias)
        return self.output_normalization(x)


class Scaled(tf.layers.Layer):
    def build(self, input_shape):
        self.w = self.add_weight("w", [int(input_shape[-1])], initializer=tf.constant_initializer(2.0),
                                 regularizer=lambda w: tf.reduce_sum(w) * 0.5)
        self.counter = self.add_variable("counter", [], initializer=tf.zeros_initializer(), trainable=False)
        super(Scaled, self).build(input_shape)

    def call(self, x):
        self.add_update(tf.assign_add(self.counter, 1.0))
        return x * self.w


def test_subclassed_layers_name_and_reuse_their_variables_as_tf_does():
    x = tf.placeholder(tf.float32, [2, 3, 4])
    with tf.variable_scope("Transformer"):
        stack = Stack(2, 4)
        y = stack(x, 0.0)
        again = stack(x * 2, 1.0)  # (the same variables)
        other = Stack(1, 4)(x, 0.0)  # (a second object: a scope of its own)
    names = sorted(v.op.name for v in tf.global_variables())
    assert names == sorted([
        "Transformer/stack/layer_0/layer_normalization/layer_norm_scale",
        "Transformer/stack/layer_0/layer_normalization/layer_norm_bias",
        "Transformer/stack/layer_0/self_attention/q/kernel",
        "Transformer/stack/layer_0/self_attention/k/kernel",
        "Transformer/stack/layer_1/layer_normalization/layer_norm_scale",
        "Transformer/stack/layer_1/layer_normalization/layer_norm_bias",
        "Transformer/stack/layer_1/self_attention/q/kernel",
        "Transformer/stack/layer_1/self_attention/k/kernel",
        "Transformer/stack/layer_normalization/layer_norm_scale",
        "Transformer/stack/layer_normalization/layer_norm_bias",
        "Transformer/stack_1/layer_0/layer_normalization/layer_norm_scale",
        "Transformer/stack_1/layer_0/layer_normalization/layer_norm_bias",
        "Transformer/stack_1/layer_0/self_attention/q/kernel",
        "Transformer/stack_1/layer_0/self_attention/k/kernel",
        "Transformer/stack_1/layer_normalization/layer_norm_scale",
        "Transformer/stack_1/layer_normalization/layer_norm_bias"])
    # (every variable its first call made, its inner layers' too: TF's lists only add_weight's)
    assert len(stack.variables) == 10 and len(stack.trainable_variables) == 10
    assert stack.scope_name == "Transformer/stack"
    assert stack.output_normalization.input_shape_seen.as_list() == [2, 3, 4]
    # (every call's ops go to the first call's name scope)
    assert y.op.name.startswith("Transformer/stack/") and again.op.name.startswith("Transformer/stack/")
    assert other.op.name.startswith("Transformer/stack_1/")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        value = np.random.RandomState(0).randn(2, 3, 4).astype(np.float32)
        got, got_again = sess.run([y, again], {x: value})
    assert got.shape == (2, 3, 4) and np.allclose(got.mean(-1), 0, atol=1e-5)
    assert not np.allclose(got, got_again)
    with pytest.raises(ValueError, match="has not been used yet"):
        Stack(1, 4).scope_name


def test_add_weight_regularizer_and_updates_of_a_subclassed_layer():
    layer = Scaled()
    x = tf.constant([[1.0, 2.0]])
    y = layer(x)
    assert [v.op.name for v in layer.variables] == ["scaled/w", "scaled/counter"]
    assert [v.op.name for v in layer.trainable_variables] == ["scaled/w"]
    assert tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES) == layer.losses and len(layer.losses) == 1
    assert layer.updates and layer.updates[0] in tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    assert layer.count_params() == 3
    y2 = layer(x * 3)
    assert len(tf.global_variables()) == 2
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(y).tolist() == [[2.0, 4.0]] and sess.run(y2).tolist() == [[6.0, 12.0]]
        assert sess.run(tf.losses.get_regularization_loss()) == 2.0
        sess.run(layer.updates)  # (one a call)
        assert len(layer.updates) == 2 and sess.run(layer.counter) == 2.0


def test_a_subclass_without_call_says_so():
    class Empty(tf.layers.Layer):
        pass
    with pytest.raises(NotImplementedError, match="Empty subclasses tf.layers.Layer"):
        Empty()(tf.zeros([1]))
