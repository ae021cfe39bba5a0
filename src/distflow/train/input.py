"""TF 1.x's queue-based input pipelines: producers that fill a queue from a tensor in
background threads (QueueRunners), and ``batch`` / ``shuffle_batch`` that group elements.

Run them as TF 1.x programs did::

    image, label = tf.train.slice_input_producer([images, labels], num_epochs=2)
    images, labels = tf.train.shuffle_batch([image, label], 32, capacity=500, min_after_dequeue=100)
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess, coord)   # after local_variables_initializer()
    ...                                                    # until OutOfRangeError
    coord.request_stop(); coord.join(threads)

With ``num_epochs`` the producer counts its passes in a local variable and closes its
queue after the last one; the batch ops then fail with OutOfRangeError once drained.
"""

from __future__ import annotations

from ..framework import dtypes
from ..framework import ops
from ..framework.ops import GraphKeys
from ..framework.tensor_shape import TensorShape, as_shape
from ..ops import array_ops, check_ops, data_flow_ops, math_ops, random_ops, slicing_ops, sparse_ops, state_ops
from ..ops.random_shuffle_queue import RandomShuffleQueue
from .queue_runner import QueueRunner, add_queue_runner


def limit_epochs(tensor, num_epochs=None, name=None):
    """``tensor``, which can be computed ``num_epochs`` times; then OutOfRangeError."""
    if num_epochs is None:
        return tensor
    if num_epochs <= 0:
        raise ValueError(f"num_epochs must be > 0 not {num_epochs}.")
    with ops.name_scope(name, "limit_epochs", [tensor]) as scope:
        epochs = state_ops.Variable(array_ops.constant(0, dtype=dtypes.int64), name="epochs", trainable=False,
                                    collections=[GraphKeys.LOCAL_VARIABLES])
        counter = epochs.count_up_to(num_epochs)
        with ops.control_dependencies([counter]):
            return array_ops.identity(tensor, name=scope)


def input_producer(input_tensor, element_shape=None, num_epochs=None, shuffle=True, seed=None, capacity=32,
                   shared_name=None, summary_name=None, name=None, cancel_op=None):
    """A queue filled with the rows of ``input_tensor`` (shuffled each epoch), by a QueueRunner."""
    with ops.name_scope(name, "input_producer", [input_tensor]):
        input_tensor = ops.convert_to_tensor(input_tensor, name="input_tensor")
        element_shape = input_tensor.shape[1:].merge_with(element_shape) if element_shape is not None \
            else input_tensor.shape[1:]
        if not element_shape.is_fully_defined():
            raise ValueError("Either `input_tensor` must have a fully defined shape or `element_shape` must be "
                             "specified")
        if shuffle:
            input_tensor = random_ops.random_shuffle(input_tensor, seed=seed)
        input_tensor = limit_epochs(input_tensor, num_epochs)
        # (a producer's queue takes the producer's scope as its name: "input_producer", as TF)
        queue = data_flow_ops.FIFOQueue(capacity, [input_tensor.dtype.base_dtype], shapes=[element_shape],
                                        shared_name=shared_name, name=name or "FIFOQueueV2")
        enqueue = queue.enqueue_many([input_tensor])
        add_queue_runner(QueueRunner(queue, [enqueue], cancel_op=cancel_op))
        if summary_name is not None:
            fullness(summary_name, queue.size(), capacity)
        return queue


def fullness(summary_name: str, size, capacity: int, below: int = 0) -> None:
    """TF's scalar summary of how full an input queue is: the fraction of its ``capacity``
    (less the ``below`` elements a shuffling queue keeps) that it holds."""
    from ..summary.summary_ops import scalar  # noqa: PLC0415 - (summaries import the training hooks)

    held = math_ops.cast(size, dtypes.float32)
    if below:
        held = math_ops.maximum(0.0, held - below)
    scalar(summary_name, held * (1.0 / (capacity - below)))


