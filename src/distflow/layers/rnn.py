"""Running a recurrent cell over sequences: ``tf.nn.dynamic_rnn``, ``raw_rnn``, ``static_rnn``,
``bidirectional_dynamic_rnn``, and the sequence losses of ``tf.contrib``.

``dynamic_rnn`` is TF 1.x's: one ``tf.while_loop`` over time that reads each step's
input from a TensorArray and writes each output into another; with ``sequence_length``
a finished sequence's output is zeros and its state is carried through unchanged.
"""

from __future__ import annotations

from ..framework import dtypes, ops
from ..framework import nest
from ..framework.tensor_shape import TensorShape
from ..ops import array_ops, math_ops, nn_ops, reduction_ops, slicing_ops, variable_scope as vs
from ..ops.manip_ops import reverse as reverse_axes
from ..ops.control_flow_v2 import while_loop
from ..ops.sequence_ops import reverse_sequence
from ..ops.segment_ops import count_nonzero
from ..ops.tensor_array_ops import TensorArray
from .rnn_cell import _size_dims, _zeros


def _transpose_batch_time(t: ops.Tensor) -> ops.Tensor:
    ndims = t.shape.ndims
    if ndims is not None and ndims < 2:
        raise ValueError(f"Expected input tensor {t.name} to have rank at least 2, but saw shape {t.shape}")
    perm = [1, 0] + list(range(2, ndims if ndims is not None else 3))
    out = array_ops.transpose(t, perm)
    if ndims is not None:
        dims = t.shape.as_list()
        out.set_shape([dims[1], dims[0]] + dims[2:])
    return out


def _zeros_like_output(size, batch, dtype):
    return nest.map_structure(lambda s: _zeros(s, batch, dtype), size)


def _initial_state(cell, initial_state, batch, dtype):
    if initial_state is not None:
        return initial_state
    if dtype is None:
        raise ValueError("If there is no initial_state, you must give a dtype.")
    return cell.zero_state(batch, dtype)


def _sequence_lengths(sequence_length):
    """``sequence_length`` as int32, checked to be a vector (or None)."""
    if sequence_length is None:
        return None
    sequence_length = math_ops.cast(ops.convert_to_tensor(sequence_length), dtypes.int32)
    if sequence_length.shape.ndims not in (None, 1):
        raise ValueError(f"sequence_length must be a vector of length batch_size, but saw shape: "
                         f"{sequence_length.shape}")
    return sequence_length


def _where_done(done, old, new):
    """``old``'s rows where a sequence is done, else ``new``'s; of ``new``'s static shape."""
    out = math_ops.where(done, old, new)
    out.set_shape(new.shape)
    return out


def _copied_through(done, old, new):
    """A finished sequence's state kept (its row of ``old``); a TensorArray or a scalar state,
    which has no row per sequence, is passed through as TF's dynamic_rnn does."""
    if isinstance(new, TensorArray) or new.shape.ndims == 0:
        return new
    return _where_done(done, old, new)


