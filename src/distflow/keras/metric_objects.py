"""``tf.keras.metrics``' metric objects (TF 1.13-1.15): ``Mean``, ``AUC``, ``Precision`` and
the rest, each keeping running totals in variables of its own.

In a graph, ``update_state(...)`` returns the op that adds a batch to the totals (also kept
in ``metric.updates``), ``result()`` the tensor that reads the value, and ``metric(...)``
both: the value after the batch. ``reset_states()`` sets the totals back to zero in Keras's
session. The variables are local ones (``LOCAL_VARIABLES``, ``METRIC_VARIABLES``): not
trained, not saved, set to zero by ``tf.local_variables_initializer()``, summed over the
replicas of a tf.distribute strategy when read. An ``EstimatorSpec`` takes a metric object
as an ``eval_metric_ops`` value, and ``Model.compile(metrics=[...])`` a list of them.

One difference from TF 1.x: a subclass's ``update_state`` that returns nothing (TF 2's
style) still has its assignments run, grouped as its update op; TF 1.x's graph mode
dropped them without a word.
"""

from __future__ import annotations

import functools

import numpy as np

from ..framework import dtypes, ops
from ..metrics.local_variables import local_variable
from ..metrics.thresholds import interpolated_pr_area
from ..ops import (array_ops, check_ops, control_flow_ops, manip_ops, math_ops, nn_impl, reduction_ops, segment_ops,
                   state_ops, unary_ops)
from ..ops.special_math_ops import div_no_nan
from ..ops.weights_broadcast_ops import broadcast_weights, squeeze_or_expand_weights
from ..ops.variable_scope import variable_scope
from . import backend as K
from . import initializers
from . import losses as losses_lib
from .engine import base_layer
from .engine.base_layer import Layer, metric_values, snake_case

NEG_INF = -1e10  # (what top_k sets the predictions outside the top k to, as TF's)


def _squeeze_or_expand(y_pred, y_true):
    """``y_pred`` and ``y_true`` at the same rank where they differ by a last dimension of 1
    (TF's squeeze_or_expand_dimensions, for known ranks)."""
    p, t = y_pred.shape.ndims, y_true.shape.ndims
    if p is not None and t is not None:
        if p - t == 1 and y_pred.shape[-1].value == 1:
            y_pred = array_ops.squeeze(y_pred, [-1])
        elif t - p == 1 and y_true.shape[-1].value == 1:
            y_true = array_ops.squeeze(y_true, [-1])
    return y_pred, y_true


def _sinks(graph, first: int) -> list:
    """The ops made in ``graph`` since it had ``first`` ops that no later op reads: what a
    function built for its effects (assignments) ends in."""
    made = graph.get_operations()[first:]
    read = {id(t.op) for op in made for t in op.inputs} | {id(c) for op in made for c in op.control_inputs}
    return [op for op in made if id(op) not in read]


def _tracked_update(update_state):
    """``update_state`` that notes its op in ``self.updates`` (grouping what it assigned when
    it returns nothing)."""
    @functools.wraps(update_state)
    def wrapper(self, *args, **kwargs):
        graph = ops.get_default_graph()
        first = len(graph.get_operations())
        with graph.as_default(), ops.name_scope(self.name):
            update = update_state(self, *args, **kwargs)
            if update is None:
                made = _sinks(graph, first)
                update = control_flow_ops.group(*made) if made else control_flow_ops.no_op()
        self.add_update(update)
        return update
    wrapper._tracked = True
    return wrapper


