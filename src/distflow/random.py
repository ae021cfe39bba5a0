"""``tf.random``: the random ops under their TF 1.13+ names."""

from .framework.random_seed import set_random_seed  # noqa: F401
from .ops.random_ops import random_normal as normal  # noqa: F401
from .ops.random_ops import random_uniform as uniform  # noqa: F401
from .ops.random_ops import random_shuffle as shuffle  # noqa: F401
from .ops.random_ops import random_gamma as gamma  # noqa: F401
from .ops.random_ops import random_poisson as poisson  # noqa: F401
from .ops.random_ops import truncated_normal  # noqa: F401
from ._namespace import missing

from .framework.random_seed import get_seed  # noqa: F401
from .ops.candidate_sampling_ops import (all_candidate_sampler, fixed_unigram_candidate_sampler,  # noqa: F401
                                         learned_unigram_candidate_sampler, log_uniform_candidate_sampler,
                                         uniform_candidate_sampler)
from .ops.math_extra import categorical  # noqa: F401
from .ops.random_ops import multinomial  # noqa: F401
from .ops.stateless_random_ops import stateless_categorical, stateless_multinomial  # noqa: F401
from .ops.stateless_random_ops import stateless_random_normal as stateless_normal  # noqa: F401
from .ops.stateless_random_ops import stateless_random_uniform as stateless_uniform  # noqa: F401
from .ops.stateless_random_ops import stateless_truncated_normal  # noqa: F401

__getattr__ = missing("tf.random")
