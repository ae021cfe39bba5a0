"""``tf.contrib.learn``'s Estimators, as TF 1.0-1.3's tutorials used them (the iris
quickstart: ``DNNClassifier(...).fit(input_fn=..., steps=...)``, ``evaluate``,
``predict``): the canned estimators of ``tf.estimator`` with contrib.learn's methods.

``fit``, ``evaluate`` and ``predict`` take an ``input_fn`` or NumPy arrays ``x`` (and
``y``); arrays are fed as the feature named "" (what
``infer_real_valued_columns_from_input`` names its column), in batches of ``batch_size``
(all of them at once if not given), shuffled and repeated for ``fit``. A classifier's
``predict`` gives class ids (``predict_classes``), ``predict_proba`` the probabilities; a
regressor's ``predict`` its scores. ``monitors`` are session-run hooks. contrib.learn's
``Experiment``, ``learn_runner`` and its own ``Estimator`` base are not here: tf.estimator's
``train_and_evaluate`` replaced them.
"""

from __future__ import annotations

import collections
import csv

import numpy as np

from ..data.dataset_ops import Dataset as Dataset_
from ..estimator import canned
from ..estimator.estimator import Estimator
from ..estimator.inputs import numpy_input_fn
from ..feature_column import feature_column as fc


def _keyed(features):
    """contrib.learn's features: a dict, or one tensor, which it named ""."""
    return features if isinstance(features, dict) else {"": features}


def _with_keyed_features(input_fn):
    def keyed():
        out = input_fn()
        if isinstance(out, Dataset_):
            return out.map(lambda features, *labels: (_keyed(features), *labels))
        if isinstance(out, tuple):
            return (_keyed(out[0]),) + tuple(out[1:])
        return _keyed(out)
    return keyed


def _input_fn(x, y, input_fn, batch_size, training: bool):
    if input_fn is not None:
        if x is not None or y is not None:
            raise ValueError("Either x or input_fn must be provided, not both.")
        return _with_keyed_features(input_fn)
    if x is None:
        raise ValueError("Either x or input_fn must be provided.")
    features = {k: np.asarray(v) for k, v in x.items()} if isinstance(x, dict) else {"": np.asarray(x)}
    count = len(next(iter(features.values())))
    return numpy_input_fn(features, None if y is None else np.asarray(y), batch_size=batch_size or count,
                          num_epochs=None if training else 1, shuffle=training)


def _items(results, key):
    for result in results:
        yield result[key] if key is not None else result


def _batch(estimator, x, input_fn, batch_size, keys):
    """``as_iterable=False``'s predictions, a dict of arrays: every batch of arrays ``x``,
    or, as TF, the first batch of an ``input_fn`` (whose input may never end)."""
    batches = Estimator.predict(estimator, _input_fn(x, None, input_fn, batch_size, False), predict_keys=keys,
                                yield_single_examples=False)
    if input_fn is not None:
        return next(batches)
    batches = list(batches)
    return {key: np.concatenate([b[key] for b in batches]) for key in batches[0]}


class _LearnMethods:
    """contrib.learn's fit/evaluate/predict over a tf.estimator Estimator."""

    _prediction_key = None  # (what ``predict`` yields: a classifier's class ids, a regressor's scores)

    def fit(self, x=None, y=None, input_fn=None, steps=None, batch_size=None, monitors=None, max_steps=None):
        """Trains ``steps`` more steps (or up to ``max_steps``); returns the estimator."""
        self.train(_input_fn(x, y, input_fn, batch_size, True), hooks=monitors, steps=steps, max_steps=max_steps)
        return self

    def evaluate(self, x=None, y=None, input_fn=None, feed_fn=None, batch_size=None, steps=None, metrics=None,
                 name=None, checkpoint_path=None, hooks=None):
        """The metrics over ``steps`` batches (all of them if None): accuracy, loss, ... ."""
        if feed_fn is not None or metrics is not None:
            raise ValueError("evaluate(feed_fn=, metrics=) of contrib.learn's Estimators are not supported: give "
                             "an input_fn, and add metrics with tf.contrib.estimator.add_metrics")
        return super().evaluate(_input_fn(x, y, input_fn, batch_size, False), steps=steps, hooks=hooks,
                                checkpoint_path=checkpoint_path, name=name)

    def predict(self, x=None, input_fn=None, batch_size=None, outputs=None, as_iterable=True):
        """The predictions: an iterator, or with ``as_iterable=False`` an array (a dict of
        arrays if ``outputs`` names them)."""
        keys = [self._prediction_key] if outputs is None else list(outputs)
        if not as_iterable:
            batch = _batch(self, x, input_fn, batch_size, keys)
            if outputs is not None:
                return batch
            values = batch[self._prediction_key]
            return values[:, 0] if values.ndim == 2 and values.shape[1] == 1 else values
        results = super().predict(_input_fn(x, None, input_fn, batch_size, False), predict_keys=keys)
        return _items(results, self._prediction_key if outputs is None else None)