def dynamic_rnn(cell, inputs, sequence_length=None, initial_state=None, dtype=None, parallel_iterations=None,
                swap_memory=False, time_major=False, scope=None):
    """Runs ``cell`` over the time steps of ``inputs`` in one loop; returns (outputs, final state).

    ``inputs`` is [batch, time, ...] (``time_major``: [time, batch, ...]), or a nested
    structure of such tensors; ``sequence_length`` ([batch] ints) ends each sequence early.
    """
    with vs.variable_scope(scope or "rnn") as varscope:
        flat = [ops.convert_to_tensor(x) for x in nest.flatten(inputs)]
        if not time_major:
            flat = [_transpose_batch_time(x) for x in flat]
        steps = array_ops.shape(flat[0], out_type=dtypes.int32)[0]
        batch = array_ops.shape(flat[0], out_type=dtypes.int32)[1]
        static_steps = flat[0].shape[0].value if flat[0].shape.ndims else None
        static_batch = flat[0].shape[1].value if flat[0].shape.ndims else None
        state = _initial_state(cell, initial_state, batch, dtype)
        # (the outputs' dtype: the one asked for, else the state's, as TF's _infer_state_dtype)
        state_dtype = dtypes.as_dtype(dtype) if dtype is not None else nest.flatten(state)[0].dtype.base_dtype
        sequence_length = _sequence_lengths(sequence_length)
        with ops.name_scope("dynamic_rnn"):
            input_arrays = [TensorArray(x.dtype, size=steps, element_shape=x.shape[1:] if x.shape.ndims else None)
                            .unstack(x) for x in flat]
            outputs = [TensorArray(state_dtype, size=steps) for _ in nest.flatten(cell.output_size)]
            zero_output = (_zeros_like_output(cell.output_size, batch, state_dtype)
                           if sequence_length is not None else None)

            def body(time, arrays, state):
                step_input = nest.pack_sequence_as(inputs, [ta.read(time) for ta in input_arrays])
                for x, source in zip(nest.flatten(step_input), flat):
                    x.set_shape(source.shape[1:])
                output, new_state = cell(step_input, state)
                if sequence_length is not None:
                    done = time >= sequence_length
                    output = nest.map_structure(lambda z, o: _where_done(done, z, o), zero_output, output)
                    new_state = nest.map_structure(lambda old, new: _copied_through(done, old, new), state, new_state)
                new_arrays = [ta.write(time, o) for ta, o in zip(arrays, nest.flatten(output))]
                return time + 1, new_arrays, new_state

            _, outputs, final_state = while_loop(
                lambda time, *_: time < steps, body, [ops.convert_to_tensor(0), outputs, state],
                parallel_iterations=parallel_iterations or 32, swap_memory=swap_memory)
            stacked = []
            for ta, size in zip(outputs, nest.flatten(cell.output_size)):
                out = ta.stack()
                out.set_shape(TensorShape([static_steps, static_batch] + _size_dims(size)))
                stacked.append(out if time_major else _transpose_batch_time(out))
        del varscope
        return nest.pack_sequence_as(cell.output_size, stacked), final_state


def raw_rnn(cell, loop_fn, parallel_iterations=None, swap_memory=False, scope=None):
    """Runs ``cell`` in a loop that ``loop_fn`` drives step by step (TF 1.x's ``tf.nn.raw_rnn``).

    ``loop_fn(time, cell_output, cell_state, loop_state)`` returns ``(finished, next_input,
    next_cell_state, emit_output, next_loop_state)``: at time 0 (with ``cell_output`` None) the
    first input, the initial state and the structure of what is emitted; after each step
    what comes next. The loop ends when every batch entry is finished; an entry that is
    finished emits zeros and keeps its state. A ``next_loop_state`` of None keeps the one
    before, and an ``emit_output`` of None emits the cell's output.

    Returns:
      (emit_ta, final_state, final_loop_state): TensorArrays of what was emitted at each
      step (in ``emit_output``'s structure, else the cell's output size), the last state,
      and the last loop state (None if ``loop_fn`` gave none at time 0).
    """
    if not callable(loop_fn):
        raise TypeError("loop_fn must be a callable")
    with vs.variable_scope(scope or "rnn"):
        time = ops.convert_to_tensor(0, dtypes.int32)
        finished, next_input, initial_state, emit_structure, init_loop_state = loop_fn(time, None, None, None)
        if initial_state is None:
            raise ValueError("raw_rnn: loop_fn must give the initial cell state at time 0")
        flat_input = [ops.convert_to_tensor(x) for x in nest.flatten(next_input)]
        next_input = nest.pack_sequence_as(next_input, flat_input)
        loop_state = init_loop_state if init_loop_state is not None else ops.convert_to_tensor(0, dtypes.int32)
        batch = array_ops.shape(flat_input[0], out_type=dtypes.int32)[0]
        state_dtype = nest.flatten(initial_state)[0].dtype.base_dtype
        if emit_structure is not None:
            flat_emit = [ops.convert_to_tensor(e) for e in nest.flatten(emit_structure)]
            emit_sizes = [e.shape[1:] for e in flat_emit]
            emit_dtypes = [e.dtype.base_dtype for e in flat_emit]
        else:
            emit_structure = cell.output_size
            emit_sizes = [TensorShape(_size_dims(s)) for s in nest.flatten(cell.output_size)]
            emit_dtypes = [state_dtype] * len(emit_sizes)
        emit_ta = nest.pack_sequence_as(emit_structure, [
            TensorArray(dtype, size=0, dynamic_size=True, element_shape=TensorShape([None]).concatenate(size))
            for dtype, size in zip(emit_dtypes, emit_sizes)])
        zero_emit = nest.pack_sequence_as(emit_structure, [
            array_ops.zeros(slicing_ops.concat([array_ops.reshape(batch, [1]), ops.convert_to_tensor(
                size.as_list(), dtypes.int32)], 0), dtype=dtype) for dtype, size in zip(emit_dtypes, emit_sizes)])

        def condition(unused_time, elements_finished, *_):
            return math_ops.logical_not(reduction_ops.reduce_all(elements_finished))

        def body(time, elements_finished, current_input, emit_ta, state, loop_state):
            output, cell_state = cell(current_input, state)
            nest.assert_same_structure(state, cell_state)
            next_time = time + 1
            next_finished, next_input, next_state, emit_output, next_loop_state = loop_fn(
                next_time, output, cell_state, loop_state)
            nest.assert_same_structure(state, next_state)
            nest.assert_same_structure(current_input, next_input)
            loop_state = loop_state if next_loop_state is None else next_loop_state
            emit_output = output if emit_output is None else emit_output

            def keep_finished(current, candidate):
                # (a TensorArray or a scalar goes on as given; a finished entry keeps the old value)
                def copy(cur, cand):
                    if isinstance(cur, TensorArray) or cur.shape.ndims == 0:
                        return cand
                    return math_ops.where(elements_finished, cur, cand)

                return nest.map_structure(copy, current, candidate)

            emit_output = keep_finished(zero_emit, emit_output)
            next_state = keep_finished(state, next_state)
            emit_ta = nest.map_structure(lambda ta, emit: ta.write(time, emit), emit_ta, emit_output)
            return (next_time, math_ops.logical_or(elements_finished, next_finished), next_input, emit_ta,
                    next_state, loop_state)

        result = while_loop(condition, body, [time, ops.convert_to_tensor(finished), next_input, emit_ta,
                                              initial_state, loop_state],
                            parallel_iterations=parallel_iterations or 32, swap_memory=swap_memory,
                            return_same_structure=True)
        emit_ta, final_state, final_loop_state = result[-3:]
        return emit_ta, final_state, (final_loop_state if init_loop_state is not None else None)


