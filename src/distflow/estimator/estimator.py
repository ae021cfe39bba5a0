"""``tf.estimator.Estimator``: train, evaluate and predict with one ``model_fn``.

Each call builds a new graph: the input pipeline from ``input_fn``, the model from
``model_fn(features, labels, mode, params, config)`` (it takes the arguments it names), and
runs it in a monitored session. ``train`` checkpoints to ``model_dir`` (and resumes from the
newest checkpoint there); ``evaluate`` and ``predict`` restore the newest one (or
``checkpoint_path``). An input that runs out (OutOfRangeError) ends training, evaluation and
prediction, as in TF. With ``warm_start_from`` (a checkpoint or ``WarmStartSettings``),
``train`` on a model_dir that holds no checkpoint yet initializes the chosen variables from
that checkpoint (train/warm_starting.py).
"""

from __future__ import annotations

import collections
import copy
import inspect
import logging
import os
import shutil
import tempfile
import time

import numpy as np

from .. import data as data_lib
from ..framework import nest
from ..framework import errors, ops
from ..framework.random_seed import set_random_seed
from ..distribute.reduce_util import ReduceOp
from ..metrics import mean as metric_mean
from ..ops import array_ops, control_flow_ops
from ..summary import summary_ops
from ..summary.writer import FileWriter
from ..protos.distflow_pb2 import Summary
from ..runtime.session import Session
from ..saved_model import tag_constants
from ..saved_model.builder import SavedModelBuilder
from ..train import basic_session_run_hooks as hooks_lib
from ..train import saver as saver_lib
from ..train.device_setter import replica_device_setter
from ..train.monitored_session import ChiefSessionCreator, MonitoredSession, MonitoredTrainingSession, Scaffold
from ..train.session_run_hook import SessionRunHook
from ..train.warm_starting import WarmStartSettings, warm_start
from ..train.training_util import get_or_create_global_step
from . import export as export_lib
from .run_config import RunConfig

_log = logging.getLogger("distflow")


class ModeKeys:
    """What a ``model_fn`` is asked to build."""

    TRAIN = "train"
    EVAL = "eval"
    PREDICT = "infer"


_SPEC_FIELDS = ["mode", "predictions", "loss", "train_op", "eval_metric_ops", "export_outputs",
                "training_chief_hooks", "training_hooks", "scaffold", "evaluation_hooks", "prediction_hooks"]


