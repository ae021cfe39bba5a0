"""Writes docs/compat.md: every public TensorFlow 1.x name of the namespaces distflow covers,
marked supported, different, not supported, or out of scope, with the supported share.

The list of names (tf1_api.json beside this file) is TensorFlow's ``tf.compat.v1`` API,
read from a TensorFlow installation (``tf.compat.v1`` of TF 2.21, which carries TF 1.15's
names) and, for ``tf.layers`` (empty there since Keras 3) and ``tf.keras.layers``, from
TensorFlow's v1 API golden files. What distflow supports is read from the package itself, so the page cannot drift:
``python -m distflow.tools.compat`` regenerates it and ``--check`` fails if it is stale.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

NAMESPACES = ["tf", "nn", "train", "layers", "losses", "data", "summary", "metrics", "app", "logging", "gfile",
              "keras.layers"]

# Names outside distflow's scope: TF 2 and eager execution, resource-variable internals,
# XLA and TPUs. Each with the reason; nothing else is left out of the share.
_EAGER = "eager execution or TF 2 only"
_RESOURCE = "resource-variable internals"
_XLA = "XLA / TPU"
OUT_OF_SCOPE = {
    "tf": {
        **{name: _EAGER for name in [
            "GradientTape", "Module", "TensorSpec", "TypeSpec", "IndexedSlicesSpec", "NoneTensorSpec", "OptionalSpec",
            "RaggedTensorSpec", "SparseTensorSpec", "TensorArraySpec", "autograph", "experimental",
            "function", "lite", "mlir", "mixed_precision", "raw_ops", "types", "enable_eager_execution",
            "executing_eagerly_outside_functions", "enable_v2_behavior", "enable_v2_tensorshape",
            "disable_v2_tensorshape", "enable_control_flow_v2", "disable_control_flow_v2", "control_flow_v2_enabled",
            "enable_tensor_equality", "disable_tensor_equality", "vectorized_map", "wrap_function", "init_scope",
            "type_spec_from_value", "is_symbolic_tensor", "fftnd", "ifftnd", "rfftnd", "irfftnd",
            "random_index_shuffle", "ragged_fill_empty_rows", "ragged_fill_empty_rows_grad", "tensor_scatter_nd_max",
            "tensor_scatter_nd_min", "check_pinned"]},
        **{name: _RESOURCE for name in ["resource", "variant", "enable_resource_variables", "disable_resource_variables",
                                        "resource_variables_enabled"]},
        **{name: _XLA for name in ["xla", "tpu", "approx_top_k"]},
    },
    "nn": {**{name: _XLA for name in ["approx_max_k", "approx_min_k"]},
           **{name: _EAGER for name in ["experimental", "compute_average_loss", "scale_regularization_loss"]}},
    "train": {name: _EAGER for name in ["Checkpoint", "CheckpointManager", "CheckpointOptions"]},
    "data": {name: _EAGER for name in ["DatasetSpec", "NumpyIterator"]},
    "summary": {name: _EAGER for name in ["experimental", "all_v2_summary_ops", "initialize"]},
    "layers": {"experimental": _EAGER},
}

# Supported names that behave differently on purpose (README, "Where distflow differs").
DIFFERENT = {
    "tf": {
        "Session": "a host without GPUs (or CuPy) gets simulated GPUs (CPU kernels); a step on one real GPU "
                   "is replayed as a CUDA graph from its second run; steps pick a sequential or concurrent form; "
                   "closing cancels running steps; each part of a partial run is a step of its own, fed what the "
                   "earlier parts computed, and a part whose fetch waits on an earlier part's update by a control "
                   "dependency alone is refused",
        "GPUOptions": "memory is taken as steps need it (allow_growth is always on); virtual devices' memory "
                      "limits are not enforced",
        "ConfigProto": "a misspelled field is a ValueError (as the protocol buffer class); "
                       "`intra_op_parallelism_threads` sets NumPy's BLAS threads; `cluster_def` must name the "
                       "cluster the session's server was started with (propagating another cluster to running "
                       "servers, each task renamed per session, is an UnimplementedError: servers take their "
                       "cluster when they start)",
        "placeholder": "feeding a value that would lose information (a fraction or NaN to an integer, a value out of range) is a ValueError, where TF 1.x truncated or wrapped it; whole floats feed integers, as in TF",
        "py_func": "runs only in the process that built the graph",
        "get_session_handle": "the handle keeps the value its tensor had (TF 1.x kept the buffer: a handle of a "
                              "variable's read changed with the variable); the tensors of a remote session go when "
                              "it closes, and reading or deleting them adds no ops to the session's graph",
        "SparseConditionalAccumulator": "a row that one gradient has twice counts once, with its sum (TF's "
                                        "returned the second as a row of its own, so that the row's mean was off)",
        "Print": "prints to stderr while the step runs, with NumPy's formatting",
        "Variable": "a step reads a variable before updating it (TF 1.x left the order to chance)",
        "GraphDef": "distflow's own protocol buffer classes with TensorFlow's field numbers",
        "enable_eager_execution": "raises NotImplementedError (graph mode only)",
        "recompute_grad": "the second call of the function, for its gradient, re-enters the variable scope of the "
                          "first, reusing its variables (TF 1.x's made new ones under `tf.get_variable`); one that "
                          "still makes new variables is a ValueError naming them",
        "custom_gradient": "variables the function creates need not be resource variables (TF 1.x refused "
                           "others)",
        "RunMetadata": "a traced step fills `partition_graphs` and `step_stats` (every kernel call with its "
                       "time; a `grpc://` session's step, every task's); there is no `cost_graph`",
        "cond": "one If op whose branches are functions (TF 2's form; a TF 1.x GraphDef's Switch/Merge conds "
                "are rewritten so when imported); the ops of a branch run on the task of the cond. The "
                "low-level `control_flow_ops.switch` and `merge` (TF-Slim's random selector of preprocessing "
                "steps) pass the chosen branch's value, but there are no dead tensors: every branch's ops run",
        "while_loop": "one While op; iterations run one at a time (`parallel_iterations` and `swap_memory` are "
                      "accepted and ignored); a loop body cannot update a variable of another task; no "
                      "second-order gradients through a loop",
        "TensorArray": "a value, not a resource: `write` returns the TensorArray to go on with and the old one "
                       "keeps its contents; `grad` is not supported (tf.gradients differentiates through it)",
        "as_string": "`fill` may be '', '0', ' ', '-' or '+' (the printf flags TF's kernel passes it as); "
                     "another character is a ValueError",
        "gradients": "the decompositions (`cholesky`, `qr`, `svd`, `self_adjoint_eig`, "
                     "`matrix_triangular_solve`) differentiate real matrices only, as TF's formulas (QR: at "
                     "least as many rows as columns; SVD and eigenvectors: not at repeated values); `cumprod` "
                     "is differentiated exactly where its input holds zeros (TF 1.x divides by them: NaN; "
                     "TF 2 returns 0); `igamma`, `igammac` and `betainc` have no gradient for their shape parameters; "
                     "distflow differentiates `adjust_contrast`, `adjust_saturation` and `lu`, which TF does "
                     "not; like TF, the gradients of `sqrt`, `rsqrt` and `reciprocal` are 0 where none comes "
                     "in (`tf.where(x > 0, tf.sqrt(x), 0)` has no NaN gradient)",
        "import_graph_def": "TF 1.x's conds (Switch, Merge) and loops (Enter, Merge, Switch, LoopCond, "
                            "NextIteration, Exit) are rewritten as If and While ops; their TensorArray and stack "
                            "ops run, but tf.gradients of an imported TensorArray op is not built (TF 1.x's own "
                            "gradient ops, exported with the graph, run). TensorFlow's older op names (Add, Concat, "
                            "TopK, ...) are rewritten as the ops that replaced them, and its op types for what "
                            "distflow composes (FusedBatchNormV3, Selu, SegmentSum, ResizeBilinear, ...) and its "
                            "gradient ops (SqrtGrad, BroadcastGradientArgs, ShapeN, ...) run; tf.gradients does "
                            "not differentiate those op types. Resource variables (VarHandleOp and the ops on its "
                            "handle) import, restore, train (by their graph's ResourceApply ops or distflow's "
                            "optimizers) and save, and tf.gradients takes them; tf.assign does not update them "
                            "(their own assign methods do)",
    },
    "nn": {
        **{name: "the regions' boundaries are drawn by distflow's generator: TensorFlow's rules (lengths K or "
                 "K + 1, shuffled or pseudo-random), not its numbers; given the same boundaries, the same "
                 "outputs and gradients" for name in ("fractional_max_pool", "fractional_avg_pool")},
        "ctc_loss_v2": "a label equal to the blank index is an InvalidArgumentError (TensorFlow reads it as "
                       "another class, silently)",
        "dynamic_rnn": "a tf.while_loop over time as in TF 1.x; a gradient sums a weight's per-step products "
                       "as one product after the loop",
    },
    "layers": {
        "Layer": "as a program's base class (build, call, add_weight, add_loss, add_update): its `variables` "
                 "are every variable its first call made, `tf.get_variable`'s in `build` and its inner layers' "
                 "too (TF's list only those of `add_weight`)",
    },
    "losses": {
        "mean_squared_error": "integer predictions and labels are taken as float32, as TF's; float64 ones stay "
                              "float64, here and in the other losses (TF 1.x cast every loss's inputs to float32)",
    },
    "train": {
        "Server": "`stop()` exists and `join()` returns after it; a second data port carries tensors",
        "experimental": "TF 1.14-1.15's loss scaling for mixed precision (`MixedPrecisionLossScaleOptimizer`, "
                        "`FixedLossScale`, `DynamicLossScale`, `enable_mixed_precision_graph_rewrite`); the "
                        "rewrite that runs chosen ops in float16 on recent GPUs is not done (ops keep their "
                        "dtypes, as TensorFlow leaves them on other devices); not `PythonState`",
        "Saver": "checkpoints are written as safetensors shards and a JSON index (atomically), not TF's "
                 "format; checkpoints that TensorFlow wrote are read too (restored, listed, warm-started from; "
                 "its V2 bundles and its first, V1, format; partitioned variables' slices assembled), except "
                 "bfloat16 tensors; a damaged checkpoint is a DataLossError "
                 "naming the file, and `latest_checkpoint` skips it (with a warning) for the newest whole one",
        "MonitoredSession": "`run_step_fn` takes a function of one argument of any name (TF insists on "
                            "`step_context`)",
    },
    "data": {
        "Dataset": "runs in the process that built it (`prefetch` in a thread of its own; `map` and "
                   "`interleave` take `num_parallel_calls` and run one element at a time, except that a `map` "
                   "before a `batch` runs once a batch where its ops allow: the same batches, faster); "
                   "`cache(filename)` "
                   "writes distflow's own file format, not TF's; a program tensor a map function reads is "
                   "evaluated when the iterator is initialized, and a map function cannot update a variable; an "
                   "element's error ends the pass (TF goes on with the next element); SparseTensor components "
                   "are batched and unbatched but not padded or windowed",
        "experimental": "the transformations of graph-mode pipelines: `shuffle_and_repeat`, `map_and_batch`, "
                        "`parallel_interleave`, `group_by_window`, `bucket_by_sequence_length` (not "
                        "`pad_to_bucket_boundary`), `unbatch`, `dense_to_sparse_batch`, `enumerate_dataset`, "
                        "`Counter`, "
                        "`prefetch_to_device`/`copy_to_device` (accepted), `scan`, `group_by_reducer`, "
                        "`unique`, `ignore_errors`, `sample_from_datasets`, `choose_from_datasets`, "
                        "`get_single_element`, `CsvDataset`, `make_csv_dataset`, `rejection_resample`, "
                        "`make_batched_features_dataset`, `parse_example_dataset`, `take_while`, `cardinality` "
                        "(from the stages and their constant arguments; unknown where only running the "
                        "pipeline would tell), `SqlDataset` (SQLite), `RandomDataset`, the option classes "
                        "(TF 1.15's, type-checked, merged by `with_options` and kept by every transformation; "
                        "none changes how distflow runs a pipeline), `Optional` and `get_next_as_optional`, `TFRecordWriter` (the file written "
                        "whole or not at all); not the `Structure` classes or the stateful `StatsAggregator`; "
                        "`make_saveable_from_iterator` saves the pass's position and a restore runs the pass "
                        "again up to it (after the initializer)",
    },
}


# Supported names with arguments (or values) that distflow refuses with an error naming
# them; every other argument is honoured (tests/test_accepted_arguments.py keeps that true).
PARTIAL = {
    "tf": {
        "linspace": "`axis` other than 0",
        "matrix_diag": "`k` other than 0, `num_rows`, `num_cols`, `padding_value`",
        "matrix_diag_part": "`k` other than 0",
        "matrix_set_diag": "`k` other than 0",
        "serialize_sparse": "`out_type` other than string",
        "string_split": "`result_type='RaggedTensor'`",
    },
    "nn": {
        "conv_transpose": "`dilations` of a 3-D transpose",
        "conv3d_transpose": "`dilations`",
        "conv3d_backprop_filter": "`dilations`",
        "conv3d_backprop_filter_v2": "`dilations`",
        "ctc_loss": "`ctc_merge_repeated=False`",
        "max_pool_with_argmax": "`data_format` other than NHWC",
        "with_space_to_batch": "channels-first `data_format`, `spatial_dims` other than the leading ones",
    },
    "layers": {
        "batch_normalization": "`adjustment`",
    },
    "train": {
        "Saver": "`builder`, `write_version=1`",
        "export_meta_graph": "`clear_extraneous_savers=True`, `save_debug_info=True`",
        "remove_checkpoint": "`checkpoint_format_version=1`",
    },
    "summary": {
        "FileWriter": "`session`",
    },
}


def _api() -> dict:
    with open(os.path.join(os.path.dirname(__file__), "tf1_api.json"), encoding="utf-8") as f:
        return json.load(f)


def _module(tf, namespace):
    module = tf
    for part in ([] if namespace == "tf" else namespace.split(".")):
        module = getattr(module, part, None)
    return module


def _has(module, name) -> bool:
    if module is None:
        return False
    try:
        getattr(module, name)
    except AttributeError:
        return False
    return True


def survey() -> dict:
    """namespace -> {"supported": [...], "different": {...}, "missing": [...], "out_of_scope": {...}}."""
    import distflow as tf  # noqa: PLC0415

    result = {}
    for namespace in NAMESPACES:
        names = _api()[namespace]
        module = _module(tf, namespace)
        out = OUT_OF_SCOPE.get(namespace, {})
        entry = {"supported": [], "different": {}, "partial": {}, "missing": [], "out_of_scope": {}}
        for name in sorted(names):
            if name in out:
                entry["out_of_scope"][name] = out[name]
            elif _has(module, name):
                entry["supported"].append(name)
                note = DIFFERENT.get(namespace, {}).get(name)
                if note:
                    entry["different"][name] = note
                refused = PARTIAL.get(namespace, {}).get(name)
                if refused:
                    entry["partial"][name] = refused
            else:
                entry["missing"].append(name)
        result[namespace] = entry
    return result


def share(entry) -> float:
    in_scope = len(entry["supported"]) + len(entry["missing"])
    return len(entry["supported"]) / in_scope if in_scope else 1.0


def namespaces() -> list[tuple[str, str]]:
    """Every namespace of TF 1.x's ``tf`` (the modules of its API list, and tf.contrib), with
    its status here: listed name by name below, there in part, not supported, or out of scope."""
    import distflow as tf  # noqa: PLC0415

    api = _api()["tf"]
    rows = []
    for name in sorted([n for n, kind in api.items() if kind == "module"] + ["contrib"]):
        out = OUT_OF_SCOPE["tf"].get(name)
        if name in NAMESPACES:
            status = "supported: every name listed below"
        elif out:
            status = f"out of scope ({out})"
        elif name == "estimator":
            status = ("partial: `Estimator` (train, evaluate, predict), `EstimatorSpec`, `ModeKeys`, `RunConfig` "
                      "(TF_CONFIG read and checked as TF does, with its `model_dir`, `session_master`, "
                      "`eval_session_master` and `service` keys and a legacy `master` job; a cluster without a "
                      "chief, which TF refuses, takes worker 0 as its chief, as tf.distribute's multi-worker "
                      "clusters need), "
                      "`train_and_evaluate` (in one process, or as the ps, chief, worker or evaluator task that "
                      "TF_CONFIG names), `RunConfig(train_distribute=..., eval_distribute=...)` with tf.distribute "
                      "strategies (or `experimental_distribute=tf.contrib.distribute.DistributeConfig(...)`), "
                      "`RunConfig(device_fn=...)`, `experimental_max_worker_delay_secs` (workers start at once "
                      "unless it is set), "
                      "`inputs.numpy_input_fn` (a dict of labels too) and `inputs.pandas_input_fn`, `EstimatorSpec` checked as "
                      "TF checks it, the canned `DNNClassifier`, `DNNRegressor`, `LinearClassifier`, "
                      "`LinearRegressor` and `DNNLinearCombinedClassifier`/`Regressor` (their variables named as "
                      "TF's), `warm_start_from` (a checkpoint, or `WarmStartSettings` with `VocabInfo` remapping), "
                      "`export_saved_model` with `export`'s receivers and outputs (the canned estimators give TF's "
                      "heads' signatures) and `EvalSpec(exporters=...)` with `FinalExporter`, `LatestExporter`, "
                      "`BestExporter`, `BaselineClassifier`/`Regressor`, early stopping (`experimental.stop_if_*_hook`), "
                      "`tpu.TPUEstimator` with `use_tpu=False` (model functions written for TPUs, run on CPUs "
                      "and GPUs: `TPUEstimatorSpec`, `tpu.RunConfig`, `TPUConfig`), `BoostedTreesClassifier` "
                      "and `BoostedTreesRegressor` (TF's layer-by-layer growth, pruning modes, bias centering, "
                      "numeric columns at quantile buckets, several classes too) with "
                      "`experimental_feature_importances`, `experimental_predict_with_explanations` (directional "
                      "feature contributions) and `boosted_trees_*_train_in_memory`, `DNNEstimator`, "
                      "`LinearEstimator`, `DNNLinearCombinedEstimator` and `BaselineEstimator` with a head, "
                      "the head classes `BinaryClassHead`, `MultiClassHead`, `MultiLabelHead`, `RegressionHead`, "
                      "`PoissonRegressionHead`, `LogisticRegressionHead` and `MultiHead` (their metrics are "
                      "tf.keras.metrics objects, as TF's) or `tf.contrib.estimator`'s, `add_metrics`, and "
                      "tf.train's session hooks under their tf.estimator names: every name of TF 1.15's "
                      "`tf.estimator` itself, `experimental.InMemoryEvaluatorHook` (evaluation every so many "
                      "steps with the training session's variables), `make_stop_at_checkpoint_step_hook` and the "
                      "logit functions; not `experimental.LinearSDCA` and "
                      "`build_raw_supervised_input_receiver_fn`, nor `export.EvalOutput`")
        elif name == "distribute":
            status = ("partial: `MirroredStrategy`, `OneDeviceStrategy`, `experimental.MultiWorkerMirroredStrategy` "
                      "(collective all-reduce, no ps), `experimental.ParameterServerStrategy`, `Strategy.scope`, `experimental_run_v2`, `reduce`, "
                      "`experimental_local_results`, `experimental_distribute_dataset`, `make_dataset_iterator`, "
                      "`ReplicaContext.all_reduce` and `merge_call` (replica functions in threads, in turns, as TF's), "
                      "`extended.reduce_to`/`batch_reduce_to`/`update`/`broadcast_to`/`read_var`, "
                      "`ReduceOp`, the context functions, the `CrossDeviceOps` "
                      "kinds (`NcclAllReduce`, `HierarchicalCopyAllReduce`, `ReductionToOneDevice`: a strategy's "
                      "gradients are all-reduced by distflow's collectives whichever is given), devices of mixed "
                      "types in one process (`[\"/cpu:0\", \"/gpu:0\"]`, with simulated GPUs), variables "
                      "synchronized on read (`tf.VariableSynchronization.ON_READ` with a `tf.VariableAggregation`: "
                      "the metrics' totals, so metrics count every replica's examples), Estimators' "
                      "`RunConfig(train_distribute=..., eval_distribute=...)`, "
                      "`experimental_distribute_datasets_from_function` and "
                      "`make_input_fn_iterator` with an `InputContext`, `experimental.CentralStorageStrategy`, "
                      "`get_loss_reduction`, `cluster_resolver` (TF_CONFIG, Slurm, `SimpleClusterResolver`, "
                      "`UnionResolver`); not `TPUStrategy`, nor the resolvers that ask cloud services (GCE, "
                      "Kubernetes)")
        elif name == "quantization":
            status = ("partial: simulated quantization in float (the `fake_quant_*` functions and their "
                      "gradients, `quantize_and_dequantize`); not the quantized dtypes or the ops that compute "
                      "in them (`quantize`, `dequantize`, `quantized_concat`)")
        elif name == "profiler":
            status = ("partial: `profile` (parameters and float operations, by TensorFlow's formulas, by scope or "
                      "op type; to stdout, a file or nowhere), `ProfileOptionBuilder`, `Profiler`; times and "
                      "memory are not measured, and not `advise` or `write_op_log`")
        elif name == "distributions":
            status = ("partial: `Normal`, `Uniform`, `Bernoulli`, `Categorical`, `Exponential`, `Laplace`, `Gamma`, "
                      "`Beta`, `Dirichlet`, `StudentT`, `Multinomial` (sample, log_prob, prob, cdf, entropy, "
                      "moments, mode, Normal's quantile), `kl_divergence` between two of a family and "
                      "`RegisterKL`; not `DirichletMultinomial`")
        elif name == "config":
            status = ("partial: `experimental.list_physical_devices`/`list_logical_devices`, visible and virtual "
                      "devices (the CPU split into several, a GPU into logical GPUs), memory growth (distflow's "
                      "GPU memory always grows), `threading` and `optimizer` (JIT and Grappler options kept, "
                      "with no effect: distflow has its own rewrites); not TF 2's `experimental_connect_to_cluster`")
        elif name == "saved_model":
            status = ("partial: `simple_save`, `builder.SavedModelBuilder` (several tag sets, assets, main op), "
                      "`loader.load`, the signature defs and their utilities, `main_op` (it initializes the "
                      "global variables nothing set, where TF's initialized them all again after the loader's "
                      "restore), the constants; "
                      "`saved_model.pb` is TF's proto and the variables TF's checkpoint format, so TensorFlow's "
                      "loader serves a SavedModel distflow wrote where its graph holds only ops TensorFlow has "
                      "in distflow's form (a canned Estimator's or a Keras model's export: vocabulary lookups, "
                      "crosses and conds are written as TensorFlow builds them; not loops or distflow's "
                      "gradient ops); a "
                      "SavedModel TF 1.x wrote loads where its graph holds ops distflow has; not TF 2's "
                      "object-based `save`")
        elif name == "feature_column":
            status = ("partial: `numeric_column`, `bucketized_column`, `categorical_column_with_vocabulary_list` and "
                      "`_file`, `categorical_column_with_identity`, `categorical_column_with_hash_bucket` (TF's "
                      "FarmHash buckets), `crossed_column` (TF's SparseCross buckets), `indicator_column`, "
                      "`embedding_column`, `shared_embedding_columns`, `weighted_categorical_column`, "
                      "`input_layer`, `linear_model`, `make_parse_example_spec`; features dense or SparseTensors "
                      "(`parse_example`'s); TF 1.x's column protocol (`_DenseColumn`, `_CategoricalColumn`, "
                      "`_LazyBuilder`), so that columns written for TF work; embeddings from checkpoints; the "
                      "sequence columns (`sequence_categorical_column_with_*`, `sequence_numeric_column`; their "
                      "`sequence_input_layer` is `tf.contrib.feature_column`'s, as in TF 1.x)")
        elif name == "keras":
            status = ("partial, in graph mode (docs/keras.md; `tf.keras.layers` is listed name by name below): "
                      "`Sequential`, functional and subclassed `Model` (models as layers of models), "
                      "`compile`/`fit`/`evaluate`/`predict`, `utils.multi_gpu_model`, `applications` (VGG16, "
                      "VGG19, MobileNet, MobileNetV2, Xception, InceptionV3, DenseNet121/169/201, ResNet50/101/152 "
                      "and their V2 (ResNet50 TF 1.x's, `resnet.ResNet50` TF 2's), InceptionResNetV2; ImageNet "
                      "weights from "
                      "Keras's cache), the "
                      "callbacks, optimizers, losses, metrics (functions, and the metric objects: `AUC`, "
                      "`Precision`, `Mean`, ...; `add_metric`), `utils.plot_model` (Graphviz's `dot`, no "
                      "pydot), the enqueuers, the learning-rate schedules, `experimental` (`SequenceFeatures`, "
                      "`PeepholeLSTMCell`, the cosine schedules, `LinearModel`, `WideDeepModel`), `backend`, "
                      "`utils` and `preprocessing` "
                      "(sequences, text), Keras's "
                      "HDF5 files (`save`, "
                      "`load_model`, `save_weights`, `utils.HDF5Matrix`; with h5py), YAML configs (with PyYAML) "
                      "and TF checkpoints, `estimator.model_to_estimator`, `fit` "
                      "in a MirroredStrategy or MultiWorkerMirroredStrategy scope, `datasets` (MNIST, Fashion-MNIST, "
                      "Boston housing, IMDB, Reuters, CIFAR-10 and -100 from Keras's cache; the pickled ones "
                      "through a loader that builds only arrays, lists and dicts), "
                      "`experimental.export_saved_model`/`load_from_saved_model` (the serving graph), every "
                      "other name of TF 1.15's `tf.keras` modules but `mixed_precision`; not "
                      "`save_format='tf'`, nor downloads")
        elif name == "test":
            status = ("partial: `TestCase` as TF 1.x's tests use it (a fresh default graph with TF's test seed "
                      "for each test, `session`/`cached_session`/`test_session`, `evaluate`, `checkedThread`, "
                      "`get_temp_dir`, TF's assertions on arrays, tensors and nested structures of them, "
                      "`assertRaisesOpError`/`assertRaisesWithPredicateMatch`, `assertProtoEquals`, "
                      "`assertDeviceEqual`, and absltest's assertions that TF's test case inherited), "
                      "`get_temp_dir`, `create_local_cluster` (servers in this process), `assert_equal_graph_def`, "
                      "`compute_gradient`/`compute_gradient_error`, `Benchmark`, `StubOutForTesting`, `mock`, "
                      "the build queries (`is_gpu_available` and the like); not `test_src_dir_path` (no "
                      "TensorFlow source tree)")
        elif name == "io":
            status = ("partial: the file, record, parsing (the batched `parse_sequence_example` too), "
                      "serialization and queue names (each the top-level object), `gfile`, `write_graph`, and the "
                      "image decoders of PNG, BMP and JPEG (JPEG in NumPy: baseline and progressive, 8-bit, one or "
                      "three components; a pixel may differ from libjpeg's by a level or two; `dct_method` is "
                      "ignored and `ratio` averages squares of pixels), and the PNG and JPEG encoders (JPEG: baseline "
                      "with libjpeg's tables; `progressive` and `optimize_size` are accepted and not used); GIF is "
                      "recognized and refused")
        elif name == "contrib":
            status = ("partial: `tf.contrib.rnn` (TF 1.x's cells and wrappers: `LSTMBlockCell`, "
                      "`LSTMBlockFusedCell` and its base `LSTMBlockWrapper`, `GRUBlockCell`/`V2`, "
                      "`LayerNormBasicLSTMCell`, `LayerNormLSTMCell`, "
                      "`CoupledInputForgetGateLSTMCell`, `TimeFreqLSTMCell`, `GridLSTMCell`, "
                      "`BidirectionalGridLSTMCell`, `GLSTMCell`, `PhasedLSTMCell`, `Conv1DLSTMCell`/`2D`/`3D`, "
                      "`NASCell`, `UGRNNCell`, `IntersectionRNNCell`, `SRUCell`, `IndRNNCell`, `IndyGRUCell`, `IndyLSTMCell`, "
                      "`AttentionCellWrapper`, "
                      "`HighwayWrapper`, `CompiledWrapper` (no XLA: the cell runs as it is), `FusedRNNCellAdaptor`, "
                      "`TimeReversedFusedRNN`, `stack_bidirectional_dynamic_rnn`/`stack_bidirectional_rnn`, "
                      "`EmbeddingWrapper`, `InputProjectionWrapper`, `OutputProjectionWrapper`), "
                      "`tf.contrib.seq2seq` (`sequence_loss`, `BasicDecoder` with the "
                      "training, greedy, sampling, scheduled sampling (embedding and output), inference and custom "
                      "helpers, `dynamic_decode`, `tile_batch`, `LuongAttention`, "
                      "`BahdanauAttention`, the monotonic attentions (`BahdanauMonotonicAttention`, "
                      "`LuongMonotonicAttention`, `monotonic_attention`, `safe_cumprod`), `AttentionWrapper` (over one "
                      "or several mechanisms), "
                      "`BeamSearchDecoder` (length and coverage penalties) and `gather_tree`), "
                      "`tf.contrib.legacy_seq2seq` (every model: `basic_rnn_seq2seq`, `tied_rnn_seq2seq`, "
                      "`embedding_rnn_seq2seq`, `embedding_tied_rnn_seq2seq`, `embedding_attention_seq2seq`, "
                      "`one2many_rnn_seq2seq`, their decoders, `model_with_buckets` and the sequence losses, with "
                      "TF's variable names) and "
                      "`tf.contrib.lookup`, the parts TF's tutorials imported; `tf.contrib.layers` (fully_connected, "
                      "the convolutions (separable and 3-D transposed ones too), pooling, flatten, dropout, batch_norm, layer_norm, "
                      "instance_norm, group_norm, bias_add, softmax, unit_norm, repeat, stack, "
                      "one_hot_encoding, embed_sequence, pool, maxout, spatial_softmax, conv2d_in_plane, "
                      "images_to_sequence, sequence_to_images, scale_gradient, recompute_grad, rev_block and RevBlock (reversible "
                      "residual blocks whose gradient computes the activations back), dense_to_sparse, "
                      "dense_to_sparse_tensor, "
                      "indicators_to_sparse_ids, sparse_row_envelope, poincare_normalize, "
                      "the legacy fully connected layers, the Xavier and variance scaling initializers, the L1/L2 "
                      "regularizers, optimize_loss and adaptive_clipping_fn, GDN, the `summarize_*` summaries), "
                      "`tf.contrib.framework` "
                      "(arg_scope, model, local and global variables, filtering and finding variables, assigning "
                      "from values or a checkpoint, `zero_initializer`, VariableDeviceChooser, `nest`, the checkpoint "
                      "readers, `with_shape`, `reduce_sum_n`, `remove_squeezable_dimensions`, `sort`, name-scope "
                      "helpers, the deprecation decorators, `print_op`, the checkpoint-remapping initializers; not "
                      "`CriticalSection`) and "
                      "`tf.contrib.slim` (those, with TF-Slim's variable names, `utils`, `model_analyzer`, "
                      "`learning` (create_train_op, train on a Supervisor), `evaluation` (evaluate_once, "
                      "evaluation_loop), and its input: `tfexample_decoder`, "
                      "`dataset`, `data_decoder`, `parallel_reader`, `prefetch_queue`, `dataset_data_provider`, "
                      "`queues`, and `summaries`; not slim.nets: TF-Slim's nets run on these layers, their own tests passing), "
                      "`tf.contrib.data` (tf.data.experimental's transformations, `rejection_resample`, "
                      "`read_batch_features`, and TF 1.3's `Dataset` and readers, whose `map` takes `num_threads` "
                      "and `output_buffer_size`), "
                      "`tf.contrib.training` (`HParams`, `create_train_op`, "
                      "`train`, `evaluate_once`, `evaluate_repeatedly`, `checkpoints_iterator`, the evaluation hooks "
                      "and gradient helpers, the queue-based `bucket` and `bucket_by_sequence_length`, "
                      "`parse_values` with list positions (`a[1]=3`), the ps strategies of "
                      "`replica_device_setter`, `resample_at_rate`, `weighted_resample`, `FailureTolerator`, "
                      "`rejection_sample`, `stratified_sample`; not `HParamDef`, the proto, nor the sequence state "
                      "saver), "
                      "`tf.contrib.opt` (AdamW, MomentumW, LazyAdam, decoupled weight decay, Nadam, AdaMax, "
                      "AddSign and PowerSign with their sign decays, VariableClipping, DropStaleGradient, "
                      "MultitaskOptimizerWrapper, MovingAverageOptimizer, ElasticAverageOptimizer with its custom "
                      "getter (the center is read every step), `clip_gradients_by_global_norm`, LARSOptimizer, "
                      "ScipyOptimizerInterface (with SciPy installed); not ModelAverage), "
                      "`tf.contrib.distribute` (the strategies with `num_gpus`), `tf.contrib.staging.StagingArea`, "
                      "`tf.contrib.metrics` (the `streaming_*` metrics that tf.metrics has, `aggregate_metrics`, "
                      "`aggregate_metric_map`, `accuracy`, `f1_score`, and contrib's own: the confusion counts and "
                      "false positive/negative rates (at thresholds too), `count`, `cohen_kappa`, "
                      "`precision_at_recall`, `recall_at_precision`, `streaming_curve_points`, "
                      "`streaming_covariance`, `streaming_pearson_correlation`, `streaming_concat`, "
                      "`streaming_dynamic_auc`, `auc_with_confidence_intervals`, `precision_recall_at_equal_thresholds`, "
                      "the sparse top-k ones, `auc_using_histogram`, the set ops), "
                      "`tf.contrib.estimator` (`add_metrics`, `forward_features`, "
                      "`clip_gradients_by_norm`, the early-stopping hooks, `RNNClassifier` on the sequence columns, "
                      "the heads `binary_classification_head`, `multi_class_head`, `multi_label_head`, "
                      "`regression_head` and the estimators that take one, `DNNEstimator`, `LinearEstimator`, "
                      "`DNNLinearCombinedEstimator`, `BaselineEstimator`, `RNNEstimator`, "
                      "`poisson_regression_head`, `logistic_regression_head`, `regression_head`'s `loss_fn` and "
                      "`inverse_link_fn`, `multi_head`, `BoostedTreesEstimator` and the `boosted_trees_*_train_in_memory` "
                      "functions; not a classification head's `loss_fn`), `tf.contrib.losses` (TF 1.0-1.2's, "
                      "predictions first; `metric_learning`'s semi-hard triplet, lifted structure, N-pairs and "
                      "contrastive losses, not its clustering one), `tf.contrib.image` (`bipartite_match`, `adjust_hsv_in_yiq`, "
                      "`random_hsv_in_yiq`, `transform`, `rotate`, `translate` "
                      "and the "
                      "transforms' helpers, the gradient the exact adjoint; `dense_image_warp` and "
                      "`interpolate_bilinear`), "
                      "`tf.contrib.tensorboard.plugins.projector`, "
                      "`tf.contrib.nccl` (all-reduce among a process's devices, GPUs or CPUs, with a sum's "
                      "gradient), `tf.contrib.crf` (log-likelihood, "
                      "Viterbi decoding, the decoding cells), `tf.contrib.tpu` (`TPUEstimator` with `use_tpu=False`, its spec and "
                      "configs, `CrossShardOptimizer` outside a TPU: one shard), `tf.contrib.cluster_resolver` "
                      "(the TF_CONFIG and Slurm resolvers; `TPUClusterResolver` says there is no TPU), "
                      "`tf.contrib.nn` (`nth_element`, `alpha_dropout`, `scaled_softplus`, "
                      "`sampled_sparse_softmax_loss`, `rank_sampled_softmax_loss`, the `deprecated_flipped_*` "
                      "cross-entropies, `conv1d_transpose`), "
                      "`tf.contrib.util` (`constant_value`, `make_tensor_proto`, `make_ndarray`, "
                      "`ops_used_by_graph_def`), "
                      "`tf.contrib.learn`'s canned Estimators (`DNNClassifier`, `DNNRegressor`, `LinearClassifier`, "
                      "`LinearRegressor`, `DNNLinearCombinedClassifier` and `-Regressor` with `fit`/`evaluate`/"
                      "`predict` on arrays or input functions, on tf.estimator's), `Experiment`, "
                      "`learn_runner.run` (each task's schedule from TF_CONFIG) and `RunConfig` (not export "
                      "strategies, contrib's own `Estimator` base or its monitors), "
                      "`datasets.base.load_csv_with_header`, `datasets.mnist` (the tutorials' `read_data_sets`, "
                      "which `from distflow.examples.tutorials.mnist import input_data` also gives: the IDX files "
                      "are read from the directory, never downloaded), `ModeKeys` and "
                      "`preprocessing.VocabularyProcessor` (saved as JSON: TF's pickled files are refused), "
                      "`tf.contrib.layers`' old feature columns (`real_valued_column`, `sparse_column_with_*`, "
                      "`bucketized_column`, `crossed_column`, `embedding_column`, `one_hot_column`: "
                      "tf.feature_column's; and `input_from_feature_columns`, `weighted_sum_from_feature_columns`, "
                      "`shared_embedding_columns`, `create_feature_spec_for_parsing`, "
                      "`parse_feature_columns_from_examples`, `transform_features`, `bow_encoder`, "
                      "`embedding_lookup_unique`, `safe_embedding_lookup_sparse`), "
                      "`tf.contrib.lookup`'s TF 1.0 names `string_to_index_table_from_file` and `_from_tensor`, "
                      "`tf.contrib.keras`, `tf.contrib.linalg` and `tf.contrib.distributions` (TF 1.2-1.5's homes of "
                      "tf.keras, tf.linalg and tf.distributions: the same modules), `tf.contrib.deprecated` (TF "
                      "0.12's `scalar_summary` and its kin, tags used as given), `tf.contrib.sparsemax` (`sparsemax`, "
                      "`sparsemax_loss`), `tf.contrib.stateless` (and tf.random's `stateless_*`: the same seed gives "
                      "the same numbers everywhere, though not TensorFlow's numbers), "
                      "`tf.contrib.all_reduce` (ring, recursive halving and doubling, shuffle, NCCL and their "
                      "two-level forms, built into the graph), "
                      "`tf.contrib.factorization`'s k-means (`KMeans`, `KMeansClustering`, which is also "
                      "`tf.estimator.experimental.KMeans`: the first step sets the centers from its own batch, and a "
                      "center without points stays where it is; not WALS nor the Gaussian mixture), "
                      "`tf.contrib.feature_column` (the sequence columns of TF 1.13-1.15: "
                      "`sequence_categorical_column_with_*`, `sequence_numeric_column`, `sequence_input_layer`, "
                      "`concatenate_context_input`), "
                      "`tf.contrib.cudnn_rnn` (`CudnnLSTM`, `CudnnGRU`, `CudnnRNNTanh`, `CudnnRNNRelu` on any device: "
                      "cuDNN's equations, its layout of the weights for one layer and direction, their canonical "
                      "names for `CudnnCompatibleLSTMCell` and `CudnnCompatibleGRUCell` through the saveables; not "
                      "`skip_input`), `tf.contrib.resampler` (the bilinear sampler of spatial transformers), "
                      "`tf.contrib.tensor_forest` (the online random forests of TF 1.3-1.15: `ForestHParams`, "
                      "`RandomForestGraphs`, `TensorForestEstimator`, `CoreTensorForestEstimator`; their state in "
                      "variables, not resources, so `resources.initialize_resources` has nothing to start; dense "
                      "features; the `'basic'` finish, no pruning, the `'all_dense'` model; not "
                      "`tf.contrib.boosted_trees`, whose Estimators `tf.estimator.BoostedTrees*` replace), "
                      "`tf.contrib.summary` (TF 1.8-1.15's self-writing summaries in graph mode: file writers "
                      "shared by log directory, the recording contexts, scalar/histogram/image/audio/generic/graph, "
                      "`all_summary_ops`, `initialize`; not `create_db_writer`), "
                      "the rest of contrib is not supported")
        elif _has(tf, name):
            status = "present (its names are not listed one by one here; most are also top-level names)"
        else:
            status = "not supported"
        rows.append((f"tf.{name}", status))
    return rows


def render() -> str:
    data = survey()
    lines = [
        "# TensorFlow 1.x names in distflow",
        "",
        "Generated by `python -m distflow.tools.compat` from the package itself; do not edit by hand.",
        "A name is *supported* when `tf.<name>` exists with TensorFlow 1.x's meaning; *different* ones",
        "are supported with a difference made on purpose; *not supported* ones raise an",
        "AttributeError saying so. Out of scope: eager execution and TF 2 only names,",
        "resource-variable internals, XLA and TPUs (and tf.contrib, which is not listed).",
        "The names are TensorFlow's `tf.compat.v1` API (TF 1.15's names as TF 2.21 carries them;",
        "`tf.layers` from TensorFlow's API golden file). `tf.compat.v1` is distflow itself;",
        "`tf.compat.v2` (TF 2's API) is refused, by attribute and by import, with that reason.",
        "",
        "*Partial* names exist but refuse some arguments of TF 1.x's, with an error that names them;",
        "the table counts them as supported.",
        "",
        "TensorFlow's internal module paths, which programs imported public names from",
        "(`from tensorflow.python.ops import math_ops`, `from tensorflow.python.client import",
        "device_lib`), are `distflow.python.<path>`: each name is looked up in the public namespace",
        "the path suggests, then in distflow's own module of that path (`distflow/python`). Besides",
        "the public names there are `client.device_lib.list_local_devices` (the CPU and real GPUs,",
        "not the simulated ones), `tools.inspect_checkpoint` and the decorator helpers",
        "`util.tf_decorator` and `util.tf_contextlib` (which libraries built on TF 1.x imported); TF's",
        "generated `gen_*_ops` and the rest of its",
        "private helpers are not. The paths inside tf.contrib's parts",
        "(`from tensorflow.contrib.framework.python.ops import arg_scope`,",
        "`tensorflow.contrib.layers.python.layers.initializers`,",
        "`tensorflow.contrib.learn.python.learn.datasets.mnist`, TF 1.3-1.4's",
        "`tensorflow.contrib.keras.api.keras.layers`) are `distflow.contrib.<part>.python.<path>`",
        "(and `.api.<path>`): each name is looked up in the namespaces of `tf.contrib.<part>` that the",
        "path walks through, deepest first. TensorFlow's protocol buffer modules are `distflow.core.<dir>.<name>_pb2`",
        "(`from distflow.core.framework import graph_pb2, summary_pb2`, `core.protobuf.config_pb2`,",
        "`saver_pb2`, `meta_graph_pb2`, `core.util.event_pb2`, `core.example.example_pb2`): their",
        "names are distflow's messages of TF's names and bytes, and its session options; not",
        "`rewriter_config_pb2.RewriterConfig` (Grappler's options: distflow's rewrites are set with",
        "`OptimizerOptions`).",
        "",
        "| namespace | supported | not supported | out of scope | supported share |",
        "|---|---:|---:|---:|---:|",
    ]
    total_supported = total_in_scope = 0
    for namespace in NAMESPACES:
        entry = data[namespace]
        label = "tf" if namespace == "tf" else f"tf.{namespace}"
        lines.append(f"| `{label}` | {len(entry['supported'])} | {len(entry['missing'])} | "
                     f"{len(entry['out_of_scope'])} | {100 * share(entry):.0f}% |")
        total_supported += len(entry["supported"])
        total_in_scope += len(entry["supported"]) + len(entry["missing"])
    lines.append(f"| all | {total_supported} | {total_in_scope - total_supported} | | "
                 f"{100 * total_supported / total_in_scope:.0f}% |")
    lines += ["", "## Every namespace", "", "| namespace | status |", "|---|---|"]
    lines += [f"| `{name}` | {status} |" for name, status in namespaces()]
    for namespace in NAMESPACES:
        entry = data[namespace]
        label = "tf" if namespace == "tf" else f"tf.{namespace}"
        lines += ["", f"## `{label}`", ""]
        if entry["different"]:
            lines.append("Different on purpose:")
            lines.append("")
            lines += [f"- `{name}`: {note}" for name, note in sorted(entry["different"].items())]
            lines.append("")
        if entry["partial"]:
            lines.append("Partial (an error names what they refuse; every other argument is honoured):")
            lines.append("")
            lines += [f"- `{name}`: refuses {what}" for name, what in sorted(entry["partial"].items())]
            lines.append("")
        whole = [n for n in entry["supported"] if n not in entry["partial"]]
        lines.append(f"Supported ({len(whole)}): " + ", ".join(f"`{n}`" for n in whole))
        lines.append("")
        lines.append(f"Not supported ({len(entry['missing'])}): "
                     + (", ".join(f"`{n}`" for n in entry["missing"]) or "none"))
        if entry["out_of_scope"]:
            lines.append("")
            by_reason: dict = {}
            for name, reason in entry["out_of_scope"].items():
                by_reason.setdefault(reason, []).append(name)
            for reason, names in sorted(by_reason.items()):
                lines.append(f"Out of scope ({reason}): " + ", ".join(f"`{n}`" for n in sorted(names)))
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default="docs/compat.md")
    parser.add_argument("--check", action="store_true", help="fail if the file is not what would be written")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        with open(args.output, encoding="utf-8") as f:
            if f.read() != text:
                print(f"{args.output} is stale: run python -m distflow.tools.compat", file=sys.stderr)
                return 1
        return 0
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
