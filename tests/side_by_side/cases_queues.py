# TF 1.x's input pipelines before tf.data: queues, readers, producers and batching with
# queue runners.
import numpy as np

INPUTS = dict(v=np.arange(12, dtype=np.float32).reshape(6, 2), s=np.array([b"a", b"bb", b"ccc"]))

# Writes the files a case reads (each library's process writes its own) and starts/stops
# queue runners around ``body``.
FILES = r'''
import os, tempfile, threading
d = tempfile.mkdtemp()
def write(name, data):
    p = os.path.join(d, name)
    with open(p, "wb") as f:
        f.write(data)
    return p
def runners(fn):
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    try:
        return fn()
    finally:
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=5)
def drain(t, limit=50):
    got = []
    try:
        for _ in range(limit):
            got.append(sess.run(t))
    except tf.errors.OutOfRangeError:
        got.append("end")
    return got
'''


def S(body):
    return "sess:" + FILES + body


CASES = [
    # Queues run by hand
    S("q = tf.FIFOQueue(10, tf.float32, shapes=[2]); e = q.enqueue_many(v); sess.run(e); "
      "out = [sess.run(q.size()), sess.run(q.dequeue()), sess.run(q.dequeue_many(3)), sess.run(q.size())]"),
    S("q = tf.FIFOQueue(10, [tf.int32, tf.string]); sess.run(q.enqueue_many(([1, 2, 3], ['a', 'b', 'c']))); "
      "sess.run(q.close()); out = [sess.run(q.dequeue_up_to(2)), sess.run(q.dequeue_up_to(2)), drain(q.dequeue())]"),
    S("q = tf.FIFOQueue(5, tf.int32, shapes=[]); sess.run(q.enqueue_many([[1, 2]])); sess.run(q.close()); "
      "out = [sess.run(q.is_closed()), drain(q.dequeue_many(2))]"),
    S("q = tf.FIFOQueue(5, {'a': tf.int32, 'b': tf.float32}, names=['a', 'b'], shapes=[[], [2]]) if False else "
      "tf.FIFOQueue(5, [tf.int32, tf.float32], names=['a', 'b'], shapes=[[], [2]]); "
      "sess.run(q.enqueue({'a': 3, 'b': [1.0, 2.0]})); out = sess.run(q.dequeue())"),
    S("q = tf.PaddingFIFOQueue(5, [tf.int32], shapes=[[None]]); sess.run(q.enqueue([[1, 2, 3]])); "
      "sess.run(q.enqueue([[4]])); sess.run(q.enqueue([[5, 6]])); out = sess.run(q.dequeue_many(3))"),
    S("q = tf.PaddingFIFOQueue(5, [tf.string, tf.int32], shapes=[[None], []]); sess.run(q.enqueue([['x', 'y'], 1])); "
      "sess.run(q.enqueue([['z'], 2])); out = sess.run(q.dequeue_many(2))"),
    S("q = tf.PriorityQueue(5, [tf.string], shapes=[[]]); "
      "sess.run(q.enqueue_many(([3, 1, 2], ['c', 'a', 'b']))); out = [sess.run(q.dequeue_many(3)), sess.run(q.size())]"),
    S("q = tf.RandomShuffleQueue(10, 2, tf.int32, shapes=[], seed=3); sess.run(q.enqueue_many([list(range(6))])); "
      "out = [len(sess.run(q.dequeue_many(4))), sess.run(q.size())]"),
    S("q = tf.FIFOQueue(3, tf.float32); out = [q.name, [t.name for t in q.dtypes], [str(s) for s in q.shapes], q.names]"),
    S("q = tf.FIFOQueue(2, tf.float32, shapes=[]); sess.run(q.enqueue(1.0)); "
      "out = sess.run(q.dequeue_many(2), options=tf.RunOptions(timeout_in_ms=200)) if False else "
      "drain(q.dequeue_many(1), 1)"),
    S("q = tf.FIFOQueue(3, tf.int32, shapes=[]); sess.run(q.enqueue(1)); sess.run(q.close(cancel_pending_enqueues=True)); "
      "out = [drain(q.dequeue()), sess.run(q.size())]"),
    S("q = tf.FIFOQueue(3, tf.int32, shapes=[]); sess.run(q.close());\n"
      "try:\n    sess.run(q.enqueue(1)); out = 'enqueued'\nexcept tf.errors.CancelledError as e:\n    out = 'cancelled'\n"),
    S("q = tf.FIFOQueue(3, tf.int32, shapes=[2]);\n"
      "try:\n    sess.run(q.enqueue([1, 2, 3])); out = 'enqueued'\nexcept (ValueError, tf.errors.InvalidArgumentError) as e:\n    out = type(e).__name__\n"),
    # Producers with queue runners
    S("t = tf.train.string_input_producer(['a', 'b', 'c'], num_epochs=2, shuffle=False).dequeue(); "
      "sess.run(tf.local_variables_initializer()); out = runners(lambda: drain(t))"),
    S("t = tf.train.input_producer(tf.constant([[1, 2], [3, 4]]), num_epochs=2, shuffle=False).dequeue(); "
      "sess.run(tf.local_variables_initializer()); out = runners(lambda: drain(t))"),
    S("t = tf.train.range_input_producer(4, num_epochs=1, shuffle=False).dequeue(); "
      "sess.run(tf.local_variables_initializer()); out = runners(lambda: drain(t))"),
    S("a, b = tf.train.slice_input_producer([tf.constant([1, 2, 3]), tf.constant(['x', 'y', 'z'])], num_epochs=1, shuffle=False); "
      "sess.run(tf.local_variables_initializer()); out = runners(lambda: drain([a, b]))"),
    S("x = tf.train.limit_epochs(tf.constant([1, 2]), num_epochs=2); sess.run(tf.local_variables_initializer()); out = drain(x)"),
    S("t = tf.train.string_input_producer(['a', 'b', 'c'], num_epochs=3, shuffle=True, seed=1).dequeue(); "
      "sess.run(tf.local_variables_initializer()); got = runners(lambda: drain(t)); out = [sorted(got[:-1]), got[-1]]"),
    # Batching
    S("x = tf.train.range_input_producer(10, num_epochs=1, shuffle=False).dequeue(); b = tf.train.batch([x], 4); "
      "sess.run(tf.local_variables_initializer()); out = runners(lambda: drain(b))"),
    S("x = tf.train.range_input_producer(10, num_epochs=1, shuffle=False).dequeue(); "
      "b = tf.train.batch([x], 4, allow_smaller_final_batch=True); "
      "sess.run(tf.local_variables_initializer()); out = runners(lambda: drain(b))"),
    S("x = tf.train.range_input_producer(5, num_epochs=1, shuffle=False).dequeue(); "
      "b = tf.train.batch({'n': x, 'sq': x * x}, 2, allow_smaller_final_batch=True); "
      "sess.run(tf.local_variables_initializer()); out = runners(lambda: drain(b))"),
    S("x = tf.train.range_input_producer(4, num_epochs=1, shuffle=False).dequeue(); "
      "b = tf.train.batch([tf.range(x + 1)], 2, dynamic_pad=True); "
      "sess.run(tf.local_variables_initializer()); out = runners(lambda: drain(b))"),
    S("x = tf.train.range_input_producer(6, num_epochs=1, shuffle=False).dequeue(); "
      "b = tf.train.batch([tf.fill([2], x)], 3, enqueue_many=False); "
      "sess.run(tf.local_variables_initializer()); out = runners(lambda: drain(b))"),
    S("b = tf.train.batch([tf.constant([[1, 2], [3, 4], [5, 6]])], 2, enqueue_many=True); "
      "out = runners(lambda: [sess.run(b), sess.run(b)])"),
    S("x = tf.train.range_input_producer(8, num_epochs=1, shuffle=False).dequeue(); "
      "b = tf.train.maybe_batch([x], x % 2 > 0, 2, allow_smaller_final_batch=True); "
      "sess.run(tf.local_variables_initializer()); out = runners(lambda: drain(b))"),
    S("x = tf.train.range_input_producer(12, num_epochs=1, shuffle=False).dequeue(); "
      "b = tf.train.shuffle_batch([x], 4, capacity=20, min_after_dequeue=2, seed=5, allow_smaller_final_batch=True); "
      "sess.run(tf.local_variables_initializer()); got = runners(lambda: drain(b)); "
      "out = [sorted(np.concatenate(got[:-1]).tolist()), [len(g) for g in got[:-1]], got[-1]]"),
    S("p = tf.train.range_input_producer(3, num_epochs=1, shuffle=False).dequeue(); "
      "q = tf.train.range_input_producer(3, num_epochs=1, shuffle=False).dequeue(); "
      "b = tf.train.batch_join([[p], [q + 10]], 2, allow_smaller_final_batch=True); "
      "sess.run(tf.local_variables_initializer()); got = runners(lambda: drain(b)); "
      "out = [sorted(np.concatenate(got[:-1]).tolist()), got[-1]]"),
    S("x = tf.train.range_input_producer(3, num_epochs=1, shuffle=False).dequeue(); b = tf.train.batch([x], 2); "
      "out = [b.shape.as_list(), tf.train.batch([x], 2, allow_smaller_final_batch=True).shape.as_list(), "
      "[o.name for o in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS) and [r.queue for r in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)]]]"),
    S("x = tf.train.range_input_producer(3).dequeue(); b = tf.train.batch([x], 2); "
      "out = [s.name for s in tf.get_collection(tf.GraphKeys.SUMMARIES)]"),
    # Readers
    S("f = write('a.txt', b'h1\\nl1\\nl2\\n'); g = write('b.txt', b'h2\\nm1\\n'); "
      "q = tf.train.string_input_producer([f, g], num_epochs=1, shuffle=False); "
      "r = tf.TextLineReader(skip_header_lines=1); k, val = r.read(q); sess.run(tf.local_variables_initializer()); "
      "got = runners(lambda: drain([k, val])); out = [[os.path.basename(x[0].decode()), x[1]] if x != 'end' else x for x in got]"),
    S("f = write('a.txt', b'1,2\\n3,4\\n5,6'); q = tf.train.string_input_producer([f], num_epochs=1, shuffle=False); "
      "r = tf.TextLineReader(); k, val = r.read_up_to(q, 2); sess.run(tf.local_variables_initializer()); "
      "out = runners(lambda: [x if x == 'end' else x[1] for x in drain([k, val])])"),
    S("f = write('a.txt', b'1,2\\n3,4\\n'); q = tf.train.string_input_producer([f], num_epochs=1, shuffle=False); "
      "r = tf.TextLineReader(); k, val = r.read(q); sess.run(tf.local_variables_initializer()); "
      "out = runners(lambda: [drain(val), sess.run(r.num_records_produced()), sess.run(r.num_work_units_completed())])"),
    S("f = write('w.bin', b'abc'); g = write('x.bin', b''); q = tf.train.string_input_producer([f, g], num_epochs=1, shuffle=False); "
      "k, val = tf.WholeFileReader().read(q); sess.run(tf.local_variables_initializer()); "
      "out = runners(lambda: [x if x == 'end' else x[1] for x in drain([k, val])])"),
    S("f = write('r.bin', b'HH' + bytes(range(12)) + b'F'); q = tf.train.string_input_producer([f], num_epochs=1, shuffle=False); "
      "k, val = tf.FixedLengthRecordReader(4, header_bytes=2, footer_bytes=1).read(q); sess.run(tf.local_variables_initializer()); "
      "out = runners(lambda: [x if x == 'end' else [os.path.basename(x[0].decode()), x[1]] for x in drain([k, val])])"),
    S("p = os.path.join(d, 'r.tfrecord'); w = tf.python_io.TFRecordWriter(p); [w.write(b'rec%d' % i) for i in range(3)]; w.close(); "
      "q = tf.train.string_input_producer([p], num_epochs=1, shuffle=False); k, val = tf.TFRecordReader().read(q); "
      "sess.run(tf.local_variables_initializer()); "
      "out = runners(lambda: [x if x == 'end' else [os.path.basename(x[0].decode()), x[1]] for x in drain([k, val])])"),
    S("p = os.path.join(d, 'z.tfrecord'); o = tf.python_io.TFRecordOptions(tf.python_io.TFRecordCompressionType.GZIP); "
      "w = tf.python_io.TFRecordWriter(p, o); [w.write(b'g%d' % i) for i in range(2)]; w.close(); "
      "out = [list(tf.python_io.tf_record_iterator(p, o)), "
      "runners(lambda: 0) if False else None]"),
    S("p = os.path.join(d, 'z.tfrecord'); o = tf.python_io.TFRecordOptions(tf.python_io.TFRecordCompressionType.ZLIB); "
      "w = tf.python_io.TFRecordWriter(p, o); w.write(b'zz'); w.close(); "
      "q = tf.train.string_input_producer([p], num_epochs=1, shuffle=False); "
      "k, val = tf.TFRecordReader(options=o).read(q); sess.run(tf.local_variables_initializer()); "
      "out = runners(lambda: [x if x == 'end' else x[1] for x in drain([k, val])])"),
    S("p = os.path.join(d, 'r.tfrecord'); w = tf.python_io.TFRecordWriter(p); [w.write(b'x' * i) for i in range(5)]; w.close(); "
      "q = tf.train.string_input_producer([p], num_epochs=1, shuffle=False); k, val = tf.TFRecordReader().read_up_to(q, 3); "
      "sess.run(tf.local_variables_initializer()); out = runners(lambda: [x if x == 'end' else x[1] for x in drain([k, val])])"),
    S("f = write('a.csv', b'1,x,2.5\\n,y,\\n3,,7'); q = tf.train.string_input_producer([f], num_epochs=1, shuffle=False); "
      "k, line = tf.TextLineReader().read(q); cols = tf.decode_csv(line, [[0], ['d'], [1.5]]); "
      "b = tf.train.batch(cols, 3); sess.run(tf.local_variables_initializer()); out = runners(lambda: sess.run(b))"),
    # Parsing what readers give
    "tf.decode_csv(['1;2', '3;'], [[0], [9]], field_delim=';')",
    "tf.decode_csv(['a,\"b,c\",d'], [[''], [''], ['']])",
    "tf.decode_csv(['1,NA,3'], [[0], [0], [0]], na_value='NA')",
    "tf.decode_csv(['1,2,3,4'], [[0], [0]], select_cols=[1, 3])",
    "tf.decode_csv(['1 2'], [[0], [0]], field_delim=' ')",
    "tf.decode_csv(['1,2'], [[0], [0], [0]])",
    "tf.decode_csv(['x,2'], [[0], [0]])",
    "tf.decode_csv(['1,2'], [tf.constant([], tf.int32), [0]])",
    "tf.decode_csv(['1.5,2'], [[0.0], tf.constant([7], tf.int64)])",
    "tf.decode_raw(tf.constant([b'\\x01\\x00\\x02\\x00']), tf.int16)",
    "tf.decode_raw(tf.constant([b'\\x01\\x00\\x02\\x00']), tf.int16, little_endian=False)",
    "tf.decode_raw(tf.constant([b'\\x00\\x00\\x80\\x3f']), tf.float32)",
    "tf.decode_raw(tf.constant([b'abc', b'de']), tf.uint8)",
    "tf.io.decode_compressed(tf.constant([b'']), compression_type='')",
]