class _Classifier(_LearnMethods):
    _prediction_key = "class_ids"

    def predict(self, x=None, input_fn=None, batch_size=None, outputs=None, as_iterable=True):
        out = super().predict(x, input_fn, batch_size, outputs, as_iterable)
        if outputs is None and as_iterable:
            return (int(np.squeeze(v)) for v in out)
        return out

    predict_classes = predict

    def predict_proba(self, x=None, input_fn=None, batch_size=None, as_iterable=True):
        if not as_iterable:
            return _batch(self, x, input_fn, batch_size, ["probabilities"])["probabilities"]
        return _items(Estimator.predict(self, _input_fn(x, None, input_fn, batch_size, False),
                                        predict_keys=["probabilities"]), "probabilities")


class _Regressor(_LearnMethods):
    _prediction_key = "predictions"

    def predict(self, x=None, input_fn=None, batch_size=None, outputs=None, as_iterable=True):
        out = super().predict(x, input_fn, batch_size, outputs, as_iterable)
        if outputs is None and as_iterable:
            return (float(np.squeeze(v)) if np.size(v) == 1 else v for v in out)
        return out

    predict_scores = predict


class DNNClassifier(_Classifier, canned.DNNClassifier):
    """``tf.contrib.learn.DNNClassifier(hidden_units, feature_columns, model_dir=None,
    n_classes=2, weight_column_name=None, optimizer=None, activation_fn=relu, dropout=None,
    config=None)``."""

    def __init__(self, hidden_units, feature_columns, model_dir=None, n_classes=2, weight_column_name=None,
                 optimizer=None, activation_fn=None, dropout=None, gradient_clip_norm=None,
                 enable_centered_bias=False, config=None, feature_engineering_fn=None, embedding_lr_multipliers=None,
                 input_layer_min_slice_size=None, label_keys=None):
        _refuse(gradient_clip_norm=gradient_clip_norm, feature_engineering_fn=feature_engineering_fn,
                embedding_lr_multipliers=embedding_lr_multipliers)
        kwargs = {"activation_fn": activation_fn} if activation_fn is not None else {}
        super().__init__(hidden_units, feature_columns, model_dir=model_dir, n_classes=n_classes,
                         weight_column=weight_column_name, label_vocabulary=label_keys,
                         optimizer=optimizer or "Adagrad", dropout=dropout, config=config, **kwargs)


class DNNRegressor(_Regressor, canned.DNNRegressor):
    """``tf.contrib.learn.DNNRegressor(hidden_units, feature_columns, model_dir=None,
    weight_column_name=None, optimizer=None, activation_fn=relu, dropout=None, config=None,
    label_dimension=1)``."""

    def __init__(self, hidden_units, feature_columns, model_dir=None, weight_column_name=None, optimizer=None,
                 activation_fn=None, dropout=None, gradient_clip_norm=None, enable_centered_bias=False, config=None,
                 feature_engineering_fn=None, label_dimension=1, embedding_lr_multipliers=None,
                 input_layer_min_slice_size=None):
        _refuse(gradient_clip_norm=gradient_clip_norm, feature_engineering_fn=feature_engineering_fn,
                embedding_lr_multipliers=embedding_lr_multipliers)
        kwargs = {"activation_fn": activation_fn} if activation_fn is not None else {}
        super().__init__(hidden_units, feature_columns, model_dir=model_dir, label_dimension=label_dimension,
                         weight_column=weight_column_name, optimizer=optimizer or "Adagrad", dropout=dropout,
                         config=config, **kwargs)


