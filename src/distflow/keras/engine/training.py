"""``Model``: a Network that trains. ``compile`` builds, in the model's graph, the target and
sample-weight placeholders, the loss, the metrics and the training op; ``fit``, ``evaluate``
and ``predict`` feed batches of NumPy arrays (or batches drawn from a tf.data Dataset or a
generator) through Keras's session."""

from __future__ import annotations

import itertools
import json
import os

import numpy as np

from ... import (add_n, cast, control_dependencies, group, identity, maximum, placeholder, reduce_mean, reduce_sum,
                 reshape, train)
from ...framework import distribute_context
from ...framework import dtypes, errors, ops
from .. import backend as K
from .. import callbacks as callbacks_lib
from .. import losses as losses_lib
from .. import metrics as metrics_lib
from .. import optimizers as optimizers_lib
from .. import saving
from .network import Network


def _as_list(x) -> list:
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


class Model(Network):
    """``tf.keras.Model``: ``Model(inputs, outputs)``, or a subclass with its own ``call``."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.optimizer = None
        self.loss = None
        self.stop_training = False
        self.history = None
        self._compiled = None  # what compile was given; the graph it builds is in _train
        self._train = None
        self._strategy = None
        self._stateful = []  # (position among the values, metric object): the compiled metric objects
        self._metric_copies = {}  # (id of a metric object given for several outputs, output) -> its copy
        self._metric_reads = {}  # id of a metric object -> (it, the tensor that reads its value), made once

    # -- compile -------------------------------------------------------------------------------
    def compile(self, optimizer="rmsprop", loss=None, metrics=None, loss_weights=None, sample_weight_mode=None,
                weighted_metrics=None, target_tensors=None, distribute=None, run_eagerly=None, **kwargs):
        if kwargs:
            raise TypeError(f"Invalid keyword argument(s) in `compile`: {sorted(kwargs)}")
        if run_eagerly:  # (TF 1.14-1.15's argument; graph mode, as theirs without eager execution)
            raise ValueError("You can only set `run_eagerly=True` if eager execution is enabled.")
        self.optimizer = optimizers_lib.get(optimizer)
        self.loss = loss
        context = distribute_context.current()
        self._strategy = context.strategy if context is not None else None  # (compiled in a strategy's scope)
        if target_tensors is not None and self._strategy is not None:
            raise NotImplementedError("compile: target_tensors under a distribution strategy are not supported")
        self._compiled = {"loss": loss, "metrics": metrics, "loss_weights": loss_weights,
                          "weighted_metrics": weighted_metrics, "target_tensors": target_tensors,
                          "sample_weight_mode": sample_weight_mode}
        self._train = None
        if self.inputs is not None:
            # (the weights that training changes are those trainable now, as Keras collects them
            # at compile: a model made trainable=False after it, a GAN's discriminator inside the
            # combined model, still trains when it is trained itself)
            self._compiled["trainable_weights"] = list(self.trainable_weights)
            self._build_training()

    def _collected_trainable_weights(self) -> list:
        """The weights training changes: those trainable when ``compile`` ran (or, for a model
        built after it, when training first ran)."""
        collected = self._compiled.setdefault("trainable_weights", list(self.trainable_weights))
        now = self.trainable_weights
        if len(now) != len(collected) or any(a is not b for a, b in zip(now, collected)):
            K._warn("Discrepancy between trainable weights and collected trainable weights: `trainable` changed "
                    f"after {self.name} was compiled; training changes the weights trainable at compile (compile "
                    "again to change them)")
        return collected

    def _per_output(self, value, what: str, default=None) -> list:
        names = self.output_names
        if value is None:
            return [default] * len(names)
        if isinstance(value, dict):
            unknown = [key for key in value if not isinstance(key, str) or key not in names]
            if unknown:
                raise ValueError(f"Unknown entries in {what} dictionary: {unknown}. Only expected the following "
                                 f"keys (output names): {names}")
            return [value.get(name, default) for name in names]
        listed = what in ("metrics", "weighted_metrics")  # (a list of them is every output's, unless nested)
        if isinstance(value, (list, tuple)) and not listed or (
                listed and isinstance(value, (list, tuple)) and value and
                all(isinstance(v, (list, tuple)) for v in value)):
            if len(value) != len(names):
                raise ValueError(f"When passing a list as {what}, it should have one entry per model output. The "
                                 f"model has {len(names)} outputs, but you passed {what}={value!r}")
            return list(value)
        return [value] * len(names)

    def _build_training(self) -> None:
        """The target and sample-weight placeholders, the loss and the metrics, in the model's graph."""
        graph = self.outputs[0].graph
        with graph.as_default(), ops.name_scope(None):
            targets, sample_weights = [], []
            given = self._per_output(self._compiled.get("target_tensors"), "target_tensors")
            temporal = self._temporal()
            for output, name, loss_fn, tensor, per_step in zip(self.outputs, self.output_names, self._loss_fns(),
                                                               given, temporal):
                weight_shape = [None, None] if per_step else [None]
                if loss_fn is None:  # (an output without a loss takes no targets)
                    targets.append(None)
                    sample_weights.append(None)
                    continue
                if tensor is not None and not _is_placeholder(tensor):
                    # (a data tensor: the targets come with the inputs, each step, unweighted)
                    targets.append(ops.convert_to_tensor(tensor))
                    sample_weights.append(None)
                    continue
                if tensor is not None:  # (a placeholder of the program's: fed from y, as Keras feeds it)
                    targets.append(tensor)
                    sample_weights.append(placeholder(dtypes.float32, shape=weight_shape,
                                                      name=f"{name}_sample_weights"))
                    continue
                rank = output.shape.ndims
                sparse = loss_fn is losses_lib.sparse_categorical_crossentropy
                targets.append(placeholder(output.dtype.base_dtype, name=f"{name}_target",
                                           shape=None if sparse or rank is None else [None] * rank))
                sample_weights.append(placeholder(dtypes.float32, shape=weight_shape, name=f"{name}_sample_weights"))
            names, values = self._losses_and_metrics(self.outputs, targets, sample_weights)
        self._train = {"targets": targets, "sample_weights": sample_weights, "names": names, "values": values,
                       "total_loss": values[0], "op": None}
        self.metrics_names = names
        self.total_loss = values[0]

    def _temporal(self) -> list:
        """Whether each output's sample weights are per time step (``sample_weight_mode='temporal'``)."""
        modes = self._per_output(self._compiled.get("sample_weight_mode"), "sample_weight_mode")
        for mode in modes:
            if mode not in (None, "samplewise", "temporal"):
                raise ValueError(f"sample_weight_mode should be None or 'temporal', got {mode!r}")
        return [mode == "temporal" for mode in modes]

    def _loss_fns(self) -> list:
        """Each output's loss function, None for an output compiled without one (a model whose
        loss comes from ``add_loss`` alone, as Keras's VAE example)."""
        losses = self._per_output(self._compiled["loss"], "loss")
        if all(loss is None for loss in losses) and not self.losses:
            raise ValueError("The model has no loss to train: give compile a loss, or add one with add_loss")
        return [None if loss is None else losses_lib.get(loss) for loss in losses]

    def _losses_and_metrics(self, outputs, targets, sample_weights=None, regularization=None) -> tuple[list, list]:
        """``(names, tensors)``: the total loss (the outputs' losses, weighted, plus the layers'
        regularization losses), each output's loss when there are several, and the metrics,
        each a batch mean, named as Keras names them (``loss``, ``out_loss``, ``out_acc``).
        ``regularization``: the regularization losses to add (by default the layers')."""
        compiled = self._compiled
        weights = self._per_output(compiled["loss_weights"], "loss_weights", 1.0)
        metrics = self._per_output(compiled["metrics"] or [], "metrics")
        weighted = self._per_output(compiled.get("weighted_metrics") or [], "weighted_metrics")
        output_losses, metric_tensors, named, stateful, owners = [], [], [], [], {}
        fns = self._loss_fns()
        multi = sum(fn is not None for fn in fns) > 1
        for i, (output, target, name, loss_fn) in enumerate(zip(outputs, targets, self.output_names, fns)):
            if loss_fn is None:
                continue
            named.append((name, weights[i]))
            weight = sample_weights[i] if sample_weights is not None else None
            mask = K._mask_table().get(output)  # (a sequence's padded steps count for nothing, as in TF 1.15)
            with ops.name_scope(f"loss/{name}_loss"):
                score = loss_fn(target, output)
                per_step = weight is not None and weight.shape.ndims == 2
                if per_step and score.shape.ndims != 2:
                    raise ValueError(f"sample_weight_mode='temporal' weighs each time step of a [samples, steps] "
                                     f"loss; the loss of {name} has shape {score.shape}")
                if (mask is not None and mask.shape.ndims == score.shape.ndims) or per_step:
                    keep = cast(mask, score.dtype) if mask is not None else None
                    if weight is not None:
                        w = cast(weight, score.dtype)
                        w = w if per_step else reshape(w, [-1] + [1] * (score.shape.ndims - 1))
                        keep = w if keep is None else keep * w
                    output_losses.append(reduce_mean(score * keep))
                else:
                    if score.shape.ndims is not None and score.shape.ndims > 1:
                        score = reduce_mean(score, list(range(1, score.shape.ndims)))
                    if weight is not None:
                        score = score * cast(weight, score.dtype)
                    output_losses.append(reduce_mean(score))
            shape = output.shape.as_list() if output.shape.ndims is not None else None
            for metric in _as_list(metrics[i]):
                label, fn = metrics_lib.resolve(metric, loss_fn, shape)
                if isinstance(fn, metrics_lib.Metric):  # (an object: its totals, and its value after the batch)
                    fn = self._metric_for_output(fn, i, owners)
                    with ops.name_scope(f"metrics/{label}"):
                        keep = None if mask is None else cast(mask, dtypes.float32)
                        with control_dependencies([fn.update_state(target, output, sample_weight=keep)]):
                            value = identity(fn.result())
                    stateful.append((len(metric_tensors), fn))
                    metric_tensors.append((f"{name}_{label}" if multi else label, value))
                    continue
                with ops.name_scope(f"metrics/{label}"):
                    value = cast(fn(target, output), dtypes.float32)
                    if mask is not None and mask.shape.ndims == value.shape.ndims:  # (the unmasked steps' mean)
                        keep = cast(mask, dtypes.float32)
                        value = reduce_sum(value * keep) / maximum(reduce_sum(keep), 1.0)
                    else:
                        value = reduce_mean(value)
                metric_tensors.append((f"{name}_{label}" if multi else label, value))
            for metric in _as_list(weighted[i]):  # (weighted by the sample weights: objects that keep totals)
                label, fn = metrics_lib.resolve(metric, loss_fn, shape)
                fn = self._weighted_metric(fn, label, i, owners)
                keep = weight
                if mask is not None:
                    keep = cast(mask, dtypes.float32) if keep is None else cast(mask, dtypes.float32) * keep
                with ops.name_scope(f"metrics/weighted_{label}"):
                    with control_dependencies([fn.update_state(target, output, sample_weight=keep)]):
                        value = identity(fn.result())
                stateful.append((len(metric_tensors), fn))
                metric_tensors.append((f"{name}_weighted_{label}" if multi else f"weighted_{label}", value))
        for label, metric, value in self._own_added_metrics():  # (add_metric's, after the compiled ones)
            stateful.append((len(metric_tensors), metric))
            metric_tensors.append((label, value))
        with ops.name_scope("loss"):
            terms = [w * l if w != 1.0 else l for (_, w), l in zip(named, output_losses)]
            regularization = self._own_losses() if regularization is None else regularization
            terms += [cast(r, dtypes.float32) for r in regularization]
            total = add_n(terms) if len(terms) > 1 else identity(terms[0])
        names = ["loss"] + ([f"{n}_loss" for n, _ in named] if multi else []) + \
            [n for n, _ in metric_tensors]
        first = 1 + (len(output_losses) if multi else 0)
        self._stateful = [(first + k, fn) for k, fn in stateful]
        return names, [total] + (output_losses if multi else []) + [v for _, v in metric_tensors]

    def _metric_for_output(self, metric, output: int, owners: dict):
        """``metric``, or, when the same object was given for another output too, a copy of
        its own for this output (made once), as Keras copies it."""
        first = owners.setdefault(id(metric), output)
        if first == output:
            return metric
        key = (id(metric), output)
        if key not in self._metric_copies:
            self._metric_copies[key] = type(metric).from_config(metric.get_config())
        return self._metric_copies[key]

    def _weighted_metric(self, fn, label: str, output: int, owners: dict):
        """The metric object of a weighted metric: the object given (a copy of its own for each
        further output), or a mean of the function's values over the weighted examples, made
        once for the output."""
        if isinstance(fn, metrics_lib.Metric):
            return self._metric_for_output(fn, output, owners)
        key = ("weighted", label, output)
        if key not in self._metric_copies:
            self._metric_copies[key] = metrics_lib.MeanMetricWrapper(fn, name=f"weighted_{label}")
        return self._metric_copies[key]

    @property
    def metrics(self) -> list:
        """The metric objects ``compile`` was given (and their copies for other outputs), then
        those of ``add_metric``."""
        out = []
        for _, metric in self._stateful:
            if metric not in out:
                out.append(metric)
        return out

    def _with_results(self, values: list) -> list:
        """``values`` with each metric object's place holding its value now: its totals over
        every batch since it was reset, not a mean of batch values."""
        if not self._stateful:
            return values
        values = list(values)
        for _, metric in self._stateful:  # (each object's read made once, not at every epoch's end)
            if id(metric) not in self._metric_reads:
                self._metric_reads[id(metric)] = (metric, metric.result())
        results = K.get_session().run([self._metric_reads[id(metric)][1] for _, metric in self._stateful])
        for (position, _), value in zip(self._stateful, results):
            values[position] = float(value)
        return values

    def _train_fetches(self) -> list:
        """What a training step runs: the training op, then the loss and the metrics."""
        if self._strategy is None:
            return [self._train_op()] + self._train["values"]
        if self._train.get("distributed") is None:
            self._train["distributed"] = self._distributed_training()
        return self._train["distributed"]

    def _distributed_training(self) -> list:
        """The training step under the strategy the model was compiled in: each replica runs the
        model on its share of the batch (its copies of the weights), the optimizer averages
        the gradients over the replicas, and the loss and metrics are averaged too."""
        strategy = self._strategy
        layers = self._all_layers()
        trainable = self._collected_trainable_weights()
        graph = self.outputs[0].graph
        with graph.as_default(), ops.name_scope(None), strategy.scope():
            given = [i for i, t in enumerate(self._train["targets"]) if t is not None]
            shares = strategy._split_batch((tuple(self.inputs), tuple(self._train["targets"][i] for i in given),
                                            tuple(self._train["sample_weights"][i] for i in given)))
            made = {}

            def with_nones(parts):
                full = [None] * len(self.outputs)
                for i, part in zip(given, parts):
                    full[i] = part
                return full

            def replica_step(inputs, targets, weights):
                targets, weights = with_nones(targets), with_nones(weights)
                before = {id(layer): (len(layer._updates), len(layer._losses)) for layer in layers}
                outputs = _as_list(self(list(inputs) if len(inputs) > 1 else inputs[0], training=True))
                activity = [loss for layer in layers for loss in layer._losses[before[id(layer)][1]:]]
                weight_terms = [regularizer(var) for layer in layers for regularizer, var in layer._weight_regularizers]
                names, values = self._losses_and_metrics(outputs, list(targets), list(weights),
                                                         regularization=weight_terms + activity)
                updates = [u for layer in layers for u in layer._updates[before[id(layer)][0]:]]
                step = self.optimizer.minimize(values[0], trainable)
                made.setdefault("ops", []).extend([step] + updates)
                with control_dependencies([step] + updates):
                    return [identity(v) for v in values]

            per_replica = strategy.experimental_run_v2(replica_step, args=shares)
            reduced = [strategy.reduce("MEAN", v) for v in per_replica]
            with control_dependencies(made["ops"]):
                train_op = group(*made["ops"])
        return [train_op] + reduced

    def _own_added_metrics(self) -> list:
        """``(name, metric, value)`` of add_metric: those added outside any call and those of
        the calls this model is made of (chosen as :meth:`_own_updates` chooses updates)."""
        every = self._all_added_metrics()
        values = self._of_own_calls("metric", [v for _, _, v in every], lambda inputs: [v for _, _, v in every])
        unconditional = K._unconditional_table(self.outputs[0].graph)
        keep = {id(v) for v in values} | {id(v) for _, _, v in every if id(v) in unconditional}
        return [m for m in every if id(m[2]) in keep]

    def _own_updates(self) -> list:
        """The updates a training step runs: those of no layer call, and those of the layer
        calls this model is made of (its nodes, and the calls inside a nested model's call).
        Not a shared layer's calls elsewhere: those of a base model's own graph would need
        its input fed, and those of the template inside a ``multi_gpu_model`` would run the
        template on the whole batch again beside its replicas. A model without nodes (a
        subclassed one) takes those that follow from its inputs (``get_updates_for``)."""
        return self.get_updates_for(None) + self._of_own_calls("update", self.updates, self.get_updates_for)

    def _own_losses(self) -> list:
        """The losses the training loss adds, chosen as :meth:`_own_updates` chooses updates."""
        return self.get_losses_for(None) + self._of_own_calls("loss", self.losses, self.get_losses_for)

    def _of_own_calls(self, kind: str, items: list, for_inputs) -> list:
        if not self._is_graph_network or not self._nodes:
            return for_inputs(self.inputs)
        made = {id(x) for node in self._nodes for k, x in node.made if k == kind}
        return [x for x in items if id(x) in made]

    def _all_layers(self) -> list:
        """This model's layers and the layers inside them (nested models, wrappers)."""
        out, todo = [], list(self._layers)
        while todo:
            layer = todo.pop(0)
            if layer not in out:
                out.append(layer)
                todo.extend(layer._tracked_layers())
        return out

    def _minimize(self, loss, variables):
        """The op of one optimizer step on ``loss`` over ``variables`` (a model trained by
        several optimizers splits them: premade.py's WideDeepModel)."""
        return self.optimizer.minimize(loss, variables)

    def _train_op(self):
        train_state = self._train
        if train_state["op"] is None:
            graph = self.outputs[0].graph
            with graph.as_default(), ops.name_scope(None):
                with ops.name_scope("training"):
                    variables = self._collected_trainable_weights()
                    if variables:
                        step = self._minimize(train_state["total_loss"], variables)
                    else:  # (as Keras: a step of a model with nothing to train runs its layers' updates alone)
                        K._warn(f"The list of trainable weights of {self.name} is empty: training changes none of "
                                "its weights (was the model made trainable=False before compiling?)")
                        step = group()
                    updates = self._own_updates()
                    with control_dependencies([step] + updates):
                        train_state["op"] = group(step, *updates)
        return train_state["op"]

    # -- data ---------------------------------------------------------------------------------
    def _ensure_built(self, x) -> None:
        """A model without inputs yet (a subclassed model, a Sequential without input shape)
        builds them from the first data it is given."""
        if self.inputs is not None:
            return
        keys = sorted(x) if isinstance(x, dict) else None
        arrays = [x[k] for k in keys] if keys else _as_list(x)
        shapes = [(None,) + _column(np.asarray(a)).shape[1:] for a in arrays]  # (the data as it will be fed)
        dtypes_ = [_input_dtype(np.asarray(a)) for a in arrays]
        if keys:  # (a dict of features: an input of each name, given to the model as a dict)
            self._build_from_dict(keys, shapes, dtypes_)
        else:
            self._build_from(shapes, dtypes_)
        if self._compiled is not None and self._train is None:
            self._build_training()

    def _build_from(self, shapes, dtype_names) -> None:
        from .input_layer import Input  # noqa: PLC0415
        inputs = [Input(batch_shape=s, dtype=d) for s, d in zip(shapes, dtype_names)]
        outputs = self(inputs if len(inputs) > 1 else inputs[0])
        self.inputs = inputs
        self.outputs = _as_list(outputs)
        self._nested_inputs, self._nested_outputs = inputs, outputs
        self.input_names = [f"input_{i + 1}" for i in range(len(inputs))]
        self.output_names = [f"output_{i + 1}" for i in range(len(self.outputs))]
        self.built = True

    def _build_from_dict(self, keys, shapes, dtype_names) -> None:
        from .input_layer import Input  # noqa: PLC0415
        inputs = [Input(batch_shape=s, dtype=d, name=k) for k, s, d in zip(keys, shapes, dtype_names)]
        outputs = self(dict(zip(keys, inputs)))
        self.inputs = inputs
        self.outputs = _as_list(outputs)
        self._nested_inputs, self._nested_outputs = dict(zip(keys, inputs)), outputs
        self.input_names = list(keys)
        self.output_names = [f"output_{i + 1}" for i in range(len(self.outputs))]
        self.built = True

    def _fed(self) -> list:
        """The indices of the inputs that data is fed to: the placeholders. An input made on a
        data tensor (``Input(tensor=...)``: a tf.data iterator's or a queue's batch) reads it
        itself."""
        return [i for i, t in enumerate(self.inputs) if _is_placeholder(t)]

    def _reads_data_tensors(self, x) -> bool:
        """Whether a call without data (``x`` None) runs on data tensors: the inputs', and the
        targets' given to compile, so that nothing is fed but the learning phase."""
        return x is None and self.inputs is not None and not self._fed()

    def _inputs_of(self, x) -> list:
        fed = self._fed()
        names, inputs = [self.input_names[i] for i in fed], [self.inputs[i] for i in fed]
        if x is None and not fed:
            return []
        if isinstance(x, dict):
            missing = [n for n in names if n not in x]
            if missing:
                raise ValueError(f"No data provided for {missing[0]!r}. Need data for each key in: {names}")
            return [_column(np.asarray(x[n])) for n in names]
        arrays = [_column(np.asarray(a)) for a in _as_list(x)]
        if len(arrays) != len(inputs):
            raise ValueError(f"Error when checking model input: the list of Numpy arrays that you are passing to "
                             f"your model is not the size the model expected. Expected to see {len(inputs)} "
                             f"array(s), but instead got {len(arrays)}")
        for a, t, name in zip(arrays, inputs, names):
            want = t.shape
            if want.ndims is not None and a.ndim != want.ndims:
                raise ValueError(f"Error when checking input: expected {name} to have {want.ndims} dimensions, but "
                                 f"got array with shape {a.shape}")
            for got, d in zip(a.shape[1:], want.as_list()[1:] if want.ndims else []):
                if d is not None and got != d:
                    raise ValueError(f"Error when checking input: expected {name} to have shape "
                                     f"{tuple(want.as_list()[1:])} but got array with shape {a.shape[1:]}")
        return arrays

    def _targets_of(self, y) -> list:
        if y is None:
            if self._compiled is not None and self._fed_outputs():
                raise ValueError("fit needs targets (y) for the outputs that have a loss (or target tensors, given to "
                                 "compile)")
            return [None] * len(self.outputs)
        if isinstance(y, dict):
            return [_column(np.asarray(y[n])) if n in y else None for n in self.output_names]
        arrays = [None if a is None else _column(np.asarray(a)) for a in _as_list(y)]
        fed = self._fed_outputs()
        if len(arrays) == len(self.outputs) and len(fed) != len(arrays):
            given = self._per_output(self._compiled.get("target_tensors"), "target_tensors")
            if any(a is not None and t is not None and not _is_placeholder(t) for a, t in zip(arrays, given)):
                raise ValueError("Targets (y) were given for an output whose target tensor was given to compile: "
                                 "its targets come from that tensor")
        if len(arrays) == len(self.outputs):
            return self._checked_targets(arrays)
        # (as Keras: one array for each output that is fed targets, those with a loss and no target tensor)
        if len(arrays) != len(fed):
            raise ValueError(f"Error when checking model target: expected {len(fed)} array(s), got {len(arrays)}")
        out = [None] * len(self.outputs)
        for i, a in zip(fed, arrays):
            out[i] = a
        return self._checked_targets(out)

    def _checked_targets(self, targets) -> list:
        """Refuses targets that a loss would broadcast against the output to a wrong value, as
        Keras does: class indices with categorical_crossentropy, a shape other than the output's
        with it, binary_crossentropy or mean_squared_error."""
        if self._compiled is None:
            return targets
        exact = (losses_lib.mean_squared_error, losses_lib.binary_crossentropy, losses_lib.categorical_crossentropy)
        for y, output, fn in zip(targets, self.outputs, self._loss_fns()):
            if y is None or fn not in exact or output.shape.ndims is None:
                continue
            shape = output.shape.as_list()
            if fn is losses_lib.categorical_crossentropy and y.shape[-1] == 1 and shape[-1] not in (None, 1):
                raise ValueError(f"You are passing a target array of shape {y.shape} while using as loss "
                                 "`categorical_crossentropy`. `categorical_crossentropy` expects targets to be binary "
                                 "matrices (1s and 0s) of shape (samples, classes). If your targets are integer "
                                 "classes, convert them with `tf.keras.utils.to_categorical(y)`, or use the loss "
                                 "`sparse_categorical_crossentropy`, which expects integer targets.")
            if y.ndim != len(shape) or any(d is not None and d != got for d, got in zip(shape[1:], y.shape[1:])):
                raise ValueError(f"A target array with shape {y.shape} was passed for an output of shape "
                                 f"{tuple(shape)} while using as loss `{fn.__name__}`. This loss expects targets to "
                                 "have the same shape as the output.")
        return targets

    def _fed_outputs(self) -> list:
        """The indices of the outputs that take targets as data: those with a loss and no target tensor."""
        if self._compiled is None:
            return list(range(len(self.outputs)))
        given = self._per_output(self._compiled.get("target_tensors"), "target_tensors")
        return [i for i, (fn, t) in enumerate(zip(self._loss_fns(), given))
                if fn is not None and (t is None or _is_placeholder(t))]

    def _weights_of(self, targets, sample_weight, class_weight) -> list:
        out = []
        sample_weight = self._per_output(sample_weight, "sample_weight") if sample_weight is not None else \
            [None] * len(targets)
        class_weight = self._per_output(class_weight, "class_weight") if isinstance(class_weight, dict) and \
            set(class_weight) <= set(self.output_names) and len(self.output_names) > 1 else [class_weight] * len(targets)
        temporal = self._temporal() if self._compiled is not None else [False] * len(targets)
        for y, sw, cw, per_step in zip(targets, sample_weight, class_weight, temporal):
            if y is None:
                out.append(None)
                continue
            if per_step:  # (a weight for each time step of each sample)
                if cw:
                    raise ValueError("class_weight not supported for 3+ dimensional targets "
                                     "(sample_weight_mode='temporal')")
                w = np.ones(y.shape[:2], np.float32) if sw is None else np.asarray(sw, np.float32)
                if w.shape != y.shape[:2]:
                    raise ValueError(f"With sample_weight_mode='temporal', sample_weight should have the shape "
                                     f"[samples, steps] {y.shape[:2]}; got {w.shape}")
                out.append(w)
                continue
            w = np.ones(len(y), np.float32) if sw is None else np.asarray(sw, np.float32).reshape(len(y))
            if cw:
                classes = np.argmax(y, axis=-1) if y.ndim > 1 and y.shape[-1] > 1 else y.reshape(len(y)).astype(int)
                w = w * np.array([cw.get(int(c), 1.0) for c in classes], np.float32)
            out.append(w)
        return out

    def _feed(self, arrays, targets=None, weights=None, training=False) -> dict:
        feed = dict(zip([self.inputs[i] for i in self._fed()], arrays))
        if targets is not None:
            for t, y, w, weight in zip(self._train["targets"], targets, self._train["sample_weights"], weights):
                if t is not None and w is not None and y is not None:  # (not a target tensor: fed)
                    feed[t] = y
                    feed[w] = weight
        phase = K._phase_placeholder(self.inputs[0].graph)
        if phase is not None:
            feed[phase] = training
        return feed

    def _check_compiled(self, what: str) -> None:
        if self._compiled is None:
            raise RuntimeError(f"You must compile your model before {what}. Use `model.compile(optimizer, loss)`.")

    # -- training ------------------------------------------------------------------------------
    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose=1, callbacks=None, validation_split=0.0,
            validation_data=None, shuffle=True, class_weight=None, sample_weight=None, initial_epoch=0,
            steps_per_epoch=None, validation_steps=None, validation_freq=1, max_queue_size=10, workers=1,
            use_multiprocessing=False, **kwargs):
        """Trains for ``epochs`` epochs on ``x`` and ``y`` (arrays, lists or dicts of arrays), or on
        batches from a tf.data Dataset, a generator or a ``keras.utils.Sequence`` given as ``x``;
        returns the History."""
        if kwargs:
            raise TypeError(f"Unrecognized keyword arguments: {sorted(kwargs)}")
        self._check_compiled("training/testing")
        batches = _batch_source(x)
        if batches is not None:
            first = batches.peek()
            self._ensure_built(first[0])
            samples = None
            steps = batches.steps(steps_per_epoch)
            if steps is None and not batches.is_dataset:
                raise ValueError("fit on a generator needs steps_per_epoch")
            val = validation_data
        elif self._reads_data_tensors(x):
            steps, samples, val = self._data_tensor_steps("fit", y, steps_per_epoch, "steps_per_epoch"), None, None
            if validation_data is not None or validation_split:
                raise ValueError("fit: a model on data tensors validates on none (evaluate it with steps instead)")
        else:
            self._ensure_built(x)
            arrays, targets = self._inputs_of(x), self._targets_of(y)
            weights = self._weights_of(targets, sample_weight, class_weight)
            _check_lengths(arrays + targets)
            val = validation_data
            if validation_split and val is None:
                cut = int(len(arrays[0]) * (1.0 - validation_split))
                tail, head = slice(cut, None), slice(None, cut)
                val = (_parts(arrays, tail), _parts(targets, tail), _parts(weights, tail))
                arrays, targets, weights = _parts(arrays, head), _parts(targets, head), _parts(weights, head)
            samples = len(arrays[0])
            batch_size = batch_size or 32
            steps = -(-samples // batch_size)
        if self._train is None:
            self._build_training()
        fetches = self._train_fetches()
        names = self._train["names"]
        session = K.get_session()
        val_pack = val
        if isinstance(val, (list, tuple)) and not (validation_split and validation_data is None):
            vx, vy, vw = (_validation(val) + (None,))[:3]
            vt = self._targets_of(vy)
            val_pack = (self._inputs_of(vx), vt, self._weights_of(vt, vw, None))
        self.history = callbacks_lib.History()
        cbs = [callbacks_lib.BaseLogger(), *(callbacks or [])]
        if verbose:
            cbs.append(callbacks_lib.ProgbarLogger("samples" if samples is not None else "steps", verbose=verbose))
        cbs.append(self.history)
        do_val = val is not None
        params = {"batch_size": batch_size, "epochs": epochs, "steps": steps, "samples": samples,
                  "verbose": verbose, "do_validation": do_val,
                  "metrics": names + [f"val_{n}" for n in names] if do_val else list(names)}
        callback_list = callbacks_lib.CallbackList(cbs, self, params)
        self.stop_training = False
        if verbose and samples is not None:
            print(f"Train on {samples} samples" + (f", validate on {len(val_pack[0][0])} samples"
                                                   if do_val and isinstance(val_pack, tuple) else ""))
        callback_list.on_train_begin()
        rng = np.random
        for epoch in range(initial_epoch, epochs):
            callback_list.on_epoch_begin(epoch)
            self.reset_metrics()
            totals, seen = np.zeros(len(names)), 0
            order = None  # (unshuffled: each batch is a slice of the arrays, not a copy)
            if samples is not None and shuffle is True:
                order = rng.permutation(samples)
            elif samples is not None and shuffle == "batch":
                starts = rng.permutation(steps) * batch_size
                order = np.concatenate([np.arange(s, min(s + batch_size, samples)) for s in starts])
            whole_pass = batches is not None and steps is None
            if whole_pass and epoch > initial_epoch:
                batches.restart()
            for step in _counted(steps):
                if samples is not None:
                    rows = slice(step * batch_size, (step + 1) * batch_size)
                    index = rows if order is None else order[rows]
                    bx, by, bw = _parts(arrays, index), _parts(targets, index), _parts(weights, index)
                elif batches is not None:
                    try:
                        bx, by, bw = self._batch_parts(batches.next())
                    except _Exhausted:
                        if step == 0:
                            raise ValueError("fit: the dataset gave no batch in this epoch") from None
                        break
                else:  # (data tensors: nothing to feed; each step counts as one in the means)
                    bx, by, bw = [], None, None
                size = len(bx[0]) if bx else 1
                logs = {"batch": step, "size": size}
                callback_list.on_batch_begin(step, logs)
                out = session.run(fetches, self._feed(bx, by, bw, True))[1:]
                for name, value in zip(names, out):
                    logs[name] = float(value)
                totals += np.asarray(out, np.float64) * size
                seen += size
                callback_list.on_batch_end(step, logs)
                if self.stop_training:
                    break
            epoch_logs = dict(zip(names, self._with_results([float(v) for v in totals / max(1, seen)])))
            if do_val and (epoch + 1) % validation_freq == 0:
                results = self._evaluate_source(val_pack, batch_size or 32, validation_steps)
                for name, value in zip(names, results):
                    epoch_logs[f"val_{name}"] = value
            callback_list.on_epoch_end(epoch, epoch_logs)
            if batches is not None:
                batches.epoch_end()
            if self.stop_training:
                break
        callback_list.on_train_end()
        return self.history

    def _data_tensor_steps(self, what: str, y, steps, name: str) -> int:
        if y is not None:
            raise ValueError(f"{what}: the model's inputs are data tensors, so its targets come as tensors too "
                             "(compile's target_tensors), not as y")
        if steps is None:
            raise ValueError(f"When using data tensors as input to a model, you should specify the `{name}` argument.")
        return int(steps)

    def _batch_parts(self, batch):
        x, y, w = (batch + (None,))[:3] if len(batch) == 2 else batch
        arrays, targets = self._inputs_of(x), self._targets_of(y)
        return arrays, targets, self._weights_of(targets, w, None)

    def _evaluate_source(self, source, batch_size, steps) -> list:
        if isinstance(source, tuple):
            arrays, targets, weights = source
            return self._evaluate_arrays(arrays, targets, weights, batch_size)
        batches = _batch_source(source)
        return self._evaluate_batches(batches, batches.steps(steps))[0]

    def _evaluate_arrays(self, arrays, targets, weights, batch_size) -> list:
        self.reset_metrics()
        session = K.get_session()
        values = self._train["values"]
        totals, n = np.zeros(len(values)), len(arrays[0])
        for start in range(0, n, batch_size):
            part = slice(start, start + batch_size)
            out = session.run(values, self._feed(_parts(arrays, part), _parts(targets, part),
                                                 _parts(weights, part), False))
            totals += np.asarray(out, np.float64) * len(arrays[0][part])
        return self._with_results([float(v) for v in totals / max(1, n)])

    def _evaluate_batches(self, batches, steps) -> tuple:
        self.reset_metrics()
        session = K.get_session()
        values = self._train["values"]
        totals, seen, done = np.zeros(len(values)), 0, 0
        for _ in _counted(steps):
            try:
                bx, by, bw = self._batch_parts(batches.next())
            except _Exhausted:
                break
            out = session.run(values, self._feed(bx, by, bw, False))
            totals += np.asarray(out, np.float64) * len(bx[0])
            seen += len(bx[0])
            done += 1
        return self._with_results([float(v) for v in totals / max(1, seen)]), done

    def evaluate(self, x=None, y=None, batch_size=None, verbose=1, sample_weight=None, steps=None, callbacks=None,
                 **kwargs):
        """The loss (and metrics) on ``x`` and ``y``: a scalar, or a list in ``metrics_names``' order."""
        self._check_compiled("training/testing")
        batches = _batch_source(x)
        if batches is not None:
            self._ensure_built(batches.peek()[0])
            done, unit = batches.steps(steps), "step"
            if done is None and not batches.is_dataset:
                raise ValueError("evaluate on a generator needs steps")
            results, done = self._evaluate_batches(batches, done)
        elif self._reads_data_tensors(x):
            done, unit = self._data_tensor_steps("evaluate", y, steps, "steps"), "step"
            session, values = K.get_session(), self._train["values"]
            self.reset_metrics()
            results = self._with_results([float(v) for v in np.mean(
                [session.run(values, self._feed([], None, None, False)) for _ in range(done)], 0)])
        else:
            self._ensure_built(x)
            arrays, targets = self._inputs_of(x), self._targets_of(y)
            _check_lengths(arrays + targets)
            results = self._evaluate_arrays(arrays, targets, self._weights_of(targets, sample_weight, None),
                                            batch_size or 32)
            done, unit = len(arrays[0]), "sample"
        if verbose:
            from ..utils.generic_utils import Progbar  # noqa: PLC0415
            Progbar(done, verbose=verbose, stateful_metrics=self._train["names"], unit_name=unit).update(
                done, list(zip(self._train["names"], results)))
        return results[0] if len(results) == 1 else results

    def predict(self, x=None, batch_size=None, verbose=0, steps=None, callbacks=None, **kwargs):
        """The model's outputs for ``x``, batch by batch, concatenated."""
        batches = _batch_source(x)
        session = K.get_session  # (called after the model is built: it initializes new variables)
        if self._reads_data_tensors(x):
            parts = [session().run(self.outputs, self._feed([])) for _ in range(
                self._data_tensor_steps("predict", None, steps, "steps"))]
        elif batches is not None:
            self._ensure_built(batches.peek()[0])
            parts = []
            counted = batches.steps(steps)
            if counted is None and not batches.is_dataset:
                raise ValueError("predict on a generator needs steps")
            for _ in _counted(counted):
                try:
                    batch = batches.next()
                except _Exhausted:
                    break
                parts.append(session().run(self.outputs, self._feed(self._inputs_of(batch[0] if isinstance(
                    batch, tuple) else batch))))
        else:
            self._ensure_built(x)
            arrays = self._inputs_of(x)
            _check_lengths(arrays)
            batch_size = batch_size or 32
            parts = [session().run(self.outputs, self._feed([a[s:s + batch_size] for a in arrays]))
                     for s in range(0, len(arrays[0]), batch_size)]
        outs = [np.concatenate([p[i] for p in parts]) for i in range(len(self.outputs))]
        return outs[0] if len(outs) == 1 else outs

    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None, reset_metrics=True):
        self._check_compiled("training/testing")
        if reset_metrics:  # (the metric objects then give this batch's values; else their totals go on)
            self.reset_metrics()
        self._ensure_built(x)
        arrays, targets = self._inputs_of(x), self._targets_of(y)
        if self._train is None:
            self._build_training()
        fetches = self._train_fetches()  # (before the session, which initializes the optimizer's new variables)
        out = K.get_session().run(fetches,
                                  self._feed(arrays, targets, self._weights_of(targets, sample_weight, class_weight),
                                             True))[1:]
        return self._batch_results(out)

    def test_on_batch(self, x, y=None, sample_weight=None, reset_metrics=True):
        self._check_compiled("training/testing")
        if reset_metrics:  # (the metric objects then give this batch's values; else their totals go on)
            self.reset_metrics()
        self._ensure_built(x)
        arrays, targets = self._inputs_of(x), self._targets_of(y)
        out = K.get_session().run(self._train["values"], self._feed(
            arrays, targets, self._weights_of(targets, sample_weight, None), False))
        return self._batch_results(out)

    def _batch_results(self, out) -> list:
        """One batch's loss and metrics (the metric objects' totals since they were reset)."""
        out = self._with_results([float(v) for v in out])
        return out[0] if len(out) == 1 else out

    def predict_on_batch(self, x):
        self._ensure_built(x)
        outs = K.get_session().run(self.outputs, self._feed(self._inputs_of(x)))
        return outs[0] if len(outs) == 1 else outs

    # (Keras's generator methods take their arguments in another order: the steps come second)
    def fit_generator(self, generator, steps_per_epoch=None, epochs=1, verbose=1, callbacks=None,
                      validation_data=None, validation_steps=None, validation_freq=1, class_weight=None,
                      max_queue_size=10, workers=1, use_multiprocessing=False, shuffle=True, initial_epoch=0):
        """``fit`` on the batches of a generator, a ``keras.utils.Sequence`` or a Dataset."""
        return self.fit(generator, steps_per_epoch=steps_per_epoch, epochs=epochs, verbose=verbose,
                        callbacks=callbacks, validation_data=validation_data, validation_steps=validation_steps,
                        validation_freq=validation_freq, class_weight=class_weight, max_queue_size=max_queue_size,
                        workers=workers, use_multiprocessing=use_multiprocessing, shuffle=shuffle,
                        initial_epoch=initial_epoch)

    def evaluate_generator(self, generator, steps=None, callbacks=None, max_queue_size=10, workers=1,
                           use_multiprocessing=False, verbose=0):
        """``evaluate`` on the batches of a generator, a ``keras.utils.Sequence`` or a Dataset."""
        return self.evaluate(generator, steps=steps, callbacks=callbacks, verbose=verbose,
                             max_queue_size=max_queue_size, workers=workers, use_multiprocessing=use_multiprocessing)

    def predict_generator(self, generator, steps=None, callbacks=None, max_queue_size=10, workers=1,
                          use_multiprocessing=False, verbose=0):
        """``predict`` on the batches of a generator, a ``keras.utils.Sequence`` or a Dataset."""
        return self.predict(generator, steps=steps, callbacks=callbacks, verbose=verbose,
                            max_queue_size=max_queue_size, workers=workers, use_multiprocessing=use_multiprocessing)

    # -- saving ------------------------------------------------------------------------------
    def save_weights(self, filepath, overwrite=True, save_format=None) -> None:
        """The weights in TF's checkpoint format, or in Keras's HDF5 layout for an ``.h5`` path
        (or ``save_format='h5'``), which needs h5py."""
        if saving.is_hdf5(filepath) or save_format == "h5":
            with saving.h5py().File(str(filepath), "w") as f:
                saving.save_weights_to_hdf5_group(f, self.layers)
            return
        directory = os.path.dirname(str(filepath))
        if directory:
            os.makedirs(directory, exist_ok=True)
        self._saver().save(K.get_session(), str(filepath), write_meta_graph=False, write_state=True)

    def load_weights(self, filepath, by_name=False) -> None:
        """Weights that ``save_weights`` wrote: an HDF5 file (Keras's layout, matched by layer
        order, or by layer name with ``by_name``) or a TF checkpoint."""
        if saving.is_hdf5(filepath):
            with saving.h5py().File(str(filepath), "r") as f:
                saving.load_weights_from_hdf5_group(f["model_weights"] if "model_weights" in f else f,
                                                    self.layers, by_name)
            return
        path = str(filepath)
        if os.path.isdir(path):
            path = train.latest_checkpoint(path)
        self._saver().restore(K.get_session(), path)

    def _saver(self):
        weights = self.weights
        with weights[0].graph.as_default():
            key = tuple(id(w) for w in weights)
            if getattr(self, "_saver_for", (None,))[0] != key:
                saver = train.Saver({f"{w.op.name}": w for w in weights}, max_to_keep=None)
                self._saver_for = (key, saver)
            return self._saver_for[1]

    def save(self, filepath, overwrite=True, include_optimizer=True, save_format=None):
        """The whole model in Keras's HDF5 file (config, weights, how it was compiled), which
        ``load_model`` reads. As in TF 1.x, HDF5 whatever the path's extension; SavedModel
        (``save_format='tf'``) is not supported."""
        if save_format not in (None, "h5"):
            raise NotImplementedError(f"Model.save(save_format={save_format!r}): only HDF5 ('h5') is supported")
        saving.save_model(self, filepath, overwrite, include_optimizer)

    def to_json(self, **kwargs) -> str:
        return json.dumps({"class_name": type(self).__name__, "config": self.get_config(),
                           "keras_version": "2.2.4-tf", "backend": "tensorflow"}, default=_jsonable, **kwargs)

    def to_yaml(self, **kwargs) -> str:
        """The model's description as YAML (needs PyYAML; ``models.model_from_yaml`` reads it)."""
        return saving.yaml().safe_dump(json.loads(self.to_json()), **kwargs)

    def reset_metrics(self) -> None:
        """Sets the metric objects' totals back to zero (``fit`` does at each epoch's start,
        ``evaluate`` before it begins; metric functions are averaged per call anyway)."""
        metrics_lib.metric_objects.reset_to_zero([v for metric in self.metrics for v in metric.variables])


