"""``tensorflow.examples.tutorials.mnist.input_data``: ``read_data_sets`` and its kin, which
are ``tf.contrib.learn.datasets.mnist``'s (contrib/learn_datasets.py)."""

from ....contrib.learn_datasets import (DataSet, dense_to_one_hot, extract_images, extract_labels,  # noqa: F401
                                        maybe_download, read_data_sets)
