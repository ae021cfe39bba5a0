"""TensorFlow's "Premade Estimators" tutorial: a DNNClassifier on the iris flowers.

As the tutorial wrote it (iris_data.py's input functions, numeric feature columns, two
hidden layers of 10, three classes), with the data set from scikit-learn instead of a
download; the training and test split is the tutorial's size (120 and 30).
"""
import argparse

import numpy as np
import distflow as tf
from sklearn.datasets import load_iris

CSV_COLUMN_NAMES = ['SepalLength', 'SepalWidth', 'PetalLength', 'PetalWidth', 'Species']
SPECIES = ['Setosa', 'Versicolor', 'Virginica']

parser = argparse.ArgumentParser()
parser.add_argument('--batch_size', default=100, type=int, help='batch size')
parser.add_argument('--train_steps', default=1000, type=int, help='number of training steps')


def load_data(seed=0):
    iris = load_iris()
    order = np.random.RandomState(seed).permutation(len(iris.target))
    x, y = iris.data[order].astype(np.float32), iris.target[order].astype(np.int64)
    names = CSV_COLUMN_NAMES[:-1]
    train_x = {name: x[:120, i] for i, name in enumerate(names)}
    test_x = {name: x[120:, i] for i, name in enumerate(names)}
    return (train_x, y[:120]), (test_x, y[120:])


def train_input_fn(features, labels, batch_size):
    dataset = tf.data.Dataset.from_tensor_slices((dict(features), labels))
    return dataset.shuffle(1000).repeat().batch(batch_size)


def eval_input_fn(features, labels, batch_size):
    features = dict(features)
    inputs = features if labels is None else (features, labels)
    return tf.data.Dataset.from_tensor_slices(inputs).batch(batch_size)


def main(argv):
    args = parser.parse_args(argv[1:])
    (train_x, train_y), (test_x, test_y) = load_data()
    my_feature_columns = []
    for key in train_x.keys():
        my_feature_columns.append(tf.feature_column.numeric_column(key=key))
    classifier = tf.estimator.DNNClassifier(
        feature_columns=my_feature_columns,
        hidden_units=[10, 10],
        n_classes=3,
        config=tf.estimator.RunConfig(tf_random_seed=1, log_step_count_steps=None))
    classifier.train(input_fn=lambda: train_input_fn(train_x, train_y, args.batch_size), steps=args.train_steps)
    eval_result = classifier.evaluate(input_fn=lambda: eval_input_fn(test_x, test_y, args.batch_size))
    print('\nTest set accuracy: {accuracy:0.3f}\n'.format(**eval_result))

    expected = ['Setosa', 'Versicolor', 'Virginica']
    predict_x = {
        'SepalLength': [5.1, 5.9, 6.9],
        'SepalWidth': [3.3, 3.0, 3.1],
        'PetalLength': [1.7, 4.2, 5.4],
        'PetalWidth': [0.5, 1.5, 2.1],
    }
    predictions = classifier.predict(input_fn=lambda: eval_input_fn(predict_x, labels=None, batch_size=args.batch_size))
    for pred_dict, expec in zip(predictions, expected):
        class_id = pred_dict['class_ids'][0]
        probability = pred_dict['probabilities'][class_id]
        print('Prediction is "{}" ({:.1f}%), expected "{}"'.format(SPECIES[class_id], 100 * probability, expec))


if __name__ == '__main__':
    tf.logging.set_verbosity(tf.logging.WARN)
    tf.app.run(main)