class EstimatorSpec(collections.namedtuple("EstimatorSpec", _SPEC_FIELDS)):
    """What a ``model_fn`` returns: for TRAIN a ``loss`` and a ``train_op``, for EVAL a ``loss``
    (and ``eval_metric_ops``: name -> (value, update_op), or a tf.keras.metrics object
    updated in the model_fn), for PREDICT ``predictions``."""

    def __new__(cls, mode, predictions=None, loss=None, train_op=None, eval_metric_ops=None, export_outputs=None,
                training_chief_hooks=None, training_hooks=None, scaffold=None, evaluation_hooks=None,
                prediction_hooks=None):
        if mode not in (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT):
            raise ValueError(f"mode={mode!r} is not one of ModeKeys")
        if train_op is None and mode == ModeKeys.TRAIN:
            raise ValueError("Missing train_op: a model_fn in TRAIN mode must give it (and a loss).")
        if loss is None and mode in (ModeKeys.TRAIN, ModeKeys.EVAL):
            raise ValueError(f"Missing loss: a model_fn in {mode.upper()} mode must give it.")
        if predictions is None and mode == ModeKeys.PREDICT:
            raise ValueError("Missing predictions: a model_fn in PREDICT mode must give them.")
        if train_op is not None:
            _check_tensor_or_op(train_op, "train_op")
        if loss is not None:
            _check_tensor(loss, "loss")
            if loss.shape.num_elements() not in (None, 1):
                raise ValueError(f"Loss must be scalar, given: {loss}")
            if loss.shape.ndims not in (None, 0):  # (one element: as a scalar, as TF takes it)
                loss = array_ops.reshape(loss, [])
        if isinstance(predictions, dict):
            for key, value in predictions.items():
                _check_tensor(value, f"predictions[{key}]")
        elif predictions is not None:
            _check_tensor(predictions, "predictions")
        if eval_metric_ops is not None:
            if not isinstance(eval_metric_ops, dict):
                raise TypeError(f"eval_metric_ops must be a dict, given: {eval_metric_ops}")
            eval_metric_ops = dict(eval_metric_ops)
            for key, pair in eval_metric_ops.items():
                if _is_metric_object(pair):  # (a tf.keras.metrics object: its value and its updates)
                    if not pair.updates:
                        raise ValueError(f'Please call update_state(...) on the "{pair.name}" metric')
                    eval_metric_ops[key] = pair = (pair.result(), control_flow_ops.group(*pair.updates))
                if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                    raise TypeError(f"Values of eval_metric_ops must be (metric_value, update_op) tuples, given: "
                                    f"{pair} for key: {key}")
                for member in nest.flatten(pair[0]) + [pair[1]]:  # (a value may be a nested tuple of them)
                    _check_tensor_or_op(member, f"eval_metric_ops[{key}]")
        if export_outputs is not None:
            export_outputs = export_lib.checked_export_outputs(export_outputs, predictions)
        hooks = [list(h or []) for h in (training_chief_hooks, training_hooks, evaluation_hooks, prediction_hooks)]
        for hook in (h for group in hooks for h in group):
            if not isinstance(hook, SessionRunHook):
                raise TypeError(f"All hooks must be SessionRunHook instances, given: {hook!r}")
        if scaffold is not None and not isinstance(scaffold, Scaffold):
            raise TypeError(f"scaffold must be tf.train.Scaffold. Given: {scaffold}")
        graph = ops.get_default_graph()
        parts = [loss, train_op] + (list(predictions.values()) if isinstance(predictions, dict) else [predictions])
        for part in parts:
            if isinstance(part, (ops.Tensor, ops.Operation)) and part.graph is not graph:
                raise ValueError(f"{part.name} of the EstimatorSpec must be from the default graph: the model_fn "
                                 "built it in another graph (or outside the model_fn)")
        return super().__new__(cls, mode, predictions, loss, train_op, dict(eval_metric_ops or {}), export_outputs,
                               hooks[0], hooks[1], scaffold, hooks[2], hooks[3])


def _loader(values: dict, then=None):
    """A Scaffold's ``init_fn`` that loads ``values`` (by variable name) into the graph's
    variables of those names, then runs ``then``."""
    def init_fn(scaffold, session):
        by_name = {v.op.name: v for v in ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES)}
        for name, value in values.items():
            if name in by_name:
                by_name[name].load(value, session)
        if then is not None:
            then(scaffold, session)
    return init_fn


def _is_metric_object(value) -> bool:
    """Whether ``value`` is a tf.keras.metrics object (without importing Keras for those that
    are not)."""
    if not hasattr(value, "update_state") or not hasattr(value, "result"):
        return False
    from ..keras.metric_objects import Metric  # noqa: PLC0415

    return isinstance(value, Metric)


def _check_tensor(value, name: str) -> None:
    if not isinstance(value, ops.Tensor):
        raise TypeError(f"{name} must be Tensor, given: {value}")


def _check_tensor_or_op(value, name: str) -> None:
    if not isinstance(value, (ops.Tensor, ops.Operation)):
        raise TypeError(f"{name} must be Operation or Tensor, given: {value}")


def _timestamped_dirs(export_dir_base: str) -> tuple[str, str]:
    """A new export directory named by the time in seconds (the next free second if taken),
    and the temporary directory beside it that is written first."""
    os.makedirs(export_dir_base, exist_ok=True)
    stamp = int(time.time())
    while os.path.exists(os.path.join(export_dir_base, str(stamp))):
        stamp += 1
    return os.path.join(export_dir_base, str(stamp)), tempfile.mkdtemp(prefix=f"temp-{stamp}-", dir=export_dir_base)


def _arg_names(fn) -> list[str]:
    """The arguments ``fn`` is called with: a ``functools.partial``'s less those it binds."""
    if hasattr(fn, "func") and hasattr(fn, "keywords"):
        names = _arg_names(fn.func)[len(fn.args):]
        return [n for n in names if n not in (fn.keywords or {})]
    names = list(inspect.signature(fn).parameters)
    return names[1:] if inspect.ismethod(fn) and names[:1] == ["self"] else names


_INPUT_INITIALIZERS = "_estimator_input_initializers"


