"""``tf.estimator``: a model written once as a ``model_fn``, trained, evaluated and used for
predictions by an Estimator, as TF 1.x (1.4 to 1.15) programs wrote them.

What is here: ``Estimator`` (train, evaluate, predict, get_variable_value,
latest_checkpoint), ``EstimatorSpec``, ``ModeKeys``, ``RunConfig`` (which reads TF_CONFIG),
``train_and_evaluate`` with ``TrainSpec``/``EvalSpec`` in one process or as the task of a
TF_CONFIG cluster it is (ps, chief, worker: between-graph, the variables on the ps tasks;
evaluator: each new checkpoint evaluated), ``RunConfig(train_distribute=strategy)`` (the
model function once per replica of a tf.distribute strategy: MirroredStrategy in one
process, MultiWorkerMirroredStrategy across the chief and workers with no ps), the canned
estimators (``DNNClassifier``, ``DNNRegressor``, ``LinearClassifier``, ``LinearRegressor``,
``DNNLinearCombinedClassifier``/``Regressor``, on tf.feature_column; ``BaselineClassifier``
and ``BaselineRegressor``; ``DNNEstimator``, ``LinearEstimator``, ``DNNLinearCombinedEstimator``
and ``BaselineEstimator`` with a head: TF 2's classes (``BinaryClassHead`` and the others:
head.py) or tf.contrib.estimator's), gradient boosted trees
(``BoostedTreesClassifier``, ``BoostedTreesRegressor``: boosted_trees.py), ``add_metrics``,
early stopping hooks (``experimental.stop_if_no_decrease_hook`` and the others:
early_stopping.py), ``experimental.InMemoryEvaluatorHook`` (evaluation_hooks.py),
``inputs.numpy_input_fn``, and tf.train's session hooks under their tf.estimator names.
Training runs in a MonitoredTrainingSession that checkpoints to ``model_dir``; evaluation restores the
newest checkpoint and writes its metrics as summaries to ``model_dir/eval``.
``export_saved_model`` writes a SavedModel for serving, from the receiver tensors that
``export`` (``ServingInputReceiver``, ``build_raw_serving_input_receiver_fn``,
``build_parsing_serving_input_receiver_fn``) describes and the model function's export
outputs (``export.PredictOutput``, ``ClassificationOutput``, ``RegressionOutput``; the canned
estimators give TF's heads' signatures); ``EvalSpec(exporters=...)`` takes ``FinalExporter``,
``LatestExporter`` and ``BestExporter``. ``tpu.TPUEstimator`` runs model functions written for
TPUs on CPUs and GPUs (``use_tpu=False``).
"""

from .._namespace import missing
from . import experimental, export, inputs, tpu  # noqa: F401
from .boosted_trees import (BoostedTreesClassifier, BoostedTreesRegressor,  # noqa: F401
                            boosted_trees_classifier_train_in_memory, boosted_trees_regressor_train_in_memory)
from .canned import (BaselineClassifier, BaselineEstimator, BaselineRegressor, DNNClassifier,  # noqa: F401
                     DNNEstimator, DNNLinearCombinedClassifier, DNNLinearCombinedEstimator, DNNLinearCombinedRegressor,
                     DNNRegressor, LinearClassifier, LinearEstimator, LinearRegressor)
from .extenders import add_metrics  # noqa: F401
from .head import (BinaryClassHead, Head, LogisticRegressionHead, MultiClassHead, MultiHead,  # noqa: F401
                   MultiLabelHead, PoissonRegressionHead, RegressionHead)
# (TF 1.14-1.15 also export the training hooks here: the same classes as tf.train's)
from ..train.basic_session_run_hooks import (CheckpointSaverHook, CheckpointSaverListener,  # noqa: F401
                                             FinalOpsHook, LoggingTensorHook, NanLossDuringTrainingError,
                                             NanTensorHook, ProfilerHook, SecondOrStepTimer, StepCounterHook,
                                             StopAtStepHook, SummarySaverHook)
from ..train.session_run_hook import SessionRunArgs, SessionRunContext, SessionRunHook, SessionRunValues  # noqa: F401
from ..train.training_extras import FeedFnHook, GlobalStepWaiterHook  # noqa: F401
from .estimator import Estimator, EstimatorSpec, ModeKeys  # noqa: F401
from .parsing_utils import classifier_parse_example_spec, regressor_parse_example_spec  # noqa: F401
from .exporter import BestExporter, Exporter, FinalExporter, LatestExporter  # noqa: F401
from .run_config import RunConfig  # noqa: F401
from .training import EvalSpec, TrainSpec, train_and_evaluate  # noqa: F401
from ..train.warm_starting import VocabInfo, WarmStartSettings  # noqa: F401

__getattr__ = missing("tf.estimator")
