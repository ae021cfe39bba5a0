import numpy as np
INPUTS = dict(v=np.arange(6, dtype=np.int64))
D = "tf.data.Dataset"
E = "tf.data.experimental"
def seq(ds, n):
    return f"exec:ds = {ds}\ni = tf.data.make_one_shot_iterator(ds)\nout = i.get_next()\nruns = {n}"
CASES = [seq(f"{E}.choose_from_datasets([{D}.range(3), {D}.range(10, 13)], {D}.from_tensor_slices(tf.constant([0, 1, 1, 0, 1], tf.int64))).batch(10)", 1),
         seq(f"{D}.from_tensor_slices(tf.constant([1, 2, 1, 3, 2, 5], tf.int64)).apply({E}.unique()).batch(10)", 1),
         seq(f"{D}.from_tensor_slices(tf.constant(['a', 'b', 'a'])).apply({E}.unique()).batch(10)", 1),
         seq(f"{D}.from_tensor_slices(tf.constant([1.0, 0.0, 2.0])).map(lambda x: tf.debugging.check_numerics(1.0 / x, 'bad')).apply({E}.ignore_errors()).batch(5)", 1),
         f"{E}.get_single_element({D}.from_tensors(v))", f"{E}.get_single_element({D}.range(3).batch(3))",
         f"{E}.get_single_element({D}.range(3))", f"{E}.get_single_element({D}.from_tensors((v, v * 2)))"]
