"""``tf.contrib.legacy_seq2seq``: TF 1.x's sequence-to-sequence models over Python lists of
per-step tensors (the translation tutorial's ``embedding_attention_seq2seq`` and
``model_with_buckets``), with TF's variable names, so that their checkpoints load; and the
per-step sequence losses of the PTB tutorial.

Every model is unrolled as a static RNN: ``encoder_inputs`` and ``decoder_inputs`` are lists
of [batch] symbol ids (the embedding models) or [batch, depth] inputs. With
``feed_previous=True`` (or a boolean tensor deciding it when the step runs) the decoder
feeds itself its previous output's most likely symbol instead of ``decoder_inputs[i]``
(all but the first, the "GO" symbol).
"""

from __future__ import annotations

import copy

from .._namespace import missing
from ..framework import dtypes, nest, ops
from ..layers.rnn import legacy_sequence_loss as sequence_loss  # noqa: F401
from ..layers.rnn import sequence_loss_by_example, static_rnn
from ..layers.rnn_cell import RNNCell, _Linear
from ..ops import array_ops, control_flow_v2, conv_ops, math_ops, nn_impl, nn_ops, reduction_ops
from ..ops import slicing_ops
from ..ops import variable_scope as vs
from .rnn import EmbeddingWrapper, OutputProjectionWrapper


def _linear(args, output_size: int, bias: bool):
    """``concat(args) W + b`` with ``kernel`` and ``bias`` in the current variable scope."""
    args = list(args) if isinstance(args, (list, tuple)) else [args]
    return _Linear(_Linear.depth(args), output_size, bias, dtype=args[0].dtype.base_dtype)(args)


def _extract_argmax_and_embed(embedding, output_projection=None, update_embedding=True):
    """A loop function: the embedding of the previous output's most likely symbol."""
    def loop_function(prev, _):
        if output_projection is not None:
            prev = nn_ops.bias_add(math_ops.matmul(prev, output_projection[0]), output_projection[1])
        embedded = nn_impl.embedding_lookup(embedding, reduction_ops.argmax(prev, 1))
        return embedded if update_embedding else array_ops.stop_gradient(embedded)

    return loop_function


def rnn_decoder(decoder_inputs, initial_state, cell, loop_function=None, scope=None):
    """``cell`` run over ``decoder_inputs`` from ``initial_state``; with ``loop_function``,
    input i > 0 is ``loop_function(output i-1, i)`` instead. (outputs, final state)."""
    with vs.variable_scope(scope or "rnn_decoder"):
        state, outputs, prev = initial_state, [], None
        for i, inp in enumerate(decoder_inputs):
            if loop_function is not None and prev is not None:
                with vs.variable_scope("loop_function", reuse=True):
                    inp = loop_function(prev, i)
            if i > 0:
                vs.get_variable_scope().reuse_variables()
            output, state = cell(inp, state)
            outputs.append(output)
            if loop_function is not None:
                prev = output
    return outputs, state


def basic_rnn_seq2seq(encoder_inputs, decoder_inputs, cell, dtype=dtypes.float32, scope=None):
    """An encoder (a copy of ``cell``) whose final state starts the decoder (``cell``)."""
    with vs.variable_scope(scope or "basic_rnn_seq2seq"):
        _, enc_state = static_rnn(copy.deepcopy(cell), encoder_inputs, dtype=dtype)
        return rnn_decoder(decoder_inputs, enc_state, cell)


def tied_rnn_seq2seq(encoder_inputs, decoder_inputs, cell, loop_function=None, dtype=dtypes.float32, scope=None):
    """``basic_rnn_seq2seq`` whose encoder and decoder share ``cell``'s variables."""
    with vs.variable_scope("combined_tied_rnn_seq2seq"):
        scope = scope or "tied_rnn_seq2seq"
        _, enc_state = static_rnn(cell, encoder_inputs, dtype=dtype, scope=scope)
        vs.get_variable_scope().reuse_variables()
        return rnn_decoder(decoder_inputs, enc_state, cell, loop_function=loop_function, scope=scope)


