"""``tf.train``: optimizers, the global step and in-graph replication."""

from ..distributed.cluster_resolver import (ClusterResolver, SlurmClusterResolver,  # noqa: F401
                                            TFConfigClusterResolver)
from ..distributed.cluster_spec import ClusterSpec  # noqa: F401
from .device_setter import (GreedyLoadBalancingStrategy, RandomStrategy, byte_size_load_fn,  # noqa: F401
                            replica_device_setter)
from .optimizer import Optimizer  # noqa: F401
from .optimizers import (AdagradOptimizer, AdamOptimizer, GradientDescentOptimizer,  # noqa: F401
                         MomentumOptimizer, RMSPropOptimizer)
from .replication import Towers, assign_to_device, average_gradients, replicate_model  # noqa: F401
from .training_util import create_global_step, get_global_step, get_or_create_global_step, global_step  # noqa: F401


def __getattr__(name):
    # The server needs gRPC: it is loaded when a program first asks for it.
    if name == "Server":
        from ..distributed.server import Server  # noqa: PLC0415

        return Server
    raise AttributeError(f"module 'distflow.train' has no attribute {name!r}")
