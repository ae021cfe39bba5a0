"""TensorFlow's "Creating Custom Estimators" tutorial: the iris classifier as a model_fn.

As the tutorial wrote it (``tf.feature_column.input_layer``, dense hidden layers, the
predictions, loss, accuracy metric and Adagrad training of ``my_model``), with the data
from scikit-learn instead of a download.
"""
import numpy as np
import distflow as tf
from sklearn.datasets import load_iris


def load_data(seed=0):
    iris = load_iris()
    order = np.random.RandomState(seed).permutation(len(iris.target))
    x, y = iris.data[order].astype(np.float32), iris.target[order].astype(np.int64)
    names = ['SepalLength', 'SepalWidth', 'PetalLength', 'PetalWidth']
    return ({n: x[:120, i] for i, n in enumerate(names)}, y[:120]), ({n: x[120:, i] for i, n in enumerate(names)},
                                                                     y[120:])


def train_input_fn(features, labels, batch_size):
    return tf.data.Dataset.from_tensor_slices((dict(features), labels)).shuffle(1000).repeat().batch(batch_size)


def eval_input_fn(features, labels, batch_size):
    return tf.data.Dataset.from_tensor_slices((dict(features), labels)).batch(batch_size)


def my_model(features, labels, mode, params):
    """DNN with three hidden layers and learning_rate=0.1."""
    net = tf.feature_column.input_layer(features, params['feature_columns'])
    for units in params['hidden_units']:
        net = tf.layers.dense(net, units=units, activation=tf.nn.relu)
    logits = tf.layers.dense(net, params['n_classes'], activation=None)

    predicted_classes = tf.argmax(logits, 1)
    if mode == tf.estimator.ModeKeys.PREDICT:
        predictions = {
            'class_ids': predicted_classes[:, tf.newaxis],
            'probabilities': tf.nn.softmax(logits),
            'logits': logits,
        }
        return tf.estimator.EstimatorSpec(mode, predictions=predictions)

    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    accuracy = tf.metrics.accuracy(labels=labels, predictions=predicted_classes, name='acc_op')
    metrics = {'accuracy': accuracy}
    tf.summary.scalar('accuracy', accuracy[1])
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops=metrics)

    assert mode == tf.estimator.ModeKeys.TRAIN
    optimizer = tf.train.AdagradOptimizer(learning_rate=0.1)
    train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def main(argv):
    (train_x, train_y), (test_x, test_y) = load_data()
    my_feature_columns = [tf.feature_column.numeric_column(key=key) for key in train_x.keys()]
    classifier = tf.estimator.Estimator(
        model_fn=my_model,
        params={'feature_columns': my_feature_columns, 'hidden_units': [10, 10], 'n_classes': 3},
        config=tf.estimator.RunConfig(tf_random_seed=1, log_step_count_steps=None))
    classifier.train(input_fn=lambda: train_input_fn(train_x, train_y, 100), steps=1000)
    eval_result = classifier.evaluate(input_fn=lambda: eval_input_fn(test_x, test_y, 100))
    print('\nTest set accuracy: {accuracy:0.3f}\n'.format(**eval_result))


if __name__ == '__main__':
    tf.logging.set_verbosity(tf.logging.WARN)
    tf.app.run(main)