def _checked_projection(output_projection, num_symbols, dtype):
    if output_projection is None:
        return None
    weights = ops.convert_to_tensor(output_projection[0], dtype=dtype)
    weights.shape.assert_is_compatible_with([None, num_symbols])
    biases = ops.convert_to_tensor(output_projection[1], dtype=dtype)
    biases.shape.assert_is_compatible_with([num_symbols])
    return weights, biases


def embedding_rnn_decoder(decoder_inputs, initial_state, cell, num_symbols, embedding_size, output_projection=None,
                          feed_previous=False, update_embedding_for_previous=True, scope=None):
    """``rnn_decoder`` over the embeddings (an ``embedding`` variable of this scope) of the
    symbol ids ``decoder_inputs``."""
    with vs.variable_scope(scope or "embedding_rnn_decoder") as found:
        output_projection = _checked_projection(output_projection, num_symbols, found.dtype)
        embedding = vs.get_variable("embedding", [num_symbols, embedding_size])
        loop_function = _extract_argmax_and_embed(embedding, output_projection, update_embedding_for_previous) \
            if feed_previous else None
        embedded = [nn_impl.embedding_lookup(embedding, i) for i in decoder_inputs]
        return rnn_decoder(embedded, initial_state, cell, loop_function=loop_function)


def _either_feed(feed_previous, decode, decoder_inputs, encoder_state):
    """``decode(feed_previous)`` for a Python bool; for a boolean tensor, both decoders (the
    second reusing the first's variables) and a cond choosing between them when the step runs."""
    if isinstance(feed_previous, bool):
        return decode(feed_previous)

    def branch(feed):
        with vs.variable_scope(vs.get_variable_scope(), reuse=None if feed else True):
            outputs, state = decode(feed, update_embedding_for_previous=False)
            return outputs + nest.flatten(state)

    chosen = control_flow_v2.cond(feed_previous, lambda: branch(True), lambda: branch(False))
    n = len(decoder_inputs)
    state = nest.pack_sequence_as(encoder_state, chosen[n:]) if nest.is_nested(encoder_state) else chosen[n]
    return chosen[:n], state


def embedding_rnn_seq2seq(encoder_inputs, decoder_inputs, cell, num_encoder_symbols, num_decoder_symbols,
                          embedding_size, output_projection=None, feed_previous=False, dtype=None, scope=None):
    """Embedded encoder and decoder: the encoder is an ``EmbeddingWrapper`` around a copy of
    ``cell``; the decoder's outputs are projected to ``num_decoder_symbols`` logits (by an
    ``OutputProjectionWrapper`` unless ``output_projection`` is given)."""
    with vs.variable_scope(scope or "embedding_rnn_seq2seq") as found:
        if dtype is not None:
            found.set_dtype(dtype)
        dtype = found.dtype
        encoder_cell = EmbeddingWrapper(copy.deepcopy(cell), embedding_classes=num_encoder_symbols,
                                        embedding_size=embedding_size)
        _, encoder_state = static_rnn(encoder_cell, encoder_inputs, dtype=dtype)
        if output_projection is None:
            cell = OutputProjectionWrapper(cell, num_decoder_symbols)

        def decode(feed, update_embedding_for_previous=True):
            return embedding_rnn_decoder(decoder_inputs, encoder_state, cell, num_decoder_symbols, embedding_size,
                                         output_projection=output_projection, feed_previous=feed,
                                         update_embedding_for_previous=update_embedding_for_previous)

        return _either_feed(feed_previous, decode, decoder_inputs, encoder_state)


