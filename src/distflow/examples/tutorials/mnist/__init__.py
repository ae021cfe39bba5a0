"""``tensorflow.examples.tutorials.mnist``: ``input_data``, the tutorials' MNIST reader."""
