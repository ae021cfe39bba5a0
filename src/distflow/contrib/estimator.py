"""``tf.contrib.estimator``: wrappers that change what an Estimator reports without changing
its model (``add_metrics``, ``forward_features``), an optimizer that clips the gradients
(``clip_gradients_by_norm``), and the early-stopping hooks of ``tf.estimator.experimental``
under their contrib names."""

from __future__ import annotations

from .._namespace import missing
from ..estimator.early_stopping import (make_early_stopping_hook, read_eval_metrics,  # noqa: F401
                                        stop_if_higher_hook, stop_if_lower_hook, stop_if_no_decrease_hook,
                                        stop_if_no_increase_hook)
from ..estimator.boosted_trees import (BoostedTreesEstimator, boosted_trees_classifier_train_in_memory,  # noqa: F401
                                       boosted_trees_regressor_train_in_memory)
from ..estimator.estimator import ModeKeys
from ..estimator.extenders import _rewrapped, add_metrics  # noqa: F401
from .estimator_heads import (BaselineEstimator, DNNEstimator, DNNLinearCombinedEstimator,  # noqa: F401
                              LinearEstimator, RNNEstimator, binary_classification_head,
                              logistic_regression_head, multi_class_head, multi_head, multi_label_head,
                              poisson_regression_head, regression_head)
from .estimator_rnn import RNNClassifier  # noqa: F401
from ..ops import clip_ops
from ..train.optimizer import Optimizer

def forward_features(estimator, keys=None, sparse_default_values=None):
    """``estimator`` whose predictions also hold the features named ``keys`` (a name, a list,
    or None for every feature) as they came, so that predictions can be matched to examples
    (an id, say). Sparse features are not forwarded."""
    if sparse_default_values is not None:
        raise NotImplementedError("forward_features: sparse_default_values (forwarding sparse features) is not "
                                  "supported by distflow")
    wanted = [keys] if isinstance(keys, str) else keys

    def change(spec, features, labels, mode):
        if mode != ModeKeys.PREDICT:
            return spec
        if not isinstance(spec.predictions, dict):
            raise ValueError(f"Predictions should be a dict to be able to forward features, given: "
                             f"{type(spec.predictions)}")
        if not isinstance(features, dict):
            raise ValueError(f"Features should be a dict to be able to forward them, given: {type(features)}")
        names = list(features) if wanted is None else wanted
        for key in names:
            if key not in features:
                raise ValueError(f"keys should be exist in features. Key \"{key}\" is not in features dict. "
                                 f"features dict: {features}.")
            if key in spec.predictions:
                raise ValueError(f"Cannot forward feature key ({key}). Since it does exist in predictions. Existing "
                                 f"keys in predictions: {list(spec.predictions)}.")
        return spec._replace(predictions={**spec.predictions, **{k: features[k] for k in names}})

    return _rewrapped(estimator, change)


class _ClippedOptimizer(Optimizer):
    """``optimizer`` whose gradients are clipped to a global norm first."""

    def __init__(self, optimizer, clip_norm):
        super().__init__(optimizer._use_locking, "ClipByNorm" + optimizer.get_name())
        self._optimizer, self._clip_norm = optimizer, clip_norm

    def compute_gradients(self, *args, **kwargs):
        pairs = self._optimizer.compute_gradients(*args, **kwargs)
        clipped, _ = clip_ops.clip_by_global_norm([g for g, _ in pairs], self._clip_norm)
        return list(zip(clipped, [v for _, v in pairs]))

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        return self._optimizer.apply_gradients(grads_and_vars, global_step, name)

    def get_slot(self, var, name):
        return self._optimizer.get_slot(var, name)

    def get_slot_names(self):
        return self._optimizer.get_slot_names()

    def variables(self):
        return self._optimizer.variables()


def clip_gradients_by_norm(optimizer, clip_norm):
    """``optimizer`` with its gradients clipped to a global norm of ``clip_norm``."""
    if not isinstance(optimizer, Optimizer):
        raise ValueError(f"optimizer must be an instance of Optimizer, got {optimizer!r}")
    return _ClippedOptimizer(optimizer, clip_norm)


__getattr__ = missing("tf.contrib.estimator")
