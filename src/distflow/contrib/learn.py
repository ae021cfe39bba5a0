"""``tf.contrib.learn``: its ``ModeKeys``, which TF 1.x model code written before
``tf.estimator`` (TensorFlow's NMT tutorial among it) uses to say what a graph is built for;
``preprocessing.VocabularyProcessor``, the text models' vocabulary; and its canned
Estimators with ``fit``/``evaluate``/``predict`` as TF 1.0-1.3's tutorials used them, with
``datasets.base.load_csv_with_header`` and ``infer_real_valued_columns_from_input``
(learn_estimators.py), and ``datasets.mnist``, the MNIST reader of TF 1.x's tutorials
(learn_datasets.py); ``Experiment``, ``learn_runner.run`` and ``RunConfig``, which ran
them on clusters (learn_experiment.py). Not here: contrib.learn's own Estimator base and
monitors, which tf.estimator replaced."""

from __future__ import annotations

from .._namespace import missing
import types

from . import learn_preprocessing as preprocessing  # noqa: F401
from .learn_estimators import (DNNClassifier, DNNLinearCombinedClassifier,  # noqa: F401
                               DNNLinearCombinedRegressor, DNNRegressor,
                               LinearClassifier, LinearRegressor, infer_real_valued_columns_from_input,
                               infer_real_valued_columns_from_input_fn, load_csv_with_header,
                               load_csv_without_header)  # (and datasets.base's)
from . import learn_datasets as _datasets
from .learn_experiment import Environment, Experiment, RunConfig  # noqa: F401
from .learn_experiment import run as _run

learn_runner = types.SimpleNamespace(run=_run)

datasets = types.SimpleNamespace(base=_datasets.base, mnist=_datasets.mnist, load_dataset=_datasets.load_dataset)


class ModeKeys:
    """What a model is built for: ``TRAIN``, ``EVAL`` or ``INFER`` (tf.estimator's PREDICT)."""

    TRAIN = "train"
    EVAL = "eval"
    INFER = "infer"


__getattr__ = missing("tf.contrib.learn")
