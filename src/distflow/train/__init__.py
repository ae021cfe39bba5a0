"""``tf.train``: optimizers, the global step, in-graph replication, checkpoints and monitored sessions."""

from .._namespace import missing
from ..distributed.cluster_resolver import (ClusterResolver, SlurmClusterResolver,  # noqa: F401
                                            TFConfigClusterResolver)
from ..distributed.cluster_spec import ClusterSpec  # noqa: F401
from .basic_session_run_hooks import (CheckpointSaverHook, CheckpointSaverListener, FinalOpsHook,  # noqa: F401
                                      LoggingTensorHook, NanLossDuringTrainingError, NanTensorHook,
                                      ProfilerHook, SecondOrStepTimer, StepCounterHook, StopAtStepHook,
                                      SummarySaverHook)
from .coordinator import Coordinator, LooperThread  # noqa: F401
from .device_setter import (GreedyLoadBalancingStrategy, RandomStrategy, byte_size_load_fn,  # noqa: F401
                            replica_device_setter)
from .monitored_session import (ChiefSessionCreator, MonitoredSession, MonitoredTrainingSession,  # noqa: F401
                                Scaffold, SessionCreator, SingularMonitoredSession, WorkerSessionCreator)
from .input import (batch, input_producer, limit_epochs, range_input_producer, shuffle_batch,  # noqa: F401
                    slice_input_producer, string_input_producer)
from .learning_rate_decay import (cosine_decay, cosine_decay_restarts, exponential_decay,  # noqa: F401
                                  inverse_time_decay, linear_cosine_decay, natural_exp_decay, noisy_linear_cosine_decay,
                                  piecewise_constant,
                                  piecewise_constant_decay, polynomial_decay)
from . import experimental  # noqa: F401
from .moving_averages import ExponentialMovingAverage  # noqa: F401
from .optimizer import Optimizer  # noqa: F401
from .optimizers import (AdadeltaOptimizer, AdagradDAOptimizer, AdagradOptimizer, AdamOptimizer, FtrlOptimizer,  # noqa: F401
                         GradientDescentOptimizer, MomentumOptimizer, ProximalAdagradOptimizer,
                         ProximalGradientDescentOptimizer, RMSPropOptimizer)
from .queue_runner import QueueRunner, add_queue_runner, start_queue_runners  # noqa: F401
from .replication import Towers, assign_to_device, average_gradients, replicate_model  # noqa: F401
from .meta_graph import export_meta_graph  # noqa: F401
from .saver import import_meta_graph  # noqa: F401
from .saver import (CheckpointReader, CheckpointState, NewCheckpointReader, Saver, checkpoint_exists,  # noqa: F401
                    get_checkpoint_state, latest_checkpoint, list_variables, load_variable,
                    update_checkpoint_state, write_graph)
from ..protos.distflow_pb2 import (BytesList, ClusterDef, Example, Feature, FeatureList,  # noqa: F401
                                   FeatureLists, Features, FloatList, Int64List, JobDef, SaverDef, SequenceExample,
                                   ServerDef)
from .session_manager import SessionManager  # noqa: F401
from .session_run_hook import SessionRunArgs, SessionRunContext, SessionRunHook, SessionRunValues  # noqa: F401
from .supervisor import Supervisor  # noqa: F401
from .sync_replicas_optimizer import SyncReplicasOptimizer  # noqa: F401
from ..summary.writer import summary_iterator  # noqa: F401
from .training_extras import (FeedFnHook, GlobalStepWaiterHook, basic_train_loop, batch_join,  # noqa: F401
                              checkpoints_iterator, generate_checkpoint_state_proto, get_checkpoint_mtimes,
                              init_from_checkpoint, load_checkpoint, match_filenames_once, maybe_batch,
                              maybe_batch_join, maybe_shuffle_batch, maybe_shuffle_batch_join, remove_checkpoint,
                              shuffle_batch_join)
from .training_util import assert_global_step  # noqa: F401
from .training_util import create_global_step, get_global_step, get_or_create_global_step, global_step  # noqa: F401
from .warm_starting import VocabInfo, warm_start  # noqa: F401


_missing = missing("tf.train")


def __getattr__(name):
    # The server needs gRPC: it is loaded when a program first asks for it.
    if name == "Server":
        from ..distributed.server import Server  # noqa: PLC0415

        return Server
    return _missing(name)