def _jsonable(value):
    if isinstance(value, np.generic):
        return value.item()
    if hasattr(value, "as_list"):
        return value.as_list()
    return str(value)


def _column(a: np.ndarray) -> np.ndarray:
    """A 1-D array as a column, as Keras standardizes its data: (n,) -> (n, 1)."""
    return a.reshape(-1, 1) if a.ndim == 1 else a


def _parts(arrays, index) -> list:
    """Each array's rows at ``index`` (None stays None: an output without targets)."""
    return [None if a is None else a[index] for a in arrays]


def _is_placeholder(tensor) -> bool:
    return getattr(getattr(tensor, "op", None), "type", None) in ("Placeholder", "PlaceholderWithDefault")


def _check_lengths(arrays) -> None:
    lengths = {len(a) for a in arrays if a is not None}
    if len(lengths) > 1:
        raise ValueError(f"All input arrays (x) and target arrays (y) should have the same number of samples. Got "
                         f"array lengths: {sorted(lengths)}")


def _validation(val):
    val = tuple(val)
    if len(val) not in (2, 3):
        raise ValueError("When passing validation_data, it must contain 2 (x_val, y_val) or 3 (x_val, y_val, "
                         f"val_sample_weights) items, however it contains {len(val)} items")
    return val


class _Batches:
    """Batches drawn from a tf.data Dataset, a generator or a Sequence, one ``next()`` at a time.
    A dataset's pass may end (``next`` raises ``_Exhausted``); ``restart`` begins another."""

    def __init__(self, source):
        self._source = source
        self._pending = None
        self._index = 0
        self._iter = None
        self._next_op = None
        self._initializer = None
        if hasattr(source, "make_initializable_iterator"):
            iterator = source.make_initializable_iterator()
            self._next_op, self._initializer = iterator.get_next(), iterator.initializer
        elif not (hasattr(source, "__getitem__") and hasattr(source, "__len__")):  # (a Sequence is indexed)
            self._iter = iter(source)
        self._started = False

    @property
    def is_dataset(self) -> bool:
        return self._initializer is not None

    def length(self):
        if hasattr(self._source, "__len__") and not self.is_dataset:
            return len(self._source)
        return None

    def _draw(self):
        if self._next_op is not None:
            session = K.get_session()
            if not self._started:
                session.run(self._initializer)
                self._started = True
            try:
                out = session.run(self._next_op)
            except errors.OutOfRangeError:
                raise _Exhausted() from None
            return tuple(out) if isinstance(self._next_op, tuple) else out
        if self._iter is not None:
            return next(self._iter)
        batch = self._source[self._index % len(self._source)]
        self._index += 1
        return batch

    def peek(self):
        if self._pending is None:
            self._pending = self._draw()
        return self._pending if isinstance(self._pending, tuple) else (self._pending,)

    def next(self):
        batch = self.peek()
        self._pending = None
        return tuple(batch)

    def restart(self):
        """A dataset from its beginning again (the next draw initializes its iterator)."""
        self._pending = None
        self._started = False

    def steps(self, given):
        """The steps to take: ``given``, the Sequence's length, or None for a dataset's whole
        pass (until it ends, as TF 1.14-1.15's Keras takes a dataset without steps)."""
        found = given or self.length()
        if found is None and not self.is_dataset:
            return None
        return found

    def epoch_end(self):
        if hasattr(self._source, "on_epoch_end"):
            self._source.on_epoch_end()


class _Exhausted(Exception):
    """A dataset's pass ended."""


def _counted(steps):
    """0, 1, ... ``steps`` - 1, or without end when ``steps`` is None."""
    return itertools.count() if steps is None else range(steps)


def _batch_source(x):
    """Batches to draw from ``x`` (a Dataset, generator or Sequence), or None for arrays (and
    what reads as one: an ``HDF5Matrix``, a pandas DataFrame, as Keras took its values)."""
    if x is None or isinstance(x, (np.ndarray, list, tuple, dict)) or np.isscalar(x) or hasattr(x, "__array__"):
        return None
    return _Batches(x)


def _input_dtype(array) -> str:
    """The dtype of an input built from data: floats as Keras's floatx, text as strings."""
    if array.dtype.kind == "f":
        return K.floatx()
    if array.dtype.kind in "USO":
        return "string"
    return array.dtype.name