def embedding_tied_rnn_seq2seq(encoder_inputs, decoder_inputs, cell, num_symbols, embedding_size,
                               num_decoder_symbols=None, output_projection=None, feed_previous=False, dtype=None,
                               scope=None):
    """``tied_rnn_seq2seq`` over the embeddings of ids of one vocabulary (one ``embedding``
    for the encoder's and the decoder's inputs), the outputs projected to
    ``num_decoder_symbols`` (default ``num_symbols``) logits."""
    with vs.variable_scope(scope or "embedding_tied_rnn_seq2seq", dtype=dtype) as found:
        dtype = found.dtype
        output_projection = _checked_projection(output_projection, num_symbols, dtype)
        embedding = vs.get_variable("embedding", [num_symbols, embedding_size], dtype=dtype)
        encoder_embedded = [nn_impl.embedding_lookup(embedding, x) for x in encoder_inputs]
        decoder_embedded = [nn_impl.embedding_lookup(embedding, x) for x in decoder_inputs]
        if output_projection is None:
            cell = OutputProjectionWrapper(cell, num_symbols if num_decoder_symbols is None else num_decoder_symbols)

        def decode(feed, update_embedding_for_previous=True):
            loop_function = _extract_argmax_and_embed(embedding, output_projection, update_embedding_for_previous) \
                if feed else None
            return tied_rnn_seq2seq(encoder_embedded, decoder_embedded, cell, loop_function=loop_function,
                                    dtype=dtype)

        return _either_feed(feed_previous, decode, decoder_inputs, cell.state_size)


def one2many_rnn_seq2seq(encoder_inputs, decoder_inputs_dict, enc_cell, dec_cells_dict, num_encoder_symbols,
                         num_decoder_symbols_dict, embedding_size, feed_previous=False, dtype=None, scope=None):
    """One embedded encoder, and one embedded decoder per key of ``decoder_inputs_dict`` (each
    with its cell and vocabulary), all starting from the encoder's final state:
    ({key: outputs}, {key: final state})."""
    if not isinstance(enc_cell, RNNCell):
        raise TypeError(f"enc_cell is not an RNNCell: {type(enc_cell)}")
    if set(dec_cells_dict) != set(decoder_inputs_dict):
        raise ValueError("keys of dec_cells_dict != keys of decoder_inputs_dict")
    for dec_cell in dec_cells_dict.values():
        if not isinstance(dec_cell, RNNCell):
            raise TypeError(f"dec_cell is not an RNNCell: {type(dec_cell)}")
    outputs_dict, state_dict = {}, {}
    with vs.variable_scope(scope or "one2many_rnn_seq2seq", dtype=dtype) as found:
        dtype = found.dtype
        encoder_cell = EmbeddingWrapper(enc_cell, embedding_classes=num_encoder_symbols,
                                        embedding_size=embedding_size)
        _, encoder_state = static_rnn(encoder_cell, encoder_inputs, dtype=dtype)
        for name, decoder_inputs in decoder_inputs_dict.items():
            with vs.variable_scope(f"one2many_decoder_{name}"):
                dec_cell = OutputProjectionWrapper(dec_cells_dict[name], num_decoder_symbols_dict[name])

                def decode(feed, update_embedding_for_previous=True, cell=dec_cell, inputs=decoder_inputs,
                           symbols=num_decoder_symbols_dict[name]):
                    return embedding_rnn_decoder(inputs, encoder_state, cell, symbols, embedding_size,
                                                 feed_previous=feed)

                outputs_dict[name], state_dict[name] = _either_feed(feed_previous, decode, decoder_inputs,
                                                                    encoder_state)
    return outputs_dict, state_dict


