import numpy as np
r = np.random.RandomState(6)
INPUTS = dict(img=r.randn(2, 7, 7, 3).astype(np.float32), x=r.randn(4, 6).astype(np.float32), p=r.rand(4, 3).astype(np.float32), lab=np.array([0, 2, 1, 2], np.int64), seq=r.randn(2, 5, 3).astype(np.float32))
CASES = []
for fused in (None, True, False):
    for ax in (-1, 1):
        CASES.append(f"exec:y = tf.layers.batch_normalization(img, axis={ax}, training=True, momentum=0.5, fused={fused}); train = tf.get_collection(tf.GraphKeys.UPDATE_OPS); steps = 2; out = [v for v in tf.global_variables() if 'moving' in v.name]")
CASES += ["exec:y = tf.layers.batch_normalization(x, training=True, momentum=0.5); train = tf.get_collection(tf.GraphKeys.UPDATE_OPS); steps = 2; out = [v for v in tf.global_variables() if 'moving' in v.name]",
 "exec:l = tf.keras.layers.BatchNormalization(momentum=0.5); y = l(img, training=True); train = l.updates; steps = 2; out = [l.moving_mean, l.moving_variance]",
 "exec:l = tf.keras.layers.BatchNormalization(momentum=0.5, axis=1); y = l(img, training=True); train = l.updates; steps = 2; out = [l.moving_mean, l.moving_variance]",
 "exec:l = tf.keras.layers.BatchNormalization(momentum=0.5); y = l(x, training=True); train = l.updates; steps = 2; out = [l.moving_mean, l.moving_variance]",
 "tf.keras.losses.Huber(0.3)(p, p[::-1])", "tf.keras.losses.categorical_hinge(p, p[::-1])", "tf.keras.losses.CategoricalHinge()(p, p[::-1])",
 "tf.keras.losses.CategoricalCrossentropy(label_smoothing=0.1)(tf.one_hot(lab, 3), p)", "tf.keras.losses.CategoricalCrossentropy(True, 0.1)(tf.one_hot(lab, 3), p)",
 "tf.keras.losses.BinaryCrossentropy(from_logits=True, label_smoothing=0.2)(tf.cast(p > 0.5, tf.float32), p)", "tf.keras.losses.BinaryCrossentropy(label_smoothing=0.2)(tf.cast(p > 0.5, tf.float32), p)",
 "tf.keras.losses.MeanSquaredError(reduction='sum')(p, p[::-1])", "tf.keras.losses.MeanSquaredError(reduction='none')(p, p[::-1])", "tf.keras.losses.MeanSquaredError()(p, p[::-1], sample_weight=[1., 0., 2., 1.])",
 "tf.keras.losses.MeanSquaredError(reduction='sum')(p, p[::-1], sample_weight=[1., 0., 2., 1.])", "tf.keras.losses.CosineSimilarity(axis=0)(p, p[::-1])", "tf.keras.losses.SquaredHinge()(p, p[::-1])",
 "tf.keras.losses.MeanAbsolutePercentageError()(p, p[::-1])", "tf.keras.losses.MeanSquaredLogarithmicError()(p, p[::-1])", "tf.keras.losses.SparseCategoricalCrossentropy(True)(lab, p)",
 "tf.keras.backend.batch_dot(seq, seq, axes=[2, 2])", "tf.keras.backend.batch_dot(seq, seq, axes=[1, 1])", "tf.keras.backend.batch_dot(seq, tf.transpose(seq, [0, 2, 1]))",
 "tf.keras.backend.batch_dot(x, x, axes=1)", "tf.keras.backend.batch_dot(seq, x[:2, :3], axes=[2, 1])", "tf.keras.backend.batch_dot(x[:2, :5], seq, axes=[1, 1])",
 "tf.keras.layers.Conv1D(2, 3, kernel_initializer='ones', dilation_rate=2, padding='causal')(seq)", "tf.keras.layers.Conv1D(2, 2, kernel_initializer='ones', padding='causal', strides=2)(seq)",
]