CASES += [
    S("x = tf.train.range_input_producer(6, num_epochs=1, shuffle=False).dequeue(); "
      "b = tf.train.shuffle_batch([x], 2, capacity=10, min_after_dequeue=3, seed=1); "
      "out = [s.name for s in tf.get_collection(tf.GraphKeys.SUMMARIES)] + [b.name, b.shape.as_list()]"),
    S("p = tf.constant([1, 2]); b = tf.train.shuffle_batch_join([[p], [p + 10]], 2, capacity=8, min_after_dequeue=2, enqueue_many=True); "
      "out = [s.name for s in tf.get_collection(tf.GraphKeys.SUMMARIES)] + [b.name]"),
    S("x = tf.train.range_input_producer(8, num_epochs=1, shuffle=False).dequeue(); "
      "b = tf.train.maybe_shuffle_batch([x], 2, 10, 0, x < 4, seed=2, allow_smaller_final_batch=True); "
      "sess.run(tf.local_variables_initializer()); got = runners(lambda: drain(b)); "
      "out = [sorted(np.concatenate(got[:-1]).tolist()), got[-1]]"),
    S("x = tf.train.range_input_producer(4, num_epochs=1, shuffle=False).dequeue(); "
      "b = tf.train.batch([tf.reshape(x, [1])], 2, shapes=[[1]]); "
      "sess.run(tf.local_variables_initializer()); out = runners(lambda: drain(b))"),
    S("x = tf.train.range_input_producer(4, num_epochs=1, shuffle=False).dequeue(); "
      "b = tf.train.batch((x, tf.as_string(x)), 2); "
      "sess.run(tf.local_variables_initializer()); out = runners(lambda: drain(b))"),
    S("x = tf.train.range_input_producer(4, num_epochs=1, shuffle=False).dequeue(); "
      "b = tf.train.batch({'only': x}, 2); "
      "sess.run(tf.local_variables_initializer()); out = runners(lambda: drain(b))"),
    S("b = tf.train.batch([tf.constant([[1, 2], [3, 4], [5, 6]])], 2, enqueue_many=True, num_threads=1, capacity=4); "
      "out = [r.name if hasattr(r, 'name') else r for r in [tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)[0].queue]] + "
      "[len(tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)[0].enqueue_ops)]"),
    S("t = tf.train.string_input_producer(['a'], name='files'); out = [t.name, [s.name for s in tf.get_collection(tf.GraphKeys.SUMMARIES)]]"),
    S("t = tf.train.slice_input_producer([tf.constant([1, 2])], shuffle=False, name='sl'); "
      "out = [x.name for x in t] + [r.queue.name for r in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)]"),
    # QueueRunner and Coordinator
    S("q = tf.FIFOQueue(10, tf.int32, shapes=[]); c = tf.Variable(0); inc = tf.assign_add(c, 1); "
      "qr = tf.train.QueueRunner(q, [q.enqueue(inc)]); sess.run(tf.global_variables_initializer()); "
      "coord = tf.train.Coordinator(); ts = qr.create_threads(sess, coord=coord, start=True); "
      "got = sess.run(q.dequeue_many(5)); coord.request_stop(); sess.run(q.close(cancel_pending_enqueues=True)); coord.join(ts); "
      "out = [len(got), len(ts)]"),  # (TF's values race with the enqueue's read of the counter)
    S("coord = tf.train.Coordinator(); out = [coord.should_stop(), coord.request_stop() or coord.should_stop(), coord.wait_for_stop(0.01)]"),
    S("coord = tf.train.Coordinator()\n"
      "try:\n    raise ValueError('boom')\nexcept ValueError as e:\n    coord.request_stop(e)\n"
      "try:\n    coord.join([])\n    out = 'joined'\nexcept ValueError as e:\n    out = str(e)\n"),
    S("coord = tf.train.Coordinator(clean_stop_exception_types=(tf.errors.OutOfRangeError,))\n"
      "coord.request_stop(tf.errors.OutOfRangeError(None, None, 'done'))\n"
      "coord.join([]); out = coord.should_stop()\n"),
    S("coord = tf.train.Coordinator()\n"
      "with coord.stop_on_exception():\n    raise tf.errors.OutOfRangeError(None, None, 'x')\n"
      "out = [coord.should_stop(), coord.joined]\n"),
    S("q = tf.FIFOQueue(2, tf.int32, shapes=[]); qr = tf.train.QueueRunner(q, [q.enqueue(tf.constant(1))]); "
      "out = [qr.queue.name, qr.name, [o.name for o in qr.enqueue_ops], qr.close_op.name, qr.cancel_op.name]"),
    # Accumulators
    S("a = tf.ConditionalAccumulator(tf.float32, shape=[2]); sess.run(a.apply_grad([1.0, 2.0], local_step=0)); "
      "sess.run(a.apply_grad([3.0, 4.0], local_step=0)); n = sess.run(a.num_accumulated()); "
      "out = [n, sess.run(a.take_grad(2)), sess.run(a.num_accumulated())]"),
    S("a = tf.ConditionalAccumulator(tf.float32, shape=[1]); sess.run(a.set_global_step(5)); "
      "sess.run(a.apply_grad([1.0], local_step=3)); sess.run(a.apply_grad([5.0], local_step=5)); "
      "out = [sess.run(a.num_accumulated()), sess.run(a.take_grad(1))]"),
    S("a = tf.ConditionalAccumulator(tf.float32, shape=[1], reduction_type='SUM'); sess.run(a.apply_grad([1.0])); "
      "sess.run(a.apply_grad([2.0])); out = sess.run(a.take_grad(2))"),
    S("a = tf.ConditionalAccumulator(tf.float32, shape=[2]);\n"
      "try:\n    sess.run(a.apply_grad([1.0, 2.0, 3.0])); out = 'applied'\nexcept (ValueError, tf.errors.InvalidArgumentError) as e:\n    out = type(e).__name__\n"),
    S("a = tf.ConditionalAccumulator(tf.float32); out = [a.dtype.name, a.name.split('/')[-1], str(tf.TensorShape(None))]"),
    # Staging and barriers of TF 1.x
    S("q = tf.FIFOQueue(4, [tf.int32, tf.int32], shapes=[[], []]); sess.run(q.enqueue_many(([1, 2], [3, 4]))); "
      "a, b = q.dequeue(); out = sess.run([a, b])"),
    S("q = tf.FIFOQueue(4, tf.string, shapes=[]); sess.run(q.enqueue_many([['x', 'yy']])); "
      "out = sess.run(q.dequeue_many(2))"),
    S("q = tf.PaddingFIFOQueue(4, [tf.float32], shapes=[[None, 2]]); sess.run(q.enqueue([np.ones((1, 2), np.float32)])); "
      "sess.run(q.enqueue([np.ones((3, 2), np.float32)])); out = sess.run(q.dequeue_many(2))"),
    S("q = tf.FIFOQueue(4, tf.int32, shapes=[]); sess.run(q.enqueue_many([[1, 2, 3]])); "
      "out = [sess.run(q.dequeue_many(0)).shape, sess.run(q.size())]"),
    S("q = tf.FIFOQueue(4, tf.int32); out = [q.shapes[0].ndims, q.dequeue().shape.ndims]"),
    S("q = tf.FIFOQueue(4, [tf.int32, tf.float32], shapes=[[2], []]); d = q.dequeue_many(3); out = [t.shape.as_list() for t in d]"),
    S("q = tf.FIFOQueue(4, tf.int32, shapes=[2]); d = q.dequeue_up_to(3); out = d.shape.as_list()"),
    S("q = tf.FIFOQueue(4, [tf.int32], shapes=[[]], shared_name='sq'); q2 = tf.FIFOQueue(4, [tf.int32], shapes=[[]], shared_name='sq'); "
      "sess.run(q.enqueue(7)); out = sess.run(q2.dequeue())"),
    S("q = tf.FIFOQueue.from_list(0, [tf.FIFOQueue(2, tf.int32, shapes=[]), tf.FIFOQueue(2, tf.int32, shapes=[])]); "
      "sess.run(q.enqueue(5)); out = sess.run(q.size())"),
]