def _read(dataset):
    """The next element of an input_fn's dataset, read by an initializable iterator that the
    session's ``_DatasetInitializerHook`` starts (as TF's Estimator reads datasets, so that
    one may hold what a one-shot iterator cannot: random tensors, a variable's value)."""
    iterator = dataset.make_initializable_iterator()
    ops.add_to_collection(_INPUT_INITIALIZERS, iterator.initializer)
    return iterator.get_next()


class _DatasetInitializerHook(SessionRunHook):
    """Starts the input's iterators once the session exists (or exists again, recovered)."""

    def begin(self):
        self._initializers = ops.get_collection(_INPUT_INITIALIZERS)

    def after_create_session(self, session, coord):
        if self._initializers:
            session.run(self._initializers)


def _checked_hooks(hooks) -> list:
    hooks = list(hooks or [])
    for hook in hooks:
        if not isinstance(hook, SessionRunHook):
            raise TypeError(f"Hooks must be a SessionRunHook, given: {hook!r}")
    return hooks


class Estimator:
    """Trains, evaluates and predicts with ``model_fn`` (see the module docstring)."""

    def __init__(self, model_fn, model_dir=None, config=None, params=None, warm_start_from=None):
        if not callable(model_fn):
            raise ValueError(f"model_fn must be callable, got {model_fn!r}")
        args = _arg_names(model_fn)
        if "features" not in args:
            raise ValueError(f"model_fn ({model_fn}) must include features argument.")
        unknown = set(args) - {"features", "labels", "mode", "params", "config"}
        if unknown:
            raise ValueError(f"model_fn ({model_fn}) has following not expected args: {sorted(unknown)}")
        if isinstance(warm_start_from, (str, bytes, os.PathLike)):
            warm_start_from = WarmStartSettings(os.fspath(warm_start_from) if not isinstance(warm_start_from, bytes)
                                                else warm_start_from.decode())
        elif warm_start_from is not None and not isinstance(warm_start_from, WarmStartSettings):
            raise ValueError(f"warm_start_from must be a string or a WarmStartSettings, instead got "
                             f"{type(warm_start_from)}")
        self._warm_start_settings = warm_start_from
        config = config if config is not None else RunConfig()
        if not isinstance(config, RunConfig):
            raise ValueError(f"config must be an instance of RunConfig, but provided {config}.")
        if model_dir is not None and config.model_dir is not None and \
                os.path.abspath(model_dir) != os.path.abspath(config.model_dir):
            raise ValueError(f"model_dir are set both in constructor and RunConfig, but with different values. In "
                             f"constructor: '{model_dir}', in RunConfig: '{config.model_dir}' ")
        model_dir = model_dir or config.model_dir
        if model_dir is None:
            model_dir = tempfile.mkdtemp(prefix="estimator-")
            _log.warning("Using temporary folder as model directory: %s", model_dir)
        self._model_fn, self._params = model_fn, dict(params or {})
        self._config = config.replace(model_dir=model_dir)

    model_fn = property(lambda self: self._model_fn)
    model_dir = property(lambda self: self._config.model_dir)
    config = property(lambda self: self._config)
    params = property(lambda self: dict(self._params))

    # -- checkpoints --------------------------------------------------------------------------
    def latest_checkpoint(self):
        return saver_lib.latest_checkpoint(self.model_dir)

    def get_variable_names(self) -> list[str]:
        return [name for name, _ in saver_lib.list_variables(self.model_dir)]

    def get_variable_value(self, name: str) -> np.ndarray:
        return saver_lib.load_variable(self.model_dir, name)

    def export_saved_model(self, export_dir_base, serving_input_receiver_fn, assets_extra=None, as_text=False,
                           checkpoint_path=None, experimental_mode=ModeKeys.PREDICT):
        """Exports the model of the newest checkpoint (or ``checkpoint_path``) as a SavedModel
        for serving, in a new directory ``export_dir_base/<timestamp>``; returns its path (bytes).

        ``serving_input_receiver_fn()`` gives the receiver tensors a request feeds and the
        features the model function gets (``tf.estimator.export``); the model function's
        ``export_outputs`` (by default its predictions) become the signatures. The graph's
        asset files (vocabularies) are copied with it, and ``assets_extra`` (destination ->
        source) into ``assets.extra/``. It is written into a temporary directory beside the
        final one and renamed into place once whole."""
        if experimental_mode != ModeKeys.PREDICT:
            raise errors.UnimplementedError(None, None, f"export_saved_model(experimental_mode={experimental_mode!r}) "
                                            "is not supported: only the PREDICT graph is exported")
        if serving_input_receiver_fn is None:
            raise ValueError("An input_receiver_fn must be defined.")
        checkpoint_path = checkpoint_path or self.latest_checkpoint()
        if not checkpoint_path:
            raise ValueError(f"Couldn't find trained model at {self.model_dir}.")
        with self._new_graph().as_default() as graph:
            get_or_create_global_step()
            receiver = serving_input_receiver_fn()
            if not isinstance(receiver, export_lib.ServingInputReceiver):
                raise TypeError(f"serving_input_receiver_fn must return a ServingInputReceiver, got {receiver!r}")
            spec = self._model(receiver.features, None, ModeKeys.PREDICT)
            signatures = export_lib.signature_defs(receiver, export_lib.export_outputs_of(spec))
            scaffold = spec.scaffold or Scaffold()
            saver = scaffold.saver or saver_lib.Saver(sharded=True, allow_empty=True)
            # (as TF's export: the checkpoint restores the global variables)
            local_init = (scaffold.local_init_op if scaffold.local_init_op is not None
                          else Scaffold.default_local_init_op())
            export_dir, temp_dir = _timestamped_dirs(os.fspath(export_dir_base))
            try:
                with Session(config=self.config.session_config) as sess:
                    saver.restore(sess, checkpoint_path)
                    builder = SavedModelBuilder(temp_dir)
                    builder.add_meta_graph_and_variables(
                        sess, [tag_constants.SERVING], signature_def_map=signatures,
                        assets_collection=graph.get_collection(ops.GraphKeys.ASSET_FILEPATHS), main_op=local_init,
                        clear_devices=True, saver=saver)
                    builder.save(as_text)
                for dest, source in (assets_extra or {}).items():
                    target = os.path.join(temp_dir, "assets.extra", dest)
                    os.makedirs(os.path.dirname(target), exist_ok=True)
                    shutil.copyfile(source, target)
                os.rename(temp_dir, export_dir)
            except BaseException:
                shutil.rmtree(temp_dir, ignore_errors=True)
                raise
        _log.info("SavedModel written to: %s", export_dir)
        return export_dir.encode()

    def export_savedmodel(self, export_dir_base, serving_input_receiver_fn, assets_extra=None, as_text=False,
                          checkpoint_path=None, strip_default_attrs=False):
        """TF 1.x's older name of :meth:`export_saved_model` (``strip_default_attrs`` changes
        nothing that distflow reads back, as in ``export_meta_graph``)."""
        return self.export_saved_model(export_dir_base, serving_input_receiver_fn, assets_extra, as_text,
                                       checkpoint_path)

    # -- building -----------------------------------------------------------------------------
    def _params_for(self, mode) -> dict:
        """The params that ``mode``'s input_fn and model_fn get (TPUEstimator adds its batch size)."""
        return self.params

    def _features_and_labels(self, input_fn, mode):
        kwargs = {name: value for name, value in (("mode", mode), ("params", self._params_for(mode)),
                                                  ("config", self.config)) if name in _arg_names(input_fn)}
        result = input_fn(**kwargs)
        if isinstance(result, data_lib.Dataset):
            result = _read(result)
        if isinstance(result, (tuple, list)):
            if len(result) != 2:
                raise ValueError(f"input_fn should return (features, labels) as a len 2 tuple, got {len(result)}")
            return result[0], result[1]
        return result, None

    def _call_model_fn(self, features, labels, mode):
        """What the model function returns, called with the arguments it names."""
        names = _arg_names(self._model_fn)
        kwargs = {"features": features}
        for name, value in (("labels", labels), ("mode", mode), ("params", self._params_for(mode)),
                            ("config", self.config)):
            if name in names:
                kwargs[name] = value
        if "labels" not in names and labels is not None and mode != ModeKeys.PREDICT:
            raise ValueError("model_fn does not take labels, but input_fn returns labels.")
        return self._model_fn(**kwargs)

    def _model(self, features, labels, mode) -> EstimatorSpec:
        spec = self._call_model_fn(features, labels, mode)
        if not isinstance(spec, EstimatorSpec):
            raise ValueError(f"model_fn should return an EstimatorSpec, got {type(spec).__name__}")
        return spec

    def _new_graph(self):
        graph = ops.Graph()
        with graph.as_default():
            if self.config.tf_random_seed is not None:
                set_random_seed(self.config.tf_random_seed)
        return graph

    # -- train, evaluate, predict ---------------------------------------------------------------
    def train(self, input_fn, hooks=None, steps=None, max_steps=None, saving_listeners=None) -> "Estimator":
        """Trains for ``steps`` more steps, to global step ``max_steps``, or until the input runs out."""
        if steps is not None and max_steps is not None:
            raise ValueError("Can not provide both steps and max_steps.")
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        hooks = _checked_hooks(hooks)
        saving_listeners = list(saving_listeners or [])
        for listener in saving_listeners:
            if not isinstance(listener, hooks_lib.CheckpointSaverListener):
                raise TypeError(f"saving_listeners must be a list of CheckpointSaverListener, given: {listener!r}")
        if saving_listeners and not (self.config.save_checkpoints_secs or self.config.save_checkpoints_steps):
            raise ValueError("There should be a CheckpointSaverHook to use saving_listeners. Please set one of the "
                             "RunConfig.save_checkpoints_steps or RunConfig.save_checkpoints_secs.")
        if max_steps is not None:
            latest = self.latest_checkpoint()
            if latest and int(saver_lib.load_variable(latest, "global_step")) >= max_steps:
                _log.info("Skipping training since max_steps has already saved.")
                return self
        strategy = self.config.train_distribute
        with self._new_graph().as_default(), ops.device(self._device_fn()):
            global_step = get_or_create_global_step()
            if strategy is None:
                features, labels = self._features_and_labels(input_fn, ModeKeys.TRAIN)
                spec = self._model(features, labels, ModeKeys.TRAIN)
            else:
                spec = self._distributed_model(strategy, input_fn)
            # (the loss in TensorBoard, as TF's Estimator adds it, unless the model_fn wrote one)
            if not any(s.op.name == "loss" for s in ops.get_collection(ops.GraphKeys.SUMMARIES)):
                summary_ops.scalar("loss", spec.loss)
            if self._warm_start_settings is not None and not self.latest_checkpoint():
                _log.info("Warm-starting with WarmStartSettings: %s", self._warm_start_settings)
                warm_start(*self._warm_start_settings)
            scaffold = spec.scaffold or Scaffold()
            if scaffold.saver is None:
                scaffold = Scaffold(copy_from_scaffold=scaffold, saver=saver_lib.Saver(
                    sharded=True, max_to_keep=self.config.keep_checkpoint_max,
                    keep_checkpoint_every_n_hours=self.config.keep_checkpoint_every_n_hours))
            all_hooks = [_DatasetInitializerHook()] + hooks + spec.training_hooks + \
                [hooks_lib.NanTensorHook(spec.loss)]
            if steps is not None or max_steps is not None:
                all_hooks.append(hooks_lib.StopAtStepHook(num_steps=steps, last_step=max_steps))
            if self.config.log_step_count_steps:
                all_hooks.append(hooks_lib.LoggingTensorHook({"loss": spec.loss, "step": global_step},
                                                             every_n_iter=self.config.log_step_count_steps))
            # (no checkpoints where the config turns them off: both frequencies None)
            saver_hooks = [hooks_lib.CheckpointSaverHook(
                self.model_dir, save_secs=self.config.save_checkpoints_secs,
                save_steps=self.config.save_checkpoints_steps, scaffold=scaffold, listeners=saving_listeners)] \
                if self.config.save_checkpoints_secs or self.config.save_checkpoints_steps else []
            loss = None
            # Every worker of a strategy without a ps holds (and so initializes or restores) its own
            # copy of the model; only the chief checkpoints and writes summaries.
            own_copy = strategy is not None and strategy.extended.experimental_between_graph and \
                strategy.extended.experimental_should_init
            chief = self.config.is_chief
            with MonitoredTrainingSession(
                    master=self.config.master, is_chief=chief or own_copy, checkpoint_dir=self.model_dir,
                    scaffold=scaffold,
                    hooks=all_hooks, chief_only_hooks=spec.training_chief_hooks + saver_hooks if chief else [],
                    save_checkpoint_secs=None, save_checkpoint_steps=None,
                    save_summaries_steps=self.config.save_summary_steps if chief else None,
                    save_summaries_secs=None, config=self.config.session_config if strategy is None
                    else strategy.update_config_proto(copy.deepcopy(self.config.session_config)),
                    log_step_count_steps=self.config.log_step_count_steps if chief else None) as sess:
                while not sess.should_stop():
                    _, loss = sess.run([spec.train_op, spec.loss])
            _log.info("Loss for final step: %s.", loss)
        return self

    def _distributed_model(self, strategy, input_fn) -> EstimatorSpec:
        """The model function once per replica of ``strategy``, each on its share of every batch;
        the first replica's spec, with the loss averaged over the replicas and a train op that
        runs every replica's."""
        specs = []

        def replica_fn(features, labels):
            spec = self._model(features, labels, ModeKeys.TRAIN)
            specs.append(spec)
            return spec.loss, spec.train_op

        with strategy.scope():
            losses, train_ops = self._run_per_replica(strategy, input_fn, ModeKeys.TRAIN, replica_fn)
            loss = strategy.reduce(ReduceOp.MEAN, losses)
            train_op = strategy.group(train_ops)
        return specs[0]._replace(loss=loss, train_op=train_op)

    def _distributed_eval(self, strategy, input_fn) -> tuple:
        """The model function in EVAL mode once per replica of ``strategy``, each on its share
        of every batch: the first replica's spec, the op that updates every replica's metrics,
        and the metrics' values. A metric keeps its totals in variables synchronized on read
        (one copy per replica, summed when read), so its value counts every replica's
        examples; "loss" is the mean of the replicas' losses."""
        metrics_of = []

        def replica_fn(features, labels):
            spec = self._model(features, labels, ModeKeys.EVAL)
            metrics = dict(spec.eval_metric_ops)
            if "loss" not in metrics:
                metrics["loss"] = metric_mean(spec.loss)
            metrics_of.append((spec, metrics))
            return control_flow_ops.group(*[update for _, update in metrics.values()])

        with strategy.scope():
            update = strategy.group(self._run_per_replica(strategy, input_fn, ModeKeys.EVAL, replica_fn))
        spec, metrics = metrics_of[0]
        return spec, update, {key: value for key, (value, _) in metrics.items()}

    def _run_per_replica(self, strategy, input_fn, mode, replica_fn):
        """``replica_fn(features, labels)`` once per replica on its share of the input's batches."""
        kwargs = {name: value for name, value in (("mode", mode), ("params", self._params_for(mode)),
                                                  ("config", self.config)) if name in _arg_names(input_fn)}
        result = input_fn(**kwargs)
        if isinstance(result, data_lib.Dataset):
            result = _read(strategy.experimental_distribute_dataset(result))
        else:
            result = strategy._split_batch(result)
        features, labels = (result[0], result[1]) if isinstance(result, (tuple, list)) else (result, None)
        return strategy.experimental_run_v2(replica_fn, args=(features, labels))

    def _device_fn(self):
        """Where training's ops go: RunConfig's ``device_fn``, or, for a cluster task, variables on
        the ps tasks and the rest on this task (replica_device_setter); None without ps tasks."""
        config = self.config
        if config.device_fn is not None:
            return config.device_fn
        if not config.num_ps_replicas:
            return None
        return replica_device_setter(ps_tasks=config.num_ps_replicas, cluster=config.cluster_spec,
                                     worker_device=f"/job:{config.task_type}/task:{config.task_id}")

    def _restored_session(self, scaffold, checkpoint_path, hooks, master, values=None):
        if values is not None:  # (the variables' values given, by name: no checkpoint read)
            scaffold = Scaffold(init_fn=_loader(values, scaffold._user_init_fn), copy_from_scaffold=scaffold)
            creator = ChiefSessionCreator(scaffold=scaffold, master=master, config=self.config.session_config)
            return MonitoredSession(session_creator=creator, hooks=hooks), None
        checkpoint_path = checkpoint_path or self.latest_checkpoint()
        if checkpoint_path is None:
            _log.warning("Could not find trained model in model_dir: %s, running initialization to evaluate.",
                         self.model_dir)
        creator = ChiefSessionCreator(scaffold=scaffold, master=master, config=self.config.session_config,
                                      checkpoint_filename_with_path=checkpoint_path)
        return MonitoredSession(session_creator=creator, hooks=hooks), checkpoint_path

    def evaluate(self, input_fn, steps=None, hooks=None, checkpoint_path=None, name=None) -> dict:
        """The metrics of ``model_fn``'s EVAL mode over the input (or ``steps`` batches of it),
        with the model of the newest checkpoint; written as summaries to ``model_dir/eval``
        (``eval_<name>`` with ``name``). Always has "loss" (the mean) and "global_step"."""
        return self._evaluate(input_fn, steps, hooks, checkpoint_path, name)

    def _evaluate(self, input_fn, steps=None, hooks=None, checkpoint_path=None, name=None,
                  variable_values=None) -> dict:
        """``evaluate``; with ``variable_values`` (variable name -> value) the model is those
        values, not a checkpoint's (``experimental.InMemoryEvaluatorHook``)."""
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        hooks = _checked_hooks(hooks)
        strategy = self.config.eval_distribute
        with self._new_graph().as_default():
            global_step = get_or_create_global_step()
            if strategy is None:
                features, labels = self._features_and_labels(input_fn, ModeKeys.EVAL)
                spec = self._model(features, labels, ModeKeys.EVAL)
                metrics = dict(spec.eval_metric_ops)
                if "loss" not in metrics:
                    metrics["loss"] = metric_mean(spec.loss)
                update = control_flow_ops.group(*[update for _, update in metrics.values()])
                values = {key: value for key, (value, _) in metrics.items()}
            else:
                spec, update, values = self._distributed_eval(strategy, input_fn)
            values["global_step"] = global_step
            # (as TF: a cluster task evaluates by itself, unless RunConfig names an evaluation master)
            sess, path = self._restored_session(spec.scaffold or Scaffold(), checkpoint_path,
                                                [_DatasetInitializerHook()] + hooks + spec.evaluation_hooks,
                                                self.config.evaluation_master, variable_values)
            batches = 0
            with sess:
                while not sess.should_stop() and (steps is None or batches < steps):
                    try:
                        sess.run(update)
                    except errors.OutOfRangeError:
                        break
                    batches += 1
                results = sess.run_step_fn(lambda step_context: step_context.session.run(values))
        results = {key: (value.item() if isinstance(value, np.ndarray) and value.ndim == 0 else value)
                   for key, value in results.items()}
        self._write_eval_summaries(results, name)
        _log.info("Saving dict for global step %s: %s", results["global_step"],
                  ", ".join(f"{k} = {v}" for k, v in sorted(results.items())))
        return results

    def _write_eval_summaries(self, results: dict, name) -> None:
        directory = os.path.join(self.model_dir, "eval" if not name else f"eval_{name}")
        writer = FileWriter(directory)
        try:
            summary = Summary()
            for key, value in sorted(results.items()):
                if key != "global_step" and np.ndim(value) == 0 and isinstance(value, (int, float, np.number)):
                    summary.value.add(tag=key, simple_value=float(value))
            writer.add_summary(summary, int(results["global_step"]))
        finally:
            writer.close()

    def predict(self, input_fn, predict_keys=None, hooks=None, checkpoint_path=None, yield_single_examples=True):
        """Yields ``model_fn``'s PREDICT-mode predictions for the input, one example at a time
        (``yield_single_examples``) or one batch at a time, with the newest checkpoint."""
        hooks = _checked_hooks(hooks)
        with self._new_graph().as_default():
            get_or_create_global_step()
            features, _ = self._features_and_labels(input_fn, ModeKeys.PREDICT)
            spec = self._model(features, None, ModeKeys.PREDICT)
            predictions = spec.predictions
            if predict_keys is not None:
                if not isinstance(predictions, dict):
                    raise ValueError("predict_keys argument is not valid when predictions is not a dict")
                keys = [predict_keys] if isinstance(predict_keys, str) else list(predict_keys)
                missing_keys = [k for k in keys if k not in predictions]
                if missing_keys:
                    raise ValueError(f"Expected to run at least one output from {sorted(predictions)}, provided "
                                     f"{keys}")
                predictions = {k: predictions[k] for k in keys}
            sess, _ = self._restored_session(spec.scaffold or Scaffold(), checkpoint_path,
                                             [_DatasetInitializerHook()] + hooks + spec.prediction_hooks,
                                             self.config.master)
            with sess:
                while not sess.should_stop():
                    try:
                        batch = sess.run(predictions)
                    except errors.OutOfRangeError:
                        break
                    if not yield_single_examples:
                        yield batch
                        continue
                    if isinstance(batch, dict):
                        size = len(next(iter(batch.values())))
                        for i in range(size):
                            yield {key: value[i] for key, value in batch.items()}
                    else:
                        yield from batch
