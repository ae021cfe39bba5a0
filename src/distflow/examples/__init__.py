"""``tensorflow.examples``: the helpers TF 1.x's tutorials imported from it
(``from distflow.examples.tutorials.mnist import input_data``)."""
