"""``tf.contrib.learn``: its ``ModeKeys``, which TF 1.x model code written before
``tf.estimator`` (TensorFlow's NMT tutorial among it) uses to say what a graph is built for,
and ``preprocessing.VocabularyProcessor``, the text models' vocabulary. The rest of
contrib.learn (its Estimators, Experiment, learn_runner), which TF 1.x deprecated for
tf.estimator, is not supported."""

from __future__ import annotations

from .._namespace import missing
from . import learn_preprocessing as preprocessing  # noqa: F401


class ModeKeys:
    """What a model is built for: ``TRAIN``, ``EVAL`` or ``INFER`` (tf.estimator's PREDICT)."""

    TRAIN = "train"
    EVAL = "eval"
    INFER = "infer"


__getattr__ = missing("tf.contrib.learn")