def static_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
    """Runs ``cell`` over a Python list of per-step inputs ([batch, ...] each), unrolled."""
    if not nest.is_nested(inputs):
        raise TypeError("inputs must be a sequence")
    if not inputs:
        raise ValueError("inputs must not be empty")
    with vs.variable_scope(scope or "rnn"):
        first = nest.flatten(inputs[0])[0]
        batch = array_ops.shape(first, out_type=dtypes.int32)[0]
        state = _initial_state(cell, initial_state, batch, dtype)
        outputs = []
        sequence_length = _sequence_lengths(sequence_length)
        if sequence_length is not None:
            zero_output = _zeros_like_output(cell.output_size, batch, nest.flatten(state)[0].dtype.base_dtype)
        for time, step_input in enumerate(inputs):
            output, new_state = cell(step_input, state)
            if sequence_length is not None:
                done = time >= sequence_length
                output = nest.map_structure(lambda z, o: _where_done(done, z, o), zero_output, output)
                new_state = nest.map_structure(lambda old, new: _where_done(done, old, new), state, new_state)
            outputs.append(output)
            state = new_state
        return outputs, state


def static_state_saving_rnn(cell, inputs, state_saver, state_name, sequence_length=None, scope=None):
    """``static_rnn`` whose initial state is ``state_saver.state(state_name)`` (a structure of
    names for a structured state) and whose final state is saved with
    ``state_saver.save_state(name, value)`` before the last output and the final state are
    given out: a long sequence run in segments, each step carrying on from the last (the state
    savers of TF 1.x's ``batch_sequences_with_states``)."""
    structured = nest.is_nested(cell.state_size)
    if structured != nest.is_nested(state_name):
        raise ValueError(f"state_name should be the same type as cell.state_size.  state_name: {state_name}, "
                         f"cell.state_size: {cell.state_size}")
    names = nest.flatten(state_name)
    if structured and len(names) != len(nest.flatten(cell.state_size)):
        raise ValueError(f"#elems(state_name) != #elems(state_size): {len(names)} vs. "
                         f"{len(nest.flatten(cell.state_size))}")
    saved = [state_saver.state(name) for name in names]
    initial_state = nest.pack_sequence_as(cell.state_size, saved) if structured else saved[0]
    outputs, state = static_rnn(cell, inputs, initial_state=initial_state, sequence_length=sequence_length,
                                scope=scope)
    saves = [state_saver.save_state(name, value) for name, value in zip(names, nest.flatten(state))]
    with ops.control_dependencies(saves):  # (nothing comes out before the state is saved)
        outputs[-1] = nest.map_structure(array_ops.identity, outputs[-1])
        state = nest.map_structure(array_ops.identity, state)
    return outputs, state