def string_input_producer(string_tensor, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None,
                          name=None, cancel_op=None):
    """A queue of the strings of ``string_tensor`` (file names, typically)."""
    string_tensor = ops.convert_to_tensor(string_tensor, dtype=dtypes.string)
    if string_tensor.shape.ndims == 1 and string_tensor.shape[0].value == 0:
        raise ValueError("string_input_producer requires a non-empty string_tensor")
    with ops.name_scope(name, "input_producer", [string_tensor]) as scope:
        # (an empty tensor known only when it runs fails the queue runner, and so the dequeues,
        # instead of enqueuing nothing for ever)
        not_empty = check_ops.Assert(math_ops.greater(array_ops.size(string_tensor), 0),
                                     ["string_input_producer requires a non-empty string_tensor"])
        with ops.control_dependencies([not_empty]):
            string_tensor = array_ops.identity(string_tensor)
        return input_producer(string_tensor, [], num_epochs, shuffle, seed, capacity, shared_name,
                              f"fraction_of_{capacity}_full", scope, cancel_op)


def range_input_producer(limit, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None,
                         name=None):
    """A queue of the integers 0 .. limit - 1 (int32)."""
    with ops.name_scope(name, "input_producer", [limit]) as scope:
        range_tensor = math_ops.range_(limit)
        return input_producer(range_tensor, [], num_epochs, shuffle, seed, capacity, shared_name,
                              f"fraction_of_{capacity}_full", scope)


def slice_input_producer(tensor_list, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None,
                         name=None):
    """One row of every tensor of ``tensor_list`` (the same row of each) per evaluation."""
    with ops.name_scope(name, "input_producer", tensor_list):
        tensor_list = [ops.convert_to_tensor(t) for t in tensor_list]
        if not tensor_list:
            raise ValueError("Expected at least one tensor in slice_input_producer().")
        range_size = array_ops.shape(tensor_list[0])[0]
        queue = range_input_producer(range_size, num_epochs=num_epochs, shuffle=shuffle, seed=seed,
                                     capacity=capacity, shared_name=shared_name)
        index = queue.dequeue()
        return [slicing_ops.gather(t, index) for t in tensor_list]


def flatten_tensors(tensors, enqueue_many=False):
    """The tensors to enqueue, in order (a dict's by sorted key), and ``pack``, which makes
    the dequeued outputs into the structure given.

    A SparseTensor travels through the queue serialized (one ``[3]`` string vector an element,
    as ``tf.serialize_sparse`` writes it); ``pack`` makes each dequeued batch of them one
    SparseTensor with the batch as its first dimension, as TF 1.x's batching did.
    """
    if isinstance(tensors, dict):
        keys = sorted(tensors)
        items = [tensors[k] for k in keys]
    else:
        keys, items = None, list(tensors) if isinstance(tensors, (list, tuple)) else [tensors]
    flat, sparse = [], []  # sparse[i]: (dtype, rank of one element) of a SparseTensor, else None
    for t in items:
        if sparse_ops._is_sparse(t):
            sp = sparse_ops.as_sparse_tensor(t)
            rank = sp.dense_shape.shape[0].value if sp.dense_shape.shape.ndims == 1 else None
            if enqueue_many:
                flat.append(sparse_ops.serialize_many_sparse(sp))
                rank = None if rank is None else rank - 1
            else:
                flat.append(sparse_ops.serialize_sparse(sp))
            sparse.append((sp.dtype.base_dtype, rank))
        else:
            flat.append(ops.convert_to_tensor(t))
            sparse.append(None)

    def pack(outs):
        outs = [o if kind is None else
                sparse_ops.deserialize_many_sparse(o, kind[0], rank=None if kind[1] is None else kind[1] + 1)
                for o, kind in zip(outs, sparse)]
        if keys is not None:
            return dict(zip(keys, outs))
        return outs[0] if len(outs) == 1 else list(outs)  # (one tensor comes back alone, as TF's queues return it)

    pack.keys, pack.sparse = keys, sparse
    return flat, pack


def queue_shapes(tensors, shapes, enqueue_many, dynamic_pad=False, sparse=None):
    """The queue's element shapes: fully defined, or (with dynamic_pad) of known rank. A
    serialized SparseTensor (``sparse[i]`` set) is a ``[3]`` string vector whatever is given."""
    if shapes is not None:
        return [TensorShape([3]) if sparse and sparse[i] else as_shape(s) for i, s in enumerate(shapes)]
    out = []
    for t in tensors:
        shape = t.shape[1:] if enqueue_many and t.shape.ndims is not None else t.shape
        if shape.ndims is None:
            raise ValueError(f"Cannot infer Tensor's rank: {t.name} has shape {t.shape} (pass shapes=)")
        if not dynamic_pad and not shape.is_fully_defined():
            raise ValueError(f"All shapes must be fully defined: {t.name} has shape {t.shape} (pass shapes=)")
        out.append(shape)
    return out