def attention_decoder(decoder_inputs, initial_state, attention_states, cell, output_size=None, num_heads=1,
                      loop_function=None, dtype=None, scope=None, initial_state_attention=False):
    """An RNN decoder that reads ``attention_states`` [batch, length, size] at every step
    (Vinyals et al.'s attention, as TF 1.x's): each step's input is ``linear(input, previous
    reads)``; after the cell, each head reads ``softmax(V . tanh(W h_j + U state))``-weighted
    ``attention_states``; the output is ``linear(cell output, reads)`` of ``output_size``."""
    if not decoder_inputs:
        raise ValueError("Must provide at least 1 input to attention decoder.")
    if num_heads < 1:
        raise ValueError("With less than 1 heads, use a non-attention decoder.")
    if attention_states.shape.ndims != 3 or attention_states.shape[2].value is None:
        raise ValueError(f"Shape[2] of attention_states must be known: {attention_states.shape}")
    output_size = cell.output_size if output_size is None else output_size
    with vs.variable_scope(scope or "attention_decoder", dtype=dtype) as found:
        dtype = found.dtype
        batch = array_ops.shape(decoder_inputs[0])[0]
        length = attention_states.shape[1].value
        if length is None:
            length = array_ops.shape(attention_states)[1]
        size = attention_states.shape[2].value
        hidden = array_ops.reshape(attention_states, array_ops.stack([-1, length, 1, size]))
        features, v = [], []
        for a in range(num_heads):  # (W h_j for every j once: a 1x1 convolution, as TF's variables are)
            k = vs.get_variable(f"AttnW_{a}", [1, 1, size, size])
            features.append(conv_ops.conv2d(hidden, k, [1, 1, 1, 1], "SAME"))
            v.append(vs.get_variable(f"AttnV_{a}", [size]))

        def attention(query):
            query = slicing_ops.concat(nest.flatten(query), 1) if nest.is_nested(query) else query
            reads = []
            for a in range(num_heads):
                with vs.variable_scope(f"Attention_{a}"):
                    y = array_ops.reshape(_linear(query, size, True), [-1, 1, 1, size])
                    scores = reduction_ops.reduce_sum(v[a] * math_ops.tanh(features[a] + y), [2, 3])
                    weights = array_ops.reshape(nn_ops.softmax(scores), array_ops.stack([-1, length, 1, 1]))
                    reads.append(array_ops.reshape(reduction_ops.reduce_sum(weights * hidden, [1, 2]), [-1, size]))
            return reads

        reads = []
        for _ in range(num_heads):
            zero = array_ops.zeros(array_ops.stack([batch, size]), dtype=dtype)
            zero.set_shape([None, size])
            reads.append(zero)
        if initial_state_attention:
            reads = attention(initial_state)
        state, outputs, prev = initial_state, [], None
        for i, inp in enumerate(decoder_inputs):
            if i > 0:
                vs.get_variable_scope().reuse_variables()
            if loop_function is not None and prev is not None:
                with vs.variable_scope("loop_function", reuse=True):
                    inp = loop_function(prev, i)
            depth = inp.shape.with_rank(2)[1].value
            if depth is None:
                raise ValueError(f"Could not infer input size from input: {inp.name}")
            cell_output, state = cell(_linear([inp] + reads, depth, True), state)
            if i == 0 and initial_state_attention:
                with vs.variable_scope(vs.get_variable_scope(), reuse=True):
                    reads = attention(state)
            else:
                reads = attention(state)
            with vs.variable_scope("AttnOutputProjection"):
                output = _linear([cell_output] + reads, output_size, True)
            if loop_function is not None:
                prev = output
            outputs.append(output)
    return outputs, state


def embedding_attention_decoder(decoder_inputs, initial_state, attention_states, cell, num_symbols, embedding_size,
                                num_heads=1, output_size=None, output_projection=None, feed_previous=False,
                                update_embedding_for_previous=True, dtype=None, scope=None,
                                initial_state_attention=False):
    """``attention_decoder`` over the embeddings of the symbol ids ``decoder_inputs``."""
    output_size = cell.output_size if output_size is None else output_size
    if output_projection is not None:
        ops.convert_to_tensor(output_projection[1], dtype=dtype).shape.assert_is_compatible_with([num_symbols])
    with vs.variable_scope(scope or "embedding_attention_decoder", dtype=dtype):
        embedding = vs.get_variable("embedding", [num_symbols, embedding_size])
        loop_function = _extract_argmax_and_embed(embedding, output_projection, update_embedding_for_previous) \
            if feed_previous else None
        embedded = [nn_impl.embedding_lookup(embedding, i) for i in decoder_inputs]
        return attention_decoder(embedded, initial_state, attention_states, cell, output_size=output_size,
                                 num_heads=num_heads, loop_function=loop_function,
                                 initial_state_attention=initial_state_attention)