class LinearClassifier(_Classifier, canned.LinearClassifier):
    """``tf.contrib.learn.LinearClassifier(feature_columns, model_dir=None, n_classes=2,
    weight_column_name=None, optimizer=None, config=None)``."""

    def __init__(self, feature_columns, model_dir=None, n_classes=2, weight_column_name=None, optimizer=None,
                 gradient_clip_norm=None, enable_centered_bias=False, _joint_weight=False, config=None,
                 feature_engineering_fn=None, label_keys=None):
        _refuse(gradient_clip_norm=gradient_clip_norm, feature_engineering_fn=feature_engineering_fn)
        super().__init__(feature_columns, model_dir=model_dir, n_classes=n_classes, weight_column=weight_column_name,
                         label_vocabulary=label_keys, optimizer=optimizer or "Ftrl", config=config)


class LinearRegressor(_Regressor, canned.LinearRegressor):
    """``tf.contrib.learn.LinearRegressor(feature_columns, model_dir=None,
    weight_column_name=None, optimizer=None, config=None, label_dimension=1)``."""

    def __init__(self, feature_columns, model_dir=None, weight_column_name=None, optimizer=None,
                 gradient_clip_norm=None, enable_centered_bias=False, label_dimension=1, _joint_weights=False,
                 config=None, feature_engineering_fn=None):
        _refuse(gradient_clip_norm=gradient_clip_norm, feature_engineering_fn=feature_engineering_fn)
        super().__init__(feature_columns, model_dir=model_dir, label_dimension=label_dimension,
                         weight_column=weight_column_name, optimizer=optimizer or "Ftrl", config=config)


class DNNLinearCombinedClassifier(_Classifier, canned.DNNLinearCombinedClassifier):
    """``tf.contrib.learn.DNNLinearCombinedClassifier(model_dir=None, n_classes=2,
    weight_column_name=None, linear_feature_columns=None, linear_optimizer=None,
    dnn_feature_columns=None, dnn_optimizer=None, dnn_hidden_units=None,
    dnn_activation_fn=relu, dnn_dropout=None, config=None)`` (the census tutorial's wide and
    deep model)."""

    def __init__(self, model_dir=None, n_classes=2, weight_column_name=None, linear_feature_columns=None,
                 linear_optimizer=None, _joint_linear_weights=False, dnn_feature_columns=None, dnn_optimizer=None,
                 dnn_hidden_units=None, dnn_activation_fn=None, dnn_dropout=None, gradient_clip_norm=None,
                 enable_centered_bias=False, config=None, feature_engineering_fn=None, embedding_lr_multipliers=None,
                 input_layer_min_slice_size=None, label_keys=None, fix_global_step_increment_bug=False):
        super().__init__(model_dir=model_dir, n_classes=n_classes, weight_column=weight_column_name,
                         label_vocabulary=label_keys, config=config, **_wide_and_deep(
                             linear_feature_columns, linear_optimizer, dnn_feature_columns, dnn_optimizer,
                             dnn_hidden_units, dnn_activation_fn, dnn_dropout, gradient_clip_norm,
                             feature_engineering_fn, embedding_lr_multipliers))


class DNNLinearCombinedRegressor(_Regressor, canned.DNNLinearCombinedRegressor):
    """``tf.contrib.learn.DNNLinearCombinedRegressor(model_dir=None, weight_column_name=None,
    linear_feature_columns=None, linear_optimizer=None, dnn_feature_columns=None,
    dnn_optimizer=None, dnn_hidden_units=None, dnn_activation_fn=relu, dnn_dropout=None,
    label_dimension=1, config=None)``."""

    def __init__(self, model_dir=None, weight_column_name=None, linear_feature_columns=None, linear_optimizer=None,
                 _joint_linear_weights=False, dnn_feature_columns=None, dnn_optimizer=None, dnn_hidden_units=None,
                 dnn_activation_fn=None, dnn_dropout=None, gradient_clip_norm=None, enable_centered_bias=False,
                 label_dimension=1, config=None, feature_engineering_fn=None, embedding_lr_multipliers=None,
                 input_layer_min_slice_size=None, fix_global_step_increment_bug=False):
        super().__init__(model_dir=model_dir, label_dimension=label_dimension, weight_column=weight_column_name,
                         config=config, **_wide_and_deep(
                             linear_feature_columns, linear_optimizer, dnn_feature_columns, dnn_optimizer,
                             dnn_hidden_units, dnn_activation_fn, dnn_dropout, gradient_clip_norm,
                             feature_engineering_fn, embedding_lr_multipliers))


