"""``tf.distribute``: strategies for synchronous training on several devices or machines, in
graph mode, as TensorFlow 1.14-1.15 had them (strategy.py says how they work).

What is here: ``MirroredStrategy`` (the devices of one process), ``OneDeviceStrategy``,
``experimental.MultiWorkerMirroredStrategy`` (the workers of TF_CONFIG's cluster, no ps),
``experimental.ParameterServerStrategy`` (variables on the ps tasks, workers asynchronous),
``Strategy.scope``, ``experimental_run_v2`` / ``run``, ``reduce``,
``experimental_local_results``, ``experimental_distribute_dataset``, ``make_dataset_iterator``,
``experimental_distribute_datasets_from_function`` and ``make_input_fn_iterator`` (with an
``InputContext``), ``ReplicaContext.all_reduce`` and ``merge_call`` (mirrored_run.py),
``extended``'s ``reduce_to``, ``batch_reduce_to``, ``update``, ``broadcast_to`` and
``read_var``, ``ReduceOp``, the context functions, ``get_loss_reduction``, the ``CrossDeviceOps`` kinds
(cross_device_ops.py), and Estimators' ``RunConfig(train_distribute=...)``, and
``experimental.CentralStorageStrategy`` (variables on one device of the process);
``cluster_resolver`` is tf.contrib.cluster_resolver (joined to this package by distflow's
namespace). What is not: ``TPUStrategy``.
"""

from .._namespace import missing
from . import experimental  # noqa: F401
from .cross_device_ops import (CrossDeviceOps, HierarchicalCopyAllReduce, NcclAllReduce,  # noqa: F401
                               ReductionToOneDevice)
from .strategy import (InputContext, InputReplicationMode, MirroredStrategy, OneDeviceStrategy,  # noqa: F401
                       ReduceOp, ReplicaContext, Strategy, StrategyExtended, get_cross_replica_context,
                       get_loss_reduction, get_replica_context, get_strategy, has_strategy,
                       in_cross_replica_context)
from .values import MirroredVariable, PerReplica  # noqa: F401

__getattr__ = missing("tf.distribute")
