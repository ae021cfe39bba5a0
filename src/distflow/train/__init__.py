"""``tf.train``: optimizers, the global step and in-graph replication."""

from .optimizer import Optimizer  # noqa: F401
from .optimizers import (AdagradOptimizer, AdamOptimizer, GradientDescentOptimizer,  # noqa: F401
                         MomentumOptimizer, RMSPropOptimizer)
from .replication import Towers, assign_to_device, average_gradients, replicate_model  # noqa: F401
from .training_util import create_global_step, get_global_step, get_or_create_global_step, global_step  # noqa: F401
