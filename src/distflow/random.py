"""``tf.random``: the random ops under their TF 1.13+ names."""

from .framework.random_seed import set_random_seed  # noqa: F401
from .ops.random_ops import random_normal as normal  # noqa: F401
from .ops.random_ops import random_uniform as uniform  # noqa: F401
from .ops.random_ops import random_shuffle as shuffle  # noqa: F401
from .ops.random_ops import random_gamma as gamma  # noqa: F401
from .ops.random_ops import random_poisson as poisson  # noqa: F401
from .ops.random_ops import truncated_normal  # noqa: F401
from ._namespace import missing

__getattr__ = missing("tf.random")
