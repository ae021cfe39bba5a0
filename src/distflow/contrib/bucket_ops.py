"""``tf.contrib.training.bucket`` and ``bucket_by_sequence_length``: queue-based batching of
examples by bucket, as TF 1.x's sequence models batched sentences of similar lengths.

Each example goes to the queue of its bucket (a PaddingFIFOQueue with ``dynamic_pad``);
one QueueRunner thread per bucket takes a batch from it whenever it holds one and puts
(bucket, batch) in a top queue, which the returned tensors dequeue. The examples' own
thread puts each example in its bucket's queue by ``enqueue_many`` of one row there and of
no rows elsewhere, so that it computes the example once and needs no conditional.
"""

from __future__ import annotations

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.tensor_shape import TensorShape
from ..ops import array_ops, control_flow_ops, data_flow_ops, manip_ops, math_ops, reduction_ops
from ..ops.op_util import constant_value
from ..train.input import batch_queue, dequeue_batch, flatten_tensors, fullness, queue_shapes
from ..train.queue_runner import QueueRunner, add_queue_runner


def bucket(tensors, which_bucket, batch_size, num_buckets, num_threads=1, capacity=32, bucket_capacities=None,
           shapes=None, dynamic_pad=False, allow_smaller_final_batch=False, keep_input=True, shared_name=None,
           name=None):
    """Batches of ``tensors`` (a list or dict; one example) from the bucket ``which_bucket``
    (an int32 scalar in [0, num_buckets)) names: ``(bucket, batch)``, each batch from one
    bucket, ``batch_size`` examples (one size, or one per bucket). Examples whose
    ``keep_input`` is false are dropped."""
    per_bucket = isinstance(batch_size, (list, tuple))
    sizes = list(batch_size) if per_bucket else [batch_size] * num_buckets
    if len(sizes) != num_buckets:
        raise ValueError(f"If batch_size is a list it must have num_buckets elements, got {len(sizes)} for "
                         f"{num_buckets} buckets")
    capacities = [capacity] * num_buckets if bucket_capacities is None else list(bucket_capacities)
    if len(capacities) != num_buckets:
        raise ValueError(f"The list bucket_capacities ({capacities}) must have exactly num_buckets "
                         f"({num_buckets}) elements.")
    flat, pack = flatten_tensors(tensors)
    with ops.name_scope(name, "bucket", flat):
        element_shapes = queue_shapes(flat, shapes, False, dynamic_pad, pack.sparse)
        types = [t.dtype.base_dtype for t in flat]
        which_bucket = ops.convert_to_tensor(which_bucket, dtype=dtypes.int32, name="which_bucket")
        keep = ops.convert_to_tensor(keep_input, dtype=dtypes.bool, name="keep_input")
        if keep.shape.ndims not in (None, 0):
            raise ValueError(f"keep_input must be a scalar (one example), got shape {keep.shape}")
        queues = [batch_queue(types, element_shapes, capacities[i], dynamic_pad,
                              None if shared_name is None else f"{shared_name}_{i}") for i in range(num_buckets)]
        static = [constant_value(ops.convert_to_tensor(s)) for s in sizes]
        batch_dim = None if allow_smaller_final_batch or per_bucket or static[0] is None else int(static[0])
        top = data_flow_ops.PaddingFIFOQueue(capacity, [dtypes.int32] + types,
                                             shapes=[TensorShape([])] + [TensorShape([batch_dim]).concatenate(s)
                                                                         for s in element_shapes],
                                             shared_name=shared_name, name="top_queue")
        rows = [array_ops.expand_dims(t, 0) for t in flat]
        enqueues = []
        for i, queue in enumerate(queues):
            here = array_ops.reshape(math_ops.logical_and(math_ops.equal(which_bucket, i), keep), [1])
            enqueues.append(queue.enqueue_many([manip_ops.boolean_mask(r, here) for r in rows],
                                               name=f"enqueue_bucket_{i}"))
        to_buckets = control_flow_ops.group(*enqueues, name="group_enqueues")
        to_top = []
        for i, (queue, size) in enumerate(zip(queues, sizes)):
            batch = dequeue_batch(queue, size, allow_smaller_final_batch, f"read_bucket_{i}")
            batch = batch if isinstance(batch, list) else [batch]
            to_top.append(top.enqueue([ops.convert_to_tensor(i, dtype=dtypes.int32)] + batch,
                                      name=f"enqueue_from_bucket_{i}"))
        closed = (errors.OutOfRangeError, errors.CancelledError)
        add_queue_runner(QueueRunner(queues[0], to_top, close_op=top.close(),
                                     cancel_op=top.close(cancel_pending_enqueues=True),
                                     queue_closed_exception_types=closed))
        add_queue_runner(QueueRunner(top, [to_buckets] * num_threads,
                                     close_op=control_flow_ops.group(*[q.close() for q in queues]),
                                     cancel_op=control_flow_ops.group(*[q.close(cancel_pending_enqueues=True)
                                                                        for q in queues]),
                                     queue_closed_exception_types=closed))
        fullness(f"bucket/{top.name}/fraction_of_{capacity}_full", top.size(), capacity)
        dequeued = top.dequeue(name="dequeue_top")
        return dequeued[0], pack(dequeued[1:])


def bucket_by_sequence_length(input_length, tensors, batch_size, bucket_boundaries, num_threads=1, capacity=32,
                              bucket_capacities=None, shapes=None, dynamic_pad=False, allow_smaller_final_batch=False,
                              keep_input=True, shared_name=None, name=None):
    """``bucket`` by ``input_length`` (an int32 scalar: the example's length): bucket 0 holds
    lengths below ``bucket_boundaries[0]``, bucket i those in [b[i-1], b[i]), the last those
    from b[-1] up. Returns ``(lengths, batch)``."""
    if not isinstance(bucket_boundaries, (list, tuple)):
        raise TypeError(f"bucket_boundaries must be a list or tuple, but received: {bucket_boundaries}")
    if not bucket_boundaries:
        raise ValueError("bucket_boundaries must not be empty")
    for low, high in zip(bucket_boundaries[:-1], bucket_boundaries[1:]):
        if not isinstance(low, int) or not isinstance(high, int):
            raise TypeError(f"bucket boundaries must be integers, but saw: {low} and {high}")
        if low >= high:
            raise ValueError(f"Buckets must contain sequential increasing lengths, but saw: {low} before {high}")
    flat, pack = flatten_tensors(tensors)
    with ops.name_scope(name, "bucket_by_sequence_length", [input_length] + flat):
        input_length = ops.convert_to_tensor(input_length, dtype=dtypes.int32, name="input_length")
        lows = np.array([np.iinfo(np.int32).min] + list(bucket_boundaries), np.int32)
        highs = np.array(list(bucket_boundaries) + [np.iinfo(np.int32).max], np.int32)
        inside = math_ops.logical_and(math_ops.less_equal(lows, input_length), math_ops.less(input_length, highs))
        which = math_ops.cast(reduction_ops.reduce_min(math_ops.where(inside)), dtypes.int32)
        if shapes is not None:
            shapes = [TensorShape([])] + list(shapes)
        _, dequeued = bucket([input_length] + flat, which, batch_size, len(bucket_boundaries) + 1, num_threads,
                             capacity, bucket_capacities, shapes, dynamic_pad, allow_smaller_final_batch, keep_input,
                             shared_name)
        return dequeued[0], pack(dequeued[1:])
