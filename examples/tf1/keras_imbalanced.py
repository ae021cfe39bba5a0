"""TensorFlow's "Classification on imbalanced data" tutorial, as a TF 1.15 program writes it
(graph mode): Keras metric objects (the confusion counts, precision, recall and AUC) in
compile, an output bias set from the classes' frequencies, and class weights in fit. The
credit-card transactions of the tutorial are replaced by synthetic ones: 2% are frauds,
which differ in a few of the 20 features.
"""
import numpy as np
import distflow as tf

tf.set_random_seed(3)
np.random.seed(3)
rng = np.random.RandomState(0)
n, features = 20000, 20
labels = (rng.rand(n) < 0.02).astype('float32')
data = rng.randn(n, features).astype('float32')
data[labels == 1, :4] += rng.randn(int(labels.sum()), 4) * 0.5 + 1.5  # (frauds stand apart in four features)
train, val, test = slice(0, 12000), slice(12000, 16000), slice(16000, n)
mean, std = data[train].mean(0), data[train].std(0)
data = np.clip((data - mean) / std, -5, 5)

METRICS = [
    tf.keras.metrics.TruePositives(name='tp'),
    tf.keras.metrics.FalsePositives(name='fp'),
    tf.keras.metrics.TrueNegatives(name='tn'),
    tf.keras.metrics.FalseNegatives(name='fn'),
    tf.keras.metrics.BinaryAccuracy(name='accuracy'),
    tf.keras.metrics.Precision(name='precision'),
    tf.keras.metrics.Recall(name='recall'),
    tf.keras.metrics.AUC(name='auc'),
]

neg, pos = np.bincount(labels[train].astype(int))
initial_bias = np.log([pos / neg])


def make_model(metrics=METRICS, output_bias=None):
    bias = tf.keras.initializers.Constant(output_bias) if output_bias is not None else None
    model = tf.keras.Sequential([
        tf.keras.layers.Dense(16, activation='relu', input_shape=(features,)),
        tf.keras.layers.Dropout(0.5),
        tf.keras.layers.Dense(1, activation='sigmoid', bias_initializer=bias),
    ])
    model.compile(optimizer=tf.keras.optimizers.Adam(lr=1e-3), loss='binary_crossentropy', metrics=metrics)
    return model


model = make_model(output_bias=initial_bias)
print('loss with the initial bias: %.4f (log 2 = %.4f without)' % (
    model.evaluate(data[train], labels[train], batch_size=2048, verbose=0)[0], np.log(2)))
weight_for_0 = (1 / neg) * (neg + pos) / 2.0
weight_for_1 = (1 / pos) * (neg + pos) / 2.0
history = model.fit(data[train], labels[train], batch_size=2048, epochs=30, verbose=0,
                    validation_data=(data[val], labels[val]), class_weight={0: weight_for_0, 1: weight_for_1})
print('validation AUC by epoch 10, 20, 30: %.4f %.4f %.4f' % tuple(history.history['val_auc'][i] for i in (9, 19, 29)))
results = model.evaluate(data[test], labels[test], batch_size=2048, verbose=0)
for name, value in zip(model.metrics_names, results):
    print('%s: %s' % (name, value))
predictions = model.predict(data[test], batch_size=2048)[:, 0]
print('frauds caught: %d of %d' % (int(((predictions > 0.5) & (labels[test] == 1)).sum()), int(labels[test].sum())))