def _wide_and_deep(linear_feature_columns, linear_optimizer, dnn_feature_columns, dnn_optimizer, dnn_hidden_units,
                   dnn_activation_fn, dnn_dropout, gradient_clip_norm, feature_engineering_fn,
                   embedding_lr_multipliers) -> dict:
    """The arguments of tf.estimator's wide-and-deep estimators for contrib.learn's (whose
    default optimizers are FTRL for the linear part and Adagrad for the network)."""
    _refuse(gradient_clip_norm=gradient_clip_norm, feature_engineering_fn=feature_engineering_fn,
            embedding_lr_multipliers=embedding_lr_multipliers)
    arguments = {"linear_feature_columns": linear_feature_columns, "linear_optimizer": linear_optimizer or "Ftrl",
                 "dnn_feature_columns": dnn_feature_columns, "dnn_optimizer": dnn_optimizer or "Adagrad",
                 "dnn_hidden_units": dnn_hidden_units, "dnn_dropout": dnn_dropout}
    if dnn_activation_fn is not None:
        arguments["dnn_activation_fn"] = dnn_activation_fn
    return arguments


def _refuse(**given):
    named = sorted(k for k, v in given.items() if v is not None)
    if named:
        raise ValueError(f"contrib.learn Estimator arguments not supported in distflow: {', '.join(named)} "
                         f"(tf.estimator's canned estimators, which these run on, have no such argument)")


def infer_real_valued_columns_from_input(x):
    """One real-valued column named "" with the shape of ``x``'s rows (an array), as
    contrib.learn fed arrays: the column ``fit(x=...)`` and ``predict(x=...)`` read."""
    x = np.asarray(x)
    return [fc.numeric_column("", shape=x.shape[1:] or (1,), dtype=_float_dtype(x))]


def infer_real_valued_columns_from_input_fn(input_fn):
    """The real-valued columns of the features ``input_fn`` gives (a dict or one tensor)."""
    from ..framework import ops  # noqa: PLC0415

    with ops.Graph().as_default():
        features, _ = input_fn()
        if not isinstance(features, dict):
            features = {"": features}
        return [fc.numeric_column(key, shape=t.shape[1:].as_list() or (1,), dtype=t.dtype.base_dtype)
                for key, t in sorted(features.items())]


def _float_dtype(x):
    from ..framework import dtypes  # noqa: PLC0415

    return dtypes.float64 if x.dtype == np.float64 else dtypes.float32


Dataset = collections.namedtuple("Dataset", ["data", "target"])


def load_csv_with_header(filename, target_dtype, features_dtype, target_column=-1):
    """A CSV whose first row is ``n_samples,n_features,...`` (the iris files' header), as
    ``Dataset(data, target)``: each row's features and its target column."""
    with open(filename, newline="") as f:
        rows = csv.reader(f)
        header = next(rows)
        n_samples, n_features = int(header[0]), int(header[1])
        data = np.zeros((n_samples, n_features), dtype=features_dtype)
        target = np.zeros((n_samples,), dtype=target_dtype)
        for i, row in enumerate(rows):
            target[i] = np.asarray(row.pop(target_column), dtype=target_dtype)
            data[i] = np.asarray(row, dtype=features_dtype)
    return Dataset(data=data, target=target)


def load_csv_without_header(filename, target_dtype, features_dtype, target_column=-1):
    """A CSV of rows of features and a target column, as ``Dataset(data, target)``."""
    data, target = [], []
    with open(filename, newline="") as f:
        for row in csv.reader(f):
            target.append(row.pop(target_column))
            data.append(row)
    return Dataset(data=np.array(data, dtype=features_dtype), target=np.array(target, dtype=target_dtype))