def bidirectional_dynamic_rnn(cell_fw, cell_bw, inputs, sequence_length=None, initial_state_fw=None,
                              initial_state_bw=None, dtype=None, parallel_iterations=None, swap_memory=False,
                              time_major=False, scope=None):
    """A forward and a backward ``dynamic_rnn``: ((outputs_fw, outputs_bw), (state_fw, state_bw)).

    The backward one reads each sequence reversed (up to its ``sequence_length``), and
    its outputs are reversed back, so both line up with the inputs.
    """
    with vs.variable_scope(scope or "bidirectional_rnn"):
        with vs.variable_scope("fw") as fw_scope:
            out_fw, state_fw = dynamic_rnn(cell_fw, inputs, sequence_length, initial_state_fw, dtype,
                                           parallel_iterations, swap_memory, time_major, scope=fw_scope)
        time_axis, batch_axis = (0, 1) if time_major else (1, 0)

        def reverse(t):
            if sequence_length is None:
                return reverse_axes(t, [time_axis])
            return reverse_sequence(t, sequence_length, seq_axis=time_axis, batch_axis=batch_axis)

        with vs.variable_scope("bw") as bw_scope:
            reversed_inputs = nest.map_structure(reverse, inputs)
            out_bw, state_bw = dynamic_rnn(cell_bw, reversed_inputs, sequence_length, initial_state_bw, dtype,
                                           parallel_iterations, swap_memory, time_major, scope=bw_scope)
        return (out_fw, nest.map_structure(reverse, out_bw)), (state_fw, state_bw)


def static_bidirectional_rnn(cell_fw, cell_bw, inputs, initial_state_fw=None, initial_state_bw=None, dtype=None,
                             sequence_length=None, scope=None):
    """A forward and a backward ``static_rnn`` over a list of per-step inputs: (outputs,
    state_fw, state_bw), each output the forward and backward outputs of its step
    concatenated along their last axis.

    The backward one reads the steps reversed (each sequence up to its
    ``sequence_length``), and its outputs are reversed back, so both line up with the
    inputs. Variables are under ``bidirectional_rnn/fw`` and ``bidirectional_rnn/bw``, as
    TensorFlow's."""
    for name, cell in (("cell_fw", cell_fw), ("cell_bw", cell_bw)):
        if not callable(cell) or not hasattr(cell, "output_size"):
            raise TypeError(f"{name} must be an instance of RNNCell")
    if not nest.is_nested(inputs):
        raise TypeError("inputs must be a sequence")
    if not inputs:
        raise ValueError("inputs must not be empty")
    with vs.variable_scope(scope or "bidirectional_rnn"):
        with vs.variable_scope("fw") as fw_scope:
            out_fw, state_fw = static_rnn(cell_fw, inputs, initial_state_fw, dtype, sequence_length, scope=fw_scope)
        with vs.variable_scope("bw") as bw_scope:
            out_bw, state_bw = static_rnn(cell_bw, _reversed_steps(inputs, sequence_length), initial_state_bw,
                                          dtype, sequence_length, scope=bw_scope)
    out_bw = _reversed_steps(out_bw, sequence_length)
    outputs = [nest.pack_sequence_as(fw, [slicing_ops.concat([a, b], 1) for a, b in
                                          zip(nest.flatten(fw), nest.flatten(bw))])
               for fw, bw in zip(out_fw, out_bw)]
    return outputs, state_fw, state_bw


def _reversed_steps(steps: list, sequence_length) -> list:
    """A list of per-step (nested) tensors in reverse order; with ``sequence_length``,
    each sequence's first ``length`` steps reversed and the rest left where they are."""
    if sequence_length is None:
        return list(reversed(steps))
    lengths = math_ops.cast(ops.convert_to_tensor(sequence_length), dtypes.int64)
    columns = []  # (one reversed [time, batch, ...] per flattened input, as a list of steps)
    for flat in zip(*(nest.flatten(step) for step in steps)):
        stacked = array_ops.stack(list(flat))
        columns.append(slicing_ops.unstack(reverse_sequence(stacked, lengths, seq_axis=0, batch_axis=1), len(flat)))
    return [nest.pack_sequence_as(steps[0], list(step)) for step in zip(*columns)]