def batch_queue(dtypes_, shapes, capacity, dynamic_pad, shared_name):
    """The queue that batching fills: a PaddingFIFOQueue when elements may differ in size."""
    if dynamic_pad:
        return data_flow_ops.PaddingFIFOQueue(capacity, dtypes_, shapes=shapes, shared_name=shared_name,
                                              name="padding_fifo_queue")
    return data_flow_ops.FIFOQueue(capacity, dtypes_, shapes=shapes, shared_name=shared_name, name="fifo_queue")


def dequeue_batch(queue, batch_size, allow_smaller_final_batch, name):
    if allow_smaller_final_batch:
        return queue.dequeue_up_to(batch_size, name=name)
    return queue.dequeue_many(batch_size, name=name)


def batch(tensors, batch_size, num_threads=1, capacity=32, enqueue_many=False, shapes=None, dynamic_pad=False,
          allow_smaller_final_batch=False, shared_name=None, name=None):
    """``batch_size`` elements of ``tensors`` stacked, in order, filled by ``num_threads`` QueueRunner threads.

    With ``dynamic_pad`` the elements may differ in their unknown dimensions; each batch is
    padded (zeros, or empty strings) to its longest element. A SparseTensor's elements make
    one SparseTensor ``[batch_size, ...]`` (each dimension the largest of the batch)."""
    return batch_flat(*flatten_tensors(tensors, enqueue_many), batch_size, num_threads, capacity, enqueue_many,
                      shapes, dynamic_pad, allow_smaller_final_batch, shared_name, name)


def batch_flat(flat, pack, batch_size, num_threads, capacity, enqueue_many, shapes, dynamic_pad,
               allow_smaller_final_batch, shared_name, name):
    """``batch`` of what ``flatten_tensors`` made."""
    with ops.name_scope(name, "batch", flat) as scope:
        queue = batch_queue([t.dtype.base_dtype for t in flat],
                            queue_shapes(flat, shapes, enqueue_many, dynamic_pad, pack.sparse), capacity, dynamic_pad,
                            shared_name)
        enqueue = queue.enqueue_many(flat) if enqueue_many else queue.enqueue(flat)
        add_queue_runner(QueueRunner(queue, [enqueue] * num_threads))
        fullness(f"fraction_of_{capacity}_full", queue.size(), capacity)
        out = dequeue_batch(queue, batch_size, allow_smaller_final_batch, scope)
        return pack(out if isinstance(out, list) else [out])


def shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, num_threads=1, seed=None, enqueue_many=False,
                  shapes=None, allow_smaller_final_batch=False, shared_name=None, name=None):
    """``batch_size`` elements drawn at random from a buffer of at least ``min_after_dequeue``."""
    return shuffle_batch_flat(*flatten_tensors(tensors, enqueue_many), batch_size, capacity, min_after_dequeue,
                              num_threads, seed, enqueue_many, shapes, allow_smaller_final_batch, shared_name, name)


def shuffle_batch_flat(flat, pack, batch_size, capacity, min_after_dequeue, num_threads, seed, enqueue_many, shapes,
                       allow_smaller_final_batch, shared_name, name):
    """``shuffle_batch`` of what ``flatten_tensors`` made."""
    with ops.name_scope(name, "shuffle_batch", flat) as scope:
        queue = RandomShuffleQueue(capacity, min_after_dequeue, [t.dtype.base_dtype for t in flat],
                                   shapes=queue_shapes(flat, shapes, enqueue_many, sparse=pack.sparse), seed=seed,
                                   shared_name=shared_name, name="random_shuffle_queue")
        enqueue = queue.enqueue_many(flat) if enqueue_many else queue.enqueue(flat)
        add_queue_runner(QueueRunner(queue, [enqueue] * num_threads))
        fullness(f"fraction_over_{min_after_dequeue}_of_{capacity - min_after_dequeue}_full", queue.size(),
                 capacity, min_after_dequeue)
        out = dequeue_batch(queue, batch_size, allow_smaller_final_batch, scope)
        return pack(out if isinstance(out, list) else [out])
