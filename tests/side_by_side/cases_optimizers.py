import numpy as np
r = np.random.RandomState(5)
INPUTS = dict(x=r.randn(8, 3).astype(np.float32), y=r.randn(8, 1).astype(np.float32), ids=np.array([0, 2, 2, 1], np.int32))
OPT = ["tf.train.GradientDescentOptimizer(0.1)", "tf.train.MomentumOptimizer(0.1, 0.9)", "tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True)",
       "tf.train.AdamOptimizer(0.1)", "tf.train.AdamOptimizer(0.1, amsgrad=True) if False else tf.train.AdamOptimizer(0.01, 0.8, 0.9, 1e-3)",
       "tf.train.AdagradOptimizer(0.1)", "tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.5)", "tf.train.AdadeltaOptimizer(1.0)",
       "tf.train.RMSPropOptimizer(0.01)", "tf.train.RMSPropOptimizer(0.01, momentum=0.9, centered=True)", "tf.train.RMSPropOptimizer(0.01, decay=0.5, epsilon=1e-3)",
       "tf.train.FtrlOptimizer(0.1)", "tf.train.FtrlOptimizer(0.1, l1_regularization_strength=0.01, l2_regularization_strength=0.1)",
       "tf.train.FtrlOptimizer(0.1, learning_rate_power=-0.3, initial_accumulator_value=0.2, l2_shrinkage_regularization_strength=0.05)",
       "tf.train.ProximalGradientDescentOptimizer(0.1, l1_regularization_strength=0.01, l2_regularization_strength=0.02)",
       "tf.train.ProximalAdagradOptimizer(0.1, l1_regularization_strength=0.01)", "tf.train.AdagradDAOptimizer(0.1, tf.train.get_or_create_global_step() if False else tf.Variable(0, dtype=tf.int64))"]
CASES = []
for o in OPT:
    CASES.append(f"exec:w = tf.Variable(np.ones((3, 1), np.float32)); b = tf.Variable(np.zeros(1, np.float32)); loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y)); train = ({o}).minimize(loss); steps = 5; out = [w, b]")
    CASES.append(f"exec:emb = tf.Variable(np.ones((4, 2), np.float32)); loss = tf.reduce_sum(tf.square(tf.nn.embedding_lookup(emb, ids) - 0.5)); train = ({o}).minimize(loss); steps = 3; out = emb")
CASES += [
 "exec:w = tf.Variable(1.0); train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.square(w)); ema = tf.train.ExponentialMovingAverage(0.9); train = tf.group(train, ema.apply([w])); steps = 3; out = ema.average(w)",
 "exec:gs = tf.Variable(0, dtype=tf.int64); out = [tf.train.exponential_decay(0.1, gs + 7, 3, 0.5, staircase=True), tf.train.polynomial_decay(0.1, gs + 7, 10, 0.01, power=2.0), tf.train.polynomial_decay(0.1, gs + 17, 10, cycle=True), tf.train.piecewise_constant(gs + 5, [3, 7], [1.0, 0.5, 0.1]), tf.train.inverse_time_decay(0.1, gs + 5, 2, 0.5), tf.train.natural_exp_decay(0.1, gs + 5, 2, 0.5, staircase=True), tf.train.cosine_decay(0.1, gs + 5, 10, alpha=0.1), tf.train.cosine_decay_restarts(0.1, gs + 5, 3), tf.train.linear_cosine_decay(0.1, gs + 5, 10), tf.train.noisy_linear_cosine_decay(0.1, gs + 5, 10, initial_variance=0.0)]",
 "exec:w = tf.Variable([1.0, 2.0]); opt = tf.train.GradientDescentOptimizer(0.1); gv = opt.compute_gradients(tf.reduce_sum(w * w)); gv = [(tf.clip_by_norm(g, 1.0), v) for g, v in gv]; train = opt.apply_gradients(gv); steps = 2; out = w",
 "exec:w = tf.Variable([1.0, 2.0]); out = tf.train.AdamOptimizer(0.1).compute_gradients(tf.reduce_sum(w * w))[0][0]",
]