def sequence_loss(logits, targets, weights, average_across_timesteps=True, average_across_batch=True,
                  sum_over_timesteps=False, sum_over_batch=False, softmax_loss_function=None, name=None):
    """``tf.contrib.seq2seq.sequence_loss``: weighted cross-entropy of [batch, time, classes] logits."""
    if logits.shape.ndims not in (None, 3):
        raise ValueError("Logits must be a [batch_size x sequence_length x logits] tensor")
    if average_across_timesteps and sum_over_timesteps:
        raise ValueError("average_across_timesteps and sum_over_timesteps cannot be set to True at same time.")
    if average_across_batch and sum_over_batch:
        raise ValueError("average_across_batch and sum_over_batch cannot be set to True at same time.")
    with ops.name_scope(name, "sequence_loss", [logits, targets, weights]):
        classes = array_ops.shape(logits)[2]
        flat_logits = array_ops.reshape(logits, array_ops.stack([-1, classes]))
        flat_targets = array_ops.reshape(targets, [-1])
        if softmax_loss_function is None:
            crossent = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=flat_targets, logits=flat_logits)
        else:
            crossent = softmax_loss_function(labels=flat_targets, logits=flat_logits)
        crossent = crossent * array_ops.reshape(weights, [-1])
        weights = ops.convert_to_tensor(weights, dtype=crossent.dtype)
        if average_across_timesteps and average_across_batch:
            return reduction_ops.reduce_sum(crossent) / (reduction_ops.reduce_sum(weights) + 1e-12)
        if sum_over_timesteps and sum_over_batch:
            return reduction_ops.reduce_sum(crossent) / (
                math_ops.cast(count_nonzero(weights), crossent.dtype) + 1e-12)
        crossent = array_ops.reshape(crossent, array_ops.shape(logits)[:2])
        if average_across_timesteps and not average_across_batch:
            crossent = reduction_ops.reduce_sum(crossent, axis=[1]) / (
                reduction_ops.reduce_sum(weights, axis=[1]) + 1e-12)
        if not average_across_timesteps and average_across_batch:
            crossent = reduction_ops.reduce_sum(crossent, axis=[0]) / (
                reduction_ops.reduce_sum(weights, axis=[0]) + 1e-12)
        if sum_over_timesteps and not sum_over_batch:
            crossent = reduction_ops.reduce_sum(crossent, axis=[1]) / (
                math_ops.cast(count_nonzero(weights, axis=[1]), crossent.dtype) + 1e-12)
        if not sum_over_timesteps and sum_over_batch:
            crossent = reduction_ops.reduce_sum(crossent, axis=[0]) / (
                math_ops.cast(count_nonzero(weights, axis=[0]), crossent.dtype) + 1e-12)
        return crossent


def sequence_loss_by_example(logits, targets, weights, average_across_timesteps=True, softmax_loss_function=None,
                             name=None):
    """``tf.contrib.legacy_seq2seq.sequence_loss_by_example``: per example, the weighted sum
    (or average) over a list of per-step logits of the cross-entropy."""
    if len(targets) != len(logits) or len(weights) != len(logits):
        raise ValueError(f"Lengths of logits, weights, and targets must be the same {len(logits)}, "
                         f"{len(weights)}, {len(targets)}.")
    with ops.name_scope(name, "sequence_loss_by_example", list(logits) + list(targets) + list(weights)):
        terms = []
        for logit, target, weight in zip(logits, targets, weights):
            if softmax_loss_function is None:
                target = array_ops.reshape(target, [-1])
                crossent = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=target, logits=logit)
            else:
                crossent = softmax_loss_function(labels=target, logits=logit)
            terms.append(crossent * weight)
        total = math_ops.add_n(terms)
        if average_across_timesteps:
            total = total / (math_ops.add_n(list(weights)) + 1e-12)
        return total


def legacy_sequence_loss(logits, targets, weights, average_across_timesteps=True, average_across_batch=True,
                         softmax_loss_function=None, name=None):
    """``tf.contrib.legacy_seq2seq.sequence_loss``: the by-example loss summed (averaged) over the batch."""
    with ops.name_scope(name, "sequence_loss", list(logits) + list(targets) + list(weights)):
        cost = reduction_ops.reduce_sum(sequence_loss_by_example(
            logits, targets, weights, average_across_timesteps=average_across_timesteps,
            softmax_loss_function=softmax_loss_function))
        if average_across_batch:
            batch = array_ops.shape(targets[0])[0]
            return cost / math_ops.cast(batch, cost.dtype)
        return cost
