"""``tf.initializers``: the initializer classes under their short names."""

from ._namespace import missing
from .ops.init_ops import constant_initializer as constant  # noqa: F401
from .ops.init_ops import glorot_normal_initializer as glorot_normal  # noqa: F401
from .ops.init_ops import glorot_uniform_initializer as glorot_uniform  # noqa: F401
from .ops.init_ops import ones_initializer as ones  # noqa: F401
from .ops.init_ops import random_normal_initializer as random_normal  # noqa: F401
from .ops.init_ops import random_uniform_initializer as random_uniform  # noqa: F401
from .ops.init_ops import truncated_normal_initializer as truncated_normal  # noqa: F401
from .ops.init_ops import variance_scaling_initializer as variance_scaling  # noqa: F401
from .ops.init_ops import zeros_initializer as zeros  # noqa: F401
from .ops.state_ops import global_variables_initializer as global_variables  # noqa: F401
from .ops.state_ops import local_variables_initializer as local_variables  # noqa: F401
from .ops.state_ops import variables_initializer as variables  # noqa: F401

from .ops.init_ops import orthogonal_initializer as orthogonal  # noqa: F401
from .ops.init_ops import uniform_unit_scaling_initializer as uniform_unit_scaling  # noqa: F401
from .ops.init_ops import identity_initializer as identity  # noqa: F401
from .ops.math_extra import he_normal, he_uniform, lecun_normal, lecun_uniform  # noqa: F401
from .ops.state_ops import tables_initializer  # noqa: F401

__getattr__ = missing("tf.initializers")
