"""TensorFlow 1.0's "tf.contrib.learn Quickstart": a DNNClassifier on the iris flowers.

As the quickstart wrote it (the CSV files read with ``load_csv_with_header``, one
real-valued column of four values, hidden layers of 10, 20 and 10, ``fit`` with an input
function of constants, ``evaluate`` over one step, ``predict`` of two new flowers), with
the flowers from scikit-learn written to the quickstart's CSV format instead of a download.
"""
import os
import tempfile

import numpy as np
import distflow as tf
from sklearn.datasets import load_iris

IRIS_TRAINING = "iris_training.csv"
IRIS_TEST = "iris_test.csv"


def write_csv_files(directory, seed=0):
    """The quickstart's two files: a header "count,4,setosa,versicolor,virginica", then rows."""
    iris = load_iris()
    order = np.random.RandomState(seed).permutation(len(iris.target))
    for name, rows in ((IRIS_TRAINING, order[:120]), (IRIS_TEST, order[120:])):
        with open(os.path.join(directory, name), "w") as f:
            f.write(f"{len(rows)},4,setosa,versicolor,virginica\n")
            for i in rows:
                f.write(",".join(f"{v:.1f}" for v in iris.data[i]) + f",{iris.target[i]}\n")


def main():
    directory = tempfile.mkdtemp()
    write_csv_files(directory)

    # Load datasets.
    training_set = tf.contrib.learn.datasets.base.load_csv_with_header(
        filename=os.path.join(directory, IRIS_TRAINING), target_dtype=np.int64, features_dtype=np.float32)
    test_set = tf.contrib.learn.datasets.base.load_csv_with_header(
        filename=os.path.join(directory, IRIS_TEST), target_dtype=np.int64, features_dtype=np.float32)

    # Specify that all features have real-value data
    feature_columns = [tf.contrib.layers.real_valued_column("", dimension=4)]

    # Build 3 layer DNN with 10, 20, 10 units respectively.
    # (a seed, which the quickstart did not set: an unlucky draw of its ReLU network leaves it at chance)
    classifier = tf.contrib.learn.DNNClassifier(feature_columns=feature_columns, hidden_units=[10, 20, 10],
                                                n_classes=3, model_dir=os.path.join(directory, "iris_model"),
                                                config=tf.contrib.learn.RunConfig(tf_random_seed=1))

    # Define the training inputs
    def get_train_inputs():
        x = tf.constant(training_set.data)
        y = tf.constant(training_set.target)
        return x, y

    # Fit model.
    classifier.fit(input_fn=get_train_inputs, steps=2000)

    # Define the test inputs
    def get_test_inputs():
        x = tf.constant(test_set.data)
        y = tf.constant(test_set.target)
        return x, y

    # Evaluate accuracy.
    accuracy_score = classifier.evaluate(input_fn=get_test_inputs, steps=1)["accuracy"]
    print("\nTest Accuracy: {0:f}\n".format(accuracy_score))

    # Classify two new flower samples.
    def new_samples():
        return np.array([[6.4, 3.2, 4.5, 1.5], [5.8, 3.1, 5.0, 1.7]], dtype=np.float32)

    predictions = list(classifier.predict(x=new_samples()))
    print("New Samples, Class Predictions:    {}\n".format(predictions))


if __name__ == "__main__":
    main()