class Metric(Layer):
    """The base of metric objects. A subclass makes its totals with ``add_weight`` in
    ``__init__`` and writes ``update_state(*args)`` (returning its update op) and ``result()``."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        update = cls.__dict__.get("update_state")
        if update is not None and not getattr(update, "_tracked", False):
            cls.update_state = _tracked_update(update)

    def __init__(self, name=None, dtype=None, **kwargs):
        super().__init__(trainable=False, name=name, dtype=dtype or K.floatx(), **kwargs)
        self.stateful = True
        self.built = True
        self._dtype = dtypes.as_dtype(self.dtype)

    def __call__(self, *args, **kwargs):
        """Adds the batch to the totals; returns the value after it."""
        update = self.update_state(*args, **kwargs)
        with ops.control_dependencies([update]):
            value = _identities(self.result())
        for tensor in value if isinstance(value, list) else [value]:
            metric_values(tensor.graph)[id(tensor)] = (tensor, self)  # (what add_metric takes the object from)
        return value

    def update_state(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define update_state")

    def result(self):
        raise NotImplementedError(f"{type(self).__name__} must define result")

    def reset_states(self) -> None:
        """Sets every total back to zero (in Keras's session)."""
        reset_to_zero(self.variables)

    def add_weight(self, name, shape=(), aggregation=None, synchronization=None, initializer=None, dtype=None,
                   **kwargs):
        """A total: a local variable (of zeros unless ``initializer`` says), summed over
        replicas when read."""
        dtype, shape = dtypes.as_dtype(dtype or self._dtype), [int(d) for d in shape]
        init = None if initializer in (None, "zeros") else initializers.get(initializer)
        with ops.name_scope(None), variable_scope(self.name):
            var = local_variable(name, shape, dtype, None if init is None else lambda: init(shape, dtype=dtype))
        self._non_trainable_weights.append(var)
        return var

    def get_config(self) -> dict:
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config: dict):
        return cls(**config)

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name!r}>"


def reset_to_zero(variables) -> None:
    """Sets ``variables`` to zero in Keras's session: each replica's copy of one kept per
    replica under a tf.distribute strategy."""
    copies = [c for v in variables for c in getattr(v, "components", (v,))]
    if copies:
        K.batch_set_value([(c, np.zeros(c.shape.as_list(), c.dtype.base_dtype.as_numpy_dtype)) for c in copies])


def _identities(value):
    return [array_ops.identity(v) for v in value] if isinstance(value, (list, tuple)) else array_ops.identity(value)


