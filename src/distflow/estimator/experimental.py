"""``tf.estimator.experimental``: early stopping (early_stopping.py), ``KMeans`` (kmeans.py's
KMeansClustering), ``InMemoryEvaluatorHook`` and ``make_stop_at_checkpoint_step_hook``
(evaluation_hooks.py), and the logit functions (logit_fns.py)."""

from .._namespace import missing
from .kmeans import KMeansClustering as KMeans  # noqa: F401
from .early_stopping import (make_early_stopping_hook, read_eval_metrics, stop_if_higher_hook,  # noqa: F401
                             stop_if_lower_hook, stop_if_no_decrease_hook, stop_if_no_increase_hook)
from .evaluation_hooks import InMemoryEvaluatorHook, make_stop_at_checkpoint_step_hook  # noqa: F401
from .logit_fns import call_logit_fn, dnn_logit_fn_builder, linear_logit_fn_builder  # noqa: F401

__getattr__ = missing("tf.estimator.experimental")
