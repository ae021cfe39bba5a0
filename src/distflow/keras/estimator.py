"""``tf.keras.estimator.model_to_estimator``: a compiled Keras model as an Estimator, so that
``train_and_evaluate`` runs it, on one machine or on a ps/worker cluster under TF_CONFIG.

The Estimator's ``model_fn`` builds the model again from its config on the input function's
features (by input name, or the one tensor), with the same loss, metrics and optimizer; its
first checkpoint starts from the Keras model's weights as they were when it was converted.
"""

from __future__ import annotations

from .. import estimator as estimator_lib
from .. import metrics as metrics_lib
from .. import assign_add, cast, control_dependencies, group, placeholder, reshape
from ..framework import ops
from ..ops import array_ops
from ..train import Scaffold, get_or_create_global_step
from . import backend as K
from . import losses as losses_lib
from . import metrics as keras_metrics
from . import optimizers
from .models import load_model, model_from_config


def model_to_estimator(keras_model=None, keras_model_path=None, custom_objects=None, model_dir=None, config=None):
    if (keras_model is None) == (keras_model_path is None):
        raise ValueError("Exactly one of `keras_model` or `keras_model_path` should be given.")
    if keras_model is None:
        keras_model = load_model(keras_model_path, custom_objects)
    if keras_model._compiled is None:
        raise ValueError("The given keras model has not been compiled yet. Please compile the model with "
                         "`model.compile()` before calling `model_to_estimator()`.")
    if not keras_model._is_graph_network:
        raise NotImplementedError("model_to_estimator needs a Sequential or functional model: a subclassed "
                                  "model cannot be rebuilt from a config")
    spec = {"class_name": type(keras_model).__name__, "config": keras_model.get_config()}
    weights = keras_model.get_weights()
    compiled = dict(keras_model._compiled)
    optimizer_config = {"class_name": type(keras_model.optimizer).__name__,
                        "config": keras_model.optimizer.get_config()}
    tf_optimizer = getattr(keras_model.optimizer, "optimizer", None)  # (compiled with a tf.train optimizer)
    input_names, output_names = list(keras_model.input_names), list(keras_model.output_names)

    def model_fn(features, labels, mode):
        training = mode == estimator_lib.ModeKeys.TRAIN
        K.set_learning_phase(1 if training else 0)
        given = [ops.convert_to_tensor(t) for t in _ordered(features, input_names, "features", "input")]
        given = [cast(t, K.floatx()) if t.dtype.is_floating and t.dtype.base_dtype.name != K.floatx() else t
                 for t in given]
        model = model_from_config(spec, custom_objects, input_tensors=given)
        outputs = list(model.outputs)
        predictions = {name: out for name, out in zip(output_names, outputs)}
        if mode == estimator_lib.ModeKeys.PREDICT:
            return estimator_lib.EstimatorSpec(mode, predictions=predictions)
        # (metric objects made again in this graph: the model's own hold another graph's totals)
        model._compiled = dict(compiled, metrics=_fresh(compiled["metrics"]),
                               weighted_metrics=_fresh(compiled.get("weighted_metrics")))
        model.output_names = output_names
        targets = [None if t is None else ops.convert_to_tensor(t)
                   for t in _ordered(labels, output_names, "labels", "output")]
        targets = [_like(t, out, fn) for t, out, fn in zip(targets, outputs, model._loss_fns())]
        names, values = model._losses_and_metrics(outputs, targets)
        loss = values[0]
        # (a metric object is its own eval metric, its totals over the batches; a metric function's
        # batch means are weighted by the batch's size, so that the result is its mean over the examples)
        objects = dict(model._stateful)
        examples = cast(array_ops.shape(outputs[0])[0], "float32")
        metric_ops = {names[i]: objects.get(i) or metrics_lib.mean(values[i], weights=examples)
                      for i in range(1, len(values))}
        scaffold = _starting_from(model.weights, weights)
        if mode == estimator_lib.ModeKeys.EVAL:
            return estimator_lib.EstimatorSpec(mode, loss=loss, eval_metric_ops=metric_ops, scaffold=scaffold)
        optimizer = optimizers.TFOptimizer(tf_optimizer) if tf_optimizer is not None else \
            optimizers.get(optimizer_config)
        step = optimizer.minimize(loss, model.trainable_weights)
        with control_dependencies([step] + model._own_updates()):
            train_op = group(step, assign_add(get_or_create_global_step(), 1))
        return estimator_lib.EstimatorSpec(mode, loss=loss, train_op=train_op, predictions=predictions,
                                           scaffold=scaffold)

    return estimator_lib.Estimator(model_fn, model_dir=model_dir, config=config)


def _fresh(metrics):
    """``compile``'s metrics with each metric object replaced by a new one of its config."""
    if isinstance(metrics, keras_metrics.Metric):
        return type(metrics).from_config(metrics.get_config())
    if isinstance(metrics, dict):
        return {key: _fresh(value) for key, value in metrics.items()}
    if isinstance(metrics, (list, tuple)):
        return [_fresh(value) for value in metrics]
    return metrics


def _ordered(given, names: list, what: str, kind: str) -> list:
    """The input_fn's features (or labels) in the model's input (output) order: a dict by its
    keys, which must be the model's names, as TF 1.15 requires; a list as it is; else one."""
    if isinstance(given, dict):
        different = set(given) ^ set(names)
        if different:
            raise KeyError(f"The dictionary passed into {what} does not have the expected {kind} keys defined in the "
                           f"keras model.\n\tExpected keys: {set(names)}\n\t{what} keys: {set(given)}\n\t"
                           f"Difference: {different}")
        return [given[n] for n in names]
    if isinstance(given, (list, tuple)):
        return list(given)
    return [given]


def _like(target, output, loss_fn):
    """Labels as the loss takes them: a column for a one-unit output given a vector."""
    if loss_fn is None:  # (an output without a loss: its labels are not used)
        return None
    target = ops.convert_to_tensor(target)
    if loss_fn is not losses_lib.sparse_categorical_crossentropy:
        if target.shape.ndims == 1 and output.shape.ndims == 2:
            target = reshape(target, [-1, 1])
        target = cast(target, output.dtype)
    return target


def _starting_from(variables, values) -> Scaffold:
    """A Scaffold whose init_fn (run when there is no checkpoint yet) sets ``variables`` to the
    Keras model's ``values``."""
    feeds = [placeholder(v.dtype.base_dtype, shape=v.shape) for v in variables]
    assign = group(*[v.assign(p) for v, p in zip(variables, feeds)])

    def init_fn(scaffold, session):
        session.run(assign, dict(zip(feeds, values)))

    return Scaffold(init_fn=init_fn)