def embedding_attention_seq2seq(encoder_inputs, decoder_inputs, cell, num_encoder_symbols, num_decoder_symbols,
                                embedding_size, num_heads=1, output_projection=None, feed_previous=False, dtype=None,
                                scope=None, initial_state_attention=False):
    """The translation tutorial's model: an embedded encoder whose outputs the embedded
    attention decoder reads, its outputs projected to ``num_decoder_symbols`` logits."""
    with vs.variable_scope(scope or "embedding_attention_seq2seq", dtype=dtype) as found:
        dtype = found.dtype
        encoder_cell = EmbeddingWrapper(copy.deepcopy(cell), embedding_classes=num_encoder_symbols,
                                        embedding_size=embedding_size)
        encoder_outputs, encoder_state = static_rnn(encoder_cell, encoder_inputs, dtype=dtype)
        attention_states = slicing_ops.concat([array_ops.reshape(e, [-1, 1, cell.output_size])
                                               for e in encoder_outputs], 1)
        output_size = None
        if output_projection is None:
            cell = OutputProjectionWrapper(cell, num_decoder_symbols)
            output_size = num_decoder_symbols

        def decode(feed, update_embedding_for_previous=True):
            return embedding_attention_decoder(
                decoder_inputs, encoder_state, attention_states, cell, num_decoder_symbols, embedding_size,
                num_heads=num_heads, output_size=output_size, output_projection=output_projection,
                feed_previous=feed, update_embedding_for_previous=update_embedding_for_previous,
                initial_state_attention=initial_state_attention)

        return _either_feed(feed_previous, decode, decoder_inputs, encoder_state)


def model_with_buckets(encoder_inputs, decoder_inputs, targets, weights, buckets, seq2seq,
                       softmax_loss_function=None, per_example_loss=False, name=None):
    """One ``seq2seq(encoder_inputs[:e], decoder_inputs[:d])`` per bucket (e, d), sharing
    variables, and each one's loss over ``targets[:d]`` weighted by ``weights[:d]``:
    (outputs per bucket, losses per bucket)."""
    if len(encoder_inputs) < buckets[-1][0]:
        raise ValueError(f"Length of encoder_inputs ({len(encoder_inputs)}) must be at least that of last bucket "
                         f"({buckets[-1][0]}).")
    if len(targets) < buckets[-1][1]:
        raise ValueError(f"Length of targets ({len(targets)}) must be at least that of last bucket "
                         f"({buckets[-1][1]}).")
    if len(weights) < buckets[-1][1]:
        raise ValueError(f"Length of weights ({len(weights)}) must be at least that of last bucket "
                         f"({buckets[-1][1]}).")
    losses, outputs = [], []
    with ops.name_scope(name, "model_with_buckets", encoder_inputs + decoder_inputs + targets + weights):
        for j, (enc, dec) in enumerate(buckets):
            with vs.variable_scope(vs.get_variable_scope(), reuse=True if j > 0 else None):
                bucket_outputs, _ = seq2seq(encoder_inputs[:enc], decoder_inputs[:dec])
                outputs.append(bucket_outputs)
                loss = sequence_loss_by_example if per_example_loss else sequence_loss
                losses.append(loss(bucket_outputs, targets[:dec], weights[:dec],
                                   softmax_loss_function=softmax_loss_function))
    return outputs, losses


__getattr__ = missing("tf.contrib.legacy_seq2seq")
