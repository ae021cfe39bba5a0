import numpy as np
r = np.random.RandomState(5)
INPUTS = dict(x=r.randn(8, 3).astype(np.float32), y=r.randn(8, 1).astype(np.float32), ids=np.array([0, 2, 2, 1], np.int32))
CASES = []
for kw in ["", ", l1_regularization_strength=0.01", ", l2_regularization_strength=0.1", ", l1_regularization_strength=0.05, l2_regularization_strength=0.2, initial_gradient_squared_accumulator_value=0.5"]:
    o = f"tf.train.AdagradDAOptimizer(0.1, gs{kw})"
    CASES.append(f"exec:gs = tf.train.get_or_create_global_step(); w = tf.Variable(np.ones((3, 1), np.float32)); loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y)); train = ({o}).minimize(loss, global_step=gs); steps = 5; out = [w]")
    CASES.append(f"exec:gs = tf.train.get_or_create_global_step(); emb = tf.Variable(np.ones((4, 2), np.float32)); loss = tf.reduce_sum(tf.square(tf.nn.embedding_lookup(emb, ids) - 0.5)); train = ({o}).minimize(loss, global_step=gs); steps = 3; out = emb")
CASES.append("py:\ngs = tf.train.get_or_create_global_step(); w = tf.Variable([1.0], name='w')\nopt = tf.train.AdagradDAOptimizer(0.1, gs)\nt = opt.minimize(w * w)\nout = sorted(v.name for v in tf.global_variables()) + [opt.get_slot_names()]")