class Reduce(Metric):
    """The sum (``Sum``) or the weighted mean (``Mean``) of the values seen."""

    def __init__(self, reduction, name, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.reduction = reduction
        self.total = self.add_weight("total")
        if reduction != "sum":
            self.count = self.add_weight("count")

    def update_state(self, values, sample_weight=None):
        values = math_ops.cast(values, self._dtype)
        if sample_weight is not None:
            weights = squeeze_or_expand_weights(math_ops.cast(sample_weight, self._dtype), values)
            w_rank, v_rank = weights.shape.ndims, values.shape.ndims
            if w_rank is not None and v_rank is not None and 0 < w_rank < v_rank:
                # (per-example weights of values with more dimensions: each example's values reduced first)
                reduce = reduction_ops.reduce_sum if self.reduction == "sum" else reduction_ops.reduce_mean
                values = reduce(values, list(range(w_rank, v_rank)))
            weights = broadcast_weights(weights, values)
            values = values * weights
        update_total = state_ops.assign_add(self.total, reduction_ops.reduce_sum(values))
        if self.reduction == "sum":
            return update_total
        counted = (math_ops.cast(array_ops.size(values), self._dtype) if sample_weight is None
                   else reduction_ops.reduce_sum(weights))
        with ops.control_dependencies([update_total]):
            return state_ops.assign_add(self.count, counted)

    def result(self):
        if self.reduction == "sum":
            return array_ops.identity(self.total.value())
        return div_no_nan(self.total.value(), self.count.value())


class Sum(Reduce):
    """The (weighted) sum of the values seen."""

    def __init__(self, name="sum", dtype=None):
        super().__init__("sum", name, dtype)

    def get_config(self):
        return Metric.get_config(self)


class Mean(Reduce):
    """The (weighted) mean of the values seen."""

    def __init__(self, name="mean", dtype=None):
        super().__init__("mean", name, dtype)

    def get_config(self):
        return Metric.get_config(self)


base_layer._MEAN_METRIC[:] = [Mean]  # (what Layer.add_metric(aggregation='mean') makes)


class MeanTensor(Metric):
    """The element-wise (weighted) mean of tensors of one shape, made on the first update."""

    def __init__(self, name="mean_tensor", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self._shape = None

    def update_state(self, values, sample_weight=None):
        values = math_ops.cast(values, self._dtype)
        if self._shape is None:
            if not values.shape.is_fully_defined():
                raise ValueError(f"MeanTensor needs values of a fully defined shape, got {values.shape}")
            self._shape = values.shape.as_list()
            self.total = self.add_weight("total", self._shape)
            self.count = self.add_weight("count", self._shape)
        elif values.shape.as_list() != self._shape:
            raise ValueError(f"MeanTensor input values must always have the same shape. Expected shape (set during "
                             f"the first call): {self._shape}. Got: {values.shape.as_list()}")
        counted = array_ops.ones_like(values)
        if sample_weight is not None:
            weights = broadcast_weights(squeeze_or_expand_weights(math_ops.cast(sample_weight, self._dtype),
                                                                  values), values)
            values, counted = values * weights, weights
        update_total = state_ops.assign_add(self.total, values)
        with ops.control_dependencies([update_total]):
            return state_ops.assign_add(self.count, counted)

    def result(self):
        if self._shape is None:
            raise ValueError("MeanTensor does not have any result yet. Please call the MeanTensor instance or use "
                             "`.update_state(value)` before retrieving the result.")
        return div_no_nan(self.total.value(), self.count.value())


class MeanMetricWrapper(Mean):
    """The mean of ``fn(y_true, y_pred, **kwargs)`` over the examples seen."""

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        super().__init__(name=name, dtype=dtype)
        self._fn, self._fn_kwargs = fn, kwargs

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = math_ops.cast(ops.convert_to_tensor(y_true), self._dtype)
        y_pred = math_ops.cast(ops.convert_to_tensor(y_pred), self._dtype)
        y_pred, y_true = _squeeze_or_expand(y_pred, y_true)
        matches = self._fn(y_true, y_pred, **self._fn_kwargs)
        return Reduce.update_state.__wrapped__(self, matches, sample_weight)

    def get_config(self):
        return {**Metric.get_config(self), **self._fn_kwargs}

    @classmethod
    def from_config(cls, config):
        if cls is MeanMetricWrapper:
            raise ValueError("MeanMetricWrapper's function cannot come from a config; make it with the function")
        return cls(**config)


def cosine_similarity(y_true, y_pred, axis=-1):
    return -losses_lib.cosine_similarity(y_true, y_pred, axis)


def wrapper_class(class_name: str, fn, default_name: str, *options):
    """A MeanMetricWrapper class of ``fn`` whose constructor takes ``options`` (name,
    default) first and then ``name`` and ``dtype``, as TF's classes do."""
    def __init__(self, *args, **kwargs):
        names = [option for option, _ in options] + ["name", "dtype"]
        if len(args) > len(names):
            raise TypeError(f"{class_name} takes at most {len(names)} arguments, got {len(args)}")
        values = dict(options)
        values.update(name=default_name, dtype=None)
        for key, value in list(zip(names, args)) + list(kwargs.items()):
            if key not in values:
                raise TypeError(f"{class_name} got an unexpected keyword argument {key!r}")
            values[key] = value
        MeanMetricWrapper.__init__(self, fn, values.pop("name"), values.pop("dtype"), **values)

    return type(class_name, (MeanMetricWrapper,), {"__init__": __init__, "__module__": __name__,
                                                   "__doc__": f"The mean of ``{fn.__name__}`` over the examples."})


L = losses_lib
MeanSquaredError = wrapper_class("MeanSquaredError", L.mean_squared_error, "mean_squared_error")
MeanAbsoluteError = wrapper_class("MeanAbsoluteError", L.mean_absolute_error, "mean_absolute_error")
MeanAbsolutePercentageError = wrapper_class("MeanAbsolutePercentageError", L.mean_absolute_percentage_error,
                                            "mean_absolute_percentage_error")
MeanSquaredLogarithmicError = wrapper_class("MeanSquaredLogarithmicError", L.mean_squared_logarithmic_error,
                                            "mean_squared_logarithmic_error")
BinaryCrossentropy = wrapper_class("BinaryCrossentropy", L.binary_crossentropy, "binary_crossentropy",
                                   ("from_logits", False), ("label_smoothing", 0))
CategoricalCrossentropy = wrapper_class("CategoricalCrossentropy", L.categorical_crossentropy,
                                        "categorical_crossentropy", ("from_logits", False), ("label_smoothing", 0))
SparseCategoricalCrossentropy = wrapper_class("SparseCategoricalCrossentropy", L.sparse_categorical_crossentropy,
                                              "sparse_categorical_crossentropy", ("from_logits", False), ("axis", -1))
Hinge = wrapper_class("Hinge", L.hinge, "hinge")
SquaredHinge = wrapper_class("SquaredHinge", L.squared_hinge, "squared_hinge")
CategoricalHinge = wrapper_class("CategoricalHinge", L.categorical_hinge, "categorical_hinge")
KLDivergence = wrapper_class("KLDivergence", L.kullback_leibler_divergence, "kullback_leibler_divergence")
Poisson = wrapper_class("Poisson", L.poisson, "poisson")
LogCoshError = wrapper_class("LogCoshError", L.logcosh, "logcosh")
CosineSimilarity = wrapper_class("CosineSimilarity", cosine_similarity, "cosine_similarity", ("axis", -1))


class RootMeanSquaredError(Mean):
    """The square root of the mean squared error over the examples seen."""

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name=name, dtype=dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = math_ops.cast(ops.convert_to_tensor(y_true), self._dtype)
        y_pred = math_ops.cast(ops.convert_to_tensor(y_pred), self._dtype)
        y_pred, y_true = _squeeze_or_expand(y_pred, y_true)
        return Reduce.update_state.__wrapped__(self, unary_ops.square(y_pred - y_true), sample_weight)

    def result(self):
        return unary_ops.sqrt(div_no_nan(self.total.value(), self.count.value()))


class MeanRelativeError(Mean):
    """The mean of |y_true - y_pred| / normalizer over the examples seen."""

    def __init__(self, normalizer, name=None, dtype=None):
        super().__init__(name=name or K.unique_name("mean_relative_error"), dtype=dtype)
        self.normalizer = math_ops.cast(ops.convert_to_tensor(normalizer), self._dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = math_ops.cast(ops.convert_to_tensor(y_true), self._dtype)
        y_pred = math_ops.cast(ops.convert_to_tensor(y_pred), self._dtype)
        y_pred, y_true = _squeeze_or_expand(y_pred, y_true)
        errors = div_no_nan(math_ops.abs(y_true - y_pred), self.normalizer * array_ops.ones_like(y_true))
        return Reduce.update_state.__wrapped__(self, errors, sample_weight)

    def get_config(self):
        raise NotImplementedError("MeanRelativeError's normalizer is a tensor: it has no config")


class MeanIoU(Metric):
    """The mean over classes of intersection over union (true positives over true positives,
    false positives and false negatives), from a confusion matrix of every example seen;
    classes never labelled nor predicted are left out of the mean."""

    def __init__(self, num_classes, name=None, dtype=None):
        super().__init__(name=name or K.unique_name("mean_io_u"), dtype=dtype)
        self.num_classes = int(num_classes)
        self.total_cm = self.add_weight("total_confusion_matrix", (self.num_classes, self.num_classes),
                                        dtype=dtypes.float64)

    def update_state(self, y_true, y_pred, sample_weight=None):
        labels = array_ops.reshape(math_ops.cast(ops.convert_to_tensor(y_true), dtypes.int64), [-1])
        predictions = array_ops.reshape(math_ops.cast(ops.convert_to_tensor(y_pred), dtypes.int64), [-1])
        weights = None if sample_weight is None else array_ops.reshape(
            math_ops.cast(sample_weight, dtypes.float64), [-1])
        matrix = segment_ops.confusion_matrix(labels, predictions, self.num_classes, weights=weights,
                                              dtype=dtypes.float64)
        return state_ops.assign_add(self.total_cm, matrix)

    def result(self):
        cm = self.total_cm.value()
        predicted = reduction_ops.reduce_sum(cm, 0)
        labelled = reduction_ops.reduce_sum(cm, 1)
        hits = manip_ops.diag_part(cm)
        union = predicted + labelled - hits
        present = reduction_ops.reduce_sum(math_ops.cast(math_ops.not_equal(union, 0), self._dtype))
        iou = math_ops.cast(div_no_nan(hits, union), self._dtype)
        return div_no_nan(reduction_ops.reduce_sum(iou), present)

    def get_config(self):
        return {**super().get_config(), "num_classes": self.num_classes}


# -- confusion counts at thresholds ------------------------------------------------------------
_COUNTS = {"tp": "true_positives", "fp": "false_positives", "tn": "true_negatives", "fn": "false_negatives"}


def _confusion_updates(variables: dict, y_true, y_pred, thresholds, top_k=None, class_id=None, sample_weight=None,
                       per_label=False):
    """Ops adding a batch to confusion counts at each threshold (a prediction above the
    threshold is positive; a nonzero label is): every entry of the batch counts once, or,
    ``per_label``, each label (the last dimension) apart, counts of shape [thresholds, labels]."""
    y_pred = math_ops.cast(ops.convert_to_tensor(y_pred), dtypes.float32)
    y_true = math_ops.cast(ops.convert_to_tensor(y_true), dtypes.float32)
    with ops.control_dependencies([
            check_ops.assert_greater_equal(y_pred, 0.0, message="predictions must be >= 0"),
            check_ops.assert_less_equal(y_pred, 1.0, message="predictions must be <= 1")]):
        y_pred = array_ops.identity(y_pred)
    y_pred, y_true = _squeeze_or_expand(y_pred, y_true)
    if top_k is not None:  # (all but each row's k largest predictions count as negative)
        kth = nn_impl.top_k(y_pred, top_k).values[..., -1:]
        y_pred = math_ops.where_v2(math_ops.greater_equal(y_pred, kth), y_pred,
                                    NEG_INF * array_ops.ones_like(y_pred))
    if class_id is not None:
        y_true, y_pred = y_true[..., class_id], y_pred[..., class_id]
    weights = array_ops.ones_like(y_pred) if sample_weight is None else broadcast_weights(
        squeeze_or_expand_weights(math_ops.cast(sample_weight, dtypes.float32), y_pred), y_pred)
    if per_label:
        labels = array_ops.shape(y_pred)[-1]
        flat = [array_ops.reshape(t, array_ops.stack([-1, labels])) for t in (y_pred, y_true, weights)]
        y_pred, y_true, weights = (array_ops.expand_dims(t, 0) for t in flat)  # [1, examples, labels]
        thresh = array_ops.constant(np.asarray(thresholds, np.float32).reshape(-1, 1, 1))
    else:
        y_pred, y_true, weights = (array_ops.reshape(t, [1, -1]) for t in (y_pred, y_true, weights))
        thresh = array_ops.constant(np.asarray(thresholds, np.float32).reshape(-1, 1))
    above = math_ops.greater(y_pred, thresh)  # [thresholds, examples(, labels)]
    positive = math_ops.cast(y_true, dtypes.bool)
    cases = {"tp": math_ops.logical_and(above, positive),
             "fp": math_ops.logical_and(above, math_ops.logical_not(positive)),
             "tn": math_ops.logical_and(math_ops.logical_not(above), math_ops.logical_not(positive)),
             "fn": math_ops.logical_and(math_ops.logical_not(above), positive)}
    return [state_ops.assign_add(var, reduction_ops.reduce_sum(math_ops.cast(cases[key], dtypes.float32) * weights, 1))
            for key, var in variables.items()]


def _thresholds_of(thresholds, default):
    given = default if thresholds is None else thresholds
    out = [float(t) for t in (given if isinstance(given, (list, tuple, np.ndarray)) else [given])]
    for t in out:
        if not (0.0 <= t <= 1.0) and t != NEG_INF:
            raise ValueError(f"Threshold values must be in [0, 1]. Invalid values: {out}")
    return out


class _ConfusionCount(Metric):
    """One confusion count at each of ``thresholds`` (0.5 by default)."""
    _kind = ""

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(name=name or K.unique_name(_COUNTS[self._kind]), dtype=dtype)
        self.init_thresholds = thresholds
        self.thresholds = _thresholds_of(thresholds, 0.5)
        self.accumulator = self.add_weight("accumulator", (len(self.thresholds),))

    def update_state(self, y_true, y_pred, sample_weight=None):
        return control_flow_ops.group(*_confusion_updates({self._kind: self.accumulator}, y_true, y_pred,
                                                          self.thresholds, sample_weight=sample_weight))

    def result(self):
        value = self.accumulator.value()
        return value[0] if len(self.thresholds) == 1 else array_ops.identity(value)

    def get_config(self):
        return {**super().get_config(), "thresholds": self.init_thresholds}


class TruePositives(_ConfusionCount):
    """The (weighted) number of true positives at each threshold."""
    _kind = "tp"


class FalsePositives(_ConfusionCount):
    """The (weighted) number of false positives at each threshold."""
    _kind = "fp"


class TrueNegatives(_ConfusionCount):
    """The (weighted) number of true negatives at each threshold."""
    _kind = "tn"


class FalseNegatives(_ConfusionCount):
    """The (weighted) number of false negatives at each threshold."""
    _kind = "fn"


class _PrecisionOrRecall(Metric):
    """True positives over predicted (precision) or actual (recall) positives, at each
    threshold (0.5 by default; with ``top_k``, the k largest predictions of an example are
    its positives), of the class ``class_id`` alone if given."""
    _other = ""

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        super().__init__(name=name or K.unique_name(type(self).__name__.lower()), dtype=dtype)
        self.init_thresholds, self.top_k, self.class_id = thresholds, top_k, class_id
        self.thresholds = _thresholds_of(thresholds, 0.5 if top_k is None else NEG_INF)
        n = (len(self.thresholds),)
        self.true_positives = self.add_weight("true_positives", n)
        self.other = self.add_weight(_COUNTS[self._other], n)

    def update_state(self, y_true, y_pred, sample_weight=None):
        return control_flow_ops.group(*_confusion_updates(
            {"tp": self.true_positives, self._other: self.other}, y_true, y_pred, self.thresholds, self.top_k,
            self.class_id, sample_weight))

    def result(self):
        tp = self.true_positives.value()
        value = div_no_nan(tp, tp + self.other.value())
        return value[0] if len(self.thresholds) == 1 else value

    def get_config(self):
        return {**super().get_config(), "thresholds": self.init_thresholds, "top_k": self.top_k,
                "class_id": self.class_id}


class Precision(_PrecisionOrRecall):
    """The fraction of predicted positives that are positive."""
    _other = "fp"


class Recall(_PrecisionOrRecall):
    """The fraction of positives predicted positive."""
    _other = "fn"


class _AllCounts(Metric):
    """The four confusion counts at each of ``thresholds``."""

    def _make_counts(self, thresholds, shape=None):
        self.thresholds = thresholds
        shape = shape or (len(thresholds),)
        for key, name in _COUNTS.items():
            setattr(self, name, self.add_weight(name, shape))

    def _counts(self) -> dict:
        return {key: getattr(self, name) for key, name in _COUNTS.items()}


class _SensitivitySpecificityBase(_AllCounts):
    """The largest rate over the thresholds (``num_thresholds`` spread over [0, 1]) where
    another rate is at least ``value`` (0 where none is). TF 2.x's rule: TF 1.15 took the
    threshold where the other rate came closest to ``value``, below it or not."""
    _given = _found = ""

    def __init__(self, value, num_thresholds=200, name=None, dtype=None):
        if num_thresholds <= 0:
            raise ValueError(f"`num_thresholds` must be > 0. Given: {num_thresholds}")
        if not 0 <= value <= 1:
            raise ValueError(f"`{self._given}` must be in the range [0, 1]. Given: {value}")
        super().__init__(name=name or K.unique_name(snake_case(type(self).__name__)), dtype=dtype)
        self.value, self.num_thresholds = value, num_thresholds
        inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        self._make_counts([0.5] if num_thresholds == 1 else [0.0] + inner + [1.0])

    def update_state(self, y_true, y_pred, sample_weight=None):
        return control_flow_ops.group(*_confusion_updates(self._counts(), y_true, y_pred, self.thresholds,
                                                          sample_weight=sample_weight))

    def _rate(self, kind):
        tp, fp, tn, fn = (getattr(self, _COUNTS[k]).value() for k in ("tp", "fp", "tn", "fn"))
        return div_no_nan(tp, tp + fn) if kind == "sensitivity" else div_no_nan(tn, tn + fp)

    def result(self):
        feasible = math_ops.greater_equal(self._rate(self._given), self.value)
        found = self._rate(self._found)
        return reduction_ops.reduce_max(math_ops.where(feasible, found, array_ops.zeros_like(found)))

    def get_config(self):
        return {**super().get_config(), self._given: self.value, "num_thresholds": self.num_thresholds}


class SensitivityAtSpecificity(_SensitivitySpecificityBase):
    """The sensitivity (recall) where the specificity is closest to ``specificity``."""
    _given, _found = "specificity", "sensitivity"

    def __init__(self, specificity, num_thresholds=200, name=None, dtype=None):
        super().__init__(specificity, num_thresholds, name, dtype)


class SpecificityAtSensitivity(_SensitivitySpecificityBase):
    """The specificity where the sensitivity (recall) is closest to ``sensitivity``."""
    _given, _found = "sensitivity", "specificity"

    def __init__(self, sensitivity, num_thresholds=200, name=None, dtype=None):
        super().__init__(sensitivity, num_thresholds, name, dtype)


class AUC(_AllCounts):
    """The area under the ROC or precision-recall curve, summed over ``num_thresholds``
    thresholds spread over [0, 1] (or ``thresholds``, with 0 and 1 added beyond them).
    ``summation_method``: 'interpolation' (the trapezoid for ROC; for PR, precision
    interpolated as Davis and Goadrich do), 'minoring' or 'majoring' (the lower or higher
    end of each bucket). ``multi_label``: each label's area apart, then their mean."""

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation", name=None, dtype=None,
                 thresholds=None, multi_label=False, label_weights=None):
        curve = curve.upper() if isinstance(curve, str) else curve
        if curve not in ("ROC", "PR"):
            raise ValueError(f'Invalid curve: "{curve}". Valid options are: "ROC", "PR"')
        summation_method = summation_method.lower() if isinstance(summation_method, str) else summation_method
        if summation_method not in ("interpolation", "minoring", "majoring"):
            raise ValueError(f'Invalid summation method: "{summation_method}". Valid options are: "interpolation", '
                             '"minoring", "majoring"')
        if label_weights is not None:
            raise NotImplementedError("AUC(label_weights=) is not supported by distflow")
        super().__init__(name=name or K.unique_name("auc"), dtype=dtype)
        self.curve, self.summation_method, self.multi_label = curve, summation_method, bool(multi_label)
        if thresholds is not None:
            inner = _thresholds_of(thresholds, None)
            self.num_thresholds = len(inner) + 2
        else:
            if num_thresholds <= 1:
                raise ValueError("`num_thresholds` must be > 1.")
            self.num_thresholds = num_thresholds
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        self._init_thresholds = thresholds
        self._labels = None
        self._all = [0.0 - K.epsilon()] + inner + [1.0 + K.epsilon()]
        if not self.multi_label:
            self._make_counts(self._all)

    def update_state(self, y_true, y_pred, sample_weight=None):
        if self.multi_label and self._labels is None:  # (the counts' second dimension: the labels)
            labels = ops.convert_to_tensor(y_pred).shape[-1].value
            if labels is None:
                raise ValueError("AUC(multi_label=True) needs predictions whose last dimension (the labels) is known")
            self._labels = labels
            self._make_counts(self._all, (len(self._all), labels))
        return control_flow_ops.group(*_confusion_updates(self._counts(), y_true, y_pred, self._all,
                                                          sample_weight=sample_weight, per_label=self.multi_label))

    def result(self):
        if self.multi_label and self._labels is None:
            raise ValueError("AUC(multi_label=True) has no result before its first update")
        tp, fp, tn, fn = (getattr(self, _COUNTS[k]).value() for k in ("tp", "fp", "tn", "fn"))
        n = self.num_thresholds
        if self.curve == "PR" and self.summation_method == "interpolation":
            area = interpolated_pr_area(tp, fp, fn, n)
        else:
            recall = div_no_nan(tp, tp + fn)
            if self.curve == "ROC":
                x, y = div_no_nan(fp, fp + tn), recall
            else:
                x, y = recall, div_no_nan(tp, tp + fp)
            if self.summation_method == "interpolation":
                heights = (y[:n - 1] + y[1:]) / 2.0
            elif self.summation_method == "minoring":
                heights = math_ops.minimum(y[:n - 1], y[1:])
            else:
                heights = math_ops.maximum(y[:n - 1], y[1:])
            area = reduction_ops.reduce_sum((x[:n - 1] - x[1:]) * heights, 0)
        return reduction_ops.reduce_mean(area) if self.multi_label else area

    def get_config(self):
        return {**super().get_config(), "num_thresholds": self.num_thresholds, "curve": self.curve,
                "summation_method": self.summation_method, "thresholds": self._init_thresholds,
                "multi_label": self.multi_label}


CLASSES = ("Metric", "Mean", "Sum", "MeanTensor", "MeanMetricWrapper", "MeanSquaredError", "MeanAbsoluteError",
           "MeanAbsolutePercentageError", "MeanSquaredLogarithmicError", "RootMeanSquaredError", "MeanRelativeError",
           "BinaryCrossentropy", "CategoricalCrossentropy", "SparseCategoricalCrossentropy", "Hinge", "SquaredHinge",
           "CategoricalHinge", "KLDivergence", "Poisson", "LogCoshError", "CosineSimilarity", "MeanIoU",
           "TruePositives", "FalsePositives", "TrueNegatives", "FalseNegatives", "Precision", "Recall", "AUC",
           "SensitivityAtSpecificity", "SpecificityAtSensitivity")
