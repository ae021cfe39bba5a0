"""``tf.estimator.experimental``: early stopping (early_stopping.py) and ``KMeans``
(kmeans.py's KMeansClustering)."""

from .._namespace import missing
from .kmeans import KMeansClustering as KMeans  # noqa: F401
from .early_stopping import (make_early_stopping_hook, read_eval_metrics, stop_if_higher_hook,  # noqa: F401
                             stop_if_lower_hook, stop_if_no_decrease_hook, stop_if_no_increase_hook)

__getattr__ = missing("tf.estimator.experimental")
